package train

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/normtop/normtop/probes"
)

// tinyTransformer is a transformer small enough for many test runs.
func tinyTransformer() Config {
	c := DefaultConfig()
	c.Layers, c.DModel, c.Heads, c.SeqLen, c.Batch = 1, 16, 2, 16, 4
	c.Steps, c.EvalEvery, c.EvalSize, c.Warmup = 12, 5, 8, 4
	c.Probes.Spectrum = 5
	return c
}

// checkRepeatable trains c again and fails unless every frame is the
// same as in frames, the first run's: one seed, one run.
func checkRepeatable(t *testing.T, c Config, frames [][]probes.Frame) {
	t.Helper()
	again, err := NewRunner(c)
	if err != nil {
		t.Fatal(err)
	}
	frames2 := collect(t, t.Context(), again, nil)
	for i := range frames {
		for k := range frames[i] {
			if frameText(frames[i][k]) != frameText(frames2[i][k]) {
				t.Fatalf("variant %d step %d differs between two runs of one seed", i, k+1)
			}
		}
	}
}

// collect runs r and returns each variant's Frames in order.
func collect(t *testing.T, ctx context.Context, r *Runner, each func(probes.Frame)) [][]probes.Frame {
	t.Helper()
	var mu sync.Mutex
	var inEmit atomic.Int32
	out := make([][]probes.Frame, len(r.Meta().Variants))
	err := r.Run(ctx, func(f probes.Frame) {
		if inEmit.Add(1) != 1 {
			t.Error("emit called concurrently")
		}
		defer inEmit.Add(-1)
		mu.Lock()
		out[f.Variant] = append(out[f.Variant], f)
		mu.Unlock()
		if each != nil {
			each(f)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// frameText renders a Frame without its wall-clock fields and without its
// spectrum: which Frame carries a spectrum depends on when the SVD
// goroutine finishes (the spectra themselves are compared by step). NaNs
// compare equal as text, which reflect.DeepEqual would not do.
func frameText(f probes.Frame) string {
	f.Elapsed, f.StepsPerSec, f.Spectrum = 0, 0, nil
	return fmt.Sprintf("%+v", f)
}

// spectraByStep maps each spectrum's step to its text.
func spectraByStep(fs []probes.Frame) map[int]string {
	m := map[int]string{}
	for _, f := range fs {
		if f.Spectrum != nil {
			m[f.Spectrum.Step] = fmt.Sprintf("%+v", *f.Spectrum)
		}
	}
	return m
}

func TestSameSeedSameFrames(t *testing.T) {
	c := tinyTransformer()
	c.Variants = []string{"layernorm", "batchnorm", "powernorm", "adanorm"}
	c.Dropout = 0.1
	run := func() [][]probes.Frame {
		r, err := NewRunner(c)
		if err != nil {
			t.Fatal(err)
		}
		return collect(t, context.Background(), r, nil)
	}
	a, b := run(), run()
	spectra := 0
	for v := range a {
		if len(a[v]) != c.Steps || len(b[v]) != c.Steps {
			t.Fatalf("variant %d: %d and %d frames, want %d", v, len(a[v]), len(b[v]), c.Steps)
		}
		for i := range a[v] {
			if x, y := frameText(a[v][i]), frameText(b[v][i]); x != y {
				t.Fatalf("variant %d step %d differs:\n%s\n%s", v, i+1, x, y)
			}
		}
		sb := spectraByStep(b[v])
		for step, x := range spectraByStep(a[v]) {
			if y, ok := sb[step]; ok {
				spectra++
				if x != y {
					t.Errorf("variant %d: spectrum of step %d differs:\n%s\n%s", v, step, x, y)
				}
			}
		}
		if a[v][0].Layers == nil {
			t.Errorf("variant %d: no probe values at step 1", v)
		}
	}
	if spectra == 0 {
		t.Error("no spectrum of the same step in both runs; spectra were not compared")
	}
	// Different seeds must give different runs, or the test above proves nothing.
	c.Seed = 2
	if x, y := frameText(run()[0][3]), frameText(a[0][3]); x == y {
		t.Error("seed 2 gave the same frames as seed 1")
	}
}

func TestSameInitialWeightsAcrossVariants(t *testing.T) {
	c := tinyTransformer()
	c.Variants = []string{"none", "layernorm", "powernorm"}
	r, err := NewRunner(c)
	if err != nil {
		t.Fatal(err)
	}
	for k := range r.variants[0].weights {
		a := fmt.Sprint(r.variants[0].weights[k].Data())
		for _, v := range r.variants[1:] {
			if fmt.Sprint(v.weights[k].Data()) != a {
				t.Fatalf("weight %s differs between variants", r.model.Weights()[k].Name)
			}
		}
	}
}

func TestDivergenceGuardStopsOneVariant(t *testing.T) {
	c := tinyTransformer()
	c.Variants = []string{"layernorm", "rmsnorm", "batchnorm"}
	c.Clip = 0
	c.VariantLR = map[int]float64{1: 1e30} // absurd: rmsnorm's weights overflow float32
	r, err := NewRunner(c)
	if err != nil {
		t.Fatal(err)
	}
	frames := collect(t, context.Background(), r, nil)
	last := frames[1][len(frames[1])-1]
	if last.Status != probes.Diverged {
		t.Fatalf("variant with lr 1e30 ended %v at step %d, want diverged", last.Status, last.Step)
	}
	msg := ""
	for _, a := range last.Alerts {
		if a.Kind == probes.AlertDivergence {
			msg = a.Msg
		}
	}
	if want := fmt.Sprintf("diverged at step %d", last.Step); !strings.Contains(msg, want) {
		t.Errorf("divergence alert %q, want it to say %q", msg, want)
	}
	for _, f := range frames[1][:len(frames[1])-1] {
		if math.IsNaN(f.TrainLoss) || f.Status != probes.Running {
			t.Fatalf("step %d before the divergence: loss %v status %v", f.Step, f.TrainLoss, f.Status)
		}
	}
	for _, v := range []int{0, 2} {
		fs := frames[v]
		if end := fs[len(fs)-1]; end.Status != probes.Done || end.Step != c.Steps {
			t.Errorf("variant %d ended %v at step %d, want done at %d", v, end.Status, end.Step, c.Steps)
		}
	}
}

func TestCancelStopsEveryVariant(t *testing.T) {
	c := tinyTransformer()
	c.Steps = 1000
	c.Variants = []string{"layernorm", "batchnorm"}
	r, err := NewRunner(c)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	frames := collect(t, ctx, r, func(f probes.Frame) {
		if f.Step == 3 {
			cancel()
		}
	})
	for v, fs := range frames {
		end := fs[len(fs)-1]
		if end.Status != probes.Stopped || end.Step >= c.Steps {
			t.Errorf("variant %d ended %v at step %d, want stopped early", v, end.Status, end.Step)
		}
		for i, f := range fs {
			if f.Step != i+1 && !(i == len(fs)-1 && f.Step == i) {
				t.Errorf("variant %d: frame %d has step %d", v, i, f.Step)
			}
		}
	}
}

func TestMeta(t *testing.T) {
	c := tinyTransformer()
	c.Variants = []string{"layernorm", "powernorm:alpha_fwd=0.95"}
	r, err := NewRunner(c)
	if err != nil {
		t.Fatal(err)
	}
	m := r.Meta()
	if m.Model != "transformer" || m.Metric != "bpc" || len(m.Variants) != 2 || m.Variants[1].Name != "powernorm" {
		t.Errorf("meta %+v", m)
	}
	if want := []string{"block0.ln1", "block0.ln2", "final"}; fmt.Sprint(m.Layers) != fmt.Sprint(want) {
		t.Errorf("layers %v, want %v", m.Layers, want)
	}
	for _, k := range []string{"seed", "steps", "batch", "lr", "warmup", "eval_every", "probe_stats", "probe_spectrum", "loss", "d_model", "layers", "heads", "seq_len", "optimizer"} {
		if m.Config[k] == "" {
			t.Errorf("meta config has no %q", k)
		}
	}
	if !strings.Contains(m.Config["loss"], "mean over real tokens") {
		t.Errorf("loss convention %q", m.Config["loss"])
	}
}

func TestPostLNAndFloat64(t *testing.T) {
	base := tinyTransformer()
	base.Variants = []string{"layernorm", "powernorm"}
	base.Steps, base.EvalEvery = 6, 6
	firstLoss := map[string][]float64{}
	for _, tc := range []struct {
		name  string
		edit  func(*Config)
		sites []string
	}{
		{"pre-ln float32", func(c *Config) {}, []string{"block0.ln1", "block0.ln2", "final"}},
		{"pre-ln float64", func(c *Config) { c.Dtype = "float64" }, []string{"block0.ln1", "block0.ln2", "final"}},
		{"post-ln", func(c *Config) { c.Placement = PlacePost }, []string{"block0.ln1", "block0.ln2"}},
	} {
		c := base
		tc.edit(&c)
		r, err := NewRunner(c)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(r.Meta().Layers); got != fmt.Sprint(tc.sites) {
			t.Errorf("%s: sites %s, want %v", tc.name, got, tc.sites)
		}
		for v, fs := range collect(t, context.Background(), r, nil) {
			end := fs[len(fs)-1]
			if end.Status != probes.Done || math.IsNaN(end.TrainLoss) {
				t.Errorf("%s %s: ended %v loss %v", tc.name, c.Variants[v], end.Status, end.TrainLoss)
			}
			firstLoss[tc.name] = append(firstLoss[tc.name], fs[0].TrainLoss)
		}
	}
	// The same weights in float32 and float64 give the same first loss.
	for v := range base.Variants {
		a, b := firstLoss["pre-ln float32"][v], firstLoss["pre-ln float64"][v]
		if math.Abs(a-b) > 1e-5*math.Abs(b) {
			t.Errorf("variant %d: first loss %v in float32, %v in float64", v, a, b)
		}
	}
}
