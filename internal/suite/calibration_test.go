package suite

import (
	"testing"
)

// A suite's calibration names the workload whose program never changes.
func TestCalibration(t *testing.T) {
	s, err := Load(write(t, t.TempDir(), "s.yaml", "name: s\ncalibration: cal\nworkloads:\n  - name: app\n    command: [true]\n  - name: cal\n    command: [true]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Calibration != "cal" {
		t.Errorf("calibration %q, want cal", s.Calibration)
	}
}

// Each calibration the history cannot divide by is refused with file, line
// and field.
func TestCalibrationRefused(t *testing.T) {
	dir := t.TempDir()
	const two = "workloads:\n  - name: app\n    command: [true]\n  - name: cal\n    command: [true]\n"
	cases := []refusal{
		{"unknown", "name: s\ncalibration: base\n" + two, `s.yaml:2: calibration: unknown workload "base": the calibration is a workload of the suite whose program never changes, run beside the others to measure the machine (its workloads: app, cal)`},
		{"alone", "name: s\ncalibration: cal\nworkloads:\n  - name: cal\n    command: [true]\n", `s.yaml:2: calibration: workload cal is the suite's only workload: nothing is left to calibrate`},
		{"in a pair", "name: s\ncalibration: cal\n" + two + "    against: app\n", `s.yaml:2: calibration: workload cal is judged against app: the calibration must be one program, the same in every run`},
		{"paired with", "name: s\ncalibration: cal\nworkloads:\n  - name: app\n    command: [true]\n    against: cal\n  - name: cal\n    command: [true]\n", `s.yaml:2: calibration: workload app is judged against cal`},
		{"a service", "name: s\ncalibration: web\nworkloads:\n  - name: app\n    command: [true]\n  - name: web\n    server: {command: [true], ready: \"http://127.0.0.1:{port}/\"}\n    load: {url: \"http://127.0.0.1:{port}/\", duration: 1s}\n", `s.yaml:2: calibration: workload web is a service: the calibration must be a batch program`},
		{"not a name", "name: s\ncalibration: [cal]\n" + two, `s.yaml:2: calibration: must be a string, got a list`},
	}
	refusedWithPrefix(t, dir, cases)
}
