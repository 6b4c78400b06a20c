//go:build vbenchstudy

package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"vbench/internal/atomicfile"
	"vbench/internal/noise"
	"vbench/internal/results"

	"encoding/json"
)

// record turns the results files scripts/studies/noise-study.sh wrote in dir into a
// recording: per invocation, every cell's measured elapsed times in round
// order (the k-th measured run of every cell ran in round k), plus the
// machine's load as vbench and `uptime` saw it.
func record(dir, out, note string) error {
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(files)
	uptimes := readUptimes(filepath.Join(dir, "uptime.log"))
	d := noise.Data{Recorded: time.Now().UTC().Truncate(time.Second), Note: note}
	for _, path := range files {
		base := strings.TrimSuffix(filepath.Base(path), ".json")
		var kind, side string
		switch {
		case strings.HasPrefix(base, "within-"):
			kind = noise.Within
		case strings.HasPrefix(base, "across-"):
			kind, side = noise.Across, base[len(base)-1:]
		default:
			continue
		}
		f, err := results.ReadFile(path)
		if err != nil {
			return err
		}
		if f.Partial {
			return fmt.Errorf("%s: partial results", path)
		}
		if d.Machine == "" {
			d.Machine = fmt.Sprintf("%s, %d cores, %s, .NET %s", f.Machine.CPUModel, f.Machine.Cores, f.Machine.OS, f.Machine.DotnetRuntime)
		}
		v := noise.Invocation{
			Name: base, Kind: kind, Side: side, Started: f.Started,
			Seconds:  f.Finished.Sub(f.Started).Round(time.Second).Seconds(),
			OtherCPU: round3(f.OtherCPU), Load: f.LoadAverage, Uptime: uptimes[base],
			Modes: map[string]string{}, Elapsed: map[string][]float64{}, KernelCPU: map[string][]float64{}, CPU: map[string][]float64{},
		}
		for _, c := range f.Results {
			if c.Failed() {
				return fmt.Errorf("%s: cell %s/%s failed: %s", path, c.Workload, c.Mode, c.Failure)
			}
			for _, r := range c.Measured() {
				v.Elapsed[c.Workload] = append(v.Elapsed[c.Workload], float64(r.ElapsedNs))
				v.KernelCPU[c.Workload] = append(v.KernelCPU[c.Workload], float64(r.CPUNs))
				v.CPU[c.Workload] = append(v.CPU[c.Workload], float64(r.UserNs+r.SysNs))
			}
			v.Modes[c.Workload] = string(c.Mode)
		}
		d.Invocations = append(d.Invocations, v)
	}
	if len(d.Invocations) == 0 {
		return fmt.Errorf("%s: no within-*.json or across-*.json results", dir)
	}
	b, err := json.MarshalIndent(&d, "", " ")
	if err != nil {
		return err
	}
	// One line per sample array: the file stays small and diffable.
	b = numberArray.ReplaceAllFunc(b, func(m []byte) []byte { return space.ReplaceAll(m, nil) })
	return atomicfile.WriteFile(out, append(b, '\n'), 0o666)
}

// readUptimes reads uptime.log's "<file> before|after: <uptime>" lines.
func readUptimes(path string) map[string][]string {
	out := map[string][]string{}
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		_, up, _ := strings.Cut(rest, ": ")
		name = strings.TrimSuffix(name, ".json")
		out[name] = append(out[name], strings.TrimSpace(up))
	}
	return out
}

var (
	numberArray = regexp.MustCompile(`\[[-0-9.e+,\s]+\]`)
	space       = regexp.MustCompile(`\s+`)
)

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }
