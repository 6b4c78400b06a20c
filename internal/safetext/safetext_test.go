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
		"[click](https://evil.example/x)":     "[click\\](https:\u200d//evil.example/x)",
		"![img](https://evil.example/i.png)":  "\\![img\\](https:\u200d//evil.example/i.png)",
		"[a][ref] [ref]: http://x [+3%, +7%]": "[a\\][ref] [ref\\]: http:\u200d//x [+3%, +7%]",
		"cc @octocat and @org/team":           "cc @\u200doctocat and @\u200dorg/team",
		"a|b `code` *em* _x_ <b>&lt;":         "a\\|b \\`code\\` \\*em\\* \\_x\\_ &lt;b&gt;&amp;lt;",
		"line1\nline2":                        `line1\\nline2`,
		// What GitHub links in rendered text: a ZWJ breaks it.
		"see https://evil.example/x?a=1":         "see https:\u200d//evil.example/x?a=1",
		"ftp://h, FILE://x and www.evil.example": "ftp:\u200d//h, FILE:\u200d//x and www\u200d.evil.example",
		"fixes #123, org/repo#7 and GH-42":       "fixes #\u200d123, org/repo#\u200d7 and GH-\u200d42",
		"mail me@evil.example":                   "mail me@\u200devil.example",
		"# heading #x C# 10:30 a:b //c":          "# heading #x C# 10:30 a:b //c",
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
