package gemm

import "testing"

// BenchmarkPackB is the cost of packing a 256×256 block of B, plain and
// transposed, per element.
func BenchmarkPackB(b *testing.B) {
	const k, n = 256, 256
	src := make([]float32, k*n)
	dst := make([]float32, k*n)
	for _, tB := range []bool{false, true} {
		name := "N"
		if tB {
			name = "T"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				packB(tB, src, n, 0, k, 0, n, 16, dst)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(k*n), "ns/element")
		})
	}
}
