package reports

import (
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"

	"vbench/internal/results"
)

// GoBench writes f in the Go benchmark format, one line per measured run so
// benchstat sees each cell's distribution:
//
//	metric: elapsed
//	BenchmarkFibonacci/mode=tracing 1 4.965e+10 ns/op 4.972e+10 wall-ns/op 4.821e+10 user-ns/op 5.071e+08 sys-ns/op 5.032e+07 max-rss-B
//
// ns/op is the cell's metric, which the file key "metric" names (elapsed,
// wall or cpu); under wall or cpu a run's VBENCH time, when it printed one,
// is elapsed-ns/op. A workload's cells share one metric, and benchstat puts
// results with different file keys in different tables, so it never
// compares one metric with another.
//
// `benchstat old.txt new.txt` compares two runs; `benchstat -col /mode new.txt`
// puts the modes side by side, which is the overhead table. Only file keys
// that stay the same between comparable runs are written (goos, goarch, cpu,
// suite): benchstat splits tables on any key that differs.
func GoBench(w io.Writer, f *results.File) error {
	bw := benchfmt.NewWriter(w)
	var cfg []benchfmt.Config
	// The fingerprint's OS starts with the platform the run measured on,
	// e.g. "linux/amd64 Debian GNU/Linux 12".
	platform, _, _ := strings.Cut(strings.TrimSpace(f.Machine.OS), " ")
	if goos, goarch, ok := strings.Cut(platform, "/"); ok {
		cfg = append(cfg, benchfmt.Config{Key: "goos", Value: []byte(goos), File: true},
			benchfmt.Config{Key: "goarch", Value: []byte(goarch), File: true})
	}
	if f.Machine.CPUModel != "" {
		cfg = append(cfg, benchfmt.Config{Key: "cpu", Value: []byte(f.Machine.CPUModel), File: true})
	}
	cfg = append(cfg, benchfmt.Config{Key: "suite", Value: []byte(f.Suite.Name), File: true})
	for _, c := range f.Results {
		name := benchName(c.Workload) + "/mode=" + nameSafe(string(c.Mode))
		metric := c.Metric.OrDefault()
		cellCfg := append(slices.Clone(cfg), benchfmt.Config{Key: "metric", Value: []byte(metric), File: true})
		for _, r := range c.Measured() {
			if metric.Count() {
				// A count: valgrind's times and RSS are not the program's.
				res := &benchfmt.Result{Config: cellCfg, Name: benchfmt.Name(name), Iters: 1,
					Values: []benchfmt.Value{{Value: float64(metric.Of(&r)), Unit: "instructions/op"}}}
				if err := bw.Write(res); err != nil {
					return err
				}
				continue
			}
			vals := []benchfmt.Value{{Value: float64(metric.Of(&r)), Unit: "ns/op"}}
			if metric != results.MetricElapsed && r.ElapsedNs > 0 {
				vals = append(vals, benchfmt.Value{Value: float64(r.ElapsedNs), Unit: "elapsed-ns/op"})
			}
			res := &benchfmt.Result{
				Config: cellCfg,
				Name:   benchfmt.Name(name),
				Iters:  1,
				Values: append(vals,
					benchfmt.Value{Value: float64(r.WallNs), Unit: "wall-ns/op"},
					benchfmt.Value{Value: float64(r.UserNs), Unit: "user-ns/op"},
					benchfmt.Value{Value: float64(r.SysNs), Unit: "sys-ns/op"},
					benchfmt.Value{Value: float64(r.MaxRSS), Unit: "max-rss-B"},
				),
			}
			res.Values = append(res.Values, measureBenchValues(&r)...)
			if err := bw.Write(res); err != nil {
				return err
			}
		}
	}
	return nil
}

// benchName turns a workload name into a benchmark name the way Go test names
// look: "fibonacci" → "Fibonacci", "json parse" → "Json_parse".
func benchName(workload string) string {
	s := nameSafe(workload)
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// nameSafe replaces what would end or split a benchmark name: spaces end it,
// and "/" would start a sub-benchmark.
func nameSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '/' {
			return '_'
		}
		return r
	}, s)
}
