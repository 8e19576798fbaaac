package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/normtop/normtop/probes"
)

// Outliers and their batches (docs/report.md): for each judged layer of
// findings (ii) and (iii), every outlier with its step and the shape of
// that step's batch, and the share of them on the narrowest 1% of the
// run's batches (probes.NarrowCut). A spike of the statistics and a
// degenerate batch (hundreds of two-token rows) look alike in a probe's
// series; the batch tells them apart.

// StepBatch is one training step's batch shape.
type StepBatch struct {
	Step  int
	Shape probes.BatchShape
}

// maxListed bounds the outliers one line lists (per seed and probe): a
// series with hundreds of outliers would bury the finding; the counts
// still cover all of them, and `normtop export` has every step's batch.
const maxListed = 30

// batchAt is the batch shape of step, false when the run file recorded
// none for it.
func (rep *Replicate) batchAt(step int) (probes.BatchShape, bool) {
	i, ok := slices.BinarySearchFunc(rep.Batches, step, func(b StepBatch, s int) int { return b.Step - s })
	if !ok {
		return probes.BatchShape{}, false
	}
	return rep.Batches[i].Shape, true
}

// smallBatches is one way of calling a batch small: the narrowest 1% by
// width (what the degenerate batches were: hundreds of rows of
// "<s> .", 2 wide), or the 1% with the fewest real tokens (a length group's
// leftover, one sentence alone, is 12 wide and holds 12 tokens: narrow by
// no measure of width, and as degenerate for a batch statistic).
type smallBatches struct {
	name  string // "the narrowest 1%"
	field func(probes.BatchShape) int
	// what a seed's cut-off says: "width ≤ 4", "≤ 12 tokens"
	bound func(cut int) string
}

var smallBy = []smallBatches{
	{"the narrowest 1%", func(b probes.BatchShape) int { return b.Width }, func(c int) string { return fmt.Sprintf("width ≤ %d", c) }},
	{"the fewest-token 1%", func(b probes.BatchShape) int { return b.Tokens }, func(c int) string { return fmt.Sprintf("≤ %s tokens", probes.GroupThousands(c)) }},
}

// seedCut is one seed's cut-off by one measure (probes.NarrowCut).
type seedCut struct {
	cut, small, n int
	ok            bool
}

func (rep *Replicate) cutBy(by smallBatches) seedCut {
	vals := make([]int, len(rep.Batches))
	for i, b := range rep.Batches {
		vals[i] = by.field(b.Shape)
	}
	var c seedCut
	c.cut, c.small, c.n, c.ok = probes.NarrowCut(vals)
	return c
}

// outlierBatchLines lists the outliers of probes ps on side s, seed by
// seed, with their batches: a headline with the share on the narrowest 1%
// of batches by width (and on the 1% with the fewest tokens), then
// (indented: nested under it) one line per seed with its cut-offs and one
// per seed and probe with the outliers.
func outlierBatchLines(s side, ps ...probes.Probe) []string {
	head := "outliers and their batches, " + s.label() + " " + s.layerName() + ": "
	recorded := false
	for _, rep := range s.g.Reps {
		recorded = recorded || len(rep.Batches) > 0
	}
	if !recorded {
		return []string{head + "batch shapes not recorded (a run file from before they were, or a stream without \"batch\")"}
	}
	var lines []string
	// onSmall[k][i]: outliers of ps[i] on the small batches by smallBy[k],
	// judged[k][i] all outliers of the seeds where that measure has a cut.
	onSmall, judged := [2][]int{make([]int, len(ps)), make([]int, len(ps))}, [2][]int{make([]int, len(ps)), make([]int, len(ps))}
	var anyCut [2]bool
	for _, rep := range s.g.Reps {
		seed := "seed " + strconv.FormatInt(rep.Seed, 10)
		var cuts [2]seedCut
		var what []string
		for k, by := range smallBy {
			c := rep.cutBy(by)
			cuts[k] = c
			switch {
			case c.n == 0:
			case !c.ok:
				what = append(what, fmt.Sprintf("%s: none (every batch alike)", by.name))
			default:
				anyCut[k] = true
				what = append(what, fmt.Sprintf("%s: %s (%s batches, %s%%; ties at the cut-off included)",
					by.name, by.bound(c.cut), probes.GroupThousands(c.small), fmtNum(100*float64(c.small)/float64(c.n))))
			}
		}
		switch {
		case len(rep.Batches) == 0:
			lines = append(lines, "  "+seed+": batch shapes not recorded")
		case !cuts[0].ok && !cuts[1].ok:
			b := rep.Batches[0].Shape
			lines = append(lines, fmt.Sprintf("  %s: every one of the %s recorded batches is %d wide with %s tokens: no smallest 1%%", seed, probes.GroupThousands(len(rep.Batches)), b.Width, probes.GroupThousands(b.Tokens)))
		default:
			lines = append(lines, fmt.Sprintf("  %s, %s batches: %s", seed, probes.GroupThousands(len(rep.Batches)), strings.Join(what, "; ")))
		}
		if s.layer >= len(rep.Layers) {
			continue
		}
		for i, p := range ps {
			steps := rep.Layers[s.layer].Probes[p].OutlierSteps
			if len(steps) == 0 {
				continue
			}
			items := make([]string, 0, min(len(steps), maxListed))
			var nSmall [2]int
			for j, st := range steps {
				b, has := rep.batchAt(st)
				for k, by := range smallBy {
					if v := by.field(b); has && cuts[k].ok && v > 0 && v <= cuts[k].cut {
						nSmall[k]++
					}
				}
				if j >= maxListed {
					continue
				}
				if has {
					items = append(items, fmt.Sprintf("step %d %s", st, b))
				} else {
					items = append(items, fmt.Sprintf("step %d (batch not recorded)", st))
				}
			}
			if len(steps) > maxListed {
				items = append(items, fmt.Sprintf("and %d more", len(steps)-maxListed))
			}
			var shares []string
			for k, by := range smallBy {
				if cuts[k].ok {
					onSmall[k][i] += nSmall[k]
					judged[k][i] += len(steps)
					shares = append(shares, fmt.Sprintf("%d of %d on %s", nSmall[k], len(steps), by.name))
				}
			}
			share := ""
			if len(shares) > 0 {
				share = " (" + strings.Join(shares, ", ") + ")"
			}
			lines = append(lines, fmt.Sprintf("  %s %s: %d outliers%s: %s", seed, p, len(steps), share, strings.Join(items, ", ")))
		}
	}
	if !anyCut[0] && !anyCut[1] {
		return append([]string{head + "no smallest 1% of batches (every batch has one width and one token count)"}, lines...)
	}
	var heads []string
	for k, by := range smallBy {
		if !anyCut[k] {
			heads = append(heads, "every batch has one "+map[int]string{0: "width", 1: "token count"}[k])
			continue
		}
		parts := make([]string, len(ps))
		for i, p := range ps {
			parts[i] = fmt.Sprintf("%s %d/%d", p, onSmall[k][i], judged[k][i])
		}
		heads = append(heads, "on "+by.name+" of batches: "+strings.Join(parts, ", "))
	}
	return append([]string{head + "outliers (all seeds) " + strings.Join(heads, "; ")}, lines...)
}
