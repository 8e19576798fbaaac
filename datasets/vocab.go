package datasets

import (
	"slices"
	"strings"
)

// The special tokens every word vocabulary starts with.
const (
	PadID = 0 // padding; never inside a sentence
	UnkID = 1 // a word outside the vocabulary
	SepID = 2 // "<s>": sentence start (input) and end (target) marker
	// NumSpecials is the number of special tokens before the first word.
	NumSpecials = 3
)

var specialTokens = []string{"<pad>", "<unk>", "<s>"}

// encode maps words to their ids, <unk> for those outside the vocabulary.
func encode(words []string, ids map[string]int32) []int32 {
	out := make([]int32, len(words))
	for i, w := range words {
		if id, ok := ids[w]; ok {
			out[i] = id
		} else {
			out[i] = UnkID
		}
	}
	return out
}

// buildVocab counts the training words (of the sentences kept) and keeps
// the most frequent (ties by string), after the special tokens.
func buildVocab(train [][][]string, opt CorpusOptions) []string {
	counts := make(map[string]int)
	for _, doc := range train {
		for _, s := range doc {
			if !hasWord(s) {
				continue
			}
			for _, w := range s {
				counts[w]++
			}
		}
	}
	return vocabFromCounts(counts, opt)
}

func vocabFromCounts(counts map[string]int, opt CorpusOptions) []string {
	type wc struct {
		w string
		c int
	}
	ws := make([]wc, 0, len(counts))
	for w, c := range counts {
		if c >= opt.MinCount {
			ws = append(ws, wc{w, c})
		}
	}
	slices.SortFunc(ws, func(a, b wc) int {
		if a.c != b.c {
			return b.c - a.c
		}
		return strings.Compare(a.w, b.w)
	})
	if opt.VocabSize > 0 && len(ws) > opt.VocabSize-NumSpecials {
		ws = ws[:opt.VocabSize-NumSpecials]
	}
	vocab := append(make([]string, 0, NumSpecials+len(ws)), specialTokens...)
	for _, x := range ws {
		vocab = append(vocab, x.w)
	}
	return vocab
}
