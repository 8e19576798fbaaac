package report

import (
	"runtime/debug"
	"testing"
)

// BenchmarkReportFormat: Build and write one run file of 64 MiB (1 GiB
// with NORMTOP_BIG=1) as text and as HTML, with the command's GC setting:
// the pair whose ratio the HTML page must keep within 1.5× (issue 28). The
// figures are drawn from the curves kept in the same read, so the page
// costs its drawing on top of the text report's reading.
//
//	go test ./report -run '^$' -bench ReportFormat -benchtime 3x -count 3
func BenchmarkReportFormat(b *testing.B) {
	makeBenchFile(b)
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	for _, tc := range []struct {
		name  string
		write func(*Report) error
	}{
		{"text", func(r *Report) error { return r.WriteText(discard{}) }},
		{"html", func(r *Report) error { return r.WriteHTML(discard{}) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				r, err := Build([]string{benchFile.path})
				if err != nil {
					b.Fatal(err)
				}
				if err := tc.write(r); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(benchFile.size)
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/report")
		})
	}
}

// BenchmarkReportWrite: the writing alone, on one report built from the
// benchmark file: on a busy machine the pair above is noisy, and the
// difference between the formats is all here (reading is shared).
func BenchmarkReportWrite(b *testing.B) {
	makeBenchFile(b)
	r, err := Build([]string{benchFile.path})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("text", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := r.WriteText(discard{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("html", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := r.WriteHTML(discard{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
