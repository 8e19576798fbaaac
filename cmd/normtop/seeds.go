package main

import (
	"fmt"
	"strconv"
	"strings"
)

// parseSeeds reads --seeds: comma-separated integers, each at most once.
func parseSeeds(s string) ([]int64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("--seeds: empty; want comma-separated integers such as 1,2,3")
	}
	var out []int64
	seen := map[int64]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("--seeds %q: %q is not an integer; want comma-separated integers such as 1,2,3", s, f)
		}
		if seen[v] {
			return nil, fmt.Errorf("--seeds %q: seed %d given twice", s, v)
		}
		seen[v] = true
		out = append(out, v)
	}
	return out, nil
}
