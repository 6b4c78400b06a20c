package cli

import (
	"fmt"
	"strconv"
	"strings"

	"vbench/internal/results"
)

// parseShard reads --shard "i/n".
func parseShard(s string) (*results.Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return nil, fmt.Errorf("--shard %q: want i/n, e.g. 2/4", s)
	}
	if n < 1 || i < 1 || i > n {
		return nil, fmt.Errorf("--shard %q: need 1 <= i <= n", s)
	}
	return &results.Shard{Index: i, Count: n}, nil
}
