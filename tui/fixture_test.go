package tui

import (
	"io"
	"math"
	"time"

	"github.com/normtop/normtop/probes"
)

// fixtureMeta is a fixed four-variant, five-layer run.
func fixtureMeta(nv, nl, steps int) probes.RunMeta {
	names := []string{"layernorm", "batchnorm", "powernorm", "adanorm", "rmsnorm", "layernorm-simple", "pn-v", "detachnorm"}
	meta := probes.RunMeta{
		RunID:  "fixture-run",
		Model:  "transformer",
		Data:   "text (Opticks)",
		Metric: "accuracy",
		Start:  time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Config: map[string]string{"steps": itoa(steps)},
	}
	for i := range nv {
		n := names[i%len(names)]
		spec := n
		if n == "powernorm" {
			spec = "powernorm:alpha_fwd=0.9"
		}
		meta.Variants = append(meta.Variants, probes.VariantMeta{Name: n, Spec: spec})
	}
	for l := range nl {
		meta.Layers = append(meta.Layers, "block"+itoa(l/2)+".ln"+itoa(l%2+1))
	}
	return meta
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	s := ""
	neg := i < 0
	if neg {
		i = -i
	}
	for i > 0 {
		s = string(rune('0'+i%10)) + s
		i /= 10
	}
	if neg {
		s = "-" + s
	}
	return s
}

// fixtureFrame builds the deterministic frame of variant v at step t.
func fixtureFrame(meta *probes.RunMeta, v, t, steps int) probes.Frame {
	fv := float64(v)
	ft := float64(t)
	f := probes.Frame{
		Variant:     v,
		Step:        t,
		Epoch:       ft / 100,
		TrainLoss:   2.3*math.Exp(-ft/80) + 0.1 + 0.05*fv + 0.02*math.Sin(ft*0.7+fv),
		Elapsed:     time.Duration(t) * 20 * time.Millisecond,
		StepsPerSec: 50 - 2*fv,
	}
	name := meta.Variants[v].Name
	f.Layers = make([]probes.LayerValues, len(meta.Layers))
	for l := range f.Layers {
		f.Layers[l] = fixtureLayer(name, v, l, t)
	}
	if name == "batchnorm" && t == 120 && len(meta.Layers) > 1 {
		f.Alerts = append(f.Alerts, probes.Alert{Kind: probes.AlertOutlier, Step: t, Layer: 1, Probe: probes.DistVar,
			Value: f.Layers[1][probes.DistVar], Threshold: 10, Msg: "dist_var 1.5 over 10× running median"})
	}
	if t%20 == 0 {
		vl := f.TrainLoss + 0.05 + 0.0005*ft*float64(v%2)
		f.Eval = []probes.Eval{{Split: "val", Loss: vl, Metric: 0.5 + 0.4*(1-math.Exp(-ft/60)) - 0.01*fv,
			TrainLoss: f.TrainLoss + 0.01}}
	}
	if t%50 == 0 {
		f.Spectrum = fixtureSpectrum(v, t)
	}
	if t == 180 && v == 1 {
		f.Alerts = append(f.Alerts, probes.Alert{Kind: probes.AlertOverfit, Step: t, Layer: -1, Probe: probes.NumProbes,
			Msg: "val loss rising for 3 evals while train loss falls"})
	}
	if name == "adanorm" && t == 150 {
		f.Status = probes.Diverged
		f.TrainLoss = math.NaN()
		f.Alerts = append(f.Alerts, probes.Alert{Kind: probes.AlertDivergence, Step: t, Layer: 2, Probe: probes.NumProbes,
			Msg: "diverged at step 150 (last good 149)"})
	}
	if t == steps {
		f.Status = probes.Done
		f.Eval = append(f.Eval, probes.Eval{Split: "test", Loss: f.TrainLoss + 0.06, Metric: 0.88 - 0.01*fv})
	}
	return f
}

// fixtureFrames returns every frame of the run in the order a trainer emits
// them (variants interleaved per step; a diverged variant stops).
// fixtureLayer is variant v's (named name) probe values on layer l at
// step t: smooth waves, the PowerNorm and AdaNorm probes on those
// variants, and one BatchNorm outlier (layer 1, step 120).
func fixtureLayer(name string, v, l, t int) probes.LayerValues {
	fv, ft := float64(v), float64(t)
	lv := probes.EmptyLayerValues()
	fl := float64(l)
	wave := 1 + 0.5*math.Sin(ft/10+fv+fl)
	lv[probes.DistMu] = 0.01 * (1 + fl) * wave / (1 + fv)
	lv[probes.DistVar] = 0.02 * (1 + fl) * wave / (1 + fv)
	lv[probes.GMu] = 0.1 * wave * math.Exp(-ft/150)
	lv[probes.GVar] = 0.05 * wave * math.Exp(-ft/150)
	lv[probes.DxMean] = 1e-9 * wave
	lv[probes.DxVar] = 1e-4 * wave * (1 + fl)
	lv[probes.DyMean] = 3e-3 * wave
	lv[probes.DyVar] = 2e-4 * wave * (1 + fl)
	lv[probes.InMean] = 0.1 * math.Sin(ft/20+fl)
	lv[probes.InStd] = 1 + 0.1*fl
	lv[probes.InMaxAbs] = 4 + fl + math.Sin(ft/7)
	lv[probes.GammaDrift] = 0.001 * ft * (1 + fl)
	lv[probes.BetaNorm] = 0.0005 * ft
	lv[probes.GWNorm] = 0.3 * wave * math.Exp(-ft/200) / (1 + fl)
	switch name {
	case "powernorm", "pn-v":
		lv[probes.DistPsi2] = 0.015 * wave
		lv[probes.GPsi2] = 0.04 * wave
		lv[probes.PNGamma] = 1 + 0.1*wave
		lv[probes.PNNu] = 0.5 + 0.001*ft
	case "adanorm":
		lv[probes.AdaFrac] = 0.001 * wave
	}
	if name == "batchnorm" && l == 1 && t == 120 {
		lv[probes.DistVar] = 50 * lv[probes.DistVar]
	}
	return lv
}

// fixtureSpectrum is variant v's embedding spectrum at step t: σ_i decaying
// exponentially, faster for later variants and steps.
func fixtureSpectrum(v, t int) *probes.Spectrum {
	fv, ft := float64(v), float64(t)
	sig := make([]float64, 32)
	rate := 0.05 + 0.02*fv + 0.0005*ft
	sum, ent := 0.0, 0.0
	for i := range sig {
		sig[i] = math.Exp(-rate * float64(i))
		sum += sig[i]
	}
	for _, s := range sig {
		p := s / sum
		ent -= p * math.Log(p)
	}
	return &probes.Spectrum{Step: t, Sigma: sig, EffRank: math.Exp(ent)}
}

func fixtureFrames(meta probes.RunMeta, steps int) []probes.Frame {
	var out []probes.Frame
	for t := 1; t <= steps; t++ {
		for v := range meta.Variants {
			if meta.Variants[v].Name == "adanorm" && t > 150 {
				continue
			}
			out = append(out, fixtureFrame(&meta, v, t, steps))
		}
	}
	return out
}

// sliceSource is a ReplaySource over frames in memory. limit (if > 0)
// simulates a file still being written: only the first limit frames exist.
type sliceSource struct {
	meta   probes.RunMeta
	frames []probes.Frame
	pos    int
	limit  int
	seeks  []int
	nexts  int
	eofs   int // Next calls answered with io.EOF
}

func (s *sliceSource) Meta() probes.RunMeta { return s.meta }

func (s *sliceSource) Next() (probes.Frame, error) {
	n := len(s.frames)
	if s.limit > 0 {
		n = min(n, s.limit)
	}
	if s.pos >= n {
		s.eofs++
		return probes.Frame{}, io.EOF
	}
	s.nexts++
	s.pos++
	return s.frames[s.pos-1], nil
}

func (s *sliceSource) Seek(step int) error {
	s.seeks = append(s.seeks, step)
	s.pos = 0
	for s.pos < len(s.frames) && s.frames[s.pos].Step < step {
		s.pos++
	}
	return nil
}

// fakeFeed is a feedSource the test fills by hand.
type fakeFeed struct {
	ready  chan struct{}
	q      []probes.Frame
	closed bool
}

func newFakeFeed() *fakeFeed { return &fakeFeed{ready: make(chan struct{}, 1)} }

func (f *fakeFeed) push(fr ...probes.Frame) {
	f.q = append(f.q, fr...)
	select {
	case f.ready <- struct{}{}:
	default:
	}
}
func (f *fakeFeed) Ready() <-chan struct{} { return f.ready }
func (f *fakeFeed) Drain(dst []probes.Frame) []probes.Frame {
	dst = append(dst, f.q...)
	f.q = f.q[:0]
	return dst
}
func (f *fakeFeed) Closed() bool { return f.closed }
