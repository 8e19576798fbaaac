package report

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/normtop/normtop/probes"
)

// TestFirstBelowHandWorked: the trailing mean over a tenth of the run and
// the first step it reaches the target, worked by hand.
func TestFirstBelowHandWorked(t *testing.T) {
	twenty := []float32{10, 6, 4, 3, 3, 2.5, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}
	for _, tc := range []struct {
		name   string
		losses []float32
		target float64
		step   int
		ok     bool
	}{
		// n = 10, w = 1: the loss itself; 2 at step 4.
		{"window 1", []float32{5, 4, 3, 2, 1, 1, 1, 1, 1, 1}, 2, 4, true},
		// n = 20, w = 2: trailing means 10, 8, 5, 3.5, 3, 2.75, 2.25: step 7,
		// although the loss alone is below 2.6 at step 6 already.
		{"window 2", twenty, 2.6, 7, true},
		{"exactly the target", twenty, 2.25, 7, true},
		{"never", twenty, 1.5, 20, false},
		// the first step counts alone (the mean of what there is)
		{"first step", []float32{1, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9}, 1, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			step, ok := firstBelow(tc.losses, tc.target)
			if step != tc.step || ok != tc.ok {
				t.Fatalf("firstBelow = %d, %v; want %d, %v", step, ok, tc.step, tc.ok)
			}
		})
	}
}

// lstmFixture is an lstm run of none and layernorm over the given seeds:
// layernorm's loss falls twice as fast (rate lnRate against none's 1/30)
// and its h_norm_cv is hcvLN against none's 0.4.
func lstmFixture(seeds []int64, lnRate, hcvLN float64) fixture {
	m := meta("lstm", "bpc", []string{"lstm0.x", "lstm0.h", "lstm0.c"}, seeds, "none", "layernorm")
	return fixture{meta: m, steps: 100, fill: func(f *probes.Frame, rng *rand.Rand) {
		vm := m.Variants[f.Variant]
		noise := func() float64 { return 1 + 0.02*rng.NormFloat64() }
		rate, hcv, hn := 1.0/30, 0.4, 0.3
		if vm.Name == "layernorm" {
			rate, hcv, hn = lnRate, hcvLN, 0.5
		}
		f.TrainLoss = 2 + 3*math.Exp(-float64(f.Step)*rate)*noise()
		for l := range f.Layers {
			f.Layers[l][probes.InStd] = noise()
		}
		f.Layers[1][probes.HNormCV] = hcv * noise()
		f.Layers[1][probes.HNorm] = hn * noise()
		if f.Step%50 == 0 {
			f.Eval = []probes.Eval{{Split: "val", Loss: 2.2, Metric: 2.2 / math.Ln2, TrainLoss: 2.1}}
		}
	}}
}

// lstmFinding builds the report of fx and returns finding (vii).
func lstmFinding(t *testing.T, fx fixture) Finding {
	t.Helper()
	r, err := Build([]string{fx.write(t, t.TempDir(), "lstm.ntr")})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Findings {
		if f.ID == "vii" {
			return f
		}
	}
	t.Fatal("no finding (vii) in the report")
	return Finding{}
}

// TestFindingLSTMRule: each verdict of (vii) from runs built to give it.
func TestFindingLSTMRule(t *testing.T) {
	three := []int64{1, 2, 3}
	for _, tc := range []struct {
		name    string
		fx      fixture
		verdict string
		want    []string
	}{
		{"both hold", lstmFixture(three, 1.0/15, 0.15), Supported,
			[]string{"(vii-a) h_norm_cv at lstm0.h", "→ supported", "(vii-b) steps to the plain LSTM's final train loss"}},
		{"spread larger with layernorm", lstmFixture(three, 1.0/15, 0.8), NotSupported, []string{"(vii-a) not supported, (vii-b) supported"}},
		{"same speed and spread", lstmFixture(three, 1.0/30, 0.4), WithinNoise, []string{"(vii-a) within seed noise"}},
		{"two seeds", lstmFixture([]int64{1, 2}, 1.0/15, 0.15), NotMeasurable, []string{"the rule needs ≥ 3 a side"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := lstmFinding(t, tc.fx)
			if f.Verdict != tc.verdict {
				t.Fatalf("verdict %q (%s), want %q\n%s", f.Verdict, f.Reason, tc.verdict, strings.Join(f.Numbers, "\n"))
			}
			text := f.Reason + "\n" + strings.Join(f.Numbers, "\n")
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("%q missing from:\n%s", w, text)
				}
			}
		})
	}
}

// TestFindingLSTMNeedsTheLSTM: without an lstm run the finding says what
// to train.
func TestFindingLSTMNeedsTheLSTM(t *testing.T) {
	f := findingLSTM(nil)
	if f.Verdict != NotMeasurable || !strings.Contains(f.Reason, "normtop train --model lstm --seeds 1,2,3") {
		t.Fatalf("%q: %s", f.Verdict, f.Reason)
	}
}

// TestGoldenLSTMReport: the text report of an lstm run, finding (vii)
// supported (go test ./report -run GoldenLSTM -update rewrites it).
func TestGoldenLSTMReport(t *testing.T) {
	dir := t.TempDir()
	r, err := Build([]string{lstmFixture([]int64{1, 2, 3}, 1.0/15, 0.15).write(t, dir, "lstm.ntr")})
	if err != nil {
		t.Fatal(err)
	}
	checkTextGolden(t, r, dir, "lstm.txt")
}
