package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden reports under testdata/")

// The golden reports: a transformer run of six variants × three seeds, in
// every format, and the same run next to a cnn run (PowerNorm's Fig. 2
// comparison). Regenerate with go test ./report -run Golden -update and
// read the diff.
func TestGoldenReports(t *testing.T) {
	dir := t.TempDir()
	tf := paperFixture().write(t, dir, "tf.ntr")
	cnn := cnnFixture().write(t, dir, "cnn.ntr")
	for _, tc := range []struct {
		golden string
		paths  []string
		write  func(*Report, *bytes.Buffer) error
	}{
		{"transformer.txt", []string{tf}, func(r *Report, b *bytes.Buffer) error { return r.WriteText(b) }},
		{"transformer.md", []string{tf}, func(r *Report, b *bytes.Buffer) error { return r.WriteMarkdown(b) }},
		{"transformer.json", []string{tf}, func(r *Report, b *bytes.Buffer) error { return r.WriteJSON(b) }},
		{"transformer-cnn.txt", []string{tf, cnn}, func(r *Report, b *bytes.Buffer) error { return r.WriteText(b) }},
	} {
		r, err := Build(tc.paths)
		if err != nil {
			t.Fatalf("%s: %v", tc.golden, err)
		}
		var b bytes.Buffer
		if err := tc.write(r, &b); err != nil {
			t.Fatal(err)
		}
		got := strings.ReplaceAll(b.String(), dir+string(filepath.Separator), "")
		path := filepath.Join("testdata", tc.golden)
		if *update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if got != string(want) {
			t.Errorf("%s differs from the golden (go test ./report -run Golden -update, then read the diff):\n%s", tc.golden, firstDiff(got, string(want)))
		}
	}
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return "line " + strconv.Itoa(i+1) + ":\n got  " + a + "\n want " + b
		}
	}
	return ""
}

// TestGoldenCollected: the findings gathered from two reports (what
// `normtop findings` writes as findings.md), against testdata/findings.md.
func TestGoldenCollected(t *testing.T) {
	dir := t.TempDir()
	tf := paperFixture().write(t, dir, "tf.ntr")
	cnn := cnnFixture().write(t, dir, "cnn.ntr")
	var c Collected
	for _, tc := range []struct {
		id    string
		paths []string
	}{{"ii", []string{tf, cnn}}, {"iv", []string{tf}}} {
		r, err := Build(tc.paths)
		if err != nil {
			t.Fatal(err)
		}
		if !c.Add(r, tc.id, "report-"+tc.id+".md") {
			t.Fatalf("no finding %s", tc.id)
		}
	}
	if c.Add(&Report{}, "ii", "x") {
		t.Error("Add found a finding in an empty report")
	}
	var b bytes.Buffer
	if err := c.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "findings.md")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if b.String() != string(want) {
		t.Errorf("findings.md differs from the golden:\n%s", firstDiff(b.String(), string(want)))
	}
}

// checkTextGolden compares r's text report, with dir (the fixtures'
// temporary directory) cut from its paths, with testdata/name; -update
// writes it.
func checkTextGolden(t *testing.T, r *Report, dir, name string) {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(b.String(), dir+string(filepath.Separator), "")
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden:\n%s", name, firstDiff(got, string(want)))
	}
}
