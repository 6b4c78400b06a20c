// Package safetext renders text vbench did not write — a program's method
// names and stderr, commit strings from a results file — so that it can
// neither drive the terminal it is printed on (an ESC sequence that
// recolours, moves the cursor or retitles the window; a carriage return or
// newline that forges a line) nor become markup in a pull-request comment
// (links, images, @mentions, a pipe that splits a table cell). Control
// characters are shown, not dropped: `\x1b`, `\n`, `\u202e`.
package safetext

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Line is s on one line with every control character visible: C0 (newline
// and tab too), DEL, C1, the invisible format characters that reorder or
// hide text (bidi overrides, zero-width), and bytes that are not UTF-8.
func Line(s string) string { return escape(s, false) }

// Text is Line keeping newlines and tabs: for a stream of lines.
func Text(s string) string { return escape(s, true) }

func escape(s string, keepLines bool) string {
	clean := true
	for i := 0; i < len(s) && clean; {
		r, n := utf8.DecodeRuneInString(s[i:])
		clean = !(r == utf8.RuneError && n == 1) && !unsafe(r, keepLines)
		i += n
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !unsafe(r, keepLines):
			b.WriteString(s[i : i+n])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += n
	}
	return b.String()
}

// unsafe reports whether r must be shown escaped.
func unsafe(r rune, keepLines bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return !keepLines
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0xfeff:
		return true
	}
	return false
}

// Markdown is Line as inert Markdown text: nothing in it can link, embed
// an image, mention anyone, refer to an issue, format, open a code span or
// HTML, or split a table cell. Brackets are escaped only where they could
// make a link (before "(", "[" or ":", and "!["); text cannot define a
// link, and "[+3.2%, +7.0%]" stays readable. What GitHub links by itself,
// where no escape helps (it links the rendered text), is broken by a
// zero-width joiner (ZWJ): after an @ before a name (a mention, an e-mail
// address), after a # or GH- before a digit (an issue or pull request,
// which also notifies it), in :// (a bare URL, any scheme) and in www.
func Markdown(s string) string {
	s = Line(s)
	var b strings.Builder
	for i, r := range s {
		next := byte(0)
		if i+1 < len(s) {
			next = s[i+1]
		}
		switch {
		case r == '#' && isDigit(next),
			r == '-' && isDigit(next) && i >= 2 && strings.EqualFold(s[i-2:i], "gh"):
			b.WriteRune(r)
			b.WriteString(zwj)
		case r == ':' && strings.HasPrefix(s[i+1:], "//"):
			b.WriteString(":" + zwj)
		case r == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www"):
			b.WriteString(zwj + ".")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '&':
			b.WriteString("&amp;")
		case r == '@' && isWord(next):
			b.WriteString("@" + zwj)
		case r == ']' && (next == '(' || next == '[' || next == ':'),
			r == '!' && next == '[',
			r == '\\', r == '`', r == '*', r == '_', r == '|', r == '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// zwj is the zero-width joiner Markdown puts inside what GitHub would link.
const zwj = "\u200d"

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isWord reports whether c can start a GitHub user or team name.
func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Code is Line as a Markdown code span (nothing in it is markup), fenced
// with more backticks than it holds in a row; its pipes are escaped, as a
// table cell needs even in code.
func Code(s string) string {
	s = Line(s)
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + strings.ReplaceAll(s, "|", `\|`) + fence
}

// Writer passes text through Text: what a terminal is given can hold
// newlines and tabs, never another control character. A character split
// across writes is held until it is whole.
type Writer struct {
	w       io.Writer
	pending []byte
}

// NewWriter filters what is written to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

func (t *Writer) Write(p []byte) (int, error) {
	buf := append(t.pending, p...)
	// Hold back an incomplete last character (up to 3 bytes).
	keep := 0
	for k := 1; k <= 3 && k <= len(buf); k++ {
		c := buf[len(buf)-k]
		if c < 0x80 {
			break
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(buf[len(buf)-k:]) {
				keep = k
			}
			break
		}
	}
	t.pending = append([]byte(nil), buf[len(buf)-keep:]...)
	if _, err := io.WriteString(t.w, Text(string(buf[:len(buf)-keep]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is held back (an incomplete character, shown escaped).
func (t *Writer) Flush() error {
	if len(t.pending) == 0 {
		return nil
	}
	_, err := io.WriteString(t.w, Text(string(t.pending)))
	t.pending = nil
	return err
}
