package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"vbench/internal/profile"
	"vbench/internal/testbin"
)

// linesSource is the line of the line program's source
// (profiler/testdata/lines) marked "// MARK".
func linesSource(t *testing.T, mark string) int {
	return testbin.MarkedLine(t, "profiler/testdata/lines/Program.cs", mark)
}

// lineFigure is line N of a file named Program.cs in the profile in dir:
// its samples and executions over every function.
func lineFigure(t *testing.T, dir string, line int) (samples, executions int64) {
	t.Helper()
	tree, err := profile.ReadTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := tree.Merge()
	for _, f := range p.Functions {
		for _, l := range f.Lines {
			file := l.File
			if file == "" {
				file = f.File
			}
			if l.Line == line && strings.HasSuffix(file, "/Program.cs") {
				samples += l.Samples
				executions += l.Executions
			}
		}
	}
	return samples, executions
}

// sourceRow matches the source view's row of line n: its figure, and the
// bird's-eye strip's mark linking to it.
func sourceRow(line int, figure string) (*regexp.Regexp, *regexp.Regexp) {
	ln := strconv.Itoa(line)
	row := regexp.MustCompile(`<tr id="(f\d+)-L` + ln + `" title="[^"]*"><td class="n">` + regexp.QuoteMeta(figure) + `</td>(?:<td class="p">[^<]*</td>)?<td class="ln">` + ln + `</td><td class="code"[^>]*>([^<]*)</td></tr>`)
	mark := regexp.MustCompile(`(?s)<svg class="birdseye".*<rect [^>]*data-line="f\d+-L` + ln + `"`)
	return row, mark
}

// vbench report PROFILE -o source.html draws a sampled profile's lines over
// the source found where the PDB says: the hot line with its samples (as
// many as profile.json holds) and its text, heat-coloured, and its mark in
// the file's bird's-eye strip.
func TestSourceViewSampled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a program under the sampler")
	}
	dll := testbin.Workload(t, "profiler/testdata/lines/Lines.csproj")
	dir := filepath.Join(t.TempDir(), "prof")
	if _, stderr, code := runVbench(t, "profile", "--mode", "sampling", "--interval", "1ms", "--lines", "--out", dir, "--", "dotnet", dll, "1000"); code != 0 {
		t.Fatalf("vbench profile: exit %d\n%s", code, stderr)
	}
	hot := linesSource(t, "HOT")
	samples, _ := lineFigure(t, dir, hot)
	if samples == 0 {
		t.Fatalf("no samples on the HOT line %d in the profile", hot)
	}
	out := filepath.Join(t.TempDir(), "source.html")
	if _, stderr, code := runVbench(t, "report", dir, "-o", out); code != 0 {
		t.Fatalf("vbench report -o source.html: exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	row, mark := sourceRow(hot, strconv.FormatInt(samples, 10))
	m := row.FindStringSubmatch(page)
	if m == nil || !strings.Contains(m[2], "// HOT") || !strings.Contains(m[0], `style="background:#`) {
		t.Errorf("no heat-coloured row of line %d with its %d samples and its text (// HOT):\n%s", hot, samples, page)
	}
	if !mark.MatchString(page) {
		t.Errorf("the bird's-eye strip has no mark for line %d", hot)
	}
	if strings.Contains(page, "source not found") {
		t.Errorf("the source is in the repository, yet the view says it is not found")
	}
	if strings.Contains(page, "<script") {
		t.Errorf("the source view holds a script")
	}
}

// A path-mapped build records /_/Program.cs, a file that is not here: the
// source view says so and still lists the counted lines, here the
// instrumentation engine's exact executions of HALF ((n+1)/2).
func TestSourceViewMovedSource(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program under instrumentation")
	}
	t.Parallel() // exact executions only
	dll := pathMappedLines(t)
	dir := filepath.Join(t.TempDir(), "prof")
	const n = 1001
	if _, stderr, code := runVbench(t, "profile", "--mode", "instrumentation", "--lines", "--out", dir, "--", "dotnet", dll, "50", strconv.Itoa(n)); code != 0 {
		t.Fatalf("vbench profile: exit %d\n%s", code, stderr)
	}
	half := linesSource(t, "HALF")
	if _, execs := lineFigure(t, dir, half); execs != (n+1)/2 {
		t.Fatalf("line HALF executed %d times in the profile, want %d", execs, (n+1)/2)
	}
	out := filepath.Join(t.TempDir(), "source.html")
	if _, stderr, code := runVbench(t, "report", dir, "-o", out); code != 0 {
		t.Fatalf("vbench report -o source.html: exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	if !regexp.MustCompile(`class="note source-missing">source not found at /_/+Program.cs \(the path the PDB recorded`).MatchString(page) {
		t.Errorf("no note that /_/Program.cs is not found:\n%s", page)
	}
	row, mark := sourceRow(half, strconv.Itoa((n+1)/2))
	if m := row.FindStringSubmatch(page); m == nil || m[2] != "" {
		t.Errorf("no row of line %d with %d executions (and no text):\n%s", half, (n+1)/2, page)
	}
	if !mark.MatchString(page) {
		t.Errorf("the bird's-eye strip has no mark for line %d", half)
	}
	if !strings.Contains(page, `<th class="n">executions</th>`) {
		t.Errorf("the hot lines are not headed executions")
	}
}

// A profile without lines has no source view: a usage error that says how
// to get one, and no file.
func TestSourceViewNeedsLines(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a program under the sampler")
	}
	dll := testbin.Workload(t, "profiler/testdata/lines/Lines.csproj")
	dir := filepath.Join(t.TempDir(), "prof")
	if _, stderr, code := runVbench(t, "profile", "--mode", "sampling", "--lines=false", "--out", dir, "--", "dotnet", dll, "100", "10"); code != 0 {
		t.Fatalf("vbench profile: exit %d\n%s", code, stderr)
	}
	out := filepath.Join(t.TempDir(), "source.html")
	_, stderr, code := runVbench(t, "report", dir, "-o", out)
	if code != 2 || !strings.Contains(stderr, "no source lines (profile with --lines") {
		t.Errorf("exit %d, stderr %q: want 2 and how to get lines", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s written for a profile without lines", out)
	}
}

// pathMappedLines builds a copy of the line program with its directory
// mapped to /_/ (a deterministic build's PDB records /_/Program.cs).
func pathMappedLines(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(testbin.RepoRoot(), "profiler", "testdata", "lines")
	for _, f := range []string{"Lines.csproj", "Program.cs"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(testbin.Dotnet(t), "build", filepath.Join(dir, "Lines.csproj"), "-c", "Release", "-nologo", "-v", "quiet",
		"--disable-build-servers", "-nodeReuse:false", "-p:PathMap="+dir+"=/_/", "-o", filepath.Join(dir, "out"))
	cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_NOLOGO=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the path-mapped line program: %v\n%s", err, out)
	}
	return filepath.Join(dir, "out", "LineSplit.dll")
}
