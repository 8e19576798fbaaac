package datasets

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// varSents returns n sentences of lengths spread over 1..maxLen words;
// sentence i holds the token 10+i throughout, so a row tells which
// sentence it is.
func varSents(n, maxLen int) [][]int32 {
	s := make([][]int32, n)
	for i := range s {
		for range (i*7)%maxLen + 1 {
			s[i] = append(s[i], int32(10+i))
		}
	}
	return s
}

// tokenEpoch draws one epoch of sentence batches and returns, per batch,
// the sentence indices of its rows, checking each batch's layout.
func tokenEpoch(t *testing.T, b *TokenBatcher, lens []int) [][]int {
	t.Helper()
	n := b.MaxTokens()
	in, tgt, real := make([]int32, n), make([]int32, n), make([]bool, n)
	var out [][]int
	for range b.StepsPerEpoch() {
		rows, width := b.NextSentences(in, tgt, real)
		if rows < 1 || rows*width > n {
			t.Fatalf("batch of %d rows × %d positions over the budget %d", rows, width, n)
		}
		var ids []int
		realTokens, widest := 0, 0
		for r := range rows {
			o := r * width
			id := int(in[o+1] - 10)
			ids = append(ids, id)
			for p := o; p < o+width; p++ {
				if real[p] {
					realTokens++
				}
			}
			widest = max(widest, lens[id])
			if in[o] != SepID {
				t.Fatalf("row %d does not start with <s>: %v", r, in[o:o+width])
			}
		}
		if widest != width {
			t.Fatalf("batch width %d, its longest sentence takes %d", width, widest)
		}
		if realTokens > n {
			t.Fatalf("%d real tokens, budget %d", realTokens, n)
		}
		for p := rows * width; p < n; p++ {
			if real[p] || in[p] != PadID || tgt[p] != -1 {
				t.Fatalf("position %d past the batch is not padding", p)
			}
		}
		out = append(out, ids)
	}
	return out
}

func sentLens(sents [][]int32, seqLen int) []int {
	l := make([]int, len(sents))
	for i, s := range sents {
		l[i] = min(len(s)+1, seqLen)
	}
	return l
}

func TestTokenBatcherBudgetGroupingEpochs(t *testing.T) {
	for _, c := range []struct{ n, maxLen, seqLen, budget int }{
		{200, 12, 10, 40},  // some sentences truncated to seqLen
		{57, 5, 8, 8},      // budget = seqLen: one row per long batch
		{300, 30, 32, 256}, // the word preset's shape, scaled down
	} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			sents := varSents(c.n, c.maxLen)
			lens := sentLens(sents, c.seqLen)
			b, err := NewSentenceTokenBatcher(sents, TokenBudget{MaxTokens: c.budget, SeqLen: c.seqLen, Seed: 4})
			if err != nil {
				t.Fatal(err)
			}
			var first [][]int
			for e := range 3 {
				ep := tokenEpoch(t, b, lens)
				var all []int
				for _, ids := range ep {
					all = append(all, ids...)
				}
				slices.Sort(all)
				for i, id := range all {
					if id != i {
						t.Fatalf("epoch %d does not hand out each of %d sentences once", e, c.n)
					}
				}
				if e == 0 {
					first = ep
				} else if slices.EqualFunc(ep, first, slices.Equal) {
					t.Errorf("epoch %d hands out the batches in epoch 0's order", e)
				}
				if got := b.Epoch(); got != float64(e+1) {
					t.Errorf("after epoch %d: Epoch() = %v", e, got)
				}
			}
			checkGrouped(t, first, lens, c.budget)
		})
	}
}

// checkGrouped: sorted by their lengths, the batches do not overlap (a
// batch holds a contiguous run of lengths), and the batches are full: one
// more row of its width would break a batch's budget, except for at most
// one batch per width, after which no longer batch holds that width's
// length.
func checkGrouped(t *testing.T, batches [][]int, lens []int, budget int) {
	t.Helper()
	type span struct{ lo, hi, rows int }
	var spans []span
	for _, ids := range batches {
		s := span{lo: 1 << 30, rows: len(ids)}
		for _, id := range ids {
			s.lo, s.hi = min(s.lo, lens[id]), max(s.hi, lens[id])
		}
		spans = append(spans, s)
	}
	slices.SortFunc(spans, func(a, b span) int { return a.lo*1000 + a.hi - b.lo*1000 - b.hi })
	for i := 1; i < len(spans); i++ {
		if spans[i].lo < spans[i-1].hi {
			t.Fatalf("batches of lengths %d..%d and %d..%d overlap: not grouped by length", spans[i-1].lo, spans[i-1].hi, spans[i].lo, spans[i].hi)
		}
	}
	notFull := map[int]int{}
	for _, s := range spans {
		if (s.rows+1)*s.hi > budget {
			continue
		}
		if notFull[s.hi]++; notFull[s.hi] > 1 {
			t.Errorf("two batches of width %d are not full (budget %d)", s.hi, budget)
		}
		for _, o := range spans {
			if o.lo == s.hi && o.hi > s.hi {
				t.Errorf("batch of %d rows × %d is not full (budget %d) while a wider batch holds its length", s.rows, s.hi, budget)
			}
		}
	}
}

func TestTokenBatcherSeeds(t *testing.T) {
	sents := varSents(150, 20)
	lens := sentLens(sents, 16)
	epoch := func(seed int64) [][]int {
		b, err := NewSentenceTokenBatcher(sents, TokenBudget{MaxTokens: 64, SeqLen: 16, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return tokenEpoch(t, b, lens)
	}
	a, a2, c := epoch(1), epoch(1), epoch(2)
	if !slices.EqualFunc(a, a2, slices.Equal) {
		t.Error("same seed, different batches")
	}
	if slices.EqualFunc(a, c, slices.Equal) {
		t.Error("seeds 1 and 2 hand out the batches in the same order")
	}
	key := func(bs [][]int) []string {
		var k []string
		for _, ids := range bs {
			k = append(k, fmt.Sprint(ids))
		}
		slices.Sort(k)
		return k
	}
	if !slices.Equal(key(a), key(c)) {
		t.Error("the groups depend on the seed; only their order should")
	}
}

func TestDocTokenBatcher(t *testing.T) {
	var docs []Doc
	for i := range 90 {
		toks := make([]int32, i%13+1)
		for k := range toks {
			toks[k] = int32(5 + i)
		}
		docs = append(docs, Doc{Tokens: toks, Label: i % 3})
	}
	const budget, seqLen = 48, 10
	b, err := NewDocTokenBatcher(docs, TokenBudget{MaxTokens: budget, SeqLen: seqLen, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	in, real, labels := make([]int32, budget), make([]bool, budget), make([]int32, b.MaxRows())
	seen := map[int]int{}
	for range b.StepsPerEpoch() {
		rows, width := b.NextDocs(in, real, labels)
		if rows*width > budget || width > seqLen {
			t.Fatalf("%d×%d over budget %d or seq-len %d", rows, width, budget, seqLen)
		}
		for r := range labels {
			if r >= rows {
				if labels[r] != -1 {
					t.Fatalf("label %d past the batch's %d rows", labels[r], rows)
				}
				continue
			}
			id := int(in[r*width] - 5)
			seen[id]++
			if labels[r] != int32(id%3) {
				t.Fatalf("row %d: label %d, document %d has %d", r, labels[r], id, id%3)
			}
			k := min(id%13+1, seqLen)
			for p := 0; p < width; p++ {
				if real[r*width+p] != (p < k) {
					t.Fatalf("document %d: real flags %v", id, real[r*width:(r+1)*width])
				}
			}
		}
	}
	if len(seen) != len(docs) {
		t.Fatalf("%d of %d documents in one epoch", len(seen), len(docs))
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("document %d handed out %d times in one epoch", id, n)
		}
	}
}

func TestTokenBatcherErrors(t *testing.T) {
	for _, c := range []struct {
		name              string
		sents             [][]int32
		maxTokens, seqLen int
		want              string
	}{
		{"budget below seq-len", testSents(10), 31, 32, "max-tokens 31 is below the longest row, 32 positions (seq-len)"},
		{"zero budget", testSents(10), 0, 8, "max-tokens 0"},
		{"no sentences", nil, 64, 8, "no sentences"},
		{"pad id", [][]int32{{5}, {0}}, 64, 8, "sentence 1 holds token id 0"},
		{"seqLen 1", testSents(3), 64, 1, "sequence length 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewSentenceTokenBatcher(c.sents, TokenBudget{MaxTokens: c.maxTokens, SeqLen: c.seqLen, Seed: 1})
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
	if _, err := NewDocTokenBatcher(nil, TokenBudget{MaxTokens: 64, SeqLen: 8, Seed: 1}); err == nil || !strings.Contains(err.Error(), "no documents") {
		t.Errorf("no documents: %v", err)
	}
}

// TestTokenBatcherTiesBySeed: with TiesBySeed each seed makes its own
// groups (fairseq's permutation under the run's seed before the sort by
// length); without it every seed gets the same groups.
func TestTokenBatcherTiesBySeed(t *testing.T) {
	sents := varSents(150, 20)
	lens := sentLens(sents, 16)
	groups := func(seed int64, bySeed bool) []string {
		b, err := NewSentenceTokenBatcher(sents, TokenBudget{MaxTokens: 64, SeqLen: 16, Seed: seed, TiesBySeed: bySeed})
		if err != nil {
			t.Fatal(err)
		}
		var k []string
		for _, ids := range tokenEpoch(t, b, lens) {
			slices.Sort(ids)
			k = append(k, fmt.Sprint(ids))
		}
		slices.Sort(k)
		return k
	}
	if !slices.Equal(groups(1, true), groups(1, true)) {
		t.Error("TiesBySeed: the same seed makes different groups")
	}
	if slices.Equal(groups(1, true), groups(2, true)) {
		t.Error("TiesBySeed: seeds 1 and 2 make the same groups")
	}
	if !slices.Equal(groups(1, false), groups(2, false)) {
		t.Error("fixed ties: seeds 1 and 2 make different groups")
	}
}

// TestTokenBatcherRowMultiple: a batch the budget cuts holds a multiple of
// RowMultiple rows, or fewer rows than that when not even one multiple
// fits; every sentence is still handed out once per epoch and no batch
// passes the budget.
func TestTokenBatcherRowMultiple(t *testing.T) {
	for _, c := range []struct{ n, maxLen, seqLen, budget, mult int }{
		{300, 30, 32, 256, 8}, // the word preset's shape, scaled down
		{200, 12, 10, 40, 8},  // at most 40/10 = 4 rows of the longest: never 8
		{500, 6, 8, 100, 4},
		{97, 3, 4, 30, 1}, // no rounding
	} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			sents := varSents(c.n, c.maxLen)
			lens := sentLens(sents, c.seqLen)
			b, err := NewSentenceTokenBatcher(sents, TokenBudget{MaxTokens: c.budget, SeqLen: c.seqLen, Seed: 2, RowMultiple: c.mult})
			if err != nil {
				t.Fatal(err)
			}
			seen := make([]int, c.n)
			for i, g := range b.groups {
				rows, w := len(g), b.widths[i]
				if rows*w > c.budget {
					t.Errorf("batch %d: %d rows × %d over the budget %d", i, rows, w, c.budget)
				}
				last := i == len(b.groups)-1
				if c.mult > 1 && !last && rows >= c.mult && rows%c.mult != 0 {
					t.Errorf("batch %d: %d rows, not a multiple of %d", i, rows, c.mult)
				}
				for _, id := range g {
					seen[id]++
					if lens[id] > w {
						t.Errorf("batch %d: a row of %d positions in width %d", i, lens[id], w)
					}
				}
			}
			for id, n := range seen {
				if n != 1 {
					t.Fatalf("sentence %d in %d batches", id, n)
				}
			}
		})
	}
	if _, err := NewSentenceTokenBatcher(testSents(4), TokenBudget{MaxTokens: 64, SeqLen: 8, RowMultiple: -1}); err == nil {
		t.Error("a negative row multiple is accepted")
	}
}
