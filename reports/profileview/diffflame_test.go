package profileview

import (
	"bytes"
	"encoding/json"
	"html"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/testbin"
)

// vbenchCmd runs the real vbench binary; it fails the test unless it exits 0.
func vbenchCmd(t *testing.T, args ...string) string {
	t.Helper()
	testbin.ProfilerLib(t) // next to vbench, where it looks by default
	cmd := exec.Command(testbin.Vbench(t), args...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		t.Fatalf("vbench %v: %v\n%s", args, err, se.String())
	}
	return so.String()
}

// twoBuilds profiles TwoWork (cmd/vbench/cli/testdata/csharp/twowork) under
// engine as OLD (Work.Hot and Work.Cold 40 million steps each) and NEW
// (Work.Hot ten times as many): one method does more work, nothing else
// changes. It returns the two profile directories. Ten times, not less:
// tracing's times are wall-clock, and on a loaded machine (each process
// getting a sixth of a core) a profile's other functions swing by a
// hundred milliseconds; Hot's 360 million more steps are several times that.
func twoBuilds(t *testing.T, engine string) (old, new string) {
	dll := testbin.Workload(t, "cmd/vbench/cli/testdata/csharp/twowork/TwoWork.csproj")
	dir := t.TempDir()
	old, new = filepath.Join(dir, "old"), filepath.Join(dir, "new")
	for _, side := range []struct{ out, hot string }{{old, "40"}, {new, "400"}} {
		args := []string{"profile", "--mode", engine, "--out", side.out}
		if modes.Engine(engine).Samples() {
			args = append(args, "--interval", "1ms")
		}
		vbenchCmd(t, append(args, "--", "dotnet", dll, side.hot, "40")...)
	}
	return old, new
}

// The diff of two real profiles names the method that does more work
// first, grown, under both kinds of engine, in JSON and text.
func TestDiffOfRealProfilesNamesTheMethodThatDoesMoreWork(t *testing.T) {
	if testing.Short() {
		t.Skip("profiles a real program four times")
	}
	for _, engine := range []string{"tracing", "sampling"} {
		t.Run(engine, func(t *testing.T) {
			old, new := twoBuilds(t, engine)
			var d DiffJSON
			if err := json.Unmarshal([]byte(vbenchCmd(t, "diff", old, new, "--format", "json")), &d); err != nil {
				t.Fatal(err)
			}
			wantUnit := map[string]string{"tracing": "ns", "sampling": "share"}[engine]
			if d.Unit != wantUnit || len(d.Functions) < 2 {
				t.Fatalf("unit %q (want %q), %d functions", d.Unit, wantUnit, len(d.Functions))
			}
			first := d.Functions[0]
			if first.Function != "Work.Hot" || first.Change <= 0 || first.Contribution <= 0 {
				t.Errorf("first function %+v, want Work.Hot grown; all: %+v", first, d.Functions)
			}
			for _, f := range d.Functions[1:] {
				if f.Function == "Work.Cold" && engine == "tracing" && 2*abs(f.Change) > first.Change {
					t.Errorf("Work.Cold did the same work and changed %v ns, more than half of Work.Hot's %v", f.Change, first.Change)
				}
			}
			text := vbenchCmd(t, "diff", old, new)
			if !regexp.MustCompile(`(?m)^function +self old +self new +change`).MatchString(text) ||
				!regexp.MustCompile(`(?m)^Work\.Hot +\S+ +\S+ +\+`).MatchString(text) {
				t.Errorf("text diff:\n%s", text)
			}
		})
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// The differential flame graph of two real profiles, looked at in
// Chromium: Work.Hot's frame is drawn, wide, and red (it grew); Work.Cold's
// is drawn and not red; the screenshot shows red where Work.Hot is.
func TestDiffFlameGraphInChromium(t *testing.T) {
	chromium(t)
	old, new := twoBuilds(t, "tracing")
	dir := t.TempDir()
	svgPath := filepath.Join(dir, "diff.svg")
	vbenchCmd(t, "diff", old, new, "-o", svgPath)
	svg, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	// The SVG in a page with a probe: each frame's name, box and fill as
	// Chromium computed them.
	page := filepath.Join(dir, "diff.html")
	doc := "<!DOCTYPE html><html><body style=\"margin:0\">" + string(svg[bytes.Index(svg, []byte("<svg")):]) + `<script>
var out = [];
document.querySelectorAll('g.frame').forEach(function (g) {
  var r = g.querySelector('rect').getBoundingClientRect();
  out.push({name: g.dataset.name, x: r.x, y: r.y, w: r.width, h: r.height, fill: getComputedStyle(g.querySelector('rect')).fill});
});
var pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script></body></html>`
	if err := os.WriteFile(page, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(runChromium(t, page, "--dump-dom"))
	raw := regexp.MustCompile(`<pre id="probe">(.*?)</pre>`).FindStringSubmatch(dom)
	if raw == nil {
		t.Fatalf("the probe did not run; DOM:\n%.2000s", dom)
	}
	var frames []struct {
		Name       string
		X, Y, W, H float64
		Fill       string
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(raw[1])), &frames); err != nil {
		t.Fatal(err)
	}
	byName := map[string]int{}
	for i, f := range frames {
		if _, ok := byName[f.Name]; !ok {
			byName[f.Name] = i
		}
	}
	hi, ok1 := byName["Work.Hot"]
	ci, ok2 := byName["Work.Cold"]
	if !ok1 || !ok2 {
		t.Fatalf("frames drawn: %+v", frames)
	}
	hot, cold := frames[hi], frames[ci]
	rgb := regexp.MustCompile(`rgb\((\d+), (\d+), (\d+)\)`)
	red := func(fill string) bool {
		m := rgb.FindStringSubmatch(fill)
		if m == nil {
			return false
		}
		g, _ := strconv.Atoi(m[2])
		return m[1] == "255" && m[2] == m[3] && g < 128 // at least half the largest change
	}
	if !red(hot.Fill) || hot.W < 100 || hot.H < 10 {
		t.Errorf("Work.Hot's frame: %+v, want red and wide (width from NEW, where it does 4/5 of the work)", hot)
	}
	if red(cold.Fill) || cold.W < 50 {
		t.Errorf("Work.Cold's frame: %+v, want drawn and not deep red", cold)
	}

	// The screenshot shows it: most of Work.Hot's frame is red.
	shot := filepath.Join(dir, "diff.png")
	runChromium(t, page, "--screenshot="+shot)
	img := decodePNG(t, shot)
	box := image.Rect(int(hot.X)+2, int(hot.Y)+2, int(hot.X+hot.W)-2, int(hot.Y+hot.H)-2)
	reddish := 0
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if r>>8 > 200 && g>>8 < 160 && b>>8 < 160 {
				reddish++
			}
		}
	}
	if area := box.Dx() * box.Dy(); area <= 0 || reddish < area/2 {
		t.Errorf("screenshot: %d reddish pixels of %d in Work.Hot's frame %v", reddish, area, box)
	}
	if strings.Contains(string(svg), "NaN") {
		t.Error("the SVG holds NaN")
	}
	if strings.Contains(string(svg), "data-calls=") {
		t.Error("the differential graph's frames claim call counts: its paths count none (every frame said 0)")
	}
}
