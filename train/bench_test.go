package train

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/normtop/normtop/gemm"
	"github.com/normtop/normtop/probes"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// benchRunner builds a one-variant runner for benchmarks.
func benchRunner(b testing.TB, c Config, variant string, iv probes.Intervals) *Runner {
	b.Helper()
	c.Variants = []string{variant}
	c.Probes = iv
	c.Steps = MaxSteps
	r, err := NewRunner(c)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// trainStep is one training step as the Runner's loop does it, without
// evaluation: forward, backward, taps, Frame, Adam, spectrum submission.
func trainStep(b testing.TB, r *Runner, step int) {
	v := r.variants[0]
	if d, err := r.step(v, step); err != nil || d.Diverged() {
		b.Fatalf("step %d: err %v diverged %v", step, err, d.Diverged())
	}
	if r.cfg.Probes.Spectrum > 0 && v.coll.WantSpectrum(step) {
		r.submitSpectrum(v, step)
	}
}

// benchConfigs are the models benchmarked: the default character
// transformer, the mlp, and the findings' word-level language model (sotu)
// and classifier (spam), whose data normtop fetches once into its cache.
// "words" is the word preset (token budget 1024, fairseq input, tied);
// "words-batch32" the preset before it (32 padded sentences, learned
// input, untied).
func benchConfigs() map[string]Config {
	old := WordConfig("sotu")
	old.MaxTokens, old.Input, old.TieEmbeddings = 0, InputLearned, false
	return map[string]Config{"transformer": DefaultConfig(), "mlp": MNISTConfig("mlp"),
		"words": WordConfig("sotu"), "words-batch32": old, "classifier": ClassifierConfig()}
}

// BenchmarkSteps reports training steps per second of one variant of each
// model, default probes on.
func BenchmarkSteps(b *testing.B) {
	for _, name := range []string{"transformer", "mlp", "words", "words-batch32", "classifier"} {
		for _, variant := range []string{"layernorm", "batchnorm", "powernorm"} {
			b.Run(name+"/"+variant, func(b *testing.B) {
				r := benchRunner(b, benchConfigs()[name], variant, probes.DefaultIntervals())
				benchSteps(b, r)
			})
		}
	}
}

// benchSteps times b.N training steps of r after one untimed step,
// reporting steps/s, the median step's rate (robust to a slow step when
// other jobs share the machine) and the process's CPU time per step (user
// and system, every goroutine: the spectrum's and the collector's too),
// which a machine shared with other jobs disturbs far less than the wall
// clock, so that two builds can be compared on it.
func benchSteps(b *testing.B, r *Runner) {
	b.Helper()
	trainStep(b, r, 1)
	b.ReportAllocs()
	ts := make([]time.Duration, 0, b.N)
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		trainStep(b, r, i+2)
		ts = append(ts, time.Since(t0))
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
	b.ReportMetric(1e9/median(ts), "median-steps/s")
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1e3/float64(b.N), "cpu-ms/step")
}

// product is one matrix product of the model: [m,k]×[k,n], possibly with
// transposed operands as the backward pass needs them.
type product struct {
	m, k, n int
	tA, tB  bool
}

// modelGemms lists the matrix products of one training step: for every
// linear layer the forward x·W, the input gradient dy·Wᵀ (not for the
// first layer of the mlp, whose input is data) and the weight gradient
// xᵀ·dy.
func modelGemms(r *Runner) (gs []product, attnFlops float64) {
	c := r.cfg
	rows := c.Batch
	if r.src.text != nil {
		rows = c.Batch * c.SeqLen
	}
	for _, ws := range r.model.Weights() {
		if len(ws.Shape) != 2 || ws.Name == "tok_emb" || ws.Name == "pos_emb" {
			continue
		}
		in, out := ws.Shape[0], ws.Shape[1]
		gs = append(gs, product{rows, in, out, false, false}, product{in, rows, out, true, false})
		if !(r.model.Name() == "mlp" && ws.Name == "fc1.w") {
			gs = append(gs, product{rows, out, in, false, true})
		}
	}
	if r.model.Name() == "transformer" {
		// causal attention per head: QKᵀ and PV forward (half the T×T
		// matrix), four products of that size backward, plus the recomputed
		// QKᵀ: 7 × T(T+1)/2 × dₕ multiply-adds per head.
		dh := c.DModel / c.Heads
		attnFlops = float64(c.Layers*c.Batch*c.Heads) * 7 * float64(c.SeqLen*(c.SeqLen+1)/2*dh) * 2
	}
	return gs, attnFlops
}

func gemmFlops(gs []product) float64 {
	var f float64
	for _, g := range gs {
		f += 2 * float64(g.m) * float64(g.k) * float64(g.n)
	}
	return f
}

// runGemms multiplies float32 matrices of the given shapes with the same
// BLAS gorgonia's tensor package uses (the one gemm.Install put in place).
func runGemms(gs []product, bufs [][3]blas32.General) {
	for i, g := range gs {
		ta, tb := blas.NoTrans, blas.NoTrans
		if g.tA {
			ta = blas.Trans
		}
		if g.tB {
			tb = blas.Trans
		}
		blas32.Gemm(ta, tb, 1, bufs[i][0], bufs[i][1], 0, bufs[i][2])
	}
}

func gemmBuffers(gs []product) [][3]blas32.General {
	mk := func(r, c int) blas32.General {
		d := make([]float32, r*c)
		for i := range d {
			d[i] = float32(i%7) * 0.1
		}
		return blas32.General{Rows: r, Cols: c, Stride: c, Data: d}
	}
	out := make([][3]blas32.General, len(gs))
	for i, g := range gs {
		a, bb := mk(g.m, g.k), mk(g.k, g.n)
		if g.tA {
			a = mk(g.k, g.m)
		}
		if g.tB {
			bb = mk(g.n, g.k)
		}
		out[i] = [3]blas32.General{a, bb, mk(g.m, g.n)}
	}
	return out
}

// BenchmarkStepVsGemm measures, in one run, a training step (probes off)
// and the plain matrix products of the same shapes with the same BLAS,
// interleaved so machine load hits both alike; per-iteration medians. Reported: the step's
// achieved GFLOP/s (matrix-product FLOPs plus attention FLOPs over the
// step's time), the plain products' GFLOP/s, and their ratio.
func BenchmarkStepVsGemm(b *testing.B) {
	for _, name := range []string{"transformer", "mlp"} {
		b.Run(name, func(b *testing.B) {
			r := benchRunner(b, benchConfigs()[name], "layernorm", probes.Intervals{})
			gs, attn := modelGemms(r)
			bufs := gemmBuffers(gs)
			flops := gemmFlops(gs)
			trainStep(b, r, 1)
			runGemms(gs, bufs)
			var stepT, gemmT []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				trainStep(b, r, i+2)
				t1 := time.Now()
				runGemms(gs, bufs)
				stepT = append(stepT, t1.Sub(t0))
				gemmT = append(gemmT, time.Since(t1))
			}
			// medians, robust against other processes' bursts on a shared machine
			stepNs, gemmNs := median(stepT), median(gemmT)
			stepG := (flops + attn) / stepNs
			gemmG := flops / gemmNs
			b.ReportMetric(stepG, "step-GFLOP/s")
			b.ReportMetric(gemmG, "gemm-GFLOP/s")
			b.ReportMetric(100*stepG/gemmG, "%-of-gemm")
			b.ReportMetric(stepNs, "step-ns")
			b.ReportMetric(gemmNs, "gemm-ns")
		})
	}
}

// BenchmarkStepBLAS trains, in one run, one variant with each BLAS this
// build offers (gonum's, package gemm's, and OpenBLAS under -tags
// openblas), one step of each in turn with that BLAS installed, so
// machine load hits all alike. Reported: each one's median ms/step and its
// speed-up over gonum's. Probes off, as in BenchmarkStepVsGemm.
func BenchmarkStepBLAS(b *testing.B) {
	defer gemm.Install()
	impls := gemm.Available()
	for _, name := range []string{"transformer", "mlp"} {
		b.Run(name, func(b *testing.B) {
			rs := make([]*Runner, len(impls))
			for i, im := range impls {
				gemm.Use(im.BLAS)
				rs[i] = benchRunner(b, benchConfigs()[name], "layernorm", probes.Intervals{})
				trainStep(b, rs[i], 1)
			}
			ts := rotatedSteps(b, rs, func(j int) { gemm.Use(impls[j].BLAS) })
			base := median(ts[0])
			for j, im := range impls {
				ns := median(ts[j])
				b.ReportMetric(ns/1e6, im.Name+"-ms/step")
				if j > 0 {
					b.ReportMetric(base/ns, im.Name+"-speedup")
				}
			}
		})
	}
}

// BenchmarkMemoryPerVariant reports the heap one more variant costs
// (weights, Adam moments, the training and eval graphs' buffers, norm
// state), measured as the live heap after a few steps of runners with one
// and with three variants, and the peak heap seen while stepping.
func BenchmarkMemoryPerVariant(b *testing.B) {
	for _, name := range []string{"transformer", "mlp"} {
		b.Run(name, func(b *testing.B) {
			live := func(n int) (liveB, peakB uint64) {
				c := benchConfigs()[name]
				c.Variants = []string{"layernorm", "batchnorm", "powernorm"}[:n]
				c.Steps = MaxSteps
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				base := ms.HeapAlloc
				r, err := NewRunner(c)
				if err != nil {
					b.Fatal(err)
				}
				for step := 1; step <= 3; step++ {
					for _, v := range r.variants {
						if _, err := r.step(v, step); err != nil {
							b.Fatal(err)
						}
						runtime.ReadMemStats(&ms)
						peakB = max(peakB, ms.HeapAlloc-base)
					}
				}
				runtime.GC()
				runtime.ReadMemStats(&ms)
				liveB = ms.HeapAlloc - base
				runtime.KeepAlive(r)
				return liveB, peakB
			}
			var per, peak1, peak3 float64 // peaks include the runner's own copy of the data
			for i := 0; i < b.N; i++ {
				l1, p1 := live(1)
				l3, p3 := live(3)
				per += (float64(l3) - float64(l1)) / 2
				peak1 += float64(p1)
				peak3 += float64(p3)
			}
			n := float64(b.N)
			b.ReportMetric(per/n/(1<<20), "MiB-live/variant")
			b.ReportMetric(peak1/n/(1<<20), "MiB-peak-1variant")
			b.ReportMetric(peak3/n/(1<<20), "MiB-peak-3variants")
			b.ReportMetric((peak3-peak1)/2/n/(1<<20), "MiB-peak/variant")
		})
	}
}

// BenchmarkProbeOverhead trains, in one run, the same variant with the
// default probe intervals and with probes off, and with each probe group
// alone, interleaving one step of each so machine load hits all alike.
// Reported: ns/step of each and the overhead of each against probes off
// (goal: default ≤ 5%). The off-again group, identical to off, shows the
// noise floor.
func BenchmarkProbeOverhead(b *testing.B) {
	groups := []struct {
		name string
		iv   probes.Intervals
	}{
		{"off", probes.Intervals{}},
		{"default", probes.DefaultIntervals()},
		{"stats", probes.Intervals{Stats: 1}},
		{"grad", probes.Intervals{Grad: 1}},
		{"params", probes.Intervals{Params: 1}},
		{"spectrum", probes.Intervals{Spectrum: probes.DefaultIntervals().Spectrum}},
		// a second probes-off runner: its difference to "off" is the
		// benchmark's noise floor on this machine
		{"off-again", probes.Intervals{}},
	}
	for _, name := range []string{"transformer", "mlp"} {
		for _, variant := range []string{"layernorm", "batchnorm", "powernorm"} {
			b.Run(fmt.Sprintf("%s/%s", name, variant), func(b *testing.B) {
				rs := make([]*Runner, len(groups))
				for i, g := range groups {
					rs[i] = benchRunner(b, benchConfigs()[name], variant, g.iv)
					trainStep(b, rs[i], 1)
				}
				ts := rotatedSteps(b, rs, nil)
				// medians: the machine is shared, and a median shrugs off the
				// steps that another process's burst slowed down
				off := median(ts[0])
				for k, g := range groups {
					ns := median(ts[k])
					b.ReportMetric(ns, g.name+"-ns/step")
					if k > 0 {
						b.ReportMetric(100*(ns-off)/off, g.name+"-overhead-%")
					}
				}
			})
		}
	}
}

// rotatedSteps times b.N training steps of every runner in rs, interleaved
// and in an order that rotates each round so that no runner always runs
// first; before(j), when set, runs untimed before runner j's step. It
// returns each runner's step times (the runners took step 1 already).
func rotatedSteps(b *testing.B, rs []*Runner, before func(j int)) [][]time.Duration {
	ts := make([][]time.Duration, len(rs))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range rs {
			j := (k + i) % len(rs)
			if before != nil {
				before(j)
			}
			t0 := time.Now()
			trainStep(b, rs[j], i+2)
			ts[j] = append(ts[j], time.Since(t0))
		}
	}
	return ts
}

// median of durations in nanoseconds.
func median(d []time.Duration) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return float64(s[len(s)/2].Nanoseconds())
}
