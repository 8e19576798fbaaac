package datasets

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadTextCharDevice: /dev/zero's stat size is 0, so only a bounded read
// keeps it from filling memory; one byte over 256 MiB is a clear error.
func TestLoadTextCharDevice(t *testing.T) {
	if testing.Short() || raceOn {
		t.Skip("reads 256 MiB twice (tens of seconds under the race detector)")
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip(err)
	}
	_, err := LoadText("/dev/zero")
	if err == nil || !strings.Contains(err.Error(), "over 256 MiB") {
		t.Fatalf("LoadText(/dev/zero) = %v, want an \"over 256 MiB\" error", err)
	}
	_, err = LoadCorpus(context.Background(), "/dev/zero", CorpusOptions{})
	if err == nil || !strings.Contains(err.Error(), "over 256 MiB") {
		t.Fatalf("LoadCorpus(/dev/zero) = %v, want an \"over 256 MiB\" error", err)
	}
}

func TestReadFileLimited(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.txt")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		limit int64
		ok    bool
	}{{10, true}, {11, true}, {9, false}} {
		b, err := readFileLimited(context.Background(), p, c.limit)
		if c.ok != (err == nil) || (c.ok && string(b) != "0123456789") {
			t.Errorf("limit %d: %q, %v", c.limit, b, err)
		}
	}
}

// slowFIFO makes a named pipe whose writer sends head and then keeps the
// pipe open without writing more, as a stalled producer would.
func slowFIFO(t *testing.T, path string, head []byte) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		w.Write(head)
		<-done
	}()
}

// TestLoadCancelledOnStalledPipe: cancelling the context stops a load that
// waits on a pipe, within a second, with the context's error — for text and
// for an IDX directory.
func TestLoadCancelledOnStalledPipe(t *testing.T) {
	dir := t.TempDir()
	txt := filepath.Join(dir, "text")
	slowFIFO(t, txt, []byte("some text, and then nothing for a long time"))
	idxDir := filepath.Join(dir, "idx")
	if err := os.Mkdir(idxDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{trainLabelsFile, testImagesFile, testLabelsFile} {
		if err := os.WriteFile(filepath.Join(idxDir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	slowFIFO(t, filepath.Join(idxDir, trainImagesFile), []byte{0, 0, 8, 3, 0, 0, 0, 100, 0, 0, 0, 28, 0, 0, 0, 28, 1, 2, 3})
	for _, c := range []struct {
		name string
		load func(ctx context.Context) error
	}{
		{"text", func(ctx context.Context) error { _, err := LoadTextContext(ctx, txt); return err }},
		{"idx", func(ctx context.Context) error { _, err := MNISTContext(ctx, idxDir); return err }},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := make(chan error, 1)
			go func() { errc <- c.load(ctx) }()
			time.Sleep(200 * time.Millisecond)
			cancel()
			select {
			case err := <-errc:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("load = %v, want context.Canceled", err)
				}
			case <-time.After(time.Second):
				t.Fatal("the load did not stop within 1 s of the cancel")
			}
		})
	}
}

// TestImagePixelLimit: an image set whose float32 pixels would exceed the
// limit is refused with one message naming its size, before conversion.
func TestImagePixelLimit(t *testing.T) {
	old := maxImagePixels
	defer func() { maxImagePixels = old }()
	s := tinySet{nTrain: 24, nTest: 4, h: 64, w: 64} // 28·4096 pixels
	dir := writeSet(t, s.files())
	maxImagePixels = 28*4096 - 1
	_, err := MNIST(dir)
	if err == nil || !strings.Contains(err.Error(), "64×64 images, 24 train and 4 test") || !strings.Contains(err.Error(), "over the") {
		t.Fatalf("MNIST over the pixel limit: %v", err)
	}
	maxImagePixels = 28 * 4096
	if _, err := MNIST(dir); err != nil {
		t.Fatalf("MNIST at the pixel limit: %v", err)
	}
}

// TestCorpusFromPipe: a word corpus given as a named pipe (or <(…)) is read
// once, whole: the same corpus as from a regular file. Sniffing it for a
// gzip header first ate its first bytes and, by closing the pipe, could end
// its writer before the real read began.
func TestCorpusFromPipe(t *testing.T) {
	dir := t.TempDir()
	var text strings.Builder
	for d := range 6 {
		for s := range 40 {
			fmt.Fprintf(&text, "Zebra %d walks to the river %d. ", d, s%7)
		}
		text.WriteString("\n\n")
	}
	file := filepath.Join(dir, "corpus.txt")
	if err := os.WriteFile(file, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	pipe := filepath.Join(dir, "corpus.pipe")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	go func() {
		w, err := os.OpenFile(pipe, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		w.Write([]byte(text.String()))
	}()
	want, err := LoadCorpus(context.Background(), file, CorpusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadCorpus(context.Background(), pipe, CorpusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Vocab, want.Vocab) || got.Docs != want.Docs || len(got.Train) != len(want.Train) {
		t.Fatalf("from a pipe: vocabulary %v, docs %+v, %d training sentences; from the file: %v, %+v, %d",
			got.Vocab, got.Docs, len(got.Train), want.Vocab, want.Docs, len(want.Train))
	}
}
