package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

// htmlOf builds the report of the paper fixture beside the cnn fixture
// (every finding measurable there) and writes it as HTML.
func htmlOf(t *testing.T) (*Report, string) {
	t.Helper()
	r, _ := reportOf(t)
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if p := os.Getenv("NORMTOP_HTML_OUT"); p != "" {
		os.WriteFile(p, b.Bytes(), 0o644)
	}
	return r, b.String()
}

// The page parses as strict XML (every element closed, attributes quoted,
// entities known) with balanced html/head/body.
func TestHTMLWellFormed(t *testing.T) {
	_, page := htmlOf(t)
	if !strings.HasPrefix(page, "<!DOCTYPE html>\n") {
		t.Errorf("no doctype: %.40q", page)
	}
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict = true
	var stack []string
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			stack = append(stack, e.Name.Local)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) != 0 {
		t.Errorf("unclosed elements: %v", stack)
	}
}

// No URL, no external resource, no script.
func TestHTMLSelfContained(t *testing.T) {
	_, page := htmlOf(t)
	for _, re := range []string{`(?i)https?://`, `(?i)\ssrc\s*=`, `(?i)<script`, `(?i)<link`, `(?i)@import`, `(?i)url\(`, `(?i)href="(?:[^#"])`} {
		if m := regexp.MustCompile(re).FindString(page); m != "" {
			t.Errorf("the page has %q (pattern %s): not self-contained", m, re)
		}
	}
	for _, want := range []string{"prefers-color-scheme: dark", "@media print"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// Every finding of the report appears as an article with its claim, a
// figure holding an SVG (none, and a line saying why, for a claim these
// runs cannot judge), its numbers and its verdict.
func TestHTMLEveryFindingHasFigure(t *testing.T) {
	r, page := htmlOf(t)
	if len(r.Findings) < 5 {
		t.Fatalf("%d findings", len(r.Findings))
	}
	for _, f := range r.Findings {
		start := strings.Index(page, `<article class="finding" id="finding-`+f.ID+`">`)
		if start < 0 {
			t.Errorf("finding (%s) missing", f.ID)
			continue
		}
		art := page[start:]
		art = art[:strings.Index(art, "</article>")]
		fig := "<svg"
		if f.Verdict == NotMeasurable {
			fig = "No figure: these runs cannot judge this claim"
			if strings.Contains(art, "<svg") {
				t.Errorf("finding (%s) cannot be judged but draws a figure", f.ID)
			}
		}
		for _, want := range []string{esc(f.Claim), "<figure", fig, "verdict: <span class=\"verdict", esc(f.Verdict)} {
			if !strings.Contains(art, want) {
				t.Errorf("finding (%s) lacks %q", f.ID, want)
			}
		}
		if len(f.Numbers) > 0 && !strings.Contains(art, esc(strings.TrimSpace(f.Numbers[0]))) {
			t.Errorf("finding (%s) lacks its numbers", f.ID)
		}
	}
}

// Names from the run file (data, layers, variant specs) are text, never
// markup, in the tables and in the figures' SVG.
func TestHTMLEscapesRunNames(t *testing.T) {
	fx := cnnFixture()
	fx.meta.Data = `<script>alert("x")</script> & co`
	fx.meta.Layers = []string{`conv1<b>"'&`, "fc1"}
	fx.meta.Config["data"] = fx.meta.Data
	for i := range fx.meta.Variants {
		fx.meta.Variants[i].Spec = `batchnorm:momentum=0.1,x=<i>`
	}
	path := fx.write(t, t.TempDir(), "odd.ntr")
	r, err := Build([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, "<script") || strings.Contains(page, "conv1<b>") || strings.Contains(page, "x=<i>") || !strings.Contains(page, "conv1&lt;b&gt;") {
		t.Error("a run file's name became markup")
	}
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict = true
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
	}
}
