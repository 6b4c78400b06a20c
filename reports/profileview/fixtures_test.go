package profileview

import (
	"path/filepath"
	"testing"

	"vbench/internal/profile"
	"vbench/internal/testbin"
)

// The fixtures are reports' (../testdata, see its genfixtures): the results
// and the profile views are drawn from the same hand-made runs.
func fixture(name string) string { return filepath.Join("..", "testdata", name) }

func readProfile(t *testing.T, name string) *profile.Profile {
	t.Helper()
	in, err := ReadInput(fixture(name), nil)
	if err != nil {
		t.Fatal(err)
	}
	if in.Kind != KindProfile {
		t.Fatalf("%s: read as kind %d, want a profile", name, in.Kind)
	}
	return in.Profile
}

// golden compares got with ../testdata/golden/name, reports' golden files
// (its -update rewrites them).
func golden(t *testing.T, name, got string) {
	t.Helper()
	testbin.Golden(t, filepath.Join("..", "testdata", "golden", name), got, false)
}

func TestProfileTextGolden(t *testing.T) {
	golden(t, "profile-tracing.txt", profileText(t, readProfile(t, "profile-tracing.json"), ProfileOptions{Top: 5}))
	golden(t, "profile-sampling.txt", profileText(t, readProfile(t, "profile-sampling.json"), ProfileOptions{Top: 3}))
	golden(t, "profile-tracing-cut.txt", profileText(t, readProfile(t, "profile-tracing.json"), ProfileOptions{Top: 2, MinPercent: 25, MaxDepth: 4}))
}
