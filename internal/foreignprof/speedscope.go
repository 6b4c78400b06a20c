package foreignprof

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"

	"vbench/internal/profile"
)

// speedscope's file format (its schema's fields that stacks need).
type ssFile struct {
	Shared struct {
		Frames []struct {
			Name string `json:"name"`
		} `json:"frames"`
	} `json:"shared"`
	Profiles []ssProfile `json:"profiles"`
}

type ssProfile struct {
	Type   string `json:"type"` // evented | sampled
	Name   string `json:"name"`
	Unit   string `json:"unit"`
	Events []struct {
		Type  string  `json:"type"` // O (open) | C (close)
		At    float64 `json:"at"`
		Frame int     `json:"frame"`
	} `json:"events"`
	Samples [][]int   `json:"samples"` // root first
	Weights []float64 `json:"weights"`
}

// ReadSpeedscope reads a speedscope file (as `dotnet-trace convert --format
// speedscope` writes one: a profile per thread). Each profile is a thread.
// Weights in a unit of "none" are sample counts; weights in time are
// turned into counts by the smallest positive weight in the file, one
// sampling interval as dotnet-trace writes it (each sample lasts until
// the next), an estimate a profile of long runs of one stack keeps right.
func ReadSpeedscope(path string) (*profile.Profile, error) {
	stacks, err := speedscopeStacks(path)
	if err != nil {
		return nil, err
	}
	return FromStacks(stacks, false), nil
}

func speedscopeStacks(path string) ([]Stack, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f ssFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: not a speedscope file: %w", path, err)
	}
	if len(f.Profiles) == 0 {
		return nil, fmt.Errorf("%s: not a speedscope file: no profiles", path)
	}
	type weighted struct {
		thread int
		frames []int
		w      float64
	}
	var all []weighted
	counts := true
	frameName := func(i int) (string, error) {
		if i < 0 || i >= len(f.Shared.Frames) {
			return "", fmt.Errorf("%s: frame %d is not in shared.frames (%d frames)", path, i, len(f.Shared.Frames))
		}
		return f.Shared.Frames[i].Name, nil
	}
	for pi, p := range f.Profiles {
		if p.Unit != "" && p.Unit != "none" {
			counts = false
		}
		switch p.Type {
		case "sampled":
			if len(p.Weights) != 0 && len(p.Weights) != len(p.Samples) {
				return nil, fmt.Errorf("%s: profiles[%d]: %d samples, %d weights", path, pi, len(p.Samples), len(p.Weights))
			}
			for i, s := range p.Samples {
				w := 1.0
				if len(p.Weights) > 0 {
					w = p.Weights[i]
				}
				all = append(all, weighted{pi, s, w})
			}
		case "evented":
			var open []int
			last := 0.0
			for i, e := range p.Events {
				if i > 0 && len(open) > 0 && e.At > last {
					all = append(all, weighted{pi, append([]int(nil), open...), e.At - last})
				}
				last = e.At
				switch e.Type {
				case "O":
					open = append(open, e.Frame)
				case "C":
					if len(open) == 0 || open[len(open)-1] != e.Frame {
						return nil, fmt.Errorf("%s: profiles[%d].events[%d] closes frame %d, which is not the innermost open one", path, pi, i, e.Frame)
					}
					open = open[:len(open)-1]
				default:
					return nil, fmt.Errorf("%s: profiles[%d].events[%d]: unknown event type %q", path, pi, i, e.Type)
				}
			}
		default:
			return nil, fmt.Errorf("%s: profiles[%d]: unknown profile type %q (want evented or sampled)", path, pi, p.Type)
		}
	}
	quantum := 1.0
	if !counts {
		ws := make([]float64, 0, len(all))
		for _, x := range all {
			if x.w > 0 {
				ws = append(ws, x.w)
			}
		}
		sort.Float64s(ws)
		if len(ws) > 0 {
			quantum = ws[0]
		}
	}
	stacks := make([]Stack, 0, len(all))
	for _, x := range all {
		n := int64(math.Round(x.w / quantum))
		if n <= 0 || len(x.frames) == 0 {
			continue
		}
		s := Stack{Thread: x.thread, Count: n}
		for _, fi := range x.frames {
			name, err := frameName(fi)
			if err != nil {
				return nil, err
			}
			s.Frames = append(s.Frames, name)
		}
		stacks = append(stacks, s)
	}
	return stacks, nil
}
