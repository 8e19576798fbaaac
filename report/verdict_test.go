package report

import (
	"math"
	"strings"
	"testing"

	"github.com/normtop/normtop/probes"
)

func ag(xs ...float64) agg { return aggregate(xs) }

func TestComparisonOutcome(t *testing.T) {
	for _, tc := range []struct {
		name   string
		a, b   agg
		higher bool
		want   outcome
	}{
		// means 3 vs 1, sd 1 each, n 3: SE = √(2/3) ≈ 0.816, 2SE ≈ 1.63 < 2
		{"beyond noise, as claimed", ag(2, 3, 4), ag(0, 1, 2), true, asClaimed},
		{"beyond noise, against", ag(2, 3, 4), ag(0, 1, 2), false, against},
		// means 2 vs 1, 2SE ≈ 1.63 > 1
		{"within noise", ag(1, 2, 3), ag(0, 1, 2), true, withinNoise},
		{"identical", ag(1, 1), ag(1, 1), true, withinNoise},
		{"no spread, different", ag(2, 2), ag(1, 1), true, asClaimed},
		{"one seed", ag(5), ag(1, 2, 3), true, oneSeed},
		{"missing", ag(math.NaN()), ag(1, 2), true, missing},
	} {
		c := comparison{a: tc.a, b: tc.b, Higher: tc.higher}
		if got := c.outcome(); got != tc.want {
			t.Errorf("%s: outcome %d, want %d (diff %v, SE %v)", tc.name, got, tc.want, c.Diff(), c.SE())
		}
	}
}

func TestCombine(t *testing.T) {
	yes := comparison{a: ag(2, 3, 4), b: ag(0, 1, 2), Higher: true}
	no := comparison{a: ag(2, 3, 4), b: ag(0, 1, 2), Higher: false}
	noise := comparison{a: ag(1, 2, 3), b: ag(0, 1, 2), Higher: true}
	single := comparison{a: ag(9), b: ag(0, 1, 2), Higher: true}
	gone := comparison{What: "gap", A: "x", B: "y", a: ag(), b: ag(0, 1, 2), Higher: true}
	for _, tc := range []struct {
		name string
		cs   []comparison
		want string
	}{
		{"one beyond noise as claimed", []comparison{yes}, Supported},
		{"as claimed and within noise", []comparison{yes, noise}, Supported},
		{"against", []comparison{no}, NotSupported},
		{"mixed", []comparison{yes, no}, NotSupported},
		{"all within noise", []comparison{noise, noise}, WithinNoise},
		{"one seed", []comparison{yes, single}, NotMeasurable},
		{"a side missing", []comparison{gone}, NotMeasurable},
		{"nothing to compare", nil, NotMeasurable},
	} {
		if got, why := combine(tc.cs); got != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.name, got, why, tc.want)
		}
	}
}

func TestRatioVerdict(t *testing.T) {
	heavy := comparison{a: ag(9, 10, 11), b: ag(1, 1.1, 0.9), Higher: true}   // ratio 10, beyond noise
	light := comparison{a: ag(2, 2.1, 1.9), b: ag(1, 1.1, 0.9), Higher: true} // ratio 2
	noisy := comparison{a: ag(1, 30, 59), b: ag(1, 1.1, 0.9), Higher: true}   // ratio 30, 2SE ≈ 33
	single := comparison{a: ag(10), b: ag(1), Higher: true}
	startup := heavy
	startup.startup = true // the heavy tail is the init still decaying
	for _, tc := range []struct {
		name string
		cs   []comparison
		want string
	}{
		{"both reach 3×", []comparison{heavy, heavy}, Supported},
		{"one short of 3×", []comparison{heavy, light}, NotSupported},
		{"reaches 3× within noise", []comparison{heavy, noisy}, WithinNoise},
		{"one seed reaching 3×", []comparison{single}, Supported},
		{"missing side", []comparison{{a: ag(), b: ag(1)}}, NotMeasurable},
		{"nothing", nil, NotMeasurable},
		{"reaches 3× only through the start-up", []comparison{startup, heavy}, NotMeasurable},
		{"start-up but short of 3× anyway", []comparison{startup, light}, NotSupported},
	} {
		if got, why := ratioVerdict(tc.cs, 3); got != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.name, got, why, tc.want)
		}
	}
}

// TestStartupLayers: a distance to a layer's own running statistic whose
// trend is below startupTrend is flagged; shadows (probes without a warm-up
// window) never are.
func TestStartupLayers(t *testing.T) {
	g := &Group{Layers: []string{"a", "b", "c"}, Warmup: probes.Warmup{Steps: 60, Rate: 0.05, Probes: []probes.Probe{probes.DistVar}}}
	g.Probes = make([][probes.NumProbes]ProbeAgg, 3)
	for l, tr := range []float64{0.02, 0.9, 0.1} {
		g.Probes[l][probes.DistVar] = ProbeAgg{N: 100, Trend: agg{Mean: tr, N: 3}}
		g.Probes[l][probes.DistPsi2] = ProbeAgg{N: 100, Trend: agg{Mean: 0.01, N: 3}}
	}
	names, trends := startupLayers(g, probes.DistVar)
	if len(names) != 2 || names[0] != "a" || names[1] != "c" || trends[0] != 0.02 {
		t.Errorf("startupLayers(dist_var) = %v %v, want a, c", names, trends)
	}
	if names, _ := startupLayers(g, probes.DistPsi2); names != nil {
		t.Errorf("a probe without a warm-up window flagged: %v", names)
	}
	c := tailCompare(g, g, probes.DistVar, probes.DistPsi2, false)
	if !c.startup {
		t.Error("2 of 3 layers in start-up: the comparison is not marked")
	}
	if lines := startupLines(measured{c.A, g, probes.DistVar}, measured{c.B, g, probes.DistPsi2}); len(lines) != 1 || !strings.Contains(lines[0], "2 of 3 layers") {
		t.Errorf("startupLines = %q", lines)
	}
}
