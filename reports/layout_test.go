package reports

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"vbench/internal/summary"

	"vbench/internal/modes"
	"vbench/internal/results"
)

// The report's layout is checked where a reader meets it: headless Chromium
// lays the page out at a desktop width and at a narrow one, and a probe
// script reads the boxes of what it drew (issue 22, item 11).

// abRun is a run shaped like `vbench run --against`: seven modes, two of
// them an old build's (defined by the suite, so the report lists the modes'
// definitions), long names side by side, overheads up to about ×3.6 (where the old log axis showed ×1 and ×2 only), and
// one slow run per cell that the outlier rule marks.
func abRun() *results.File {
	ms := []modes.Mode{modes.None, modes.Null, modes.Tracing, modes.Instrumentation, modes.Sampling, "instrumentation@old", "sampling@old"}
	var specs []modes.Spec
	for _, m := range ms {
		sp := modes.BuiltinSpec(m)
		if !m.Builtin() {
			base := modes.Mode(strings.TrimSuffix(string(m), "@old"))
			sp = modes.Spec{Name: m, Engine: base.Engine(), Profiler: "/opt/old/libvbenchprof.so", Against: base}
		}
		specs = append(specs, sp)
	}
	mult := map[string][]float64{ // per mode, in ms's order
		"fibonacci":  {1, 2.9, 3.5, 2.6, 1.03, 2.7, 1.05},
		"mandelbrot": {1, 1.3, 1.5, 1.1, 1.02, 1.12, 1.04},
		"exceptions": {1, 1.2, 1.9, 1.4, 1.01, 1.45, 1.02},
	}
	f := &results.File{Schema: results.SchemaVersion, Suite: results.Suite{Name: "ab"},
		Started:  time.Date(2026, 11, 24, 3, 22, 0, 0, time.UTC),
		Settings: results.Settings{Runs: 12, Modes: ms, ModeSpecs: specs, Alpha: 0.05, Threshold: 0.05}}
	seq := 0
	for _, w := range []string{"fibonacci", "mandelbrot", "exceptions"} {
		for j, m := range ms {
			c := results.Cell{Workload: w, Mode: m, Metric: results.MetricElapsed}
			for i := 0; i < 12; i++ {
				seq++
				// Deterministic noise within ±2%, and run 7 a fifth slower.
				noise := 1 + 0.02*math.Sin(float64(seq)*1.7)
				if i == 7 {
					noise = 1.2 + 0.01*float64(j)
				}
				el := int64(300e6 * mult[w][j] * noise)
				r := results.Run{Seq: seq, ElapsedNs: el, WallNs: el + 60e6, UserNs: el, SysNs: 9e6, MaxRSS: 40 << 20}
				// what a cost per event divides by: the cost table is laid out too
				if e := specs[j].Engine; e.CountsCalls() {
					r.Calls = 50_000_000
				} else if e.Samples() {
					r.SamplesTaken = 30
				}
				c.Samples = append(c.Samples, r)
			}
			f.Results = append(f.Results, c)
		}
	}
	summary.Fill(f)
	return f
}

// layoutProbe reads, after layout, what each chart drew: for each chart its
// box, its plot area (from the y axis line, the longest vertical line in the
// axes' grey, to the right end of the grid lines; the x axes of these charts
// are nominal and draw no line), its outlier markers
// (strokes in the outlier red) and its texts; how many times each mode is
// named as a legend entry in the charts section; and the page's widths.
const layoutProbe = `<script>
(function () {
  function rect(el) { var r = el.getBoundingClientRect(); return {l: r.left, t: r.top, r: r.right, b: r.bottom}; }
  var out = {width: window.innerWidth, scrollWidth: document.scrollingElement.scrollWidth, charts: {}, legend: {}};
  document.querySelectorAll('svg.chart').forEach(function (svg) {
    var paths = Array.prototype.slice.call(svg.querySelectorAll('path'));
    var axis = paths.filter(function (p) { return getComputedStyle(p).stroke === 'rgb(209, 213, 219)'; }).map(rect);
    var yaxis = null, right = null;
    axis.forEach(function (b) {
      if (b.r - b.l < 1 && (!yaxis || b.b - b.t > yaxis.b - yaxis.t)) yaxis = b;
    });
    paths.forEach(function (p) {
      if (getComputedStyle(p).stroke === 'rgb(229, 231, 235)') right = Math.max(right || 0, rect(p).r);
    });
    var plot = yaxis && right ? {l: yaxis.l, t: yaxis.t, r: right, b: yaxis.b} : null;
    var outliers = paths.filter(function (p) { return getComputedStyle(p).stroke === 'rgb(185, 28, 28)'; }).map(rect);
    var texts = Array.prototype.map.call(svg.querySelectorAll('text'), function (t) { return {s: t.textContent, box: rect(t)}; });
    out.charts[svg.id] = {box: rect(svg), natural: svg.width.baseVal.value, plot: plot, outliers: outliers, texts: texts};
  });
  document.querySelectorAll('#matrix th.mode').forEach(function (th) {
    var name = th.textContent.trim(), n = 0;
    document.querySelectorAll('#charts *').forEach(function (el) {
      if (!el.closest('svg') && el.children.length === 0 && el.textContent.trim() === name) n++;
    });
    out.legend[name] = n;
  });
  var pre = document.createElement('pre'); pre.id = 'layout'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>`

type box struct{ L, T, R, B float64 }

func (b box) overlaps(o box) bool {
	const eps = 0.5 // sub-pixel touching is not overlapping
	return b.L < o.R-eps && o.L < b.R-eps && b.T < o.B-eps && o.T < b.B-eps
}

func (b box) inside(o box) bool { return b.L >= o.L && b.R <= o.R && b.T >= o.T && b.B <= o.B }

type layout struct {
	Width, ScrollWidth float64
	Charts             map[string]struct {
		Box     box
		Natural float64
		Plot    *box
		Points  []box `json:"outliers"`
		Texts   []struct {
			S   string
			Box box
		}
	}
	Legend map[string]int
}

// probeLayout renders doc with the layout probe at width px and returns
// what it measured.
func probeLayout(t *testing.T, doc string, width int) *layout {
	t.Helper()
	page := filepath.Join(t.TempDir(), "layout.html")
	if err := os.WriteFile(page, []byte(strings.Replace(doc, "</body>", layoutProbe+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(runChromiumAt(t, width, page, "--dump-dom"))
	raw := regexp.MustCompile(`<pre id="layout">(.*?)</pre>`).FindStringSubmatch(dom)
	if raw == nil {
		t.Fatalf("the layout probe did not run; DOM:\n%.2000s", dom)
	}
	var l layout
	if err := json.Unmarshal([]byte(strings.NewReplacer("&quot;", `"`, "&amp;", "&", "&lt;", "<", "&gt;", ">").Replace(raw[1])), &l); err != nil {
		t.Fatalf("layout probe output %q: %v", raw[1], err)
	}
	if os.Getenv("VBENCH_SCREENSHOT_DIR") != "" { // for a person's eyes
		runChromiumAt(t, width, page, "--screenshot="+filepath.Join(os.Getenv("VBENCH_SCREENSHOT_DIR"), "layout-"+strconv.Itoa(width)+".png"))
	}
	return &l
}

func TestHTMLLayoutInChromium(t *testing.T) {
	chromium(t)
	f := abRun()
	m, err := NewMatrix([]*results.File{f}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc := renderHTML(t, []*results.File{f}, Options{})
	maxHi := 1.0
	for _, c := range m.Cells() {
		maxHi = math.Max(maxHi, math.Max(c.Overhead, c.OverheadHi))
	}
	for _, width := range []int{1400, 700} {
		t.Run(strconv.Itoa(width)+"px", func(t *testing.T) {
			l := probeLayout(t, doc, width)
			// The overhead chart, a spread chart per workload, and one
			// chart per whole-program measure drawn (RSS: every run
			// records its peak memory).
			measureCharts, _ := MeasureCharts(m)
			if len(l.Charts) != 1+len(m.Workloads)+len(measureCharts) || len(measureCharts) == 0 {
				t.Fatalf("probe saw charts %v, want the overhead chart, %d spread charts and the RSS chart", keys(l.Charts), len(m.Workloads))
			}
			// The page never scrolls sideways, and every chart fits the
			// window and is drawn no larger than its natural size.
			if l.ScrollWidth > l.Width {
				t.Errorf("the page is %.0f px wide in a %.0f px window: it scrolls sideways", l.ScrollWidth, l.Width)
			}
			for id, c := range l.Charts {
				if c.Box.L < 0 || c.Box.R > l.Width {
					t.Errorf("#%s spans x %.0f–%.0f, outside the %.0f px window", id, c.Box.L, c.Box.R, l.Width)
				}
				if w := c.Box.R - c.Box.L; w > c.Natural+1 {
					t.Errorf("#%s is drawn %.0f px wide, blown up from its natural %.0f px", id, w, c.Natural)
				}
				if c.Plot == nil {
					t.Errorf("#%s: the probe found no axis lines", id)
				}
			}
			// Each mode is named once in the charts' legend.
			for mode, n := range l.Legend {
				if n != 1 {
					t.Errorf("the charts section names mode %s %d times as a legend entry, want once", mode, n)
				}
			}
			for id, c := range l.Charts {
				if c.Plot == nil {
					continue
				}
				// The x labels (texts below the plot area) do not overlap.
				var xl []string
				var xb []box
				for _, tx := range c.Texts {
					if tx.Box.T >= c.Plot.B-0.5 {
						xl, xb = append(xl, tx.S), append(xb, tx.Box)
					}
				}
				if len(xl) < len(m.Workloads) {
					t.Errorf("#%s: x labels %q, fewer than expected", id, xl)
				}
				for i := range xb {
					for j := i + 1; j < len(xb); j++ {
						if xb[i].overlaps(xb[j]) {
							t.Errorf("#%s: x labels %q %v and %q %v overlap", id, xl[i], xb[i], xl[j], xb[j])
						}
					}
				}
				// Outlier markers lie inside the plot area.
				for _, p := range c.Points {
					if !p.inside(*c.Plot) {
						t.Errorf("#%s: outlier marker %v lies outside the plot area %v", id, p, *c.Plot)
					}
				}
			}
			over, ok := l.Charts["overhead-chart"]
			if !ok || over.Plot == nil {
				t.Fatal("no overhead chart with axes")
			}
			// The log axis has a tick at least every doubling, and its ticks
			// cover the data: from ×1 (or below), where the bars start, to
			// the highest bar or whisker (or above).
			var ticks []float64
			for _, tx := range over.Texts {
				if v, err := strconv.ParseFloat(strings.TrimPrefix(tx.S, "×"), 64); err == nil && strings.HasPrefix(tx.S, "×") && tx.Box.R <= over.Plot.L {
					ticks = append(ticks, v)
				}
			}
			sort.Float64s(ticks)
			if len(ticks) < 2 || ticks[0] > 1 || ticks[len(ticks)-1] < maxHi {
				t.Errorf("log axis ticks %v do not cover the data, ×1 to ×%.2f", ticks, maxHi)
			}
			for i := 1; i < len(ticks); i++ {
				if ticks[i] > 2*ticks[i-1]*1.0001 {
					t.Errorf("log axis ticks %v: no tick between ×%g and ×%g, more than a doubling apart", ticks, ticks[i-1], ticks[i])
				}
			}
			markers := 0
			for _, c := range l.Charts {
				markers += len(c.Points)
			}
			if markers == 0 {
				t.Error("the probe found no outlier markers to check")
			}
		})
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
