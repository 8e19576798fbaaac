package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/normtop/normtop/probes"
)

// placementFixture is a layernorm run of one placement, depth and warm-up
// over seeds 1-3. At step 1 every norm's gw_norm is 1 for pre-LN and
// c = scale·(1 + 0.1·(seed−2)) for post-LN, doubled at the ln1 of odd
// blocks (which feeds the FFN first matrix in post-LN). By hand: block b's
// FFN ratio (post ln1 / pre ln2) is c, or 2c for odd b; its mean ± sd over
// seeds scale ± 0.1·scale (×2 for odd b); the geometric mean over an even
// number of blocks √2·c; the output layer's ratio (post's last ln2 / pre's
// final) c. The final val loss is loss + 0.01·seed; diverge lists the
// seeds that end Diverged.
func placementFixture(placement string, blocks, warmup int, scale, loss float64, diverge ...int64) fixture {
	var layers []string
	for b := 0; b < blocks; b++ {
		layers = append(layers, fmt.Sprintf("block%d.ln1", b), fmt.Sprintf("block%d.ln2", b))
	}
	if placement == "pre" {
		layers = append(layers, "final")
	}
	m := meta("transformer", "bpc", layers, []int64{1, 2, 3}, "layernorm")
	m.Config["placement"], m.Config["layers"], m.Config["warmup"], m.Config["lr"] = placement, strconv.Itoa(blocks), strconv.Itoa(warmup), "0.003"
	status := map[int]probes.Status{}
	for v, vm := range m.Variants {
		for _, s := range diverge {
			if vm.Seed == s {
				status[v] = probes.Diverged
			}
		}
	}
	const steps = 20
	return fixture{meta: m, steps: steps, status: status, fill: func(f *probes.Frame, _ *rand.Rand) {
		seed := float64(m.Variants[f.Variant].Seed)
		f.TrainLoss = loss + 1/float64(f.Step)
		if f.Step == 1 {
			gw := 1.0
			if placement != "pre" {
				gw = scale * (1 + 0.1*(seed-2))
			}
			for l := range f.Layers {
				f.Layers[l][probes.GWNorm] = gw
				var b int
				if _, err := fmt.Sscanf(layers[l], "block%d.ln1", &b); err == nil && b%2 == 1 && placement != "pre" {
					f.Layers[l][probes.GWNorm] = 2 * gw
				}
			}
		}
		if f.Step%10 == 0 {
			f.Eval = []probes.Eval{{Split: "val", Loss: loss + 0.01*seed, Metric: (loss + 0.01*seed) / math.Ln2, TrainLoss: loss}}
		}
	}}
}

// placementRuns writes the (vi) layout: at 6 blocks pre and post, each with
// warm-up 0 and 10 (post diverges in seed 2 without warm-up and is within
// noise of pre with it); at 12 blocks pre and post with warm-up 10.
func placementRuns(t *testing.T, dir string) []string {
	return []string{
		placementFixture("pre", 6, 0, 0, 2.0).write(t, dir, "pre6-w0.ntr"),
		placementFixture("post", 6, 0, 3, 2.0, 2).write(t, dir, "post6-w0.ntr"),
		placementFixture("pre", 6, 10, 0, 2.0).write(t, dir, "pre6.ntr"),
		placementFixture("post", 6, 10, 3, 2.005).write(t, dir, "post6.ntr"),
		placementFixture("pre", 12, 10, 0, 2.0).write(t, dir, "pre12.ntr"),
		placementFixture("post", 12, 10, 6, 2.0).write(t, dir, "post12.ntr"),
	}
}

// TestFindingInitGradientsByHand: the ratios of placementFixture, worked
// by hand, and the verdict (post larger at both depths, the ratio growing).
func TestFindingInitGradientsByHand(t *testing.T) {
	r, err := Build(placementRuns(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	f := findingByID(t, r, "vi-a")
	text := strings.Join(f.Numbers, "\n")
	r2 := math.Sqrt2
	for _, want := range []string{
		"6 blocks, step 1, Post-LN / Pre-LN gw_norm of each block's FFN first matrix (the same weights in both; mean ± sd over seeds): block0 3 ± 0.3, block1 6 ± 0.6, block2 3 ± 0.3,",
		"block11 12 ± 1.2",
		"6 blocks: geometric mean over the blocks " + fmtNum(3*r2) + " ± " + fmtNum(0.3*r2) + "×, growth across the blocks (last/first) 2×; output layer 3 ± 0.3×",
		"12 blocks: geometric mean over the blocks " + fmtNum(6*r2) + " ± " + fmtNum(0.6*r2) + "×",
		"the tutorial says 1,000×", "the tutorial says 10⁶×", "(√12 = 3.464)",
		"growth with depth, 12 over 6 blocks: geometric mean 2×, last block 2×",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("numbers lack %q:\n%s", want, text)
		}
	}
	if f.Verdict != Supported {
		t.Errorf("verdict %s (%s), want supported", f.Verdict, f.Reason)
	}
	// The same ratio at both depths: no growth (within noise); Post-LN's
	// gradients smaller: against the claim.
	for _, tc := range []struct {
		scale6, scale12 float64
		want            string
	}{{3, 3, WithinNoise}, {0.5, 0.5, NotSupported}} {
		dir := t.TempDir()
		r, err := Build([]string{
			placementFixture("pre", 6, 10, 0, 2).write(t, dir, "a.ntr"), placementFixture("post", 6, 10, tc.scale6, 2).write(t, dir, "b.ntr"),
			placementFixture("pre", 12, 10, 0, 2).write(t, dir, "c.ntr"), placementFixture("post", 12, 10, tc.scale12, 2).write(t, dir, "d.ntr")})
		if err != nil {
			t.Fatal(err)
		}
		if f := findingByID(t, r, "vi-a"); f.Verdict != tc.want {
			t.Errorf("scales %v, %v: %s (%s), want %s", tc.scale6, tc.scale12, f.Verdict, f.Reason, tc.want)
		}
	}
	// One depth only: numbers, but no verdict on the growth.
	dir := t.TempDir()
	r, err = Build([]string{placementFixture("pre", 6, 10, 0, 2).write(t, dir, "a.ntr"), placementFixture("post", 6, 10, 3, 2).write(t, dir, "b.ntr")})
	if err != nil {
		t.Fatal(err)
	}
	if f := findingByID(t, r, "vi-a"); f.Verdict != NotMeasurable || !strings.Contains(f.Reason, "one depth") {
		t.Errorf("one depth: %s (%s)", f.Verdict, f.Reason)
	}
}

// TestWarmupHalves: the two halves of (vi-b) on hand-made groups.
func TestWarmupHalves(t *testing.T) {
	vals := func(xs ...float64) probes.MeanSD { return probes.NewMeanSD(xs) }
	side := func(div int, loss probes.MeanSD) *placed {
		return &placed{warmup: 10, nseeds: 3, diverged: div, finalValLoss: loss}
	}
	good, worse, same := vals(2.0, 2.01, 2.02), vals(2.2, 2.21, 2.22), vals(2.005, 2.015, 2.025)
	for _, tc := range []struct {
		name      string
		pre, post *placed
		no, with  halfResult
	}{
		{"post diverges", side(0, good), side(2, vals(2.2)), halfHolds, halfFails},
		{"post worse beyond noise", side(0, good), side(0, worse), halfHolds, halfFails},
		{"within noise", side(0, good), side(0, same), halfFails, halfHolds},
		{"post better", side(0, worse), side(0, good), halfFails, halfHolds},
		{"two seeds", &placed{nseeds: 2, finalValLoss: vals(2, 2.1)}, side(0, good), halfMissing, halfMissing},
		{"both diverge", side(2, vals(2.0)), side(2, vals(2.1)), halfMissing, halfMissing},
	} {
		if got, line := noWarmupPart(tc.pre, tc.post); got != tc.no {
			t.Errorf("%s: without warm-up %d (%s), want %d", tc.name, got, line, tc.no)
		}
		if got, line := warmupPart(tc.pre, tc.post); got != tc.with {
			t.Errorf("%s: with warm-up %d (%s), want %d", tc.name, got, line, tc.with)
		}
	}
}

// TestGoldenPlacementReport: the report of the (vi) layout, text.
// Regenerate with go test ./report -run Golden -update.
func TestGoldenPlacementReport(t *testing.T) {
	dir := t.TempDir()
	r, err := Build(placementRuns(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if f := findingByID(t, r, "vi-b"); f.Verdict != Supported {
		t.Errorf("vi-b: %s (%s)\n%s", f.Verdict, f.Reason, strings.Join(f.Numbers, "\n"))
	}
	checkTextGolden(t, r, dir, "placement.txt")
}
