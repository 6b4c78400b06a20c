package machine

import (
	"strconv"
	"strings"
)

// versionLess orders .NET runtime versions ("8.0.20", "10.0.0-rc.2.25502.107")
// by semantic-version precedence: release parts numerically, and a
// pre-release before its release ("10.0.0-rc.2" < "10.0.0"), its
// dot-separated parts numerically when both are numbers, else as text.
func versionLess(a, b string) bool {
	arel, apre, _ := strings.Cut(a, "-")
	brel, bpre, _ := strings.Cut(b, "-")
	if c := compareParts(strings.Split(arel, "."), strings.Split(brel, ".")); c != 0 {
		return c < 0
	}
	switch {
	case apre == bpre:
		return false
	case apre == "":
		return false // a release comes after its pre-releases
	case bpre == "":
		return true
	}
	return compareParts(strings.Split(apre, "."), strings.Split(bpre, ".")) < 0
}

// compareParts compares dotted parts one by one: numbers numerically, a
// number before a word (as semver orders pre-release identifiers), words as
// text; when one list is a prefix of the other, the shorter comes first.
func compareParts(as, bs []string) int {
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, errx := strconv.ParseUint(as[i], 10, 64)
		y, erry := strconv.ParseUint(bs[i], 10, 64)
		switch {
		case errx == nil && erry == nil:
			if x != y {
				if x < y {
					return -1
				}
				return 1
			}
		case errx == nil:
			return -1
		case erry == nil:
			return 1
		default:
			if c := strings.Compare(as[i], bs[i]); c != 0 {
				return c
			}
		}
	}
	return len(as) - len(bs)
}
