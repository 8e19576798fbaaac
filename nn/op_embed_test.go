package nn

import (
	"math"
	"math/rand"
	"testing"
)

// TestScatterAddMatchesLoop: the embedding's gradient kernel gives the bits
// of the Go loop row[k] += g[k] it replaced, with repeated indices (a row
// summed into several times, in order), widths around the kernel's 8-lane
// blocks, and NaN, ±Inf and −0 gradients.
func TestScatterAddMatchesLoop(t *testing.T) {
	r := rand.New(rand.NewSource(24))
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1)), 1e38}
	bothPaths(t, func(t *testing.T) {
		for _, d := range []int{1, 7, 8, 9, 16, 64, 67} {
			const vocab, tokens = 11, 40
			idx := make([]int32, tokens)
			for i := range idx {
				idx[i] = int32(r.Intn(vocab))
			}
			idx[1], idx[2] = idx[0], idx[0]
			g := make([]float32, tokens*d)
			for i := range g {
				g[i] = float32(r.NormFloat64())
				if i%13 == 5 {
					g[i] = specials[i/13%len(specials)]
				}
			}
			got, want := make([]float32, vocab*d), make([]float32, vocab*d)
			for i := range got {
				got[i] = float32(r.NormFloat64())
				want[i] = got[i]
			}
			if err := scatterAdd[float32](&idx, d)(got, [][]float32{g}); err != nil {
				t.Fatal(err)
			}
			for i, tk := range idx {
				row := want[int(tk)*d : (int(tk)+1)*d]
				for k, v := range g[i*d : (i+1)*d] {
					row[k] += v
				}
			}
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("d=%d [%d]: %v, want %v", d, i, got[i], want[i])
				}
			}
		}
	})
}
