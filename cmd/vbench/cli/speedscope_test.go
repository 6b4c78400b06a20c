package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"vbench/internal/testbin"
	"vbench/internal/timeline"
)

// speedscope itself (its npm package, scripts/ensure-speedscope.sh) served on
// localhost opens, in headless Chromium, every file vbench writes in its
// format (a tracing profile with its timelines, a sampling profile with its
// samples in time order, an allocation profile) and the Chrome trace JSON
// of --timeline (tracing's and sampling's), with no
// import error: no alert, no error screen, no console error, and the
// flame graph's canvas drawn. VBENCH_DOCS_SHOTS=1 also takes a screenshot
// of each and copies it into docs/. VBENCH_SKIP_BROWSER=1 skips it where no browser can be
// installed (as the HTML report's browser check).
func TestSpeedscopeOpensEveryFile(t *testing.T) {
	t.Parallel() // asserts files, no time
	browser := testbin.Chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // six files, each opened (twice with shots), on a busy machine
	defer cancel()
	dist, err := exec.CommandContext(ctx, filepath.Join(testbin.RepoRoot(), "scripts", "ensure-speedscope.sh")).Output()
	if err != nil {
		t.Fatalf("scripts/ensure-speedscope.sh: %v", err)
	}
	testbin.Dotnet(t)
	dll := testbin.Workload(t, waitGcProject)
	root := t.TempDir()
	if err := os.Symlink(strings.TrimSpace(string(dist)), filepath.Join(root, "app")); err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(root, "app", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	// A copy of speedscope's page that keeps what it would say of an import
	// error (an alert, an error, a console error) where --dump-dom shows it.
	probed := strings.Replace(string(index), "<head>", "<head>"+speedscopeProbe, 1)
	if err := os.WriteFile(filepath.Join(root, "probe.html"), []byte(strings.ReplaceAll(strings.ReplaceAll(probed, `href="`, `href="app/`), `src="`, `src="app/`)), 0o644); err != nil {
		t.Fatal(err)
	}
	files := filepath.Join(root, "files")
	os.Mkdir(files, 0o755)
	for _, c := range []struct {
		mode string
		args []string
	}{{"tracing", []string{"--timeline"}}, {"sampling", []string{"--interval", "1ms", "--timeline"}}, {"allocations", nil}} {
		out := filepath.Join(t.TempDir(), c.mode)
		args := append([]string{"profile", "--mode", c.mode, "--out", out, "-o", filepath.Join(files, c.mode+".speedscope.json")}, c.args...)
		if _, stderr, code := runVbench(t, append(args, "--", "dotnet", dll)...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		if c.mode != "allocations" {
			tl, _ := filepath.Glob(filepath.Join(out, "*", timeline.File))
			if len(tl) != 1 {
				t.Fatalf("%s --timeline wrote %v", c.mode, tl)
			}
			data, err := os.ReadFile(tl[0])
			if err != nil {
				t.Fatal(err)
			}
			name := map[string]string{"tracing": "timeline.json", "sampling": "sampling-timeline.json"}[c.mode]
			if err := os.WriteFile(filepath.Join(files, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(root)))
	defer srv.Close()
	// A file speedscope cannot import, to show the check sees an import error.
	if err := os.WriteFile(filepath.Join(files, "broken.speedscope.json"), []byte(`{"profiles": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	shots := os.Getenv("VBENCH_DOCS_SHOTS") == "1"
	for _, name := range []string{"broken.speedscope.json", "tracing.speedscope.json", "sampling.speedscope.json", "allocations.speedscope.json", "timeline.json", "sampling-timeline.json"} {
		t.Run(name, func(t *testing.T) {
			page := srv.URL + "/probe.html#profileURL=" + url.QueryEscape(srv.URL+"/files/"+name) + "&title=" + url.QueryEscape(name)
			dom := runBrowser(t, ctx, browser, "--dump-dom", page)
			problem := speedscopeProblem(dom)
			if name == "broken.speedscope.json" {
				if problem == "" {
					t.Fatalf("a broken file passed the check:\n%.3000s", dom)
				}
				t.Logf("the broken file: %s", problem)
				return
			}
			if problem != "" {
				t.Fatal(problem)
			}
			if !shots {
				// A screenshot nobody keeps checks nothing the DOM did not:
				// five more Chromium launches, ~20 s of CPU.
				return
			}
			png := filepath.Join(t.TempDir(), "shot.png")
			runBrowser(t, ctx, browser, "--screenshot="+png, "--window-size=1000,520", page)
			data, err := os.ReadFile(png)
			if err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(testbin.RepoRoot(), "docs", "speedscope-"+strings.TrimSuffix(strings.TrimSuffix(name, ".json"), ".speedscope")+".png")
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// speedscopeProblem is what the page says went wrong with the import, ""
// when the profile was drawn.
func speedscopeProblem(dom string) string {
	probe := regexp.MustCompile(`data-vbench-probe="([^"]*)"`).FindStringSubmatch(dom)
	switch {
	case probe == nil:
		return "the probe never ran"
	case probe[1] != "[]" && probe[1] != "":
		return "speedscope said: " + probe[1]
	case strings.Contains(dom, "Something went wrong"):
		return "speedscope shows its error screen"
	case !strings.Contains(dom, "<canvas"):
		return "no flame graph drawn"
	}
	return ""
}

const speedscopeProbe = `<script>
(function () {
  var said = [];
  window.alert = function (m) { said.push('alert: ' + m); };
  var ce = console.error;
  console.error = function () { said.push('console.error: ' + Array.prototype.join.call(arguments, ' ')); ce.apply(console, arguments); };
  window.addEventListener('error', function (e) { said.push('error: ' + e.message); });
  setInterval(function () { document.documentElement.setAttribute('data-vbench-probe', JSON.stringify(said).replace(/"/g, "'")); }, 50);
})();
</script>`

func runBrowser(t *testing.T, ctx context.Context, browser string, args ...string) string {
	t.Helper()
	page := args[len(args)-1]
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
		"--hide-scrollbars", "--force-device-scale-factor=1", "--virtual-time-budget=15000",
		"--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, browser, append(append(base, args[:len(args)-1]...), page)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}
