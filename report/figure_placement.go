package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The figures of finding (vi), drawn from the groups the finding judged
// (placedGroups): (vi-a) the step-1 gradient norm of each block's FFN first
// matrix (the weights both placements feed from a norm: Post-LN's ln1,
// Pre-LN's ln2), per block and depth; (vi-b) the loss curves of Pre-LN and
// Post-LN with and without warm-up.

// initGradientsFigure is (vi-a)'s figure: one panel per depth, x the block,
// y the step-1 gw_norm on a log axis, Pre-LN and Post-LN as the mean over
// seeds with a ± sd band.
func (r *Report) initGradientsFigure() *Figure {
	fig := &Figure{Title: "(vi-a) gradient norm at step 1 of each block's FFN first matrix, Post-LN against Pre-LN",
		Caption: "Step-1 gw_norm (‖∂L/∂W‖_F) of each block's FFN first matrix, the same weights in both placements (fed by Post-LN's ln1 and Pre-LN's ln2), against the block index: the mean over seeds as a line, ± 1 sd as a band, log axis. The tutorial says Post-LN's are 1,000× Pre-LN's at 6 layers and 10⁶× at 12; Xiong et al.'s theorem, a ratio growing like √L."}
	_, ps := placedGroups(r.Groups)
	var depths []int
	for _, p := range ps {
		if p.placement == "pre" && findPlaced(ps, "post", p.blocks, -1) != nil && !slices.Contains(depths, p.blocks) {
			depths = append(depths, p.blocks)
		}
	}
	slices.Sort(depths)
	if len(depths) == 0 {
		fig.Empty = "the runs lack layernorm under --placement pre and post at one depth: nothing to draw"
		return fig
	}
	fig.Cols = len(depths)
	// One colour per placement across the panels (its first depth's group's).
	color := map[string]int{
		"pre":  r.colorOf(findPlaced(ps, "pre", depths[0], -1).g),
		"post": r.colorOf(findPlaced(ps, "post", depths[0], -1).g),
	}
	var panels []*Panel
	for _, L := range depths {
		panel := Panel{Title: fmt.Sprintf("%d blocks", L), XLabel: "block", YLabel: "gw_norm at step 1", LogY: true}
		for _, side := range []struct{ placement, site string }{{"pre", ".ln2"}, {"post", ".ln1"}} {
			p := findPlaced(ps, side.placement, L, -1)
			var curves [][]XY
			for _, rep := range p.g.Reps {
				c := make([]XY, 0, L)
				for b := 0; b < L; b++ {
					c = append(c, XY{float64(b), siteNamed("block"+strconv.Itoa(b)+side.site)(rep, p.g.Layers)})
				}
				curves = append(curves, c)
			}
			panel.Series = append(panel.Series, meanBand(side.placement+"-LN", color[side.placement], curves)...)
		}
		panel.logSafe()
		panels = append(panels, &panel)
	}
	shareY(panels)
	for _, p := range panels {
		fig.Panels = append(fig.Panels, *p)
	}
	return fig
}

// warmupFigure is (vi-b)'s figure: the loss curves of the layernorm groups
// (vi-b) compares, Pre-LN and Post-LN at the deepest depth with warm-up 0
// and with the preset's warm-up.
func (r *Report) warmupFigure() *Figure {
	model, ps := placedGroups(r.Groups)
	var gs []*Group
	depth := 0
	for _, p := range ps {
		if p.warmup == 0 && findPlaced(ps, "pre", p.blocks, 0) != nil && findPlaced(ps, "post", p.blocks, 0) != nil {
			depth = max(depth, p.blocks)
		}
	}
	for _, placement := range []string{"pre", "post"} {
		for _, w := range []int{0, -2} {
			if p := findPlaced(ps, placement, depth, w); p != nil && depth > 0 {
				gs = append(gs, p.g)
			}
		}
	}
	if len(gs) == 0 {
		return &Figure{Title: "(vi-b)", Empty: "the runs lack layernorm under --placement pre and post with --warmup 0: nothing to draw"}
	}
	fig := r.LossFigure(model, gs)
	fig.Title = fmt.Sprintf("(vi-b) Pre-LN and Post-LN with and without warm-up, %d blocks, %s", depth, model)
	return fig
}

// lstmFigure is (vii)'s figure: the LSTM's train and validation loss of
// layernorm and the plain LSTM (vii-b: who reaches the plain LSTM's final
// loss first) beside h_norm_cv over training at the first hidden-state
// site (vii-a: the spread of ‖h_t‖/√H over time steps).
func (r *Report) lstmFigure() *Figure {
	var gs []*Group
	for _, name := range []string{"layernorm", "none"} {
		if g := pick(r.Groups, "lstm", name); g != nil {
			gs = append(gs, g)
		}
	}
	if len(gs) < 2 {
		return &Figure{Title: "(vii)", Empty: "the runs lack layernorm and none on --model lstm: nothing to draw"}
	}
	fig := r.LossFigure("lstm", gs)
	fig.Title = "(vii) LayerNorm against the plain LSTM"
	spread := Panel{Title: "h_norm_cv at the first hidden-state site", XLabel: "step", YLabel: "h_norm_cv"}
	for _, g := range gs {
		var raw [][]XY
		for _, rep := range g.Reps {
			if rep.Curves != nil && len(rep.Curves.HNormCV) > 0 {
				raw = append(raw, rep.Curves.HNormCV)
			}
		}
		spread.Series = append(spread.Series, seedLines(groupLabel(g, r.MultiModel), r.colorOf(g), raw, nil)...)
	}
	fig.Panels[1] = spread
	fig.Caption = strings.Replace(fig.Caption, "Right: the validation metric at each evaluation.", "Right: h_norm_cv (the coefficient of variation of ‖h_t‖₂/√H over a sequence's time steps, averaged over the batch) at every recorded step, one line per seed: (vii-a) judges its median.", 1)
	return fig
}
