package safetext

import (
	"bytes"
	"testing"
)

func TestLine(t *testing.T) {
	for in, want := range map[string]string{
		"Fib.Compute(int)":             "Fib.Compute(int)",
		"A\x1b[2J\x1b]0;pwned\x07B":    `A\x1b[2J\x1b]0;pwned\x07B`,
		"a\nFAKE 0 regressions\r":      `a\nFAKE 0 regressions\r`,
		"tab\there\x7f":                `tab\there\x7f`,
		"c1\u009bm bidi\u202eevil":     `c1\u009bm bidi\u202eevil`,
		"bad \xff utf8, good \ufffd é": `bad \xff utf8, good ` + "\ufffd é",
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Text("a\n\tb\x1b"); got != "a\n\tb\\x1b" {
		t.Errorf("Text kept %q", got)
	}
}

func TestMarkdown(t *testing.T) {
	for in, want := range map[string]string{
		"plain text 1.5":                      "plain text 1.5",
		"[click](https://evil.example/x)":     `[click\](https://evil.example/x)`,
		"![img](https://evil.example/i.png)":  `\![img\](https://evil.example/i.png)`,
		"[a][ref] [ref]: http://x [+3%, +7%]": `[a\][ref] [ref\]: http://x [+3%, +7%]`,
		"cc @octocat and @org/team":           "cc @\u200doctocat and @\u200dorg/team",
		"a|b `code` *em* _x_ <b>&lt;":         "a\\|b \\`code\\` \\*em\\* \\_x\\_ &lt;b&gt;&amp;lt;",
		"line1\nline2":                        `line1\\nline2`,
	} {
		if got := Markdown(in); got != want {
			t.Errorf("Markdown(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"fib/none":   "`fib/none`",
		"a`b":        "``a`b``",
		"`x`":        "`` `x` ``",
		"a|b\nc":     "`a\\|b\\nc`",
		"A.M()@evil": "`A.M()@evil`",
	} {
		if got := Code(in); got != want {
			t.Errorf("Code(%q) = %q, want %q", in, got, want)
		}
	}
}

// A character split across writes passes whole; controls never pass.
func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	in := []byte("é\x1b[31mred\n\u202e")
	for i := range in {
		if _, err := w.Write(in[i : i+1]); err != nil {
			t.Fatal(err)
		}
	}
	w.Write([]byte{0xe2})
	w.Flush()
	if want := "é\\x1b[31mred\n\\u202e\\xe2"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}
