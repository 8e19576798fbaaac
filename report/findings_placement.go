package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/normtop/normtop/probes"
)

// Finding (vi) of docs/findings.md: Pre-LN against Post-LN, judged on
// layernorm runs that differ in their header's placement, blocks and
// warm-up (setup.go keeps them apart). One run file per placement × blocks
// × warm-up, each with --seeds 1,2,3; docs/findings.md gives the commands.

// placementFindings are the two sub-claims, each with its own verdict.
func placementFindings(groups []*Group) []Finding {
	model, ps := placedGroups(groups)
	return []Finding{findingInitGradients(model, ps), findingWarmup(model, ps)}
}

// placed is one layernorm group and the setup its runs share.
type placed struct {
	g                 *Group
	placement         string
	blocks, warmup    int
	lr                string
	seedsBy           map[int64]*Replicate
	diverged, nseeds  int
	finalValLoss, gw1 probes.MeanSD // gw1: whole-model step-1 gw_norm (allGW)
}

// placedGroups returns the first model (transformer first) whose runs hold
// layernorm under both pre and post placement, and its layernorm groups.
// Of two specs of layernorm in one setup the default one is kept.
func placedGroups(groups []*Group) (string, []placed) {
	for _, m := range modelOrder(groups) {
		var ps []placed
		for _, g := range groups {
			if g.Model != m || g.Name != "layernorm" || len(g.Reps) == 0 {
				continue
			}
			meta := g.Reps[0].Run.Meta
			p := placed{g: g, placement: placementOf(meta), blocks: configInt(meta, "layers"),
				warmup: configInt(meta, "warmup"), lr: meta.Config["lr"], seedsBy: map[int64]*Replicate{},
				diverged: g.Diverged, nseeds: len(g.Reps), finalValLoss: g.FinalValLoss}
			if p.placement == "" || p.blocks < 1 {
				continue
			}
			xs := make([]float64, len(g.Reps))
			for i, r := range g.Reps {
				p.seedsBy[r.Seed] = r
				xs[i] = allGW(r, g.Layers)
			}
			p.gw1 = probes.NewMeanSD(xs)
			if k := slices.IndexFunc(ps, func(o placed) bool {
				return o.placement == p.placement && o.blocks == p.blocks && o.warmup == p.warmup
			}); k >= 0 {
				if ps[k].g.Spec != ps[k].g.Name && g.Spec == g.Name {
					ps[k] = p
				}
				continue
			}
			ps = append(ps, p)
		}
		if findPlaced(ps, "pre", -1, -1) != nil && findPlaced(ps, "post", -1, -1) != nil {
			return m, ps
		}
	}
	return "", nil
}

// findPlaced is the group of a placement at blocks and warmup (-1: any;
// warmup -2: any but 0), or nil.
func findPlaced(ps []placed, placement string, blocks, warmup int) *placed {
	for i := range ps {
		p := &ps[i]
		if p.placement == placement && (blocks < 0 || p.blocks == blocks) &&
			(warmup == -1 || p.warmup == warmup || warmup == -2 && p.warmup > 0) {
			return p
		}
	}
	return nil
}

// siteGW is √(Σ gw_norm²) at step 1 over the layers keep selects; NaN
// when none of them has a value (not recorded, or no weights fed).
func siteGW(r *Replicate, layers []string, keep func(name string) bool) float64 {
	var s float64
	n := 0
	for l, v := range r.Step1 {
		if l >= len(layers) || !keep(layers[l]) || !v.Has(probes.GWNorm) {
			continue
		}
		s += v[probes.GWNorm] * v[probes.GWNorm]
		n++
	}
	if n == 0 {
		return math.NaN()
	}
	return math.Sqrt(s)
}

// blockGW is the step-1 gradient norm of the weights block b's norms feed.
func blockGW(r *Replicate, layers []string, b int) float64 {
	prefix := "block" + strconv.Itoa(b) + "."
	return siteGW(r, layers, func(n string) bool { return strings.HasPrefix(n, prefix) })
}

// allGW is the step-1 gradient norm of the weights every norm feeds.
func allGW(r *Replicate, layers []string) float64 {
	return siteGW(r, layers, func(string) bool { return true })
}

// pairedRatio is, over the seeds both groups have, post's value over
// pre's, as mean ± sd: the same seed starts both from the same weights and
// batches, so the ratio isolates the placement.
func pairedRatio(post, pre *placed, value func(r *Replicate, layers []string) float64) probes.MeanSD {
	var xs []float64
	for _, r := range post.g.Reps {
		if q, ok := pre.seedsBy[r.Seed]; ok {
			xs = append(xs, value(r, post.g.Layers)/value(q, pre.g.Layers))
		}
	}
	return probes.NewMeanSD(xs)
}

// tutorialRatio is the tutorial's figure for Post-LN over Pre-LN gradients
// at initialization, by depth.
var tutorialRatio = map[int]string{6: "1,000×", 12: "10⁶×"}

// siteNamed is the step-1 gw_norm of one site.
func siteNamed(name string) func(*Replicate, []string) float64 {
	return func(r *Replicate, ls []string) float64 {
		return siteGW(r, ls, func(n string) bool { return n == name })
	}
}

// ffnRatio is, per seed, block b's FFN first matrix's step-1 gradient norm
// in Post-LN over Pre-LN: the same weights in both placements (post-LN's
// ln1 feeds it, pre-LN's ln2), as Xiong et al.'s Figure 3 compares the
// same parameters of each layer.
func ffnRatio(post, pre *placed, b int) []float64 {
	p := "block" + strconv.Itoa(b)
	postGW, preGW := siteNamed(p+".ln1"), siteNamed(p+".ln2")
	var xs []float64
	for _, r := range post.g.Reps {
		if q, ok := pre.seedsBy[r.Seed]; ok {
			xs = append(xs, postGW(r, post.g.Layers)/preGW(q, pre.g.Layers))
		}
	}
	return xs
}

// depthRatios is one depth of (vi-a): per block the FFN ratio over seeds,
// and per seed the geometric mean of its blocks' ratios (the judged
// number).
func depthRatios(pre, post *placed) (perBlock []probes.MeanSD, geo probes.MeanSD) {
	var logSum []float64
	for b := 0; b < pre.blocks; b++ {
		xs := ffnRatio(post, pre, b)
		perBlock = append(perBlock, probes.NewMeanSD(xs))
		if logSum == nil {
			logSum = make([]float64, len(xs))
		}
		for i, x := range xs {
			if i < len(logSum) {
				logSum[i] += math.Log(x) / float64(pre.blocks)
			}
		}
	}
	for i := range logSum {
		logSum[i] = math.Exp(logSum[i])
	}
	return perBlock, probes.NewMeanSD(logSum)
}

// outRatio is the output layer's step-1 gradient norm, Post-LN over
// Pre-LN: post-LN's last ln2 feeds it, pre-LN's final norm.
func outRatio(pre, post *placed) probes.MeanSD {
	postGW, preGW := siteNamed(fmt.Sprintf("block%d.ln2", post.blocks-1)), siteNamed("final")
	var xs []float64
	for _, r := range post.g.Reps {
		if q, ok := pre.seedsBy[r.Seed]; ok {
			xs = append(xs, postGW(r, post.g.Layers)/preGW(q, pre.g.Layers))
		}
	}
	return probes.NewMeanSD(xs)
}

// initDepth prints one depth of (vi-a) and returns the comparison it is
// judged by (the geometric-mean ratio against 1), that ratio and the last
// block's.
func initDepth(pre, post *placed) (lines []string, c comparison, geo, last probes.MeanSD) {
	L := pre.blocks
	perBlock, geo := depthRatios(pre, post)
	last = perBlock[L-1]
	parts := make([]string, L)
	for b, r := range perBlock {
		parts[b] = fmt.Sprintf("block%d %s", b, fmtMS(r, fmtNum))
	}
	var sites []string
	for b := 0; b < L; b++ {
		r := pairedRatio(post, pre, func(r *Replicate, ls []string) float64 { return blockGW(r, ls, b) })
		sites = append(sites, fmt.Sprintf("block%d %s", b, fmtMS(r, fmtNum)))
	}
	fig := "no figure for this depth"
	if t, ok := tutorialRatio[L]; ok {
		fig = t
	}
	lines = []string{
		fmt.Sprintf("%d blocks, step 1, Post-LN / Pre-LN gw_norm of each block's FFN first matrix (the same weights in both; mean ± sd over seeds): %s", L, strings.Join(parts, ", ")),
		fmt.Sprintf("%d blocks: geometric mean over the blocks %s×, growth across the blocks (last/first) %s×; output layer %s×", L, fmtMS(geo, fmtNum),
			fmtNum(last.Mean/perBlock[0].Mean), fmtMS(outRatio(pre, post), fmtNum)),
		fmt.Sprintf("%d blocks: the tutorial says %s; Xiong et al.'s theorem gives a last-layer ratio growing like √L (√%d = %s); measured: last block %s×, geometric mean %s×",
			L, fig, L, fmtNum(math.Sqrt(float64(L))), fmtNum(last.Mean), fmtNum(geo.Mean)),
		fmt.Sprintf("%d blocks, per block over each block's own norms (shown, not judged; post's last block includes the output layer, pre's first includes block0's q,k,v matrix): %s", L, strings.Join(sites, ", ")),
	}
	c = comparison{What: fmt.Sprintf("%d blocks: geometric-mean Post/Pre ratio vs 1", L), A: "Post/Pre", B: "1 (equal)",
		a: geo, b: probes.MeanSD{Mean: 1, SD: 0, N: geo.N}, Higher: true}
	return append(lines, c.line()), c, geo, last
}

func findingInitGradients(model string, ps []placed) Finding {
	f := Finding{ID: "vi-a", Claim: "The tutorial, ch. 6: at initialization Post-LN's gradients are far larger than Pre-LN's, 1,000× at 6 layers and 10⁶× at 12; Xiong et al. 2020's theorem: the ratio grows like √L. Judged: step-1 gw_norm of the same weights (each block's FFN first matrix), Post-LN over Pre-LN, geometric mean over the blocks: above 1 at every depth and larger at the deeper depth, beyond seed noise."}
	var depths []int
	for _, p := range ps {
		if p.placement == "pre" && findPlaced(ps, "post", p.blocks, -1) != nil && !slices.Contains(depths, p.blocks) {
			depths = append(depths, p.blocks)
		}
	}
	slices.Sort(depths)
	if len(depths) == 0 {
		f.Verdict, f.Reason = NotMeasurable, "needs layernorm runs with --placement pre and --placement post at the same --layers (docs/findings.md, (vi))"
		return f
	}
	f.Model = model
	var cs []comparison
	var geos, lasts []probes.MeanSD
	for _, L := range depths {
		pre, post := findPlaced(ps, "pre", L, -1), findPlaced(ps, "post", L, -1)
		if pre.gw1.N == 0 || post.gw1.N == 0 {
			f.Verdict, f.Reason = NotMeasurable, fmt.Sprintf("no gw_norm at step 1 in the %d-block runs (train with --probe-every 1)", L)
			return f
		}
		lines, c, geo, last := initDepth(pre, post)
		f.Numbers = append(f.Numbers, lines...)
		cs, geos, lasts = append(cs, c), append(geos, geo), append(lasts, last)
	}
	if n := len(depths); n >= 2 {
		lo, hi := depths[0], depths[n-1]
		g := comparison{What: fmt.Sprintf("geometric-mean Post/Pre ratio, %d vs %d blocks", hi, lo),
			A: strconv.Itoa(hi) + " blocks", B: strconv.Itoa(lo) + " blocks", a: geos[n-1], b: geos[0], Higher: true}
		f.Numbers = append(f.Numbers, g.line(),
			fmt.Sprintf("growth with depth, %d over %d blocks: geometric mean %s×, last block %s×; the tutorial's figures give 1,000×, √L gives √(%d/%d) = %s×",
				hi, lo, fmtNum(geos[n-1].Mean/geos[0].Mean), fmtNum(lasts[n-1].Mean/lasts[0].Mean), hi, lo, fmtNum(math.Sqrt(float64(hi)/float64(lo)))))
		cs = append(cs, g)
	}
	if v, r, ok := placementFewSeeds(cs); ok {
		f.Verdict, f.Reason = v, r
		return f
	}
	if len(depths) < 2 {
		f.Verdict, f.Reason = NotMeasurable, "one depth only: the growth with depth needs runs at two --layers (6 and 12)"
		return f
	}
	f.Verdict, f.Reason = allOf(cs)
	return f
}

// allOf: supported when every comparison goes the claimed way beyond seed
// noise (the claim needs each of them), not supported when one goes
// against it beyond noise, else within seed noise.
func allOf(cs []comparison) (verdict, reason string) {
	n := 0
	for _, c := range cs {
		switch c.outcome() {
		case against:
			return NotSupported, c.What + ": beyond seed noise against the claim"
		case asClaimed:
			n++
		case missing, fewSeeds:
			return NotMeasurable, c.What + ": no finite value on a side"
		}
	}
	if n == len(cs) {
		return Supported, "every comparison beyond seed noise the claimed way (difference of means > 2 standard errors over seeds)"
	}
	return WithinNoise, "a comparison the claim needs is within 2 standard errors over seeds"
}

// fewSeeds applies docs/findings.md's common rule: a comparison is judged only
// with at least 3 seeds a side.
func placementFewSeeds(cs []comparison) (verdict, reason string, few bool) {
	for _, c := range cs {
		if c.a.N < 3 || c.b.N < 3 {
			return NotMeasurable, fmt.Sprintf("%s: %d and %d seeds; judged with ≥ 3 a side (train with --seeds 1,2,3)", c.What, c.a.N, c.b.N), true
		}
	}
	return "", "", false
}
