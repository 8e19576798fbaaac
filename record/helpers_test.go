package record

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/normtop/normtop/probes"
)

func testMeta(variants, layers int) probes.RunMeta {
	m := probes.RunMeta{
		RunID: "test-run", Model: "transformer", Data: "opticks", Metric: "bpc",
		Start:  time.Date(2026, 11, 22, 3, 0, 0, 123456789, time.UTC),
		Config: map[string]string{"steps": "1000", "lr": "0.001", "seed": "1"},
	}
	names := []string{"layernorm", "powernorm", "batchnorm", "rmsnorm", "adanorm", "none"}
	for v := 0; v < variants; v++ {
		n := names[v%len(names)]
		m.Variants = append(m.Variants, probes.VariantMeta{Name: n, Spec: n + ":eps=1e-05"})
	}
	for l := 0; l < layers; l++ {
		m.Layers = append(m.Layers, "block"+string(rune('0'+l%10))+".ln")
	}
	return m
}

// randomFloat draws values that stress the coder: ordinary numbers,
// repeats, zeros, infinities, odd NaN payloads and subnormals.
func randomFloat(rng *rand.Rand) float64 {
	switch rng.IntN(12) {
	case 0:
		return 0
	case 1:
		return math.Inf(1 - 2*rng.IntN(2))
	case 2:
		return math.Float64frombits(0x7FF0000000000000 | (rng.Uint64() & 0xFFFFFFFFFFFFF) | 1) // NaN, not canonical
	case 3:
		return math.Float64frombits(rng.Uint64() & 0xFFFFFFFFFFFFF) // subnormal
	case 4:
		return math.Float64frombits(rng.Uint64())
	default:
		return rng.NormFloat64() * math.Exp(rng.NormFloat64()*3)
	}
}

// randomFrame builds a Frame with every optional part sometimes present,
// NaN ("unmeasured") probe values included.
func randomFrame(rng *rand.Rand, meta probes.RunMeta, step int) probes.Frame {
	f := probes.Frame{
		Variant: rng.IntN(len(meta.Variants)), Step: step, Epoch: float64(step) / 100,
		TrainLoss: randomFloat(rng), Status: probes.Status(rng.IntN(4)),
		Elapsed: time.Duration(rng.Int64N(1 << 40)), StepsPerSec: rng.Float64() * 100,
	}
	if rng.IntN(5) > 0 {
		f.Layers = make([]probes.LayerValues, rng.IntN(len(meta.Layers)+1))
		for l := range f.Layers {
			f.Layers[l] = probes.EmptyLayerValues()
			for p := range f.Layers[l] {
				if rng.IntN(3) > 0 {
					f.Layers[l][p] = randomFloat(rng)
				}
			}
		}
	}
	if rng.IntN(4) == 0 {
		f.Eval = []probes.Eval{}
		for i := rng.IntN(3); i > 0; i-- {
			f.Eval = append(f.Eval, probes.Eval{Split: []string{"val", "test"}[rng.IntN(2)], Loss: randomFloat(rng), Metric: randomFloat(rng), TrainLoss: randomFloat(rng)})
		}
	}
	if rng.IntN(6) == 0 {
		s := &probes.Spectrum{Step: step - rng.IntN(5), EffRank: randomFloat(rng)}
		if rng.IntN(5) > 0 {
			s.Sigma = make([]float64, rng.IntN(40))
			for i := range s.Sigma {
				s.Sigma[i] = randomFloat(rng)
			}
		}
		f.Spectrum = s
	}
	if rng.IntN(6) == 0 {
		f.Alerts = []probes.Alert{}
		for i := rng.IntN(3); i > 0; i-- {
			f.Alerts = append(f.Alerts, probes.Alert{
				Kind: probes.AlertKind(rng.IntN(int(probes.NumAlertKinds))), Step: step, Layer: rng.IntN(len(meta.Layers)+1) - 1,
				Probe: probes.Probe(rng.IntN(int(probes.NumProbes) + 1)), Value: randomFloat(rng), Threshold: randomFloat(rng),
				Msg: "alert ✓ at step " + time.Duration(step).String(),
			})
		}
	}
	// Two steps in three carry a batch shape, derived from the step so
	// that the rng's draws, and every test built on them, stay as they were.
	if step%3 != 0 {
		rows, width := 1+step%400, 2+step%31
		f.Batch = probes.BatchShape{Rows: rows, Width: width, Tokens: rows*width - step%rows}
	}
	return f
}

// sameFrame compares bit-exactly (reflect.DeepEqual treats NaN ≠ NaN).
func sameFrame(a, b probes.Frame) bool { return sameBits(frameBits(a), frameBits(b)) }

// sameBits is sameFrame on frameBits' results, for a test that compares
// many reads with the same written frames (their bits taken once).
func sameBits(x, y bitsFrame) bool {
	// The layers' bits, most of a frame, compared as arrays: reflect walks
	// every element, the bulk of TestSeek's and the bit-flip tests' CPU
	// under -race. Both slices are nil when empty (built by append), so
	// slices.Equal says what DeepEqual said; the rest still goes through
	// DeepEqual, field by field, whatever bitsFrame gains.
	if !slices.Equal(x.Layers, y.Layers) {
		return false
	}
	x.Layers, y.Layers = nil, nil
	return reflect.DeepEqual(x, y)
}

type bitsFrame struct {
	F      probes.Frame
	Layers [][probes.NumProbes]uint64
	Eval   [][3]uint64
	Sigma  []uint64
	SpecER uint64
	Alerts [][2]uint64
	Scal   [3]uint64
	NilL   bool
	Hists  [][2]uint64 // each histogram's mean and σ bits (NaN means "no finite entry")
}

func frameBits(f probes.Frame) bitsFrame {
	b := bitsFrame{Scal: [3]uint64{math.Float64bits(f.Epoch), math.Float64bits(f.TrainLoss), math.Float64bits(f.StepsPerSec)}, NilL: f.Layers == nil}
	if f.Eval != nil {
		f.Eval = append([]probes.Eval{}, f.Eval...)
	}
	if f.Alerts != nil {
		f.Alerts = append([]probes.Alert{}, f.Alerts...)
	}
	for _, lv := range f.Layers {
		var x [probes.NumProbes]uint64
		for p, v := range lv {
			x[p] = math.Float64bits(v)
		}
		b.Layers = append(b.Layers, x)
	}
	for i, e := range f.Eval {
		b.Eval = append(b.Eval, [3]uint64{math.Float64bits(e.Loss), math.Float64bits(e.Metric), math.Float64bits(e.TrainLoss)})
		f.Eval[i].Loss, f.Eval[i].Metric, f.Eval[i].TrainLoss = 0, 0, 0
	}
	if f.Spectrum != nil {
		s := *f.Spectrum
		for _, x := range s.Sigma {
			b.Sigma = append(b.Sigma, math.Float64bits(x))
		}
		b.SpecER = math.Float64bits(s.EffRank)
		s.Sigma = append([]float64(nil), s.Sigma...)
		clear(s.Sigma)
		s.EffRank = 0
		f.Spectrum = &s
	}
	for i, a := range f.Alerts {
		b.Alerts = append(b.Alerts, [2]uint64{math.Float64bits(a.Value), math.Float64bits(a.Threshold)})
		f.Alerts[i].Value, f.Alerts[i].Threshold = 0, 0
	}
	if f.Hists != nil {
		f.Hists = append([]probes.Histogram{}, f.Hists...)
		for i, h := range f.Hists {
			b.Hists = append(b.Hists, [2]uint64{math.Float64bits(h.Mean), math.Float64bits(h.Std)})
			f.Hists[i].Mean, f.Hists[i].Std = 0, 0
		}
	}
	f.Epoch, f.TrainLoss, f.StepsPerSec = 0, 0, 0
	f.Layers = nil
	b.F = f
	return b
}

func tempRun(t testing.TB) string {
	return filepath.Join(t.TempDir(), "runs", "test.ntr")
}

func errorsIsIncomplete(err error) bool { return errors.Is(err, ErrIncompleteHeader) }

// writeFileAll rewrites path in place (same inode, as a growing file).
func writeFileAll(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(b, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// runFileOf is r's source when it reads a run file (tests that look at its
// index or read position).
func runFileOf(r *Reader) *runFile { return r.src.(*runFile) }

// streamOf is r's source when it reads a stream.
func streamOf(r *Reader) *streamFile { return r.src.(*streamFile) }
