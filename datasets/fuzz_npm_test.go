package datasets

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkOneLine fails on an error message that spans lines: errors reach the
// user as one `normtop:` line.
func checkOneLine(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), "\n") {
		t.Fatalf("multi-line error %q", err)
	}
}

// FuzzNPMArchive feeds arbitrary bytes to the package reader, both as a
// gzip-compressed tarball and as an uncompressed tar stream (random bytes
// rarely get past gzip's checksum), then hands whatever files it keeps to
// each package's document parser. Nothing may panic; a kept name is never
// absolute or climbing out; a parsed document always has text.
func FuzzNPMArchive(f *testing.F) {
	f.Add(buildTar(f, tinySOTU(2)))
	f.Add(buildTar(f, []tarEntry{{name: "package/../x.json", body: "{}"}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		keep := func(rel string) bool { return true }
		results := make([]map[string][]byte, 0, 2)
		for _, try := range []func() (map[string][]byte, error){
			func() (map[string][]byte, error) { return untarPackage(context.Background(), data, keep) },
			func() (map[string][]byte, error) { return untar(context.Background(), bytes.NewReader(data), keep) },
		} {
			files, err := try()
			checkOneLine(t, err)
			if err == nil {
				results = append(results, files)
			}
		}
		for _, files := range results {
			for rel := range files {
				if strings.HasPrefix(rel, "/") || rel == ".." || strings.HasPrefix(rel, "../") || strings.Contains(rel, "/../") {
					t.Fatalf("kept %q", rel)
				}
			}
			for _, p := range []*npmPackage{sotuPackage, mobyDickPackage, spamPackage} {
				kept := make(map[string][]byte)
				for rel, b := range files {
					if p.keep(rel) {
						kept[rel] = b
					}
				}
				docs, err := p.parse(kept)
				checkOneLine(t, err)
				for _, d := range docs {
					if strings.TrimSpace(d.text) == "" && p.kind == kindCorpus {
						t.Fatalf("%s: empty document accepted", p.short)
					}
				}
			}
		}
	})
}

// FuzzPackageJSON feeds arbitrary bytes to each package's document parser
// as one of its data files.
func FuzzPackageJSON(f *testing.F) {
	f.Add([]byte(`{"year":1790,"name":"George Washington","party":"none","text":"Fellow-Citizens."}`))
	f.Add([]byte(`{"chapter":"1","title":"Loomings.","text":"Call me Ishmael."}`))
	f.Add([]byte(`{"id":"00001","group":"spam-1","checksum":{"type":"MD5","value":"x"},"text":"Subject: hi\n\nbody"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, c := range []struct {
			p   *npmPackage
			rel string
		}{
			{sotuPackage, "data/1790_george_washington_n.json"},
			{mobyDickPackage, "data/chapter_1.json"},
			{spamPackage, "data/spam-1/00001.abc.json"},
		} {
			if !c.p.keep(c.rel) {
				t.Fatalf("%s does not keep %s", c.p.short, c.rel)
			}
			docs, err := c.p.parse(map[string][]byte{c.rel: data})
			checkOneLine(t, err)
			if err == nil && (len(docs) != 1 || !utf8.ValidString(docs[0].text)) {
				t.Fatalf("%s: %d documents, text valid UTF-8: %v", c.p.short, len(docs), len(docs) == 1 && utf8.ValidString(docs[0].text))
			}
		}
	})
}

// FuzzTokenize checks the tokenizer's invariants on arbitrary text: no
// empty sentence or token, no white space inside a token, and as many
// letters and digits in the tokens as in the text.
func FuzzTokenize(f *testing.F) {
	f.Add("Mr. Smith paid $3.50 for U.S. stamps... Didn't he? \"Yes!\" he said.\n\nNext paragraph")
	f.Fuzz(func(t *testing.T, text string) {
		wordRunes := func(s string) int {
			n := 0
			for _, r := range s {
				if isWordRune(r) {
					n++
				}
			}
			return n
		}
		got := 0
		for _, s := range Tokenize(text) {
			if len(s) == 0 {
				t.Fatal("empty sentence")
			}
			for _, tok := range s {
				if tok == "" || strings.IndexFunc(tok, func(r rune) bool { return r == ' ' || r == '\n' || r == '\t' }) >= 0 {
					t.Fatalf("bad token %q", tok)
				}
				got += wordRunes(tok)
			}
		}
		if want := wordRunes(text); got != want {
			t.Fatalf("%d letters and digits in tokens, %d in the text", got, want)
		}
	})
}

// FuzzMailText feeds arbitrary messages to the mail reader: it must not
// panic and must return valid UTF-8.
func FuzzMailText(f *testing.F) {
	f.Add("Subject: =?utf-8?q?hi?=\nContent-Type: multipart/alternative; boundary=b\n\n--b\nContent-Type: text/html\nContent-Transfer-Encoding: quoted-printable\n\n<p>a=3Db</p>\n--b--\n")
	f.Fuzz(func(t *testing.T, raw string) {
		if s := mailText(raw); !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 %q", s)
		}
	})
}
