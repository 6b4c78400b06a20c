package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vbench/internal/testbin"
)

// serviceSuite is a suite of one service workload, the test web app under
// mode none, driven for duration; marker, in the server's arguments and the
// load's URL, finds the run's processes in /proc.
func serviceSuite(t *testing.T, dotnet, marker, duration string) string {
	return fmt.Sprintf(`name: svc
runs: 1
warmup: 0
modes: [none]
baseline: none.json
workloads:
  - name: web
    server:
      command: [%s, %s, "--marker=%s", "--urls=http://127.0.0.1:{port}"]
      ready: "http://127.0.0.1:{port}/ready"
    load: {url: "http://127.0.0.1:{port}/ping?m=%s", connections: 2, warmup: 0s, duration: %s}
`, dotnet, testbin.WebApp(t), marker, marker, duration)
}

// Ctrl-C while the load generator drives the server: vbench exits 130 and
// no process of the run is left, neither the server nor the load generator.
func TestCtrlCDuringLoadLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	marker := testbin.Marker("svc")
	writeFile(t, filepath.Join(dir, "suite.yaml"), serviceSuite(t, testbin.Dotnet(t), marker, "60s"))
	cmd := exec.Command(testbin.Vbench(t), "run", "suite.yaml", "--quiet")
	cmd.Dir = dir
	var se bytes.Buffer
	cmd.Stderr = &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		procs := testbin.ProcessesWith(marker)
		if strings.Contains(strings.Join(procs, "\n"), "hey") && len(procs) >= 2 {
			break // the server and the load generator, under load
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no load after 60s: %v\n%s", procs, se.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	if code := exitCode(t, cmd.Wait()); code != 130 {
		t.Fatalf("exit %d, want 130:\n%s", code, se.String())
	}
	if left := testbin.ProcessesWith(marker); len(left) > 0 {
		t.Errorf("processes left after Ctrl-C: %v", left)
	}
}

// A service suite on a machine without the load generator: exit 2 before
// anything runs, the message naming the load and what installs hey.
func TestServiceWithoutLoadGeneratorExits2(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "suite.yaml"), serviceSuite(t, testbin.Dotnet(t), "x", "1s"))
	cmd := exec.Command(testbin.Vbench(t), "run", "suite.yaml")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+t.TempDir())
	var se bytes.Buffer
	cmd.Stderr = &se
	if code := exitCode(t, cmd.Run()); code != 2 {
		t.Fatalf("exit %d, want 2:\n%s", code, se.String())
	}
	if want := "suite.yaml:11: workloads[0].load: the load generator hey is not installed (not found in PATH): scripts/ensure-loadgen.sh installs it"; !strings.Contains(se.String(), want) {
		t.Errorf("stderr %q\nlacks %q", se.String(), want)
	}
}

// A run of another workload of a suite with a service does not need the
// load generator: `--workloads plain` on a machine without hey runs plain
// (it was refused: "the load generator hey is not installed").
func TestUnselectedServiceNeedsNoLoadGenerator(t *testing.T) {
	dir := t.TempDir()
	suite := serviceSuite(t, testbin.Dotnet(t), "x", "1s") +
		fmt.Sprintf("  - name: plain\n    command: [%s, -elapsed, \"1000\"]\n    checksum: ok\n", testbin.Fakework(t))
	writeFile(t, filepath.Join(dir, "suite.yaml"), suite)
	cmd := exec.Command(testbin.Vbench(t), "run", "suite.yaml", "--workloads", "plain", "--json", "r.json")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+t.TempDir())
	var se bytes.Buffer
	cmd.Stderr = &se
	if code := exitCode(t, cmd.Run()); code != 0 {
		t.Fatalf("exit %d, want 0:\n%s", code, se.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "r.json")); err != nil {
		t.Errorf("no results: %v\n%s", err, se.String())
	}
}
