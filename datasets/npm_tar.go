package datasets

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// errTooBig stops a decompression that outgrows maxUnpackedBytes.
var errTooBig = fmt.Errorf("unpacks to more than %d MiB", maxUnpackedBytes>>20)

// boundedReader fails once more than n bytes have been read: a guard
// against archives that decompress without end.
type boundedReader struct {
	r io.Reader
	n int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if int64(len(p)) > b.n+1 {
		p = p[:b.n+1] // one byte more than allowed reveals an overrun
	}
	n, err := b.r.Read(p)
	b.n -= int64(n)
	if b.n < 0 {
		return n, errTooBig
	}
	return n, err
}

// untarPackage reads an npm tarball (gzip-compressed tar) in memory and
// returns the regular files keep accepts, keyed by their path below the
// package's top directory (npm tarballs put everything under one directory,
// usually "package/"). Nothing is written to disk. Entry names that are
// absolute or climb out with ".." make the whole archive an error, as do
// duplicate kept names and files over maxEntryBytes; links, directories and
// other entry types are skipped.
func untarPackage(ctx context.Context, tgz []byte, keep func(rel string) bool) (map[string][]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, fmt.Errorf("not a gzip-compressed tarball: %v", err)
	}
	return untar(ctx, zr, keep)
}

// untar reads an uncompressed tar stream for untarPackage.
func untar(ctx context.Context, r io.Reader, keep func(rel string) bool) (map[string][]byte, error) {
	tr := tar.NewReader(&boundedReader{r: r, n: maxUnpackedBytes})
	files := make(map[string][]byte)
	var kept int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, archiveError(err)
		}
		rel, err := packageRel(hdr.Name)
		if err != nil {
			return nil, err
		}
		if isSparse(hdr) {
			// A few bytes of sparse map can stand for megabytes of zeros.
			return nil, fmt.Errorf("archive entry %q is a sparse file, which npm never packs", hdr.Name)
		}
		if hdr.Typeflag != tar.TypeReg || rel == "" || !keep(rel) {
			continue
		}
		if hdr.Size > maxEntryBytes {
			return nil, fmt.Errorf("archive entry %q is %d bytes, more than the %d MiB allowed", hdr.Name, hdr.Size, maxEntryBytes>>20)
		}
		if kept += hdr.Size; kept > maxUnpackedBytes {
			return nil, errTooBig
		}
		if _, dup := files[rel]; dup {
			return nil, fmt.Errorf("archive holds %q twice", rel)
		}
		// Read what is there rather than allocating what the header claims.
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, archiveError(err)
		}
		if int64(len(b)) != hdr.Size {
			return nil, errors.New("corrupt archive: truncated")
		}
		files[rel] = b
	}
	return files, nil
}

// isSparse tells whether a header describes a sparse file (old GNU or PAX
// format).
func isSparse(hdr *tar.Header) bool {
	if hdr.Typeflag == tar.TypeGNUSparse {
		return true
	}
	for k := range hdr.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return true
		}
	}
	return false
}

// archiveError names a failure to read the archive in one line.
func archiveError(err error) error {
	switch {
	case errors.Is(err, errTooBig):
		return err
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return errors.New("corrupt archive: truncated")
	}
	return fmt.Errorf("corrupt archive: %s", firstLine(err.Error()))
}

// packageRel strips the top directory from a tar entry name. It rejects
// names that could point outside the package once unpacked; it returns ""
// for the top directory itself.
func packageRel(name string) (string, error) {
	clean := strings.ReplaceAll(name, `\`, "/")
	if strings.HasPrefix(clean, "/") || strings.ContainsRune(clean, 0) || (len(clean) >= 2 && clean[1] == ':') {
		return "", fmt.Errorf("archive entry %q has an absolute path", name)
	}
	for _, el := range strings.Split(clean, "/") {
		if el == ".." {
			return "", fmt.Errorf("archive entry %q climbs out of the package directory", name)
		}
	}
	clean = path.Clean(clean)
	_, rel, _ := strings.Cut(clean, "/")
	return rel, nil
}
