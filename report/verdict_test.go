package report

import (
	"math"
	"testing"

	"github.com/normtop/normtop/probes"
)

func ag(xs ...float64) probes.MeanSD { return probes.NewMeanSD(xs) }

func TestComparisonOutcome(t *testing.T) {
	for _, tc := range []struct {
		name   string
		a, b   probes.MeanSD
		higher bool
		want   outcome
	}{
		// means 3 vs 1, sd 1 each, n 3: SE = √(2/3) ≈ 0.816, 2SE ≈ 1.63 < 2
		{"beyond noise, as claimed", ag(2, 3, 4), ag(0, 1, 2), true, asClaimed},
		{"beyond noise, against", ag(2, 3, 4), ag(0, 1, 2), false, against},
		// means 2 vs 1, 2SE ≈ 1.63 > 1
		{"within noise", ag(1, 2, 3), ag(0, 1, 2), true, withinNoise},
		{"identical", ag(1, 1, 1), ag(1, 1, 1), true, withinNoise},
		{"no spread, different", ag(2, 2, 2), ag(1, 1, 1), true, asClaimed},
		{"one seed", ag(5), ag(1, 2, 3), true, fewSeeds},
		{"two seeds (docs/findings.md: ≥ 3 per side)", ag(5, 6), ag(1, 2, 3), true, fewSeeds},
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

// TestJudge: a sub-claim holds when every comparison is beyond seed noise
// in the claimed direction and reaches its ratio target.
func TestJudge(t *testing.T) {
	heavy := comparison{What: "h", a: ag(9, 10, 11), b: ag(1, 1.1, 0.9), Higher: true}   // ratio 10, beyond noise
	light := comparison{What: "l", a: ag(2, 2.1, 1.9), b: ag(1, 1.1, 0.9), Higher: true} // ratio 2, beyond noise
	noisy := comparison{What: "n", a: ag(1, 30, 59), b: ag(1, 1.1, 0.9), Higher: true}   // ratio 30, 2SE ≈ 33
	two := comparison{What: "t", a: ag(10, 11), b: ag(1, 1.1, 0.9), Higher: true}
	wrong := comparison{What: "w", a: ag(1, 1.1, 0.9), b: ag(9, 10, 11), Higher: true}
	onlyA := comparison{What: "o", a: ag(3, 2, 4), b: ag(0, 0, 0), Higher: true} // outliers on one side only: ratio +Inf
	for _, tc := range []struct {
		name   string
		cs     []comparison
		target float64
		want   string
	}{
		{"both reach 3×", []comparison{heavy, heavy}, 3, Holds},
		{"one short of 3×", []comparison{heavy, light}, 3, DoesNotHold},
		{"no target: beyond noise is enough", []comparison{heavy, light}, 0, Holds},
		{"reaches 3× within noise", []comparison{heavy, noisy}, 3, WithinNoise},
		{"against the claim", []comparison{heavy, wrong}, 0, DoesNotHold},
		{"two seeds", []comparison{two}, 3, NotMeasurable},
		{"missing side", []comparison{{a: ag(), b: ag(1, 2, 3)}}, 0, NotMeasurable},
		{"nothing", nil, 0, NotMeasurable},
		{"zero on one side", []comparison{onlyA}, 2, Holds},
	} {
		if got, why := judge(tc.cs, tc.target); got != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.name, got, why, tc.want)
		}
	}
}
