package datasets

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// testSents returns n sentences; sentence i has i%5+1 tokens, all equal to
// 10+i, so a row tells which sentence it holds and how long it is.
func testSents(n int) [][]int32 {
	s := make([][]int32, n)
	for i := range s {
		for range i%5 + 1 {
			s[i] = append(s[i], int32(10+i))
		}
	}
	return s
}

func TestSentenceRowLayout(t *testing.T) {
	for _, c := range []struct {
		name    string
		sent    []int32
		seqLen  int
		in, tgt []int32
		realLen int
	}{
		{"padded", []int32{7, 8}, 5, []int32{2, 7, 8, 0, 0}, []int32{7, 8, 2, -1, -1}, 3},
		{"exact fit", []int32{7, 8, 9}, 4, []int32{2, 7, 8, 9}, []int32{7, 8, 9, 2}, 4},
		{"truncated: last target is the next word", []int32{7, 8, 9, 6}, 3, []int32{2, 7, 8}, []int32{7, 8, 9}, 3},
		{"one word", []int32{7}, 2, []int32{2, 7}, []int32{7, 2}, 2},
		{"empty sentence", []int32{}, 3, []int32{2, 0, 0}, []int32{2, -1, -1}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := make([]int32, c.seqLen)
			tgt := make([]int32, c.seqLen)
			real := make([]bool, c.seqLen)
			for i := range in {
				in[i], tgt[i], real[i] = 99, 99, true // dirty buffers must be overwritten
			}
			fillSentenceRow(in, tgt, real, c.sent, true)
			if !slices.Equal(in, c.in) || !slices.Equal(tgt, c.tgt) {
				t.Errorf("in %v tgt %v, want %v %v", in, tgt, c.in, c.tgt)
			}
			for i, r := range real {
				if r != (i < c.realLen) {
					t.Errorf("real %v, want %d leading true", real, c.realLen)
					break
				}
			}
		})
	}
}

// rowSentence returns the sentence index a batch row holds, checking the
// row's layout against testSents on the way.
func rowSentence(t *testing.T, in, tgt []int32, real []bool) int {
	t.Helper()
	id := in[1]
	k := int(id-10)%5 + 1
	if in[0] != SepID {
		t.Fatalf("row %v does not start with <s>", in)
	}
	for i := range in {
		want := i <= k
		if real[i] != want {
			t.Fatalf("row %v: real %v, want %d real positions", in, real, k+1)
		}
		switch {
		case i >= 1 && i <= k && in[i] != id, i > k && (in[i] != PadID || tgt[i] != -1),
			i < k && tgt[i] != id, i == k && tgt[i] != SepID:
			t.Fatalf("row in %v tgt %v is not sentence %d", in, tgt, id-10)
		}
	}
	return int(id - 10)
}

func TestSentenceBatcherEpochs(t *testing.T) {
	const n, batch, seqLen = 23, 4, 7
	for _, shuffle := range []bool{false, true} {
		t.Run(fmt.Sprint("shuffle=", shuffle), func(t *testing.T) {
			b, err := NewSentenceBatcher(testSents(n), batch, seqLen, 5, shuffle)
			if err != nil {
				t.Fatal(err)
			}
			if got := b.StepsPerEpoch(); got != 6 {
				t.Errorf("StepsPerEpoch %d, want ceil(23/4) = 6", got)
			}
			in := make([]int32, batch*seqLen)
			tgt := make([]int32, batch*seqLen)
			real := make([]bool, batch*seqLen)
			var seen []int
			for step := 1; step <= 3*n; step++ { // 3*n*batch rows = 12 epochs
				b.Next(in, tgt, real)
				for r := range batch {
					o := r * seqLen
					seen = append(seen, rowSentence(t, in[o:o+seqLen], tgt[o:o+seqLen], real[o:o+seqLen]))
				}
				if want := float64(step*batch) / n; b.Epoch() != want {
					t.Fatalf("step %d: Epoch %v, want %v", step, b.Epoch(), want)
				}
			}
			var orders [][]int
			for e := 0; e < 12; e++ {
				ep := slices.Clone(seen[e*n : (e+1)*n])
				orders = append(orders, slices.Clone(ep))
				slices.Sort(ep)
				for i, s := range ep {
					if s != i {
						t.Fatalf("epoch %d does not hand out every sentence once: %v", e, seen[e*n:(e+1)*n])
					}
				}
			}
			if !shuffle && !slices.Equal(orders[0], orders[1]) || shuffle && slices.Equal(orders[0], orders[1]) {
				t.Errorf("shuffle=%v: epochs 0 and 1 in order %v and %v", shuffle, orders[0], orders[1])
			}
			if !shuffle && !slices.IsSorted(orders[0]) {
				t.Errorf("unshuffled order %v", orders[0])
			}
		})
	}
}

// batches draws steps batches and renders them for comparison.
func batches(t *testing.T, sents [][]int32, seed int64, steps int) []string {
	t.Helper()
	b, err := NewSentenceBatcher(sents, 3, 6, seed, true)
	if err != nil {
		t.Fatal(err)
	}
	in := make([]int32, 18)
	tgt := make([]int32, 18)
	real := make([]bool, 18)
	var out []string
	for range steps {
		b.Next(in, tgt, real)
		out = append(out, fmt.Sprint(in, tgt, real))
	}
	return out
}

func TestSentenceBatcherDeterminism(t *testing.T) {
	s := testSents(40)
	a, b, c := batches(t, s, 1, 30), batches(t, s, 1, 30), batches(t, s, 2, 30)
	if !slices.Equal(a, b) {
		t.Error("same seed, different batches")
	}
	if slices.Equal(a, c) {
		t.Error("seeds 1 and 2 give the same batches")
	}
}

// Padding per batch must vary as in real NLP batches: over an epoch the
// number of real positions per batch takes several values.
func TestSentenceBatcherPaddingVaries(t *testing.T) {
	b, err := NewSentenceBatcher(testSents(100), 4, 8, 3, true)
	if err != nil {
		t.Fatal(err)
	}
	in, tgt, real := make([]int32, 32), make([]int32, 32), make([]bool, 32)
	counts := map[int]bool{}
	for range b.StepsPerEpoch() {
		b.Next(in, tgt, real)
		n := 0
		for _, r := range real {
			if r {
				n++
			}
		}
		counts[n] = true
	}
	if len(counts) < 4 {
		t.Errorf("real positions per batch took only %d distinct values", len(counts))
	}
}

func TestSentenceBatcherErrors(t *testing.T) {
	for _, c := range []struct {
		name          string
		sents         [][]int32
		batch, seqLen int
		want          string
	}{
		{"no sentences", nil, 1, 4, "no sentences"},
		{"too few", testSents(3), 4, 4, "3 sentences, too few for one batch of 4"},
		{"zero batch", testSents(3), 0, 4, "sentence batch 0×4"},
		{"seqLen 1", testSents(3), 1, 1, "sentence batch 1×1"},
		{"negative id", [][]int32{{5, -1}}, 1, 4, "sentence 0 holds token id -1"},
		{"pad id", [][]int32{{5}, {0}}, 1, 4, "sentence 1 holds token id 0"},
		{"marker id", [][]int32{{SepID}}, 1, 4, "sentence 0 holds token id 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewSentenceBatcher(c.sents, c.batch, c.seqLen, 1, true)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
			if _, err := SentenceEvalBatches(c.sents, 0, max(c.batch, 1), c.seqLen); c.name != "too few" && c.name != "zero batch" && err == nil {
				t.Error("SentenceEvalBatches accepted it")
			}
		})
	}
}

func TestSentenceBatcherWrongBuffers(t *testing.T) {
	b, err := NewSentenceBatcher(testSents(4), 2, 3, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic on a short buffer")
		}
	}()
	b.Next(make([]int32, 6), make([]int32, 6), make([]bool, 5))
}

func TestSentenceEvalBatches(t *testing.T) {
	sents := testSents(10)
	for _, c := range []struct {
		name    string
		n       int
		picked  []int
		batches int
	}{
		{"all", 0, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 3},
		{"more than there are", 50, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 3},
		{"spread", 4, []int{0, 2, 5, 7}, 1},
		{"spread, one padding row", 3, []int{0, 3, 6}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			bs, err := SentenceEvalBatches(sents, c.n, 4, 6)
			if err != nil {
				t.Fatal(err)
			}
			if len(bs) != c.batches {
				t.Fatalf("%d batches, want %d", len(bs), c.batches)
			}
			var got []int
			tokens := 0
			for _, b := range bs {
				real := 0
				for r := range 4 {
					o := r * 6
					if r >= b.Rows {
						for i := o; i < o+6; i++ {
							if b.Real[i] || b.In[i] != PadID || b.Tgt[i] != -1 {
								t.Fatalf("padding row %d: in %v tgt %v real %v", r, b.In[o:o+6], b.Tgt[o:o+6], b.Real[o:o+6])
							}
						}
						continue
					}
					got = append(got, rowSentence(t, b.In[o:o+6], b.Tgt[o:o+6], b.Real[o:o+6]))
				}
				for _, r := range b.Real {
					if r {
						real++
					}
				}
				if real != b.Tokens {
					t.Errorf("Tokens %d, but %d real positions", b.Tokens, real)
				}
				tokens += real
			}
			if !slices.Equal(got, c.picked) {
				t.Errorf("sentences %v, want %v", got, c.picked)
			}
		})
	}
}
