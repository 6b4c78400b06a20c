package reports

import (
	"encoding/json"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	hist "vbench/internal/history"
	"vbench/stats"
)

// The history page in a real browser, as the run report is: a real history
// (testdata/history.jsonl: 20 runs of fakework through vbench run and
// vbench history append, tracing 10% slower from run 12) rendered by
// HistoryHTML, opened in headless Chromium. Every series has a chart with
// real geometry, the change points' table names their commits, and the
// screenshot shows the change point's red line and the tracing stretch's
// blue inside the tracing charts, and none of that red in the none chart.
func TestHistoryPageInChromium(t *testing.T) {
	chromium(t)
	entries, err := hist.Read(fixture("history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	a := hist.Analyze(entries, stats.ChangeOptions{})
	// Every cell's time and tracing's overhead (fakework is no .NET program:
	// no whole-program figure of it is judged, so none is a series).
	if len(a.Series) != 3 || len(a.All()) != 2 {
		t.Fatalf("the fixture has %d series and %d change points, want 3 and 2 (tracing's time and overhead)", len(a.Series), len(a.All()))
	}
	var doc strings.Builder
	if err := HistoryHTML(&doc, "history.jsonl", a); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(doc.String(), "<script") || regexp.MustCompile(`(src|href)=`).MatchString(doc.String()) {
		t.Fatal("the page is not self-contained")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "history.html")
	if err := os.WriteFile(page, []byte(doc.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	dom := string(runChromium(t, page, "--dump-dom"))
	ids := regexp.MustCompile(`<svg [^>]*id="(history-\d+)"[^>]*class="chart`).FindAllStringSubmatch(dom, -1)
	if len(ids) != len(a.Series) {
		t.Fatalf("rendered DOM has %d history charts, want %d", len(ids), len(a.Series))
	}
	for _, c := range a.All() {
		row := regexp.MustCompile(`<tr class="slower"><td><code>fib/tracing</code> ` + c.Series + `</td><td>12</td><td><code>` + c.CommitBefore[:10] + `..` + c.Commit[:10] + `</code>`)
		if !row.MatchString(dom) {
			t.Errorf("the change points' table has no row for %s/%s %s at 12 (%s..%s)", c.Workload, c.Mode, c.Series, c.CommitBefore[:10], c.Commit[:10])
		}
	}
	if n := strings.Count(element(t, dom, "table", "runs"), "<tr>"); n != len(entries)+1 {
		t.Errorf("the runs table has %d rows, want a header and %d runs", n, len(entries))
	}

	probePage := filepath.Join(dir, "probe.html")
	if err := os.WriteFile(probePage, []byte(strings.Replace(doc.String(), "</body>", probeScript+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	raw := regexp.MustCompile(`<pre id="probe">(.*?)</pre>`).FindStringSubmatch(string(runChromium(t, probePage, "--dump-dom")))
	if raw == nil {
		t.Fatal("the probe did not run")
	}
	var boxes map[string]probed
	if err := json.Unmarshal([]byte(strings.NewReplacer("&quot;", `"`, "&amp;", "&").Replace(raw[1])), &boxes); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		b := boxes[id[1]]
		if b.Box.W < 400 || b.Box.H < 100 || b.Drawn < 20 || b.Drawn*10 < b.Shapes*9 {
			t.Errorf("#%s: %.0f×%.0f px, %d of %d shapes drawn", id[1], b.Box.W, b.Box.H, b.Drawn, b.Shapes)
		}
	}

	shot := filepath.Join(dir, "history.png")
	runChromium(t, page, "--screenshot="+shot)
	img := decodePNG(t, shot)
	region := func(id string) image.Rectangle {
		b := boxes[id].Box
		return image.Rect(int(b.X), int(b.Y), int(b.X+b.W), int(b.Y+b.H)).Intersect(img.Bounds())
	}
	m := &Matrix{}
	for i, s := range a.Series {
		if s.Kind != hist.KindTime && s.Kind != hist.KindOverhead {
			continue // rss: below the time's charts, its own colours checked by the probe above
		}
		rect := region(ids[i][1])
		if rect.Empty() {
			t.Fatalf("#%s is below the screenshot", ids[i][1])
		}
		red := countNear(img, rect, changeColor)
		mode := countNear(img, rect, m.ModeColor(s.Mode))
		switch {
		case s.Mode == "tracing" && red < 100:
			t.Errorf("%s: %d pixels of the change point's red; its line did not render", s.Key(), red)
		case s.Mode == "none" && red > 0:
			t.Errorf("%s has no change point but shows %d red pixels", s.Key(), red)
		}
		if mode < 300 {
			t.Errorf("%s: %d pixels of the mode's colour; the stable stretches did not render", s.Key(), mode)
		}
	}
	if dst := os.Getenv("VBENCH_SCREENSHOT"); dst != "" {
		if data, err := os.ReadFile(shot); err == nil {
			os.WriteFile(dst, data, 0o644)
		}
	}
}
