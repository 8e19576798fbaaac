package norm

import (
	"github.com/normtop/normtop/normspec"
	"math/rand"
	"testing"
	"time"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// BenchmarkNormVariants: forward + backward of every variant's ops at
// n = 4096, d = 512, float32, training mode, next to a plain copy of the
// same bytes: the op pair reads x and g and writes y and dx, so the
// reference is copy(y, x) + copy(dx, g).
//
// The "copy" sub-benchmark times the copy alone. Every variant sub-benchmark
// also times that copy inside each of its own iterations, interleaved with
// the op pair, and reports
//   - ns/elem:        mean time of forward+backward per element,
//   - copy-ns/elem:   mean time of the interleaved copy per element,
//   - x-copy:         fastest op pair / fastest copy over the iterations, the
//     ratio least disturbed by other processes on a shared machine.
//
// The ops are driven as the executor drives them (Do, each op reusing its
// previous output); "/taps" cases have every tap group on, which is how the
// trainer runs them by default (probes.DefaultIntervals: stats, grad and
// params every step), the others none (intervals 0, or a step between
// intervals).
// PowerNorm runs with 8 groups after its warmup, "/in-warmup" during it;
// groupnorm (32 groups) and instancenorm on samples of 64 token rows,
// "groupnorm/image" on an image site of 64 positions per sample.
//
//	go test ./norm/ -run '^$' -bench NormVariants -benchtime 20x
func BenchmarkNormVariants(b *testing.B) {
	const n, d = 4096, 512
	const elems = n * d
	r := rand.New(rand.NewSource(1))
	xs := make([]float32, elems)
	gs := make([]float32, elems)
	for i := range xs {
		xs[i] = float32(r.NormFloat64()*1.5 + 0.3)
		gs[i] = float32(r.NormFloat64())
	}
	x := tensor.New(tensor.WithShape(n, d), tensor.WithBacking(xs))
	g := tensor.New(tensor.WithShape(n, d), tensor.WithBacking(gs))
	yb := make([]float32, elems)
	dxb := make([]float32, elems)
	b.Run("copy", func(b *testing.B) {
		b.SetBytes(2 * 4 * elems)
		for b.Loop() {
			copy(yb, xs)
			copy(dxb, gs)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/elems, "ns/elem")
	})
	type bc struct {
		name, spec string
		taps       normspec.TapMask
		warmup     int
		spatial    bool
	}
	var cases []bc
	for _, v := range normspec.Variants() {
		cases = append(cases, bc{v.Name, v.Name, 0, 0, false})
	}
	cases = append(cases, bc{"powernorm/in-warmup", "powernorm", 0, 1 << 30, false},
		bc{"layernorm/taps", "layernorm", normspec.TapAll, 0, false}, bc{"powernorm/taps", "powernorm", normspec.TapAll, 0, false},
		bc{"groupnorm/image", "groupnorm", 0, 0, true})
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			l := mustLayer(b, c.spec, Site{Name: "bench", D: d, Heads: 8, Warmup: c.warmup, Dtype: tensor.Float32, SampleRows: 64, Spatial: c.spatial})
			l.SetTapMask(c.taps)
			ops := applyOps(b, l, n)
			fin := []gorgonia.Value{x}
			bin := []gorgonia.Value{x, g}
			if l.gamma != nil {
				fin = []gorgonia.Value{x, l.gamma, l.beta}
				bin = []gorgonia.Value{x, l.gamma, g}
			}
			var opSum, cpSum time.Duration
			opMin, cpMin := time.Duration(1<<62), time.Duration(1<<62)
			for b.Loop() {
				t0 := time.Now()
				copy(yb, xs)
				copy(dxb, gs)
				t1 := time.Now()
				if _, err := ops.fw.Do(fin...); err != nil {
					b.Fatal(err)
				}
				if _, err := ops.bw.Do(bin...); err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				cp, op := t1.Sub(t0), t2.Sub(t1)
				cpSum += cp
				opSum += op
				cpMin = min(cpMin, cp)
				opMin = min(opMin, op)
			}
			b.ReportMetric(float64(opSum.Nanoseconds())/float64(b.N)/elems, "ns/elem")
			b.ReportMetric(float64(cpSum.Nanoseconds())/float64(b.N)/elems, "copy-ns/elem")
			b.ReportMetric(float64(opMin)/float64(cpMin), "x-copy")
		})
	}
}
