package cli

import "testing"

func TestParseShard(t *testing.T) {
	if s, err := parseShard("2/4"); err != nil || s.Index != 2 || s.Count != 4 {
		t.Errorf("parseShard(2/4) = %+v, %v", s, err)
	}
	for _, bad := range []string{"0/4", "5/4", "1/0", "x/2", "2", "1/2/3", ""} {
		if _, err := parseShard(bad); err == nil {
			t.Errorf("parseShard(%q) accepted", bad)
		}
	}
}
