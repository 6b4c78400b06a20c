package reports

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"vbench/internal/machine"
	"vbench/internal/modes"
	"vbench/internal/numfmt"
	"vbench/internal/results"
)

//go:embed report.html.tmpl
var htmlSource string

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"ns":       func(ns float64) string { return numfmt.OrMissing(ns, numfmt.Duration) },
	"val":      Value,
	"mult":     numfmt.Multiple,
	"interval": numfmt.Interval,
	"change":   numfmt.Change,
	"p":        numfmt.P,
	"none":     func(m modes.Mode) bool { return m == modes.None },
	"cellID":   cellID,
	"color":    func(m *Matrix, mode modes.Mode) string { return hexColor(m.ModeColor(mode)) },
	"date":     func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 MST") },
	"base":     filepath.Base,
	// estimate and interval of a cost per event, "3.21 ns/call [3.05, 3.40]":
	// the interval drawn small like the overhead's, and a line break
	// allowed only between the two
	"measureRegression": func(c *Cell) string { return MeasureRegression(c.Cell) },
	"splitCI": func(s string) []string {
		est, ci, ok := strings.Cut(s, " [")
		if !ok {
			return []string{s, ""}
		}
		return []string{est, "[" + ci}
	},
	// absoluteHeader heads the cells table and labels its values in the
	// narrow layout.
	"absoluteHeader": func() []string { return absoluteHeader },
	// verdictColumn is the verdict's column of the cells table, its last
	// (a literal index went stale when a column was added before it).
	"verdictColumn": func() int { return len(absoluteHeader) - 1 },
	"baselineNote":  func() string { return BaselineNote },
}).Parse(htmlSource))

// htmlPage is what the template draws.
type htmlPage struct {
	*Matrix
	Fingerprint  []fact
	Overhead     *Chart
	Measures     []*Chart // RSS and start-up per mode
	Distribution []*Chart
	Trend        []*Chart
	Growth       []*Chart // complexity: cost against size (complexitychart.go)
}

type fact struct{ Name, Value string }

// HTML writes the report as one self-contained HTML page: inline CSS, charts
// as inline SVG drawn by gonum/plot, no scripts, fonts or other URLs.
func HTML(w io.Writer, files []*results.File, opts Options) error {
	return renderFiles(w, files, opts, (*Matrix).WriteHTML)
}

// WriteHTML writes the matrix as HTML does.
func (m *Matrix) WriteHTML(w io.Writer) error {
	page := &htmlPage{Matrix: m, Fingerprint: facts(m.Current.Machine)}
	var err error
	if page.Overhead, err = OverheadChart(m); err != nil {
		return fmt.Errorf("overhead chart: %w", err)
	}
	if page.Measures, err = MeasureCharts(m); err != nil {
		return fmt.Errorf("memory and start-up charts: %w", err)
	}
	if page.Distribution, err = DistributionCharts(m); err != nil {
		return fmt.Errorf("distribution charts: %w", err)
	}
	if page.Trend, err = TrendCharts(m); err != nil {
		return fmt.Errorf("trend charts: %w", err)
	}
	if page.Growth, err = GrowthCharts(m); err != nil {
		return fmt.Errorf("complexity charts: %w", err)
	}
	return htmlTemplate.Execute(w, page)
}

// facts lists the fingerprint's fields that are set.
func facts(f machine.Fingerprint) []fact {
	var out []fact
	add := func(n, v string) {
		if v != "" {
			out = append(out, fact{n, v})
		}
	}
	add("CPU", f.CPUModel)
	if f.Cores > 0 {
		add("Cores", fmt.Sprint(f.Cores))
	}
	add("OS", f.OS)
	add("Kernel", f.Kernel)
	add(".NET", f.DotnetRuntime)
	add("Governor", f.Governor)
	c := f.VbenchCommit
	if f.VbenchDirty {
		c += "+dirty"
	}
	add("vbench", c)
	add("Go", f.GoVersion)
	add("Host", f.Hostname)
	return out
}

var idUnsafe = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// cellID is the HTML id of a matrix cell: "cell-fibonacci-tracing".
func cellID(workload string, mode modes.Mode) string {
	return "cell-" + idUnsafe.ReplaceAllString(workload, "_") + "-" + idUnsafe.ReplaceAllString(string(mode), "_")
}

// historyLabel names a file of the history on a chart's axis: its start
// time, or its name when the file has none.
func historyLabel(started time.Time, name string) string {
	if started.IsZero() {
		return filepath.Base(name)
	}
	return started.UTC().Format("Jan 02 15:04")
}
