package datasets

import "testing"

// TestParseSource: names name sets whatever the model; words:FILE is a word
// corpus; any other value is a path that the model's reader decides.
func TestParseSource(t *testing.T) {
	for _, tc := range []struct {
		data string
		r    Reader
		want Source
	}{
		{"mnist", TokenReader, Source{Set: "mnist"}},
		{"text", ImageReader, Source{Set: "text"}},
		{"sotu", ImageReader, Source{Set: "sotu"}},
		{"moby-dick", TokenReader, Source{Set: "moby-dick"}},
		{"spam", DocumentReader, Source{Set: "spam"}},
		{"words", TokenReader, Source{Set: "words"}},
		{"docs", TokenReader, Source{Set: "docs"}},
		{"words:corpus.txt", ImageReader, Source{Set: "words", Path: "corpus.txt"}},
		{"words:", TokenReader, Source{Set: "words"}},
		{"words:pkg.tgz", DocumentReader, Source{Set: "words", Path: "pkg.tgz"}},
		{"book.txt", TokenReader, Source{Set: "text", Path: "book.txt"}},
		{"pkg.tgz", TokenReader, Source{Set: "words", Path: "pkg.tgz"}},
		{"pkg.tgz", DocumentReader, Source{Set: "docs", Path: "pkg.tgz"}},
		{"pkg.tgz", ImageReader, Source{Set: "mnist", Path: "pkg.tgz"}},
		{"mail", DocumentReader, Source{Set: "docs", Path: "mail"}},
		{"fashion", ImageReader, Source{Set: "mnist", Path: "fashion"}},
		{"./sotu", TokenReader, Source{Set: "text", Path: "./sotu"}},
		{"Sotu", TokenReader, Source{Set: "text", Path: "Sotu"}},
		{"", TokenReader, Source{Set: "text"}},
		{"", DocumentReader, Source{Set: "docs"}},
		{"", ImageReader, Source{Set: "mnist"}},
	} {
		if got := ParseSource(tc.data, tc.r); got != tc.want {
			t.Errorf("ParseSource(%q, %d) = %+v, want %+v", tc.data, tc.r, got, tc.want)
		}
	}
}

// TestWordSet: the word set a value names by itself, never by a file's
// suffix.
func TestWordSet(t *testing.T) {
	for data, want := range map[string]string{
		"sotu": "sotu", "moby-dick": "moby-dick", "spam": "spam", "words": "words", "docs": "docs",
		"words:x.txt": "words", "words:": "words",
		"": "", "text": "", "mnist": "", "pkg.tgz": "", "./sotu": "", "sotu:": "",
	} {
		if got := WordSet(data); got != want {
			t.Errorf("WordSet(%q) = %q, want %q", data, got, want)
		}
		if got := IsWordSet(data); got != (want == data && want != "") {
			t.Errorf("IsWordSet(%q) = %v", data, got)
		}
	}
	for _, p := range npmPackages {
		if !IsWordSet(p.short) {
			t.Errorf("IsWordSet(%q) = false for a built-in package", p.short)
		}
	}
}
