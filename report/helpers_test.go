package report

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
)

// fixture describes a synthetic run file: its header and a function that
// fills each Frame. Frames are written variant-interleaved, step by step, as
// the runner emits them; the last step of each variant is marked Done.
type fixture struct {
	meta  probes.RunMeta
	steps int
	fill  func(f *probes.Frame, rng *rand.Rand)
	// status, when set, overrides the final status of a variant.
	status map[int]probes.Status
}

func meta(model, metric string, layers []string, seeds []int64, specs ...string) probes.RunMeta {
	m := probes.RunMeta{RunID: "test-" + model, Model: model, Data: "synthetic", Metric: metric, Layers: layers,
		Start:  time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC),
		Config: map[string]string{"data": "synthetic", "d_model": "8", "seed": "1"}}
	for _, sp := range specs {
		name := sp
		for i, c := range sp {
			if c == ':' {
				name = sp[:i]
				break
			}
		}
		for _, s := range seeds {
			m.Variants = append(m.Variants, probes.VariantMeta{Name: name, Spec: sp, Seed: s})
		}
	}
	return m
}

// write writes the fixture to dir/name and returns the path.
func (fx fixture) write(t testing.TB, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	w, err := record.Create(path, fx.meta)
	if err != nil {
		t.Fatal(err)
	}
	rngs := make([]*rand.Rand, len(fx.meta.Variants))
	for v := range rngs {
		rngs[v] = rand.New(rand.NewPCG(uint64(v)+1, uint64(fx.meta.Variants[v].Seed)))
	}
	for s := 1; s <= fx.steps; s++ {
		for v := range fx.meta.Variants {
			f := probes.Frame{Variant: v, Step: s, Epoch: float64(s) / 100, StepsPerSec: 10,
				Elapsed: time.Duration(s) * 100 * time.Millisecond, TrainLoss: math.NaN()}
			f.Layers = make([]probes.LayerValues, len(fx.meta.Layers))
			for l := range f.Layers {
				f.Layers[l] = probes.EmptyLayerValues()
			}
			fx.fill(&f, rngs[v])
			if s == fx.steps {
				f.Status = probes.Done
				if st, ok := fx.status[v]; ok {
					f.Status = st
				}
			}
			if err := w.Write(f); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(record.End{}); err != nil {
		t.Fatal(err)
	}
	return path
}

// paperFixture is a small transformer run of six variants × three seeds
// whose numbers are built to give each kind of verdict: detachnorm trains
// clearly worse (i supported), pn-v's ψ² tails are not lighter (iii not
// supported), the spectra differ by less than the seed noise (iv within
// noise), layernorm's gap is larger beyond the noise (v supported).
func paperFixture() fixture {
	m := meta("transformer", "bpc", []string{"block0.ln", "final"}, []int64{1, 2, 3},
		"layernorm", "layernorm-simple", "detachnorm", "adanorm", "batchnorm", "pn-v")
	const steps = 80
	return fixture{meta: m, steps: steps, fill: func(f *probes.Frame, rng *rand.Rand) {
		vm := m.Variants[f.Variant]
		seed := float64(vm.Seed)
		noise := func() float64 { return 1 + 0.05*rng.NormFloat64() }
		base := map[string]float64{"layernorm": 2.0, "layernorm-simple": 2.1, "detachnorm": 2.6, "adanorm": 2.1, "batchnorm": 2.3, "pn-v": 2.2}[vm.Name]
		f.TrainLoss = base * (1 + 1/float64(f.Step)) * noise()
		for l := range f.Layers {
			fillPaperLayer(&f.Layers[l], l, f.Step, vm.Name, noise, rng)
		}
		paperEvents(f, vm.Name, base, seed, steps, rng)
	}}
}

// fillPaperLayer fills one layer's probes of paperFixture's frame at step:
// batchnorm heavy-tailed (in the first layer most), pn-v's ψ² heavy, a
// start-up artefact the warm-up window removes, detachnorm's dx_mean off
// zero. The rng draws are in the fixture's fixed order (goldens).
func fillPaperLayer(lv *probes.LayerValues, l, step int, name string, noise func() float64, rng *rand.Rand) {
	heavy := name == "batchnorm"
	lv[probes.DistMu] = 0.01 * noise()
	lv[probes.DistVar] = 0.02 * noise()
	lv[probes.DistPsi2] = 0.02 * noise()
	if heavy && step%10 == 0 {
		lv[probes.DistVar] *= 8
	}
	if step <= 3 {
		lv[probes.DistVar], lv[probes.DistPsi2] = 1, 1 // the start-up artefact the window removes
	}
	lv[probes.GVar] = 1e-3 * noise()
	if heavy && step%20 == 0 {
		lv[probes.GVar] *= 5
	}
	// The relative distances and g_mu, batchnorm's heavy in
	// the first layer only (docs/findings.md judges that one).
	lv[probes.RdistMu] = 0.05 * noise()
	lv[probes.RdistVar] = 0.1 * noise()
	lv[probes.RdistPsi2] = 0.1 * noise()
	lv[probes.GMu] = 1e-3 * noise()
	if heavy && l == 0 && step%10 == 0 {
		lv[probes.RdistVar] *= 30
	}
	if heavy && l == 0 && step%20 == 0 {
		lv[probes.GMu] *= 20
		lv[probes.GVar] *= 4
	}
	if name == "pn-v" && step%10 == 0 {
		lv[probes.RdistPsi2] *= 10
	}
	if step <= 3 {
		lv[probes.RdistVar], lv[probes.RdistPsi2] = 1, 1
	}
	if name == "pn-v" {
		lv[probes.GPsi2] = 1e-3 * noise()
		if step%10 == 0 {
			lv[probes.GPsi2] *= 10
		}
	}
	lv[probes.DxVar] = 1e-6 * noise()
	lv[probes.DyVar] = 1e-8 * noise()
	lv[probes.DxMean] = 1e-12 * rng.NormFloat64()
	if name == "detachnorm" {
		lv[probes.DxMean] = 1e-4 * rng.NormFloat64()
	}
	lv[probes.DyMean] = 1e-5 * rng.NormFloat64()
	lv[probes.InStd] = (0.5 + 0.01*float64(step)) * noise()
}

// paperEvents adds paperFixture's alerts, evaluations and spectra to f.
func paperEvents(f *probes.Frame, name string, base, seed float64, steps int, rng *rand.Rand) {
	if f.Step == 45 && f.Variant%3 == 0 {
		f.Alerts = append(f.Alerts, probes.Alert{Kind: probes.AlertOutlier, Step: f.Step, Layer: 0, Probe: probes.DistVar, Value: 1, Threshold: 0.1})
	}
	if f.Step%20 == 0 {
		gap := map[string]float64{"layernorm": 0.30, "layernorm-simple": 0.10, "adanorm": 0.12}[name] + 0.01*seed
		f.Eval = []probes.Eval{{Split: "val", Loss: base + gap, Metric: (base + gap) / math.Ln2, TrainLoss: base}}
		if f.Step == steps {
			f.Eval = append(f.Eval, probes.Eval{Split: "test", Loss: base + gap + 0.01, Metric: (base + gap + 0.01) / math.Ln2, TrainLoss: base})
		}
	}
	if f.Step == 65 { // a spectrum in the last quarter: "still moving" is decided
		f.Spectrum = &probes.Spectrum{Step: 65, EffRank: 5.9, Sigma: []float64{1, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3}}
	}
	if f.Step == steps {
		s := &probes.Spectrum{Step: steps, EffRank: 6 + 0.3*rng.NormFloat64()}
		for i := 0; i < 8; i++ {
			s.Sigma = append(s.Sigma, math.Exp(-float64(i)/(3+0.2*seed)))
		}
		f.Spectrum = s
	}
}

// cnnFixture is a cnn run with batchnorm over three seeds, tails light.
func cnnFixture() fixture {
	m := meta("cnn", "accuracy", []string{"conv1.norm", "fc1.norm"}, []int64{1, 2, 3}, "batchnorm")
	m.Data, m.Config["data"] = "mnist", "mnist"
	delete(m.Config, "d_model")
	return fixture{meta: m, steps: 80, fill: func(f *probes.Frame, rng *rand.Rand) {
		noise := func() float64 { return 1 + 0.05*rng.NormFloat64() }
		f.TrainLoss = 0.3 * noise()
		for l := range f.Layers {
			f.Layers[l][probes.DistVar] = 0.01 * noise()
			f.Layers[l][probes.GVar] = 1e-4 * noise()
			f.Layers[l][probes.GMu] = 1e-4 * noise()
			f.Layers[l][probes.RdistVar] = 0.01 * noise()
			f.Layers[l][probes.RdistMu] = 0.005 * noise()
		}
		if f.Step%40 == 0 {
			f.Eval = []probes.Eval{{Split: "val", Loss: 0.35, Metric: 0.9 + 0.001*float64(m.Variants[f.Variant].Seed), TrainLoss: 0.3}}
		}
	}}
}
