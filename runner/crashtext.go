package runner

import (
	"fmt"
	"regexp"
	"strings"
)

// crashText keeps what a crashed .NET program's stderr says first, which
// its tail loses: the runtime prints the error line ("Unhandled exception.
// System.InvalidOperationException: boom", "Process terminated." and the
// FailFast message), then the stack from the throw site down to Main. A
// deep stack's last lines are Main and the frames above it, so a message
// built from the tail alone starts mid-stack and never says what failed.
// crashText sees every line as it is written and keeps the first error
// line and the first few of the program's own frames (framework frames
// skipped, a frame repeated by recursion counted: "×40").
type crashText struct {
	header string       // the first error line, "" until one is seen
	await  bool         // "Process terminated." alone: its message is the next line
	frames []crashFrame // the program's frames after the header, at most maxCrashFrames
	done   bool         // a further distinct frame came: the counts are final
}

type crashFrame struct {
	text  string
	count int
}

const maxCrashFrames = 3

// crashHeaders start the error lines the .NET runtime prints when a program
// dies: an unhandled exception, Environment.FailFast, a stack overflow and
// a fatal internal error.
var crashHeaders = []string{"Unhandled exception.", "Process terminated.", "Stack overflow.", "Fatal error."}

// frameworkFrame: frames of the runtime and its libraries, which say where
// the framework was, not where the program failed.
var frameworkFrame = regexp.MustCompile(`^at (System|Microsoft|Internal|Interop)[.+]`)

// frameSource shortens " in /long/path/File.cs:line 21" to " in File.cs:21".
var frameSource = regexp.MustCompile(` in (?:.*/)?([^/]+):line (\d+)$`)

func (c *crashText) line(s string) {
	s = strings.TrimRight(s, "\r")
	t := strings.TrimSpace(s)
	if c.header == "" {
		for _, h := range crashHeaders {
			if strings.HasPrefix(s, h) {
				c.header = t
				c.await = t == "Process terminated."
				return
			}
		}
		return
	}
	if c.done || t == "" {
		return
	}
	if !strings.HasPrefix(t, "at ") {
		if c.await {
			c.header += " " + t
		}
		c.await = false
		return
	}
	c.await = false
	if frameworkFrame.MatchString(t) {
		return
	}
	t = frameSource.ReplaceAllString(t, " in $1:$2")
	if n := len(c.frames); n > 0 && c.frames[n-1].text == t {
		c.frames[n-1].count++
		return
	}
	if len(c.frames) == maxCrashFrames {
		c.done = true
		return
	}
	c.frames = append(c.frames, crashFrame{t, 1})
}

// String is the error line and the program's frames, one a line; "" when
// the program printed no .NET error line.
func (c *crashText) String() string {
	if c.header == "" {
		return ""
	}
	lines := []string{c.header}
	for _, f := range c.frames {
		if f.count > 1 {
			lines = append(lines, fmt.Sprintf("%s ×%d", f.text, f.count))
		} else {
			lines = append(lines, f.text)
		}
	}
	return strings.Join(lines, "\n")
}
