package report

import (
	"bytes"
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
