package report

import (
	"fmt"
	"slices"
)

// warmupQuad is one depth's four layernorm groups of (vi-b): Pre-LN and
// Post-LN, each without warm-up and with the same positive warm-up.
type warmupQuad struct {
	blocks                   int
	pre0, post0, preW, postW *placed
}

// warmupQuads lists the depths whose runs have all four groups, shallowest
// first. Of several positive warm-ups the first found for Post-LN is used.
func warmupQuads(ps []placed) []warmupQuad {
	var out []warmupQuad
	for _, p := range ps {
		if p.placement != "post" || p.warmup <= 0 || slices.ContainsFunc(out, func(q warmupQuad) bool { return q.blocks == p.blocks }) {
			continue
		}
		q := warmupQuad{blocks: p.blocks, postW: findPlaced(ps, "post", p.blocks, p.warmup),
			preW: findPlaced(ps, "pre", p.blocks, p.warmup), pre0: findPlaced(ps, "pre", p.blocks, 0), post0: findPlaced(ps, "post", p.blocks, 0)}
		if q.preW != nil && q.pre0 != nil && q.post0 != nil {
			out = append(out, q)
		}
	}
	slices.SortFunc(out, func(a, b warmupQuad) int { return a.blocks - b.blocks })
	return out
}

// halfResult is how one half of (vi-b) came out at one depth.
type halfResult int

const (
	halfMissing halfResult = iota // fewer than 3 seeds, or no finite values
	halfHolds
	halfFails
)

// noWarmupPart: without warm-up, Post-LN diverges (in more seeds than
// Pre-LN) or its final validation loss is higher beyond seed noise.
func noWarmupPart(pre, post *placed) (halfResult, string) {
	if pre.nseeds < 3 || post.nseeds < 3 {
		return halfMissing, fmt.Sprintf("warmup 0: %d and %d seeds, judged with ≥ 3 a side", post.nseeds, pre.nseeds)
	}
	if post.diverged > pre.diverged {
		return halfHolds, fmt.Sprintf("warmup 0: Post-LN diverged in %d of %d seeds, Pre-LN in %d of %d", post.diverged, post.nseeds, pre.diverged, pre.nseeds)
	}
	c := comparison{What: "warmup 0: final val loss", A: "post", B: "pre", a: post.finalValLoss, b: pre.finalValLoss, Higher: true}
	switch c.outcome() {
	case asClaimed:
		return halfHolds, c.line() + ": Post-LN worse beyond seed noise"
	case withinNoise:
		return halfFails, c.line() + ": within seed noise"
	case against:
		return halfFails, c.line() + ": Post-LN better beyond seed noise"
	}
	return halfMissing, c.line() + ": too few finite seeds (diverged)"
}

// warmupPart: with warm-up, Post-LN does not diverge more often than
// Pre-LN, and its final validation loss is within seed noise of Pre-LN's
// or lower.
func warmupPart(pre, post *placed) (halfResult, string) {
	w := fmt.Sprintf("warmup %d", post.warmup)
	if pre.nseeds < 3 || post.nseeds < 3 {
		return halfMissing, fmt.Sprintf("%s: %d and %d seeds, judged with ≥ 3 a side", w, post.nseeds, pre.nseeds)
	}
	if post.diverged > pre.diverged {
		return halfFails, fmt.Sprintf("%s: Post-LN diverged in %d of %d seeds even with warm-up, Pre-LN in %d", w, post.diverged, post.nseeds, pre.diverged)
	}
	c := comparison{What: w + ": final val loss", A: "post", B: "pre", a: post.finalValLoss, b: pre.finalValLoss, Higher: true}
	switch c.outcome() {
	case withinNoise:
		return halfHolds, c.line() + ": within seed noise"
	case against:
		return halfHolds, c.line() + ": Post-LN better beyond seed noise"
	case asClaimed:
		return halfFails, c.line() + ": Post-LN worse beyond seed noise even with warm-up"
	}
	return halfMissing, c.line() + ": too few finite seeds (diverged)"
}

func findingWarmup(model string, ps []placed) Finding {
	f := Finding{ID: "vi-b", Claim: "The tutorial, ch. 6 (Xiong et al. 2020): Post-LN needs learning-rate warm-up to avoid divergence; Pre-LN trains stably without it. Judged: with --warmup 0, Post-LN diverges or ends with a higher val loss than Pre-LN beyond seed noise; with the preset's warm-up the two are within seed noise or Post-LN is better."}
	quads := warmupQuads(ps)
	if len(quads) == 0 {
		f.Verdict, f.Reason = NotMeasurable, "needs layernorm runs with --placement pre and post, each with --warmup 0 and with the preset's warm-up, at the same --layers (docs/findings.md, (vi))"
		return f
	}
	f.Model = model
	holds, fails, missing := 0, 0, 0
	for _, q := range quads {
		lrs := []string{q.pre0.lr, q.post0.lr, q.preW.lr, q.postW.lr}
		lr := "lr " + lrs[0]
		if slices.ContainsFunc(lrs, func(s string) bool { return s != lrs[0] }) {
			lr = "lr differs between the runs (" + fmt.Sprint(lrs) + "): the rule wants the preset's lr in all four"
			missing++
		}
		f.Numbers = append(f.Numbers, fmt.Sprintf("%d blocks, %s:", q.blocks, lr))
		for _, half := range []func() (halfResult, string){
			func() (halfResult, string) { return noWarmupPart(q.pre0, q.post0) },
			func() (halfResult, string) { return warmupPart(q.preW, q.postW) },
		} {
			p, line := half()
			f.Numbers = append(f.Numbers, "  "+line)
			switch p {
			case halfHolds:
				holds++
			case halfFails:
				fails++
			default:
				missing++
			}
		}
	}
	switch {
	case fails > 0:
		f.Verdict, f.Reason = NotSupported, "a half of the rule does not hold (see the lines above)"
	case missing > 0:
		f.Verdict, f.Reason = NotMeasurable, "a half of the rule cannot be judged (fewer than 3 seeds, diverged seeds, or different learning rates)"
	default:
		f.Verdict, f.Reason = Supported, fmt.Sprintf("both halves hold at every depth measured (%d)", len(quads))
	}
	return f
}
