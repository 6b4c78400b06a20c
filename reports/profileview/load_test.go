package profileview

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vbench/internal/results"
)

func TestReadInputDetectsKindByContent(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind Kind
	}{
		{"results.json", KindResults},
		{"baseline.json", KindResults},
		{"profile-tracing.json", KindProfile},
		{"profile-sampling.json", KindProfile},
	} {
		// Copy under a neutral name: detection must not look at the file name.
		data, err := os.ReadFile(fixture(tc.name))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "input")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		in, err := ReadInput(p, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if in.Kind != tc.kind {
			t.Errorf("%s: kind %d, want %d", tc.name, in.Kind, tc.kind)
		}
	}
}

func TestReadInputProfileDirectory(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(fixture("profile-tracing.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "profile.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := ReadInput(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if in.Kind != KindProfile || in.Profile.PID != 48213 {
		t.Fatalf("got kind %d pid %d from the profile directory", in.Kind, in.Profile.PID)
	}
}

// Bad input must name the file and say where: line and column for JSON
// errors, the field for type errors.
func TestReadInputErrors(t *testing.T) {
	good, err := os.ReadFile(fixture("results.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Line 3 of the fixture is `  "suite": {`; its column 3 starts the key.
	lines := strings.SplitN(string(good), "\n", 4)
	if !strings.HasPrefix(lines[2], `  "suite"`) {
		t.Fatalf("fixture layout changed: line 3 is %q", lines[2])
	}
	broken := lines[0] + "\n" + lines[1] + "\n" + "  ,\"suite\": {\n" + lines[3]
	typeErr := strings.Replace(string(good), `"runs": 10,`, `"runs": "ten",`, 1)
	wrongSchema := strings.Replace(string(good), `"schema": 1,`, `"schema": 9,`, 1)
	for _, tc := range []struct {
		name, content string
		want          []string
	}{
		{"truncated.json", string(good[:len(good)/2]), []string{"truncated.json:", "truncated JSON (file ends early)"}},
		{"syntax.json", broken, []string{"syntax.json:3:3:", "invalid character ','"}},
		{"type.json", typeErr, []string{"type.json:", "field settings.runs: int cannot hold a JSON string"}},
		{"schema.json", wrongSchema, []string{"schema.json:", "schema version 9", "reads version 1"}},
		{"other.json", `{"name": "not ours"}`, []string{"other.json:", "neither a vbench results file"}},
		{"notes.txt", "hello\n", []string{"notes.txt: not a file vbench reads: a results file (vbench run --json), a profile.json or profile directory, or another tool's profile (nettrace (EventPipe), pprof (.pb.gz), speedscope JSON, perf script text)"}},
		{"empty.json", `{"schema": 1, "suite": {"name": "x"}, "results": []}`, []string{"empty.json:", "no results"}},
		{"nocell.json", `{"schema": 1, "suite": {"name": "x"}, "results": [{"workload": "w"}]}`, []string{"nocell.json:", "results[0]", "mode"}},
	} {
		p := filepath.Join(t.TempDir(), tc.name)
		if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadInput(p, nil)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", tc.name, err, w)
			}
		}
	}
	if _, err := ReadInput(filepath.Join(t.TempDir(), "missing.json"), nil); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
}

// A profile that ends early says so with the line where it ends.
func TestReadInputTruncatedProfile(t *testing.T) {
	good, err := os.ReadFile(fixture("profile-tracing.json"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "profile.json")
	if err := os.WriteFile(p, good[:len(good)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadInput(p, nil)
	if err == nil || !strings.HasPrefix(err.Error(), p+":") || !strings.Contains(err.Error(), "truncated JSON") {
		t.Fatalf("got %v", err)
	}
}

// The results reader every command uses (compare, merge, report --baseline)
// refuses a profile by name.
func TestReadResultsRefusesProfile(t *testing.T) {
	_, err := results.ReadFile(fixture("profile-tracing.json"))
	if err == nil || !strings.Contains(err.Error(), "is a profile") {
		t.Fatalf("got %v", err)
	}
}
