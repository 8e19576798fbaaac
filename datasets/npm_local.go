package datasets

import (
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// isTarball tells whether the file at path (st its stat) is meant as an npm
// tarball: by its name, or, for a regular file, by gzip's magic number at
// its start.
func isTarball(path string, st fs.FileInfo) bool {
	if strings.HasSuffix(path, ".tgz") || strings.HasSuffix(path, ".tar.gz") {
		return true
	}
	if !st.Mode().IsRegular() {
		// Sniffing a pipe or a device would eat the bytes the real read
		// needs, and closing it may end the writer (EPIPE): a named pipe or
		// <(…) is read once, as text.
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [2]byte
	_, err = io.ReadFull(f, magic[:])
	return err == nil && magic == [2]byte{0x1f, 0x8b}
}

// loadPackagePath reads one of the pinned packages from a file the user
// provides: a tarball, recognised by its SHA-512, or an unpacked package
// directory (the one holding package.json, or its parent as `tar xzf`
// leaves it), recognised by the name and version in its package.json. An
// unpacked directory has no checksum to check; it must hold every document.
func loadPackagePath(ctx context.Context, path string, kind datasetKind) ([]textDoc, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		tgz, err := readLimited(path, maxTarballBytes)
		if err != nil {
			return nil, err
		}
		p, err := packageBySum(path, tgz)
		if err != nil {
			return nil, err
		}
		if err := p.wantKind(path, kind); err != nil {
			return nil, err
		}
		return p.fromTarball(ctx, tgz, path)
	}
	root, p, err := findUnpacked(path)
	if err != nil {
		return nil, err
	}
	if err := p.wantKind(path, kind); err != nil {
		return nil, err
	}
	files, err := readPackageDir(ctx, root, p.keep)
	if err != nil {
		return nil, err
	}
	return p.parseFiles(files, path)
}

// packageBySum finds the pinned package whose tarball is tgz.
func packageBySum(path string, tgz []byte) (*npmPackage, error) {
	sum := sha512.Sum512(tgz)
	got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	var names []string
	for _, p := range npmPackages {
		if p.integrity == got {
			return p, nil
		}
		names = append(names, p.id())
	}
	return nil, fmt.Errorf("%s: checksum mismatch: SHA-512 %s is none of the pinned packages' (%s); a damaged or different download", path, got[len("sha512-"):], strings.Join(names, ", "))
}

// wantKind rejects a package that feeds the other loader.
func (p *npmPackage) wantKind(path string, kind datasetKind) error {
	if p.kind == kind {
		return nil
	}
	var want []string
	for _, q := range npmPackages {
		if q.kind == kind {
			want = append(want, q.short)
		}
	}
	return fmt.Errorf("%s: %s is %s, not %s (want %s)", path, p.id(), p.kind, kind, strings.Join(want, " or "))
}

// findUnpacked locates package.json in dir or dir/package and matches it to
// a pinned package.
func findUnpacked(dir string) (string, *npmPackage, error) {
	for _, root := range []string{dir, filepath.Join(dir, "package")} {
		b, err := readLimited(filepath.Join(root, "package.json"), 1<<20)
		if err != nil {
			continue
		}
		var meta struct{ Name, Version string }
		if err := json.Unmarshal(b, &meta); err != nil {
			return "", nil, fmt.Errorf("%s: bad JSON: %s", filepath.Join(root, "package.json"), firstLine(err.Error()))
		}
		for _, p := range npmPackages {
			if p.name == meta.Name {
				if p.version != meta.Version {
					return "", nil, fmt.Errorf("%s: %s@%s, want version %s", root, meta.Name, meta.Version, p.version)
				}
				return root, p, nil
			}
		}
		return "", nil, fmt.Errorf("%s: package %q is not one of normtop's data sets", root, meta.Name)
	}
	return "", nil, fmt.Errorf("%s: a directory without package.json (want an unpacked npm data package)", dir)
}

// readPackageDir reads the regular files keep accepts below root; symbolic
// links are not followed.
func readPackageDir(ctx context.Context, root string, keep func(rel string) bool) (map[string][]byte, error) {
	files := make(map[string][]byte)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || !keep(filepath.ToSlash(rel)) {
			return nil
		}
		b, err := readLimited(p, maxEntryBytes)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	return files, err
}
