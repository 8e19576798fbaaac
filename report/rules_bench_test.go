package report

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkOutlierSteps: the outlier rule over one series of 100,000
// values (a probe of one layer over a long run).
func BenchmarkOutlierSteps(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	s := &seriesAcc{}
	for i := 0; i < 100_000; i++ {
		s.vals = append(s.vals, float32(rng.ExpFloat64()))
		s.steps.add(i + 1)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		outlierSteps(s.vals, &s.steps, 0)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e5, "ns/value")
}
