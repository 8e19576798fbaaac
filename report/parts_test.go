package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Reading a file in parallel parts gives the same report, to the bit, as
// reading it in one pass.
func TestPartsEqualOnePass(t *testing.T) {
	old := minPartSteps
	minPartSteps = 7
	defer func() { minPartSteps = old }()
	dir := t.TempDir()
	path := paperFixture().write(t, dir, "tf.ntr")
	report := func(parts int) string {
		run, err := readParts(path, parts)
		if err != nil {
			t.Fatal(err)
		}
		r, err := New([]*Run{run})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	one := report(1)
	for _, parts := range []int{2, 3, 5, 11} {
		if got := report(parts); got != one {
			t.Errorf("%d parts: the report differs from one pass:\n%s", parts, firstDiff(got, one))
		}
	}
}

// A file damaged in the middle gives the same summaries read in parts as
// in one pass, and each damaged region is noted once.
func TestPartsOfADamagedFile(t *testing.T) {
	old := minPartSteps
	minPartSteps = 7
	defer func() { minPartSteps = old }()
	dir := t.TempDir()
	data, err := os.ReadFile(paperFixture().write(t, dir, "tf.ntr"))
	if err != nil {
		t.Fatal(err)
	}
	for i := len(data) / 2; i < len(data)/2+200; i++ {
		data[i] ^= 0x5a
	}
	path := filepath.Join(dir, "bad.ntr")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	summary := func(parts int) (string, int) {
		run, err := readParts(path, parts)
		if err != nil {
			t.Fatal(err)
		}
		r, err := New([]*Run{run})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		s := b.String()
		return s[strings.Index(s, `"variants"`):], len(run.Damage)
	}
	one, n1 := summary(1)
	if n1 == 0 {
		t.Fatal("the damage was not noticed")
	}
	for _, parts := range []int{3, 8} {
		got, n := summary(parts)
		if got != one {
			t.Errorf("%d parts: the summaries differ from one pass:\n%s", parts, firstDiff(got, one))
		}
		if n != n1 {
			t.Errorf("%d parts: %d damaged regions noted, one pass %d", parts, n, n1)
		}
	}
}
