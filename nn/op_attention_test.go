package nn

import (
	"math"
	"math/rand"
	"testing"
)

// TestHideKeysRuns: masking a row by padRuns' runs sets −Inf exactly where
// a key is padding and leaves every other score alone, for every visible
// prefix of the row (as a causal row sees), on masks of no padding, all
// padding, a padded tail, alternating keys and random ones; padRuns'
// first real key is the first true flag.
func TestHideKeysRuns(t *testing.T) {
	const n = 13
	r := rand.New(rand.NewSource(4))
	masks := map[string][]bool{"none": make([]bool, n), "all": make([]bool, n), "tail": make([]bool, n),
		"alternating": make([]bool, n), "random": make([]bool, n), "head": make([]bool, n)}
	for j := 0; j < n; j++ {
		masks["none"][j] = true
		masks["tail"][j] = j < 9
		masks["alternating"][j] = j%2 == 0
		masks["random"][j] = r.Intn(3) > 0
		masks["head"][j] = j >= 4
	}
	for name, keys := range masks {
		runs, first := padRuns(keys, nil)
		wantFirst := n
		for j, k := range keys {
			if k {
				wantFirst = j
				break
			}
		}
		if first != wantFirst {
			t.Errorf("%s: first real key %d, want %d", name, first, wantFirst)
		}
		for vis := 1; vis <= n; vis++ {
			row := make([]float32, n)
			for j := range row {
				row[j] = float32(j) + 0.5
			}
			hideKeys(row[:vis], runs)
			for j, v := range row {
				want := float32(j) + 0.5
				if j < vis && !keys[j] {
					want = float32(math.Inf(-1))
				}
				if v != want {
					t.Fatalf("%s, %d visible: score %d = %v, want %v", name, vis, j, v, want)
				}
			}
		}
	}
}
