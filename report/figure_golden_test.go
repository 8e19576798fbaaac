package report

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// dumpFigure writes a figure's data as text: per panel its axes, per series
// its kind, colour, legend, length, end points and y range.
func dumpFigure(b *strings.Builder, f *Figure) {
	fmt.Fprintf(b, "figure %q cols %d\n", f.Title, f.Cols)
	if f.Empty != "" {
		fmt.Fprintf(b, "  empty: %s\n", f.Empty)
	}
	for _, p := range f.Panels {
		fmt.Fprintf(b, "  panel %q x %q y %q log %v yrange [%.4g, %.4g] vlines %.4g note %q\n", p.Title, p.XLabel, p.YLabel, p.LogY, p.YMin, p.YMax, p.VLines, p.Note)
		for _, s := range p.Series {
			ys := make([]float64, len(s.Points))
			for i, pt := range s.Points {
				ys[i] = pt.Y
			}
			fmt.Fprintf(b, "    %s color %d %q n %d first %.6g last %.6g y [%.6g, %.6g] bars %v\n", []string{"line", "faint", "markers", "band"}[s.Kind],
				s.Color, s.Label, len(s.Points), s.Points[0], s.Points[len(s.Points)-1], slices.Min(ys), slices.Max(ys), s.Lo != nil)
		}
	}
}

// The golden of every figure of the paper fixture's report beside the cnn
// run: the data handed to the plotter (go test ./report -run
// FigureGolden -update, then read the diff).
func TestFigureGolden(t *testing.T) {
	r, _ := reportOf(t)
	var b strings.Builder
	for _, f := range r.Findings {
		dumpFigure(&b, r.FindingFigure(f))
	}
	for _, m := range r.Models() {
		dumpFigure(&b, r.LossFigure(m, r.ModelGroups(m)))
	}
	path := filepath.Join("testdata", "figures.txt")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if b.String() != string(want) {
		t.Errorf("figures differ from testdata/figures.txt (-update, then read the diff):\n%s", firstDiff(b.String(), string(want)))
	}
}
