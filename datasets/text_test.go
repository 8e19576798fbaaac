package datasets

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLoadText(t *testing.T) {
	// 100 characters, two of them multi-byte, so the split is by rune.
	body := strings.Repeat("abcd", 24) + "é→ab"
	path := filepath.Join(t.TempDir(), "notes.txt")
	writeFile(t, path, []byte(body))
	txt, err := LoadText(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := []rune{'a', 'b', 'c', 'd', 'é', '→'}; !slices.Equal(txt.Vocab, want) {
		t.Errorf("vocab %q, want %q", txt.Vocab, want)
	}
	if len(txt.Train) != 90 || len(txt.Val) != 5 || len(txt.Test) != 5 || txt.Name != "notes.txt" {
		t.Fatalf("%q: splits %d/%d/%d, want 90/5/5", txt.Name, len(txt.Train), len(txt.Val), len(txt.Test))
	}
	var back []rune
	for _, s := range [][]int32{txt.Train, txt.Val, txt.Test} {
		for _, tok := range s {
			back = append(back, txt.Vocab[tok])
		}
	}
	if string(back) != body {
		t.Errorf("splits do not spell the text back in order:\n%q\n%q", string(back), body)
	}
}

func TestLoadTextSplitSizes(t *testing.T) {
	for _, c := range []struct{ n, train, val int }{
		{40, 36, 2}, {41, 37, 2}, {59, 55, 2}, {60, 54, 3}, {1000, 900, 50}, {1019, 919, 50},
	} {
		txt, err := decodeText("t", []byte(strings.Repeat("x", c.n)))
		if err != nil {
			t.Fatal(err)
		}
		if len(txt.Train) != c.train || len(txt.Val) != c.val || len(txt.Test) != c.val {
			t.Errorf("n=%d: %d/%d/%d, want %d/%d/%d", c.n, len(txt.Train), len(txt.Val), len(txt.Test), c.train, c.val, c.val)
		}
	}
}

func TestLoadTextBadInput(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("ok ", 40)
	files := map[string]string{
		"latin1.txt":    long + "caf\xe9 au lait", // Latin-1 é at byte 123
		"truncated.txt": long + "\xe2\x86",        // a cut-off arrow at byte 120
		"surrogate.txt": "\xed\xa0\x80" + long,    // encoded UTF-16 surrogate at 0
		"empty.txt":     "",
		"short.txt":     strings.Repeat("é", 39),
		// issue 25 case 11: valid UTF-8, but not text.
		"utf16.txt":   utf16LE(long),
		"utf16be.txt": "\x00" + utf16LE(long)[:2*len(long)-1],
		"nul.txt":     strings.Repeat("\x00", 4096),
	}
	for name, body := range files {
		writeFile(t, filepath.Join(dir, name), []byte(body))
	}
	os.Mkdir(filepath.Join(dir, "adir"), 0o755)
	// A sparse file: over the size limit without using the disk.
	writeFile(t, filepath.Join(dir, "huge.txt"), nil)
	if err := os.Truncate(filepath.Join(dir, "huge.txt"), maxTextBytes+1); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, want string }{
		{"latin1.txt", "latin1.txt: not UTF-8 at byte 123"},
		{"truncated.txt", "truncated.txt: not UTF-8 at byte 120"},
		{"surrogate.txt", "surrogate.txt: not UTF-8 at byte 0"},
		{"empty.txt", "empty.txt: empty file"},
		{"short.txt", "short.txt: too short: 39 characters, need at least 40"},
		{"missing.txt", "missing.txt: no such file"},
		{"adir", "adir: is a directory"},
		{"huge.txt", "huge.txt: 268435457 bytes, more than the 256 MiB"},
		{"utf16.txt", "utf16.txt: NUL byte at offset 1: not UTF-8 text (UTF-16LE, or a binary file?); convert it, e.g. iconv -f UTF-16LE"},
		{"utf16be.txt", "utf16be.txt: NUL byte at offset 0: not UTF-8 text (UTF-16BE, or a binary file?); convert it, e.g. iconv -f UTF-16BE"},
		{"nul.txt", "nul.txt: NUL byte at offset 0"},
	} {
		_, err := LoadText(filepath.Join(dir, c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("LoadText(%s) = %v, want %q", c.file, err, c.want)
		}
	}
}

// utf16LE is s (ASCII) in UTF-16LE without a byte-order mark.
func utf16LE(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		b.WriteByte(0)
	}
	return b.String()
}

// TestLoadTextDefault reads the Go distribution's Opticks.
func TestLoadTextDefault(t *testing.T) {
	txt, err := LoadText("")
	if err != nil {
		t.Fatal(err)
	}
	n := len(txt.Train) + len(txt.Val) + len(txt.Test)
	if txt.Name != defaultTextFile || n < 500000 || len(txt.Vocab) < 60 || len(txt.Vocab) > 200 {
		t.Errorf("%s: %d characters, vocabulary %d", txt.Name, n, len(txt.Vocab))
	}
	for i := 1; i < len(txt.Vocab); i++ {
		if txt.Vocab[i-1] >= txt.Vocab[i] {
			t.Fatalf("vocabulary not strictly ascending at %d: %q", i, txt.Vocab[i-1:i+1])
		}
	}
	if err := txt.CheckBatch(16, 64); err != nil {
		t.Error(err)
	}
}

func TestTextCheckBatch(t *testing.T) {
	txt, err := decodeText("/x/notes.txt", []byte(strings.Repeat("ab", 500))) // 900/50/50
	if err != nil {
		t.Fatal(err)
	}
	if err := txt.CheckBatch(4, 12); err != nil { // needs 49
		t.Errorf("4×12 on 50-character splits: %v", err)
	}
	err = txt.CheckBatch(4, 13) // needs 53
	want := "notes.txt: validation split (50 characters) too short for one batch of 4×13: 50 tokens, need at least 53"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
