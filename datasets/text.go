package datasets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"unicode/utf8"
)

// Text is a character-level corpus: Vocab lists its distinct characters in
// ascending rune order, and each split holds indices into Vocab.
type Text struct {
	Name             string
	Vocab            []rune
	Train, Val, Test []int32
}

// defaultTextFile is the corpus every Go installation ships.
const defaultTextFile = "Isaac.Newton-Opticks.txt"

// minTextChars is the shortest text whose 5% validation and test splits hold
// one input and one target character each.
const minTextChars = 40

// maxTextBytes bounds the text file: decoding takes about 8 bytes of memory
// per character (a rune and a token), so 256 MiB of text needs ~2 GiB.
const maxTextBytes = 256 << 20

// LoadText reads a UTF-8 text file as characters. path == "" reads the Go
// distribution's Isaac.Newton-Opticks.txt. See the package documentation for
// the 90/5/5 split.
func LoadText(path string) (*Text, error) { return LoadTextContext(context.Background(), path) }

// LoadTextContext is LoadText that stops reading, with ctx's error, when ctx
// is cancelled (a slow disk, or a pipe whose writer is slow). Opening a FIFO
// that no writer has opened yet still blocks in the kernel; a caller that
// must not wait for that runs the load on another goroutine.
func LoadTextContext(ctx context.Context, path string) (*Text, error) {
	if path == "" {
		p, err := defaultTextPath()
		if err != nil {
			return nil, err
		}
		path = p
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, want a UTF-8 text file", path)
	}
	if st.Size() > maxTextBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d MiB a character-level corpus may have here", path, st.Size(), maxTextBytes>>20)
	}
	// A character device or a pipe has no size to check up front (stat says
	// 0), so the read itself is bounded.
	data, err := readFileLimited(ctx, path, maxTextBytes)
	if err != nil {
		return nil, err
	}
	return decodeText(path, data)
}

// readFileLimited reads path whole, but never more than limit bytes: one
// byte more is an error ("over N MiB") rather than memory running out on
// /dev/zero. Cancelling ctx stops the read between chunks and closes the
// file, which also wakes a read blocked on a pipe.
func readFileLimited(ctx context.Context, path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	stop := context.AfterFunc(ctx, func() { f.Close() })
	defer stop()
	data, err := io.ReadAll(io.LimitReader(ctxReader{ctx, f}, limit+1))
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: over %d MiB (not a regular file, read until the limit), more than a text corpus may have here", path, limit>>20)
	}
	return data, nil
}

// ctxReader stops reading with ctx's error once ctx is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	if err != nil && c.ctx.Err() != nil {
		return n, c.ctx.Err() // the read failed because ctx closed the file
	}
	return n, err
}

// decodeText validates data as UTF-8 text and splits it; name is used in
// errors and for Text.Name.
func decodeText(name string, data []byte) (*Text, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%s: empty file, want UTF-8 text", name)
	}
	if err := checkText(name, data); err != nil {
		return nil, err
	}
	runes := []rune(string(data))
	if len(runes) < minTextChars {
		return nil, fmt.Errorf("%s: too short: %d characters, need at least %d so validation and test (5%% each) hold 2 characters", name, len(runes), minTextChars)
	}
	vocab := vocabulary(runes)
	index := make(map[rune]int32, len(vocab))
	for i, r := range vocab {
		index[r] = int32(i)
	}
	tokens := make([]int32, len(runes))
	for i, r := range runes {
		tokens[i] = index[r]
	}
	n := len(tokens)
	nVal := n * 5 / 100
	nTrain := n - 2*nVal
	return &Text{
		Name:  filepath.Base(name),
		Vocab: vocab,
		Train: tokens[:nTrain:nTrain],
		Val:   tokens[nTrain : nTrain+nVal : nTrain+nVal],
		Test:  tokens[nTrain+nVal:],
	}, nil
}

// checkText refuses what is not UTF-8 text: bytes that are not UTF-8, and
// NUL bytes, which are valid UTF-8 but occur in no text: UTF-16 without a
// byte-order mark ("H\x00e\x00") and binary files would otherwise train as
// text without a word of warning.
func checkText(name string, b []byte) error {
	if off := firstInvalidUTF8(b); off >= 0 {
		return fmt.Errorf("%s: not UTF-8 at byte %d", name, off)
	}
	if off := bytes.IndexByte(b, 0); off >= 0 {
		// ASCII in UTF-16 puts its NUL after the character in
		// little-endian order (odd offsets) and before it in big-endian
		// order (even offsets): the hint names the one this file looks like.
		enc := "UTF-16LE"
		if off%2 == 0 {
			enc = "UTF-16BE"
		}
		return fmt.Errorf("%s: NUL byte at offset %d: not UTF-8 text (%s, or a binary file?); convert it, e.g. iconv -f %s -t UTF-8", name, off, enc, enc)
	}
	return nil
}

// firstInvalidUTF8 returns the byte offset of the first byte that does not
// start a valid UTF-8 sequence, or -1. An encoded U+FFFD is valid.
func firstInvalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

func vocabulary(runes []rune) []rune {
	seen := make(map[rune]bool)
	var v []rune
	for _, r := range runes {
		if !seen[r] {
			seen[r] = true
			v = append(v, r)
		}
	}
	slices.Sort(v)
	return v
}

// CheckBatch reports, naming the file and the split, whether every split is
// long enough for one batch of batch×seqLen (the batcher constructors check
// the same thing but do not know the file).
func (t *Text) CheckBatch(batch, seqLen int) error {
	for _, s := range []struct {
		name   string
		tokens []int32
	}{{"training", t.Train}, {"validation", t.Val}, {"test", t.Test}} {
		if err := checkTextBatch(len(s.tokens), batch, seqLen); err != nil {
			return fmt.Errorf("%s: %s split (%d characters) %w", t.Name, s.name, len(s.tokens), err)
		}
	}
	return nil
}

// defaultTextPath finds Opticks in the Go installation: runtime.GOROOT first,
// then `go env GOROOT` (runtime.GOROOT is empty in -trimpath builds).
func defaultTextPath() (string, error) {
	rel := filepath.Join("src", "testdata", defaultTextFile)
	var looked []string
	if root := runtime.GOROOT(); root != "" {
		p := filepath.Join(root, rel)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		looked = append(looked, p)
	}
	goBin, err := exec.LookPath("go")
	if err == nil {
		var out []byte
		if out, err = exec.Command(goBin, "env", "GOROOT").Output(); err == nil {
			p := filepath.Join(strings.TrimSpace(string(out)), rel)
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
			looked = append(looked, p)
		}
	}
	msg := "default text " + defaultTextFile + " not found"
	if len(looked) > 0 {
		msg += " (looked in " + strings.Join(looked, ", ") + ")"
	}
	if err != nil {
		msg += "; go env GOROOT: " + err.Error()
	}
	return "", errors.New(msg + "; pass --data FILE")
}
