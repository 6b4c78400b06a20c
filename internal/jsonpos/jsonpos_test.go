package jsonpos

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func decodeErr(data string) error {
	var v struct {
		N int `json:"n"`
	}
	return json.Unmarshal([]byte(data), &v)
}

func TestError(t *testing.T) {
	for data, want := range map[string]string{
		"{\n  ,\"n\": 1}":    "f.json:2:3: malformed JSON: invalid character ','",
		"{\n  \"n\": \"x\"}": `f.json:2:10: field n: int cannot hold a JSON string`,
		"{\n  \"n\": 1,\n":   "f.json:2:9: truncated JSON (file ends early)",
		"[1]":                "f.json:1:1: field (top level): struct",
	} {
		err := Error("f.json", []byte(data), decodeErr(data))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", data, err, want)
		}
	}
	other := errors.New("disk on fire")
	if err := Error("f.json", nil, other); err.Error() != "f.json: disk on fire" || !errors.Is(err, other) {
		t.Errorf("other error: %v", err)
	}
}

func TestLineCol(t *testing.T) {
	data := []byte("ab\ncd\n")
	for off, want := range map[int64][2]int{0: {1, 1}, 1: {1, 1}, 2: {1, 2}, 4: {2, 1}, 5: {2, 2}, 99: {3, 1}} {
		if l, c := LineCol(data, off); l != want[0] || c != want[1] {
			t.Errorf("LineCol(%d) = %d:%d, want %d:%d", off, l, c, want[0], want[1])
		}
	}
}

func TestFind(t *testing.T) {
	data := []byte("{\n  \"a\": 1,\n  \"results\": [\n    {\"x\": 1},\n    {\n      \"Verdict\": \"bogus\"\n    }\n  ]\n}\n")
	for _, c := range []struct {
		path []any
		want string
		ok   bool
	}{
		{[]any{"a"}, "f.json:2:5", true},
		{[]any{"results", 1}, "f.json:5:5", true},
		{[]any{"results", 1, "verdict"}, "f.json:6:15", true},
		{[]any{"results", 2}, "", false},
		{[]any{"results", 0, "verdict"}, "", false},
		{[]any{"a", "b"}, "", false},
	} {
		off, ok := Find(data, c.path...)
		if ok != c.ok || (ok && At("f.json", data, off) != c.want) {
			t.Errorf("Find(%v) = %s %v, want %s %v", c.path, At("f.json", data, off), ok, c.want, c.ok)
		}
	}
}
