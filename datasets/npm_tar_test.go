package datasets

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// The tar reader's tests (npm_tar.go) and the tarballs every npm test
// builds.

// tarEntry is one entry of a test tarball; typ 0 means a regular file.
type tarEntry struct {
	name, body string
	typ        byte
	size       int64 // header size when not len(body); the data is then cut off
}

func buildTar(t testing.TB, entries []tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	var retyped []int // offsets of header blocks to turn into extended headers
	defer func() {
		for _, at := range retyped {
			retype(buf.Bytes()[at:at+512], tar.TypeXHeader)
		}
	}()
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.body)), Typeflag: e.typ}
		if e.typ == tar.TypeXHeader {
			// tar.Writer refuses to write extended headers by hand and drops
			// GNU.sparse records, so write a plain entry and retype it.
			h.Typeflag = tar.TypeReg
			retyped = append(retyped, buf.Len())
		}
		if e.typ == 0 {
			h.Typeflag = tar.TypeReg
		}
		if e.typ == tar.TypeSymlink {
			h.Linkname, h.Size = e.body, 0
		}
		if e.typ == tar.TypeDir {
			h.Size = 0
		}
		if e.size > 0 {
			h.Size = e.size
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if e.size > 0 {
			return buf.Bytes() // a header promising more than follows
		}
		if h.Size > 0 {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func buildTgz(t testing.TB, entries []tarEntry) []byte {
	t.Helper()
	return gzipBytes(t, buildTar(t, entries))
}

// sparseBody is a GNU 1.0 sparse file's data section: a map of one 4-byte
// fragment at offset 0, padded to a block, then the fragment.
var sparseBody = "1\n0\n4\n" + strings.Repeat("\x00", 512-6) + "data"

// paxRecords encodes PAX extended header records ("key=value"); each
// record's length prefix counts itself.
func paxRecords(kv ...string) string {
	var b strings.Builder
	for _, r := range kv {
		n := len(r) + 3 // space, newline, one digit
		for len(fmt.Sprint(n))+len(r)+2 != n {
			n++
		}
		fmt.Fprintf(&b, "%d %s\n", n, r)
	}
	return b.String()
}

// retype sets a ustar header block's type flag and fixes its checksum.
func retype(block []byte, typ byte) {
	block[156] = typ
	copy(block[148:156], "        ")
	sum := 0
	for _, c := range block {
		sum += int(c)
	}
	copy(block[148:156], fmt.Sprintf("%06o\x00 ", sum))
}

func TestUntarPackage(t *testing.T) {
	keepJSON := func(rel string) bool { return strings.HasSuffix(rel, ".json") }
	big := strings.Repeat("a", 10)
	for _, c := range []struct {
		name    string
		entries []tarEntry
		want    string // error substring; "" for success
		files   string // kept files when successful
	}{
		{"kept files only", []tarEntry{
			{name: "package/a.json", body: "1"}, {name: "package/b.txt", body: "2"},
			{name: "package/sub/c.json", body: "3"}, {name: "package/l.json", body: "a.json", typ: tar.TypeSymlink},
			{name: "package/d.json/", typ: tar.TypeDir},
		}, "", "[a.json sub/c.json]"},
		{"other top directory", []tarEntry{{name: "mypkg/./a.json", body: "1"}}, "", "[a.json]"},
		{"parent traversal", []tarEntry{{name: "package/../../etc/x.json", body: "1"}}, `archive entry "package/../../etc/x.json" climbs out of the package directory`, ""},
		{"traversal in a skipped file", []tarEntry{{name: "package/../x.txt", body: "1"}}, "climbs out", ""},
		{"absolute", []tarEntry{{name: "/etc/passwd.json", body: "1"}}, "has an absolute path", ""},
		{"windows absolute", []tarEntry{{name: `C:\x.json`, body: "1"}}, "has an absolute path", ""},
		{"backslash traversal", []tarEntry{{name: `package\..\..\x.json`, body: "1"}}, "climbs out", ""},
		{"duplicate", []tarEntry{{name: "package/a.json", body: "1"}, {name: "package/./a.json", body: "2"}}, `archive holds "a.json" twice`, ""},
		{"entry too big", []tarEntry{{name: "package/a.json", body: big, size: maxEntryBytes + 1}}, "more than the 16 MiB allowed", ""},
		{"sparse entry", []tarEntry{
			{name: "PaxHeaders/a.json", typ: tar.TypeXHeader, body: paxRecords("GNU.sparse.major=1", "GNU.sparse.minor=0", "GNU.sparse.name=package/a.json", "GNU.sparse.realsize=10000000")},
			{name: "package/a.json", body: sparseBody},
		}, `archive entry "package/a.json" is a sparse file`, ""},
		{"truncated entry", []tarEntry{{name: "package/a.json", body: big, size: 1000}}, "corrupt archive: truncated", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			files, err := untarPackage(context.Background(), gzipBytes(t, buildTar(t, c.entries)), keepJSON)
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("got %v, want %q", err, c.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for n := range files {
				names = append(names, n)
			}
			if got := fmt.Sprint(slices.Sorted(slices.Values(names))); got != c.files {
				t.Errorf("kept %s, want %s", got, c.files)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := untarPackage(ctx, buildTgz(t, tinySOTU(1)), keepJSON); err != context.Canceled {
		t.Errorf("cancelled: got %v", err)
	}
}

func TestBoundedReader(t *testing.T) {
	r := &boundedReader{r: strings.NewReader("0123456789"), n: 5}
	b, err := io.ReadAll(r)
	if err != errTooBig || len(b) > 6 {
		t.Errorf("read %q, %v; want errTooBig", b, err)
	}
	r = &boundedReader{r: strings.NewReader("01234"), n: 5}
	if b, err := io.ReadAll(r); err != nil || string(b) != "01234" {
		t.Errorf("read %q, %v; want all 5 bytes", b, err)
	}
}
