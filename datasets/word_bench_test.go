package datasets

import (
	"context"
	"os"
	"testing"
)

// Word-level loading and batching, on the Opticks text every Go
// installation ships (paragraphs as documents):
//
//	go test -run '^$' -bench 'Corpus|Tokenize|SentenceBatcher|DocBatcher' -benchtime 1s ./datasets/
func opticksPath(b *testing.B) string {
	b.Helper()
	p, err := defaultTextPath()
	if err != nil {
		b.Skip(err)
	}
	return p
}

func BenchmarkLoadCorpus(b *testing.B) {
	p := opticksPath(b)
	st, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	for b.Loop() {
		if _, err := LoadCorpus(context.Background(), p, CorpusOptions{VocabSize: 8000, MaxLen: 63}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTokenize(b *testing.B) {
	text, err := os.ReadFile(opticksPath(b))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Tokenize(string(text))
	}
}

func BenchmarkSentenceBatcherNext(b *testing.B) {
	const batch, seqLen = 32, 64
	c, err := LoadCorpus(context.Background(), opticksPath(b), CorpusOptions{VocabSize: 8000, MaxLen: seqLen - 1})
	if err != nil {
		b.Fatal(err)
	}
	sb, err := NewSentenceBatcher(c.Train, batch, seqLen, 1, true)
	if err != nil {
		b.Fatal(err)
	}
	in, tgt, real := make([]int32, batch*seqLen), make([]int32, batch*seqLen), make([]bool, batch*seqLen)
	for b.Loop() {
		sb.Next(in, tgt, real)
	}
}

func BenchmarkDocBatcherNext(b *testing.B) {
	const n, batch, seqLen = 5000, 32, 128
	docs := make([]Doc, n)
	for i := range docs {
		docs[i] = Doc{Tokens: make([]int32, 20+i%200), Label: i % 2}
		for j := range docs[i].Tokens {
			docs[i].Tokens[j] = int32(NumSpecials + j)
		}
	}
	db, err := NewDocBatcher(docs, batch, seqLen, 1, true)
	if err != nil {
		b.Fatal(err)
	}
	in, real, labels := make([]int32, batch*seqLen), make([]bool, batch*seqLen), make([]int32, batch)
	for b.Loop() {
		db.Next(in, real, labels)
	}
}
