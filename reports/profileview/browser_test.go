package profileview

import (
	"image"
	"testing"

	"vbench/internal/testbin"
)

// Views are looked at in headless Chromium as reports' HTML page is.
func chromium(t *testing.T) string { return testbin.Chromium(t) }

func runChromium(t *testing.T, page string, args ...string) []byte {
	t.Helper()
	return testbin.RunChromium(t, 1400, 2000, page, args...)
}

func decodePNG(t *testing.T, path string) image.Image { return testbin.DecodePNG(t, path) }
