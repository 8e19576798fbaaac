package report

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/normtop/normtop/probes"
)

// tailRun is a batchnorm run for (ii): every layer quiet (rdist_var,
// rdist_mu, g_mu, g_var near their level) except heavyLayer, whose
// rdist_var spikes ×30 every 10th step and g_mu, g_var ×20 every 20th.
func tailRun(model string, layers []string, seeds []int64, spec string, level float64, heavyLayer int) fixture {
	m := meta(model, "bpc", layers, seeds, spec)
	m.Config["data"] = model
	return fixture{meta: m, steps: 200, fill: func(f *probes.Frame, rng *rand.Rand) {
		f.TrainLoss = 1
		noise := func() float64 { return 1 + 0.05*rng.NormFloat64() }
		for l := range f.Layers {
			lv := &f.Layers[l]
			lv[probes.RdistVar] = level * noise()
			lv[probes.RdistMu] = level / 2 * noise()
			lv[probes.GMu], lv[probes.GVar] = 1e-3*noise(), 1e-3*noise()
			if l == heavyLayer && f.Step%10 == 0 {
				lv[probes.RdistVar] *= 30
			}
			if l == heavyLayer && f.Step%20 == 0 {
				lv[probes.GMu] *= 20
				lv[probes.GVar] *= 20
			}
		}
	}}
}

func findingByID(t *testing.T, r *Report, id string) Finding {
	t.Helper()
	for _, f := range r.Findings {
		if f.ID == id {
			return f
		}
	}
	t.Fatalf("no finding %s", id)
	return Finding{}
}

func subStatus(f Finding, id string) string {
	for _, s := range f.SubClaims {
		if s.ID == id {
			return s.Status
		}
	}
	return "absent"
}

// TestFirstLayerJudged: (ii) is judged on the first norm layer only. A
// Transformer whose heavy tails sit in its second layer does not support
// the claim (a median over the layers would have let them in), one whose
// first layer is heavy does; the other layer is printed beside it.
func TestFirstLayerJudged(t *testing.T) {
	dir := t.TempDir()
	seeds := []int64{1, 2, 3}
	layers := []string{"block0.ln1", "block0.ln2"}
	cnn := tailRun("resnet", []string{"stem.bn", "stage1.bn"}, seeds, "batchnorm", 0.01, -1).write(t, dir, "r.ntr")
	for _, tc := range []struct {
		heavy   int
		verdict string
		a, b    string
	}{
		{heavy: 1, verdict: NotSupported, a: Holds, b: DoesNotHold},
		{heavy: 0, verdict: Supported, a: Holds, b: Holds},
	} {
		tf := tailRun("transformer", layers, seeds, "batchnorm:groups=1", 0.1, tc.heavy).write(t, dir, "t"+string(rune('0'+tc.heavy))+".ntr")
		r, err := Build([]string{tf, cnn})
		if err != nil {
			t.Fatal(err)
		}
		f := findingByID(t, r, "ii")
		if f.Verdict != tc.verdict || subStatus(f, "ii-a") != tc.a || subStatus(f, "ii-b") != tc.b {
			t.Errorf("heavy layer %d: %s, (ii-a) %s, (ii-b) %s; want %s, %s, %s\n%s", tc.heavy, f.Verdict,
				subStatus(f, "ii-a"), subStatus(f, "ii-b"), tc.verdict, tc.a, tc.b, strings.Join(f.Numbers, "\n"))
		}
		if !strings.Contains(f.Reason, "block0.ln1") || !strings.Contains(f.Reason, "stem.bn") || !strings.Contains(f.Reason, "steps skipped") {
			t.Errorf("the verdict line does not name the layers judged and the steps skipped: %q", f.Reason)
		}
		beside := false
		for _, n := range f.Numbers {
			beside = beside || strings.HasPrefix(n, "beside (not judged): transformer batchnorm:groups=1 block0.ln2")
		}
		if !beside {
			t.Errorf("block0.ln2 is not printed beside the judged layer:\n%s", strings.Join(f.Numbers, "\n"))
		}
		// g outliers every 20th step of 200 persist (10 in each quarter); the
		// quiet CNN has none.
		if subStatus(f, "ii-c") != map[int]string{0: Holds, 1: DoesNotHold}[tc.heavy] {
			t.Errorf("heavy layer %d: (ii-c) %s", tc.heavy, subStatus(f, "ii-c"))
		}
	}
}

// TestFindingsNeedThreeSeeds: docs/findings.md judges a comparison only with ≥ 3
// seeds a side.
func TestFindingsNeedThreeSeeds(t *testing.T) {
	dir := t.TempDir()
	tf := tailRun("transformer", []string{"a"}, []int64{1, 2}, "batchnorm", 0.1, 0).write(t, dir, "t.ntr")
	cnn := tailRun("cnn", []string{"c"}, []int64{1, 2, 3}, "batchnorm", 0.01, -1).write(t, dir, "c.ntr")
	r, err := Build([]string{tf, cnn})
	if err != nil {
		t.Fatal(err)
	}
	f := findingByID(t, r, "ii")
	if f.Verdict != NotMeasurable || !strings.Contains(f.Reason, "train with --seeds 1,2,3") {
		t.Errorf("two seeds: %s (%s)", f.Verdict, f.Reason)
	}
}

// TestPickSides: the Transformer side prefers docs/findings.md's
// batchnorm:groups=1, the CNN side a resnet over the cnn and the plain
// batchnorm; (iii) pairs specs with the same groups option.
func TestPickSides(t *testing.T) {
	g := func(model, spec string) *Group {
		name, _, _ := strings.Cut(spec, ":")
		return &Group{Model: model, Spec: spec, Name: name}
	}
	groups := []*Group{g("transformer", "batchnorm"), g("transformer", "batchnorm:groups=1"), g("transformer", "batchnorm:momentum=0.1"),
		g("cnn", "batchnorm"), g("resnet", "batchnorm:groups=2"), g("resnet", "batchnorm"),
		g("transformer", "pn-v:alpha=0.95"), g("transformer", "pn-v:groups=1,alpha=0.95")}
	if got := pickVariant(groups, []string{"transformer"}, "batchnorm", layerScaled); got.Spec != "batchnorm:groups=1" {
		t.Errorf("transformer side: %s", got.Spec)
	}
	if got := pickVariant(groups, []string{"resnet", "cnn"}, "batchnorm", plainFirst); got.Model != "resnet" || got.Spec != "batchnorm" {
		t.Errorf("cnn side: %s %s", got.Model, got.Spec)
	}
	if bn, pn := psi2Pair(groups, "transformer"); bn.Spec != "batchnorm:groups=1" || pn.Spec != "pn-v:groups=1,alpha=0.95" {
		t.Errorf("(iii) pair: %s vs %s", bn.Spec, pn.Spec)
	}
	for spec, want := range map[string]string{"batchnorm": "", "pn-v:groups=1,alpha=0.95": "1", "pn-v:alpha=0.95, groups = 4": "4", "x:groups": ""} {
		if got := specOption(spec, "groups"); got != want {
			t.Errorf("specOption(%q) = %q, want %q", spec, got, want)
		}
	}
}

// TestSpectrumVerdict: (iv) is supported when PN is higher beyond seed
// noise at the mean over k and at ≥ 2 of the 3 k.
func TestSpectrumVerdict(t *testing.T) {
	up := comparison{a: ag(0.5, 0.51, 0.52), b: ag(0.4, 0.41, 0.42), Higher: true}
	down := comparison{a: ag(0.4, 0.41, 0.42), b: ag(0.5, 0.51, 0.52), Higher: true}
	flat := comparison{a: ag(0.4, 0.5, 0.6), b: ag(0.45, 0.5, 0.55), Higher: true}
	few := comparison{a: ag(0.5, 0.51), b: ag(0.4, 0.41, 0.42), Higher: true}
	for _, tc := range []struct {
		name string
		mean comparison
		ks   []comparison
		want string
	}{
		{"mean and 2 of 3 k higher", up, []comparison{up, up, flat}, Supported},
		{"mean higher, 1 of 3 k", up, []comparison{up, flat, flat}, WithinNoise},
		{"mean within noise, 3 k higher", flat, []comparison{up, up, up}, WithinNoise},
		{"mean lower", down, []comparison{up, up, up}, NotSupported},
		{"2 k lower", up, []comparison{down, down, up}, NotSupported},
		{"two seeds", up, []comparison{up, few, up}, NotMeasurable},
	} {
		if got, why := spectrumVerdict(tc.mean, tc.ks); got != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.name, got, why, tc.want)
		}
	}
}

// TestStillMoving: an effective rank that moved by more than 1% over the
// last quarter in some seed is "still moving"; with fewer than two spectra
// there nothing can be said.
func TestStillMoving(t *testing.T) {
	ranks := []rankPoint{{100, 50}, {700, 50}, {800, 50.4}, {900, 50.6}, {1000, 50.8}}
	if got := rankMove(ranks, 1000); math.Abs(got-0.4/50.4) > 1e-12 {
		t.Errorf("rankMove = %v, want (50.8 − 50.4)/50.4 (spectra at steps 751-1000)", got)
	}
	if got := rankMove(ranks[:3], 1000); !math.IsNaN(got) {
		t.Errorf("one spectrum in the last quarter: %v, want NaN", got)
	}
	settled := &Group{Spec: "layernorm", RankMove: 0.004}
	moving := &Group{Spec: "powernorm", RankMove: 0.016}
	unknown := &Group{Spec: "pn-v", RankMove: math.NaN()}
	if l := movingLine(settled, moving); !strings.HasPrefix(l, "still moving") || !strings.Contains(l, "powernorm 1.60%") {
		t.Errorf("movingLine = %q", l)
	}
	if l := movingLine(settled); !strings.HasPrefix(l, "settled") {
		t.Errorf("movingLine = %q", l)
	}
	if l := movingLine(settled, unknown); !strings.HasPrefix(l, "settling unknown") {
		t.Errorf("movingLine = %q", l)
	}
}
