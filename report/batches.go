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

// narrowCut is probes.NarrowCut over the replicate's recorded widths.
func (rep *Replicate) narrowCut() (cut, narrow, n int, ok bool) {
	widths := make([]int, len(rep.Batches))
	for i, b := range rep.Batches {
		widths[i] = b.Shape.Width
	}
	return probes.NarrowCut(widths)
}

// outlierBatchLines lists the outliers of probes ps on side s, seed by
// seed, with their batches: a headline with the share on the narrowest 1%
// of batches, then (indented: nested under it) one line per seed with its
// cut-off and one per seed and probe with the outliers.
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
	onNarrow, judged := make([]int, len(ps)), make([]int, len(ps))
	cutKnown := false
	for _, rep := range s.g.Reps {
		seed := "seed " + strconv.FormatInt(rep.Seed, 10)
		cut, narrow, n, ok := rep.narrowCut()
		switch {
		case len(rep.Batches) == 0:
			lines = append(lines, "  "+seed+": batch shapes not recorded")
		case !ok:
			lines = append(lines, fmt.Sprintf("  %s: every one of the %s recorded batches is %d wide: no narrowest 1%%", seed, probes.GroupThousands(n), rep.Batches[0].Shape.Width))
		default:
			cutKnown = true
			lines = append(lines, fmt.Sprintf("  %s: narrowest 1%% of %s batches: width ≤ %d (%s batches, %s%%; ties at width %d included)",
				seed, probes.GroupThousands(n), cut, probes.GroupThousands(narrow), fmtNum(100*float64(narrow)/float64(n)), cut))
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
			nNarrow := 0
			for k, st := range steps {
				b, has := rep.batchAt(st)
				if has && ok && b.Width > 0 && b.Width <= cut {
					nNarrow++
				}
				if k >= maxListed {
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
			share := ""
			if ok {
				onNarrow[i] += nNarrow
				judged[i] += len(steps)
				share = fmt.Sprintf(", %d of %d on the narrowest 1%%", nNarrow, len(steps))
			}
			lines = append(lines, fmt.Sprintf("  %s %s: %d outliers%s: %s", seed, p, len(steps), share, strings.Join(items, ", ")))
		}
	}
	if !cutKnown {
		return append([]string{head + "no narrowest 1% of batches (every batch has one width)"}, lines...)
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%s %d/%d", p, onNarrow[i], judged[i])
	}
	return append([]string{head + "outliers on the narrowest 1% of batches (by width; all seeds): " + strings.Join(parts, ", ")}, lines...)
}
