package norm

import "testing"

// BenchmarkScalarPasses measures single scalar passes over the benchmark's
// n×d float32 data (a float64 sum, a sum of squared deviations, a
// convert-and-write) next to copy, to show the floor that a scalar Go kernel
// with float64 statistics sits on: every variant needs several such passes.
//
//	go test ./norm/ -run '^$' -bench ScalarPasses -benchtime 30x
func BenchmarkScalarPasses(b *testing.B) {
	const n, d = 4096, 512
	x := make([]float32, n*d)
	y := make([]float32, n*d)
	for i := range x {
		x[i] = float32(i%7) * 0.1
	}
	b.Run("sumOf", func(b *testing.B) {
		s := 0.0
		for b.Loop() {
			for i := 0; i < n; i++ {
				s += sumOf(x[i*d : (i+1)*d])
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(n*d), "ns/elem")
		_ = s
	})
	b.Run("sumSqDev", func(b *testing.B) {
		s := 0.0
		for b.Loop() {
			for i := 0; i < n; i++ {
				s += sumSqDev(x[i*d:(i+1)*d], 0.3)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(n*d), "ns/elem")
		_ = s
	})
	b.Run("write", func(b *testing.B) {
		for b.Loop() {
			for i := 0; i < n; i++ {
				xr, yr := x[i*d:(i+1)*d], y[i*d:(i+1)*d]
				yr = yr[:len(xr)]
				for k, v := range xr {
					yr[k] = float32((float64(v) - 0.3) * 1.7)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(n*d), "ns/elem")
	})
	b.Run("copy", func(b *testing.B) {
		for b.Loop() {
			copy(y, x)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(n*d), "ns/elem")
	})
}
