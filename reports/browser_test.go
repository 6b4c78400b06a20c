package reports

import (
	"encoding/json"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"vbench/internal/testbin"
)

// The HTML report is checked in a real browser: headless Chromium renders it,
// the DOM it built must hold the charts with real geometry, and a screenshot
// must show them. Chromium comes from scripts/ensure-chromium.sh (CI runs it);
// VBENCH_SKIP_BROWSER=1 skips this where no browser can be installed.

func chromium(t *testing.T) string { return testbin.Chromium(t) }

const browserWidth, browserHeight = 1400, 2000

// runChromium runs headless Chromium on page with extra arguments and returns
// its stdout.
func runChromium(t *testing.T, page string, args ...string) []byte {
	t.Helper()
	return runChromiumAt(t, browserWidth, page, args...)
}

// runChromiumAt is runChromium with a window width other than browserWidth.
func runChromiumAt(t *testing.T, width int, page string, args ...string) []byte {
	t.Helper()
	return testbin.RunChromium(t, width, browserHeight, page, args...)
}

// probeScript measures, in the rendered page, what a reader would see: the
// box of each chart and of the matrix, and how many of each chart's shapes
// have a non-empty box. It is added to a copy of the report only.
const probeScript = `<script>
(function () {
  var out = {};
  function box(el) { var r = el.getBoundingClientRect(); return {x: r.x + scrollX, y: r.y + scrollY, w: r.width, h: r.height}; }
  document.querySelectorAll('svg.chart, #matrix, #matrix td[id]').forEach(function (el) {
    var shapes = el.querySelectorAll('path, rect, text'), drawn = 0;
    shapes.forEach(function (s) { var b = s.getBBox ? s.getBBox() : {width: 1, height: 1}; if (b.width > 0 || b.height > 0) drawn++; });
    out[el.id] = {box: box(el), shapes: shapes.length, drawn: drawn};
  });
  var pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>`

type probed struct {
	Box           struct{ X, Y, W, H float64 }
	Shapes, Drawn int
}

func TestHTMLReportInChromium(t *testing.T) {
	chromium(t) // fail or skip before any work
	files := history(t)
	doc := renderHTML(t, files, baselineOpts(t, files))
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := NewMatrix(files, Options{})
	if err != nil {
		t.Fatal(err)
	}

	// 1. The DOM Chromium built from the report, unchanged, holds the charts.
	dom := string(runChromium(t, page, "--dump-dom"))
	ids := regexp.MustCompile(`<svg [^>]*id="([^"]+)"[^>]*class="chart`).FindAllStringSubmatch(dom, -1)
	var charts []string
	for _, id := range ids {
		charts = append(charts, id[1])
	}
	want := 1 + 2*len(m.Workloads) // overhead, spread per workload, trend per workload
	if len(charts) != want {
		t.Fatalf("rendered DOM has charts %v, want %d", charts, want)
	}
	over := element(t, dom, "svg", "overhead-chart")
	if n := strings.Count(over, "<path"); n < len(m.Cells()) {
		t.Errorf("#overhead-chart has %d paths in the rendered DOM, fewer than its %d cells", n, len(m.Cells()))
	}

	// 2. In a copy with a probe script, every chart has real size and its
	// shapes real geometry.
	probePage := filepath.Join(dir, "probe.html")
	if err := os.WriteFile(probePage, []byte(strings.Replace(doc, "</body>", probeScript+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	pdom := string(runChromium(t, probePage, "--dump-dom"))
	raw := regexp.MustCompile(`<pre id="probe">(.*?)</pre>`).FindStringSubmatch(pdom)
	if raw == nil {
		t.Fatalf("the probe did not run; DOM:\n%.2000s", pdom)
	}
	var boxes map[string]probed
	if err := json.Unmarshal([]byte(strings.NewReplacer("&quot;", `"`, "&amp;", "&").Replace(raw[1])), &boxes); err != nil {
		t.Fatalf("probe output %q: %v", raw[1], err)
	}
	for _, id := range append(charts, "matrix") {
		b, ok := boxes[id]
		if !ok {
			t.Errorf("probe did not see #%s", id)
			continue
		}
		if b.Box.W < 200 || b.Box.H < 100 {
			t.Errorf("#%s is rendered %.0f×%.0f px", id, b.Box.W, b.Box.H)
		}
		if id != "matrix" && (b.Drawn < 20 || b.Drawn*10 < b.Shapes*9) {
			t.Errorf("#%s: only %d of %d shapes have geometry", id, b.Drawn, b.Shapes)
		}
	}

	// 3. The screenshot of the unchanged report shows them: the tracing
	// bars' blue inside the overhead chart, the regression's red in the
	// matrix, and no blank chart.
	shot := filepath.Join(dir, "report.png")
	runChromium(t, page, "--screenshot="+shot)
	img := decodePNG(t, shot)
	if b := img.Bounds(); b.Dx() != browserWidth || b.Dy() != browserHeight {
		t.Fatalf("screenshot is %v, want %dx%d", b, browserWidth, browserHeight)
	}
	region := func(id string) image.Rectangle {
		b := boxes[id].Box
		return image.Rect(int(b.X), int(b.Y), int(b.X+b.W), int(b.Y+b.H)).Intersect(img.Bounds())
	}
	tracing := m.ModeColor("tracing")
	if n := countNear(img, region("overhead-chart"), tracing); n < 2000 {
		t.Errorf("overhead chart region shows %d pixels of the tracing colour %s; the bars did not render", n, hexColor(tracing))
	}
	reg := m.WithVerdict("regressed")[0]
	if n := countNear(img, region(cellID(reg.Workload, reg.Mode)), color.RGBA{0xfe, 0xe2, 0xe2, 0xff}); n < 1000 {
		t.Errorf("the regressed cell %s shows %d pixels of the regression background", reg.Key(), n)
	}
	for _, id := range charts {
		r := region(id)
		if r.Empty() {
			continue // below the fold of the screenshot
		}
		if ink := countInk(img, r); ink*100 < r.Dx()*r.Dy() {
			t.Errorf("#%s looks blank in the screenshot: %d non-white pixels in %v", id, ink, r)
		}
	}
	if dst := os.Getenv("VBENCH_SCREENSHOT"); dst != "" {
		data, err := os.ReadFile(shot)
		if err == nil {
			err = os.WriteFile(dst, data, 0o644)
		}
		if err != nil {
			t.Errorf("keeping the screenshot: %v", err)
		}
	}
}

func decodePNG(t *testing.T, path string) image.Image { return testbin.DecodePNG(t, path) }

// countNear counts pixels of r within a small distance of c.
func countNear(img image.Image, r image.Rectangle, c color.RGBA) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			pr, pg, pb, _ := img.At(x, y).RGBA()
			if near(pr>>8, c.R) && near(pg>>8, c.G) && near(pb>>8, c.B) {
				n++
			}
		}
	}
	return n
}

func near(a uint32, b uint8) bool { d := int(a) - int(b); return d > -12 && d < 12 }

// countInk counts pixels of r that are not (nearly) white.
func countInk(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			pr, pg, pb, _ := img.At(x, y).RGBA()
			if pr>>8 < 235 || pg>>8 < 235 || pb>>8 < 235 {
				n++
			}
		}
	}
	return n
}
