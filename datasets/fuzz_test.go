package datasets

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzIDX feeds arbitrary bytes (plain IDX, gzip or garbage) to the IDX
// decoder under both magics. It must never panic, and what it accepts must
// be self-consistent: positive dimensions whose product is the payload size.
func FuzzIDX(f *testing.F) {
	// Seeds live in testdata/fuzz/FuzzIDX; add one built here for coverage of
	// the gzip path even if the files are removed.
	f.Add(gzipBytes(f, idxBytes(magicLabels, []int{3}, []byte{1, 2, 3})))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, magic := range []uint32{magicImages, magicLabels} {
			for _, size := range []int64{-1, int64(len(data))} {
				m, err := decodeIDX(bytes.NewReader(data), size, magic)
				if err != nil {
					if strings.Contains(err.Error(), "\n") {
						t.Fatalf("multi-line error %q", err)
					}
					continue
				}
				if len(m.dims) != int(magic&0xff) {
					t.Fatalf("magic 0x%x: %d dimensions", magic, len(m.dims))
				}
				prod := 1
				for _, d := range m.dims {
					if d <= 0 {
						t.Fatalf("dimension %d accepted", d)
					}
					prod *= d
				}
				if prod != len(m.data) {
					t.Fatalf("dimensions %v but %d data bytes", m.dims, len(m.data))
				}
				// A plain file round-trips exactly.
				if len(data) > 0 && data[0] == 0 && !bytes.Equal(encodeIDX(m, magic), data) {
					t.Fatal("accepted plain file does not re-encode to itself")
				}
			}
		}
	})
}

// FuzzText feeds arbitrary bytes to the text decoder. It accepts exactly the
// valid UTF-8 texts without NUL bytes of at least minTextChars characters, reports the first
// bad byte's offset correctly, and what it accepts spells the input back.
func FuzzText(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		txt, err := decodeText("fuzz.txt", data)
		valid := utf8.Valid(data)
		long := utf8.RuneCount(data) >= minTextChars
		if !valid {
			off := firstInvalidUTF8(data)
			if off < 0 || !utf8.Valid(data[:off]) {
				t.Fatalf("first invalid byte reported at %d", off)
			}
			if r, size := utf8.DecodeRune(data[off:]); r != utf8.RuneError || size != 1 {
				t.Fatalf("byte %d starts a valid rune %q", off, r)
			}
			if want := fmt.Sprintf("fuzz.txt: not UTF-8 at byte %d", off); err == nil || err.Error() != want {
				t.Fatalf("got %v, want %q", err, want)
			}
			return
		}
		if off := bytes.IndexByte(data, 0); off >= 0 {
			if want := fmt.Sprintf("fuzz.txt: NUL byte at offset %d", off); err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("got %v, want %q", err, want)
			}
			return
		}
		if !long {
			if err == nil || !strings.HasPrefix(err.Error(), "fuzz.txt: ") {
				t.Fatalf("short text: got %v", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("valid text of %d characters rejected: %v", utf8.RuneCount(data), err)
		}
		var b strings.Builder
		for _, s := range [][]int32{txt.Train, txt.Val, txt.Test} {
			for _, tok := range s {
				if tok < 0 || int(tok) >= len(txt.Vocab) {
					t.Fatalf("token %d outside the vocabulary of %d", tok, len(txt.Vocab))
				}
				b.WriteRune(txt.Vocab[tok])
			}
		}
		if b.String() != string(data) {
			t.Fatal("tokens do not spell the input back")
		}
		if len(txt.Val) < 2 || len(txt.Test) < 2 {
			t.Fatalf("val %d, test %d characters", len(txt.Val), len(txt.Test))
		}
	})
}
