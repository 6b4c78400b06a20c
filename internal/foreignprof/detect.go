package foreignprof

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"vbench/internal/modes"
	"vbench/internal/profile"
)

// Formats names the foreign formats vbench reads, for messages.
const Formats = "nettrace (EventPipe), pprof (.pb.gz), speedscope JSON, perf script text"

// Detect tells a foreign profile file's format by its content: nettrace's
// magic, gzip (pprof), speedscope's schema, perf script's first sample
// header. ok is false for anything else (vbench's own JSON among them).
func Detect(path string) (format modes.ProfileFormat, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte("Nettrace")):
		return modes.FormatNettrace, true
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return modes.FormatPprof, true
	case bytes.HasPrefix(bytes.TrimSpace(head), []byte("{")):
		if bytes.Contains(head, []byte(`"$schema"`)) && bytes.Contains(head, []byte("speedscope")) {
			return modes.FormatSpeedscope, true
		}
		return "", false
	}
	sc := bufio.NewScanner(bytes.NewReader(head))
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if perfHeader.MatchString(line) && strings.HasSuffix(strings.TrimSpace(line), ":") {
			return modes.FormatPerfScript, true
		}
		break
	}
	return "", false
}

// ReadFile reads one foreign profile file, its format told by Detect, into
// vbench's profile model (the reports and diffs read it as their own).
func ReadFile(path string, nettrace NettraceReader) (*profile.Profile, modes.ProfileFormat, error) {
	format, ok := Detect(path)
	if !ok {
		return nil, "", fmt.Errorf("%s: not a profile format vbench reads (%s)", path, Formats)
	}
	if format == modes.FormatNettrace && nettrace == nil {
		return nil, format, fmt.Errorf("%s: a nettrace file, and no nettrace reader was given", path)
	}
	p, err := Read(format, []string{path}, nettrace)
	if err != nil && !strings.HasPrefix(err.Error(), path) {
		err = fmt.Errorf("%s: %s profile unreadable: %w", path, format, err)
	}
	if err != nil {
		return nil, format, err
	}
	return p, format, nil
}
