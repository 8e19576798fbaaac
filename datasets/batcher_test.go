package datasets

import (
	"slices"
	"strings"
	"testing"
)

// idSplit makes a split whose row i has every pixel byte and its label
// equal to i (labels are not limited to 10 classes here: the batcher does
// not care; n ≤ 256).
func idSplit(n, rowLen int) *ImageSplit {
	s := &ImageSplit{Pix: make([]uint8, n*rowLen), Y: make([]uint8, n), N: n}
	for i := range n {
		s.Y[i] = uint8(i)
		for j := range rowLen {
			s.Pix[i*rowLen+j] = uint8(i)
		}
	}
	return s
}

// imageRun draws batches and returns the row ids in order and the indices
// of the batches that reported an epoch end.
func imageRun(t *testing.T, b *ImageBatcher, batches, batch, rowLen int) (ids []int, ends []int) {
	t.Helper()
	x := make([]float32, batch*rowLen)
	y := make([]uint8, batch)
	for k := range batches {
		if b.Next(x, y) {
			ends = append(ends, k)
		}
		for i := range batch {
			for _, p := range x[i*rowLen : (i+1)*rowLen] {
				if p != float32(y[i])/255 {
					t.Fatalf("batch %d row %d: pixels of row %v with label %d", k, i, p, y[i])
				}
			}
			ids = append(ids, int(y[i]))
		}
	}
	return ids, ends
}

func TestImageBatcherEpochs(t *testing.T) {
	const n, batch, rowLen = 10, 4, 3
	for _, shuffle := range []bool{false, true} {
		b, err := NewImageBatcher(idSplit(n, rowLen), batch, 7, shuffle)
		if err != nil {
			t.Fatal(err)
		}
		// 5 batches = 20 rows = 2 epochs; the 3rd batch straddles the boundary.
		ids, ends := imageRun(t, b, 5, batch, rowLen)
		if !slices.Equal(ends, []int{2, 4}) {
			t.Errorf("shuffle=%v: epoch ends at batches %v, want [2 4]", shuffle, ends)
		}
		for e := range 2 {
			epoch := slices.Clone(ids[e*n : (e+1)*n])
			if !shuffle && !slices.Equal(epoch, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
				t.Errorf("unshuffled epoch %d: %v", e, epoch)
			}
			slices.Sort(epoch)
			if !slices.Equal(epoch, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
				t.Errorf("shuffle=%v epoch %d does not hold every row once: %v", shuffle, e, ids[e*n:(e+1)*n])
			}
		}
		if shuffle && slices.Equal(ids[:n], ids[n:]) {
			t.Error("two epochs in the same order: not reshuffled")
		}
		if got := b.Epoch(); got != 2 {
			t.Errorf("Epoch() = %v after 20 rows of 10, want 2", got)
		}
	}
}

func TestImageBatcherEpochFraction(t *testing.T) {
	b, err := NewImageBatcher(idSplit(8, 1), 3, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	x, y := make([]float32, 3), make([]uint8, 3)
	for k, want := range []float64{0.375, 0.75, 1.125} {
		b.Next(x, y)
		if b.Epoch() != want {
			t.Errorf("after batch %d: Epoch() = %v, want %v", k, b.Epoch(), want)
		}
	}
}

func TestImageBatcherSeed(t *testing.T) {
	order := func(seed int64) []int {
		b, err := NewImageBatcher(idSplit(200, 2), 16, seed, true)
		if err != nil {
			t.Fatal(err)
		}
		ids, _ := imageRun(t, b, 30, 16, 2)
		return ids
	}
	a, a2, c := order(42), order(42), order(43)
	if !slices.Equal(a, a2) {
		t.Error("same seed, different batch order")
	}
	if slices.Equal(a, c) {
		t.Error("seeds 42 and 43 give the same batch order")
	}
}

func TestImageBatcherErrors(t *testing.T) {
	for _, c := range []struct {
		s     *ImageSplit
		batch int
		want  string
	}{
		{nil, 4, "image split is empty"},
		{&ImageSplit{}, 4, "image split is empty"},
		{&ImageSplit{Pix: make([]uint8, 7), Y: make([]uint8, 2), N: 2}, 1, "inconsistent"},
		{idSplit(5, 2), 0, "batch size 0, want ≥ 1"},
		{idSplit(5, 2), 6, "split has 5 images, too few for one batch of 6"},
	} {
		_, err := NewImageBatcher(c.s, c.batch, 1, true)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

// tokenRun draws batches and checks that each target row is its input row
// shifted by one position of the underlying sequence (tokens[i] == i).
func tokenRun(t *testing.T, b *TextBatcher, batches, batch, seqLen int) (starts []int, ends []int) {
	t.Helper()
	in, tg := make([]int32, batch*seqLen), make([]int32, batch*seqLen)
	for k := range batches {
		if b.Next(in, tg) {
			ends = append(ends, k)
		}
		for i := range batch {
			s := int(in[i*seqLen])
			for j := range seqLen {
				if in[i*seqLen+j] != int32(s+j) || tg[i*seqLen+j] != int32(s+j+1) {
					t.Fatalf("batch %d window %d is not a contiguous (input, target) pair", k, i)
				}
			}
			starts = append(starts, s)
		}
	}
	return starts, ends
}

func countTokens(n int) []int32 {
	tok := make([]int32, n)
	for i := range tok {
		tok[i] = int32(i)
	}
	return tok
}

func TestTextBatcherEpochs(t *testing.T) {
	// 23 tokens, seqLen 4: 5 windows (22 = 5*4 + 2 slack), batch 2.
	const n, batch, seqLen, windows = 23, 2, 4, 5
	for _, shuffle := range []bool{false, true} {
		b, err := NewTextBatcher(countTokens(n), batch, seqLen, 3, shuffle)
		if err != nil {
			t.Fatal(err)
		}
		starts, ends := tokenRun(t, b, 10, batch, seqLen) // 20 windows = 4 epochs
		if !slices.Equal(ends, []int{2, 4, 7, 9}) {
			t.Errorf("shuffle=%v: epoch ends at %v, want [2 4 7 9]", shuffle, ends)
		}
		phases := map[int]bool{}
		for e := range 4 {
			epoch := slices.Clone(starts[e*windows : (e+1)*windows])
			slices.Sort(epoch)
			off := epoch[0]
			phases[off] = true
			if off < 0 || off > 2 {
				t.Errorf("epoch %d: phase %d outside [0, 2]", e, off)
			}
			for k, s := range epoch {
				if s != off+k*seqLen {
					t.Fatalf("shuffle=%v epoch %d: window starts %v, want each of %d + k*%d once", shuffle, e, epoch, off, seqLen)
				}
			}
		}
		if !shuffle && !slices.Equal(starts[:windows], []int{0, 4, 8, 12, 16}) {
			t.Errorf("unshuffled: starts %v", starts[:windows])
		}
		if shuffle && len(phases) < 2 {
			t.Errorf("shuffled: every epoch at the same phase %v", phases)
		}
		if b.Epoch() != 4 {
			t.Errorf("Epoch() = %v, want 4", b.Epoch())
		}
	}
}

func TestTextBatcherSeed(t *testing.T) {
	order := func(seed int64) []int {
		b, err := NewTextBatcher(countTokens(5000), 8, 16, seed, true)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := tokenRun(t, b, 100, 8, 16)
		return s
	}
	a, a2, c := order(9), order(9), order(10)
	if !slices.Equal(a, a2) {
		t.Error("same seed, different windows")
	}
	if slices.Equal(a, c) {
		t.Error("seeds 9 and 10 give the same windows")
	}
}

func TestTextBatcherErrors(t *testing.T) {
	for _, c := range []struct {
		n, batch, seqLen int
		want             string
	}{
		{1024, 16, 64, "too short for one batch of 16×64: 1024 tokens, need at least 1025"},
		{0, 1, 1, "too short for one batch of 1×1: 0 tokens, need at least 2"},
		{100, 0, 4, "batch 0×4, want both ≥ 1"},
		{100, 4, -1, "batch 4×-1, want both ≥ 1"},
	} {
		_, err := NewTextBatcher(countTokens(c.n), c.batch, c.seqLen, 1, true)
		if err == nil || err.Error() != c.want {
			t.Errorf("n=%d %d×%d: got %v, want %q", c.n, c.batch, c.seqLen, err, c.want)
		}
	}
	if _, err := NewTextBatcher(countTokens(1025), 16, 64, 1, true); err != nil {
		t.Errorf("exactly one batch: %v", err)
	}
}

func TestBatcherBufferPanics(t *testing.T) {
	ib, _ := NewImageBatcher(idSplit(4, 2), 2, 1, false)
	tb, _ := NewTextBatcher(countTokens(20), 2, 3, 1, false)
	for name, f := range map[string]func(){
		"image": func() { ib.Next(make([]float32, 3), make([]uint8, 2)) },
		"text":  func() { tb.Next(make([]int32, 6), make([]int32, 5)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: wrong buffer size did not panic", name)
				}
			}()
			f()
		}()
	}
}
