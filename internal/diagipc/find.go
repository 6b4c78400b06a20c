package diagipc

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Why no diagnostics socket could be found for a process.
var (
	ErrNoProcess      = errors.New("no such process")
	ErrNotDotnet      = errors.New("not a .NET process")
	ErrDiagnosticsOff = errors.New("diagnostics port is disabled")
)

// Socket is the path of process pid's diagnostics socket:
// $TMPDIR/dotnet-diagnostic-{pid}-{disambiguation key}-socket, TMPDIR the
// process's own (else /tmp), the key its start time in clock ticks since
// boot (/proc/pid/stat's 22nd field). The error names why there is none:
// ErrNoProcess, ErrNotDotnet (no libcoreclr.so mapped), ErrDiagnosticsOff.
func Socket(pid int) (string, error) {
	proc := filepath.Join("/proc", strconv.Itoa(pid))
	if pid <= 0 {
		return "", fmt.Errorf("pid %d: %w", pid, ErrNoProcess)
	}
	if _, err := os.Stat(proc); err != nil {
		return "", fmt.Errorf("pid %d: %w (nothing runs with that id)", pid, ErrNoProcess)
	}
	if st, err := os.ReadFile(filepath.Join(proc, "stat")); err == nil {
		if i := bytes.LastIndexByte(st, ')'); i >= 0 && bytes.HasPrefix(st[i+1:], []byte(" Z")) {
			return "", fmt.Errorf("pid %d: %w: it has exited (its parent has not reaped it yet)", pid, ErrNoProcess)
		}
	}
	env := environ(pid)
	dir := env["TMPDIR"]
	if dir == "" {
		dir = "/tmp"
	}
	name := ""
	if key, err := startTime(pid); err == nil {
		name = filepath.Join(dir, fmt.Sprintf("dotnet-diagnostic-%d-%s-socket", pid, key))
		if fi, err := os.Stat(name); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return name, nil
		}
	}
	what := command(pid)
	maps, err := os.ReadFile(filepath.Join(proc, "maps"))
	if err != nil {
		return "", fmt.Errorf("pid %d (%s): cannot read its memory map to tell whether it is .NET: %v", pid, what, errors.Unwrap(err))
	}
	if !bytes.Contains(maps, []byte("/libcoreclr.so")) {
		return "", fmt.Errorf("pid %d (%s) is %w: it has no CoreCLR runtime (libcoreclr.so) loaded", pid, what, ErrNotDotnet)
	}
	for _, k := range []string{"DOTNET_EnableDiagnostics", "COMPlus_EnableDiagnostics", "DOTNET_EnableDiagnostics_IPC", "COMPlus_EnableDiagnostics_IPC"} {
		if v, ok := env[k]; ok && v == "0" {
			return "", fmt.Errorf("pid %d (%s): its %w: it runs with %s=0, so the runtime opened no diagnostics socket to attach through (restart it without that variable)", pid, what, ErrDiagnosticsOff, k)
		}
	}
	return "", fmt.Errorf("pid %d (%s): its %w: the runtime's socket %s does not exist (was it started with DOTNET_EnableDiagnostics=0, or with another TMPDIR?)", pid, what, ErrDiagnosticsOff, name)
}

// Dial connects to process pid's diagnostics socket.
func Dial(pid int) (net.Conn, error) {
	path, err := Socket(pid)
	if err != nil {
		return nil, err
	}
	c, err := net.Dial("unix", path)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("pid %d: its diagnostics socket %s refuses connections (the process may be exiting)", pid, path)
		}
		return nil, fmt.Errorf("pid %d: connecting to its diagnostics socket: %w", pid, err)
	}
	return c, nil
}

// startTime is field 22 of /proc/pid/stat, after the command's
// parenthesised name (which may hold spaces).
func startTime(pid int) (string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 { // fields 3.. follow the name: 22 is the 20th
		return "", fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	return f[19], nil
}

// environ is the process's environment (empty when unreadable).
func environ(pid int) map[string]string {
	m := map[string]string{}
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	for _, kv := range bytes.Split(b, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok {
			m[k] = v
		}
	}
	return m
}

// command is the process's command line, shortened, for messages.
func command(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	s := strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	if s == "" {
		return "no command line"
	}
	return s
}
