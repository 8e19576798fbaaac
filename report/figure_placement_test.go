package report

import (
	"math"
	"strconv"
	"testing"
)

// TestPlacementFigures: (vi-a)'s figure plots, per depth and placement,
// the step-1 gw_norm of each block's FFN first matrix (the mean over seeds
// of exactly the values the finding divides), and (vi-b)'s the loss curves
// of pre and post with and without warm-up.
func TestPlacementFigures(t *testing.T) {
	r, err := Build(placementRuns(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	fig := r.FindingFigure(findingByID(t, r, "vi-a"))
	if fig.Empty != "" || len(fig.Panels) == 0 {
		t.Fatalf("(vi-a) figure: %q, %d panels", fig.Empty, len(fig.Panels))
	}
	_, ps := placedGroups(r.Groups)
	checked := 0
	for _, panel := range fig.Panels {
		L, _ := strconv.Atoi(panel.Title[:len(panel.Title)-len(" blocks")])
		for _, s := range panel.Series {
			if s.Kind != Line {
				continue
			}
			placement, site := "pre", ".ln2"
			if s.Label == "post-LN" {
				placement, site = "post", ".ln1"
			}
			p := findPlaced(ps, placement, L, -1)
			if len(s.Points) != L {
				t.Fatalf("%s at %d blocks: %d points, want one per block", s.Label, L, len(s.Points))
			}
			for b, pt := range s.Points {
				var sum float64
				for _, rep := range p.g.Reps {
					sum += siteNamed("block"+strconv.Itoa(b)+site)(rep, p.g.Layers)
				}
				want := sum / float64(len(p.g.Reps))
				if pt.X != float64(b) || math.Abs(pt.Y-want) > 1e-12*math.Abs(want) {
					t.Errorf("%s, %d blocks, block %d: plotted (%g, %g), want (%d, %g)", s.Label, L, b, pt.X, pt.Y, b, want)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no point of the (vi-a) figure was checked")
	}
	wf := r.FindingFigure(findingByID(t, r, "vi-b"))
	if wf.Empty != "" || len(wf.Panels) != 2 || wf.Title[:6] != "(vi-b)" {
		t.Errorf("(vi-b) figure: %q %q, %d panels", wf.Title, wf.Empty, len(wf.Panels))
	}
}
