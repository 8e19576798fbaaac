package norm

import (
	"math"
	"math/rand"
	"testing"
)

// TestZooRunningStats: instancenorm:running=1 (PyTorch's
// track_running_stats) against the formulas of kernel_unit_running.go,
// worked out here per instance: three training steps with padding (a
// sample with one real position adds its mean but no variance; a sample of
// padding adds nothing), then inference with the running statistics. Its
// distances stay against shadows: no RunMean/RunVar tap.
func TestZooRunningStats(t *testing.T) {
	const R, B, d, mom = 4, 3, 5, 0.2
	const n = R * B
	masks := [][]bool{
		nil,
		{true, true, true, false, true, false, false, false, false, false, false, false},
		{true, true, false, false, true, true, true, true, true, true, true, false},
	}
	r := rand.New(rand.NewSource(12))
	l := mustLayer(t, "instancenorm:running=1,momentum=0.2", Site{D: d, Dtype: f64, SampleRows: R, Spatial: true})
	gam, bet := randomParams(r, l)
	wantMu, wantVar := make([]float64, d), make([]float64, d)
	for k := range wantVar {
		wantVar[k] = 1
	}
	for step, mask := range masks {
		x := randSlice(r, n*d, 2, 0.5)
		l.SetMask(mask)
		refStep(t, l, x, randSlice(r, n*d, 1, 0), n)
		if tp := l.Taps(); tp.RunMean != nil || tp.RunVar != nil || tp.BatchMean == nil {
			t.Fatalf("step %d: RunMean %v RunVar %v BatchMean %v: want shadows only", step, tp.RunMean, tp.RunVar, tp.BatchMean)
		}
		instanceRunningUpdate(x, mask, R, B, d, mom, wantMu, wantVar)
		st := l.State()
		assertClose(t, "running mean", st.Mean, wantMu, 1e-12)
		assertClose(t, "running variance", st.Var, wantVar, 1e-12)
	}
	// inference: every position through μ and σ², whatever the mask
	l.SetTraining(false)
	mask := masks[1]
	l.SetMask(mask)
	x := randSlice(r, n*d, 2, 0.5)
	g := randSlice(r, n*d, 1, 0)
	y, dx, _, _ := refStep(t, l, x, g, n)
	for e := range x {
		k := e % d
		a := 1 / math.Sqrt(wantVar[k]+1e-5)
		if want := gam[k]*(x[e]-wantMu[k])*a + bet[k]; relErr(y[e], want) > 1e-12 {
			t.Fatalf("inference y[%d] = %v, want %v", e, y[e], want)
		}
		want := gam[k] * g[e] * a
		if !mask[e/d] {
			want = 0
		}
		if relErr(dx[e], want) > 1e-12 {
			t.Fatalf("inference dx[%d] = %v, want %v", e, dx[e], want)
		}
	}
	before := l.State()
	refStep(t, l, x, g, n)
	assertClose(t, "state after inference", l.State().Mean, before.Mean, 0)
}

// instanceRunningUpdate is instancenorm:running=1's update of the running
// mean mu and variance vr, worked out per instance of B samples of R rows
// × d features: each instance's mean over its sample's real rows, and its
// unbiased variance where it has two or more; the running statistics move
// by mom towards the means of those over the instances that have them.
func instanceRunningUpdate(x []float64, mask []bool, R, B, d int, mom float64, mu, vr []float64) {
	for k := 0; k < d; k++ {
		var sumMu, sumVar float64
		var nMu, nVar int
		for s := 0; s < B; s++ {
			var vals []float64
			for i := s * R; i < (s+1)*R; i++ {
				if mask == nil || mask[i] {
					vals = append(vals, x[i*d+k])
				}
			}
			if len(vals) == 0 {
				continue
			}
			m := 0.0
			for _, v := range vals {
				m += v
			}
			m /= float64(len(vals))
			sumMu += m
			nMu++
			if len(vals) > 1 {
				ss := 0.0
				for _, v := range vals {
					ss += (v - m) * (v - m)
				}
				sumVar += ss / float64(len(vals)-1)
				nVar++
			}
		}
		mu[k] = (1-mom)*mu[k] + mom*sumMu/float64(nMu)
		vr[k] = (1-mom)*vr[k] + mom*sumVar/float64(nVar)
	}
}
