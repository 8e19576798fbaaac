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

// TestAttentionKeptProbs: the backward that reads the probabilities its
// forward kept gives the bits of the backward that recomputes them, in
// float32 (kernels on and off) and float64, causal and bidirectional, with
// and without a key mask, over a token-budget layout with padding rows; a
// second backward (nothing kept any more) and a forward on another qkv
// recompute.
func TestAttentionKeptProbs(t *testing.T) {
	for _, causal := range []bool{true, false} {
		for _, masked := range []bool{false, true} {
			bothPaths(t, func(t *testing.T) {
				keptMatchesRecomputed[float32](t, causal, masked)
			})
			keptMatchesRecomputed[float64](t, causal, masked)
		}
	}
}

func keptMatchesRecomputed[T Float](t *testing.T, causal, masked bool) {
	t.Helper()
	const n, maxT, heads, d = 23, 7, 2, 6
	r := rand.New(rand.NewSource(9))
	var real *[]bool
	if masked {
		m := make([]bool, n)
		for i := range m {
			m[i] = r.Intn(4) > 0
		}
		m[7], m[8], m[9], m[10], m[11], m[12] = false, false, false, false, false, false // sequence 1 all padding
		real = &m
	}
	o := &attn{n: n, maxT: maxT, lay: &Layout{Rows: 3, T: 6}, h: heads, d: d, causal: causal, real: real}
	if o.keptLen() == 0 {
		t.Fatal("the test's op keeps nothing")
	}
	if err := o.check(); err != nil {
		t.Fatal(err)
	}
	fill := func(k int) []T {
		x := make([]T, k)
		for i := range x {
			x[i] = T(r.NormFloat64())
		}
		return x
	}
	qkv, gout := fill(n*3*d), fill(n*d)
	fwd, bwd := attnFwd[T](o), attnBwd[T](o)
	out := make([]T, n*d)
	if err := fwd(out, [][]T{qkv}); err != nil {
		t.Fatal(err)
	}
	if o.keptFor == nil {
		t.Fatal("the forward kept nothing")
	}
	kept, again := make([]T, n*3*d), make([]T, n*3*d)
	if err := bwd(kept, [][]T{qkv, gout}); err != nil {
		t.Fatal(err)
	}
	if o.keptFor != nil {
		t.Fatal("the backward left the kept probabilities marked")
	}
	if err := bwd(again, [][]T{qkv, gout}); err != nil { // recomputes
		t.Fatal(err)
	}
	for i := range kept {
		if math.Float64bits(float64(kept[i])) != math.Float64bits(float64(again[i])) {
			t.Fatalf("causal %v masked %v: dqkv[%d] %v with the kept probabilities, %v recomputed", causal, masked, i, kept[i], again[i])
		}
	}
	// a forward on another qkv: the backward on the first one must not
	// read the second's probabilities
	other := fill(n * 3 * d)
	if err := fwd(out, [][]T{other}); err != nil {
		t.Fatal(err)
	}
	if err := bwd(again, [][]T{qkv, gout}); err != nil {
		t.Fatal(err)
	}
	for i := range kept {
		if math.Float64bits(float64(kept[i])) != math.Float64bits(float64(again[i])) {
			t.Fatalf("causal %v masked %v: after a forward on another qkv dqkv[%d] %v, want %v", causal, masked, i, again[i], kept[i])
		}
	}
}
