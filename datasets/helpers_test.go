package datasets

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// idxBytes builds an IDX file: magic, dimensions, payload.
func idxBytes(magic uint32, dims []int, data []byte) []byte {
	b := be32(nil, magic)
	for _, d := range dims {
		b = be32(b, uint32(d))
	}
	return append(b, data...)
}

func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeFile(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// tinySet describes a small IDX directory: nTrain and nTest images of h×w.
// Image i's pixels are all byte(i) and its label is i%10, so rows can be
// recognised after splitting and batching.
type tinySet struct {
	nTrain, nTest, h, w int
}

func (s tinySet) images(n int) []byte {
	pix := make([]byte, n*s.h*s.w)
	for i := range n {
		for j := range s.h * s.w {
			pix[i*s.h*s.w+j] = byte(i)
		}
	}
	return idxBytes(magicImages, []int{n, s.h, s.w}, pix)
}

func (s tinySet) labels(n int) []byte {
	l := make([]byte, n)
	for i := range l {
		l[i] = byte(i % 10)
	}
	return idxBytes(magicLabels, []int{n}, l)
}

// files returns the four standard files' contents by name (no .gz).
func (s tinySet) files() map[string][]byte {
	return map[string][]byte{
		trainImagesFile: s.images(s.nTrain),
		trainLabelsFile: s.labels(s.nTrain),
		testImagesFile:  s.images(s.nTest),
		testLabelsFile:  s.labels(s.nTest),
	}
}

// writeSet writes files into a new temporary directory; names listed in gz
// are written gzipped with a .gz suffix.
func writeSet(t testing.TB, files map[string][]byte, gz ...string) string {
	t.Helper()
	dir := t.TempDir()
	for name, b := range files {
		zip := false
		for _, g := range gz {
			zip = zip || g == name
		}
		if zip {
			writeFile(t, filepath.Join(dir, name+".gz"), gzipBytes(t, b))
		} else {
			writeFile(t, filepath.Join(dir, name), b)
		}
	}
	return dir
}

// encodeIDX rebuilds the IDX bytes of m (header and payload).
func encodeIDX(m idx, magic uint32) []byte {
	out := make([]byte, 0, 4+4*len(m.dims)+len(m.data))
	out = be32(out, magic)
	for _, d := range m.dims {
		out = be32(out, uint32(d))
	}
	return append(out, m.data...)
}

func be32(b []byte, v uint32) []byte {
	return append(b, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

// realDataCache skips a test that reads real data (doing what, for the
// skip message) in -short mode and off Linux; otherwise it points
// os.UserCacheDir (XDG_CACHE_HOME) at a new temporary directory and returns
// it.
func realDataCache(t *testing.T, doing string) string {
	t.Helper()
	skipUnderRace(t, doing)
	if testing.Short() {
		t.Skip(doing + "; skipped in -short mode")
	}
	if runtime.GOOS != "linux" {
		t.Skip("redirecting os.UserCacheDir with XDG_CACHE_HOME works on Linux only")
	}
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	return cache
}

// skipUnderRace skips a test that reads a whole real data set on one
// goroutine under -race: the detector has nothing to check there and makes
// the reading minutes long (TestGoMNISTCache took 304 s of a cold
// go test -race ./... at load 12). A plain `go test ./datasets/` runs them,
// and so does CI's plain stage.
func skipUnderRace(t *testing.T, doing string) {
	t.Helper()
	if raceOn {
		t.Skip(doing + ": one goroutine reading a whole data set; skipped under -race (go test ./datasets/ runs it)")
	}
}
