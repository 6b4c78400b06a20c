package testbin

import (
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Chromium is headless Chromium's path, for the tests that look at a page
// as a browser draws it: scripts/ensure-chromium.sh installs it (CI runs
// it); VBENCH_SKIP_BROWSER=1 skips those tests where no browser can be
// installed.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("VBENCH_SKIP_BROWSER") == "1" {
		t.Skip("chromium not installed and VBENCH_SKIP_BROWSER=1")
	}
	t.Fatal("chromium not found: run scripts/ensure-chromium.sh (or set VBENCH_SKIP_BROWSER=1 to skip the browser check)")
	return ""
}

// RunChromium runs headless Chromium on the page file at a window of
// width × height with extra arguments (--dump-dom, --screenshot=…) and
// returns its stdout.
func RunChromium(t testing.TB, width, height int, page string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
		"--hide-scrollbars", "--force-device-scale-factor=1",
		"--user-data-dir=" + t.TempDir(),
		"--window-size=" + strconv.Itoa(width) + "," + strconv.Itoa(height),
	}
	cmd := exec.CommandContext(ctx, Chromium(t), append(append(base, args...), "file://"+page)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return out
}

// DecodePNG reads a screenshot Chromium wrote.
func DecodePNG(t testing.TB, path string) image.Image {
	t.Helper()
	return DecodeFile(t, path, png.Decode)
}
