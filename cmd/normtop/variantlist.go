package main

import (
	"errors"
	"fmt"
	"strings"
)

// splitVariants splits a --variants value into one spec per variant.
// Variants are separated by commas, and so are a variant's options
// ("layernorm,powernorm:alpha_fwd=0.95,warmup=4000,rmsnorm"): a piece that
// holds "=" but no ":" is another option of the variant before it. Spaces
// around pieces are ignored. The specs themselves are checked by normspec.Parse.
func splitVariants(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("--variants is empty (want e.g. layernorm,powernorm; see normtop variants)")
	}
	var out []string
	for _, piece := range strings.Split(s, ",") {
		piece = strings.TrimSpace(piece)
		switch {
		case piece == "":
			return nil, fmt.Errorf("--variants %q has an empty entry", s)
		case strings.Contains(piece, "=") && !strings.Contains(piece, ":"):
			if len(out) == 0 {
				return nil, fmt.Errorf("--variants %q: option %q comes before any variant (write variant:%s)", s, piece, piece)
			}
			out[len(out)-1] += "," + piece
		default:
			out = append(out, piece)
		}
	}
	return out, nil
}
