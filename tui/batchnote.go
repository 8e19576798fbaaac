package tui

import (
	"fmt"
	"math"

	"github.com/normtop/normtop/probes"
)

// batchNote is the selected variant's batch at the cursor's step, as the
// note beside the charts shows it: "batch 412×5 (1,802 tok)"; "" when the
// run recorded no batch shapes there. The shape is read as the legends
// read values (valueAt: the last step of the stored bucket holding the
// cursor), so "@415" names that step when it is not the cursor's, and
// "widths 2–31" says the bucket held batches of several widths: a spike's
// two-token batch is not hidden behind its neighbours'.
func (m *common) batchNote(step int) string {
	v := m.st.Variant
	if v < 0 || v >= len(m.data.variants) {
		return ""
	}
	vd := &m.data.variants[v]
	var vals [3]float64
	var at int
	var width bucket
	for i, r := range []runSeries{seriesRows, seriesWidth, seriesTokens} {
		h := vd.series(r)
		if h == nil {
			return ""
		}
		bs := h.View(h.cap)
		x, a, ok := valueAt(bs, step)
		if !ok {
			return ""
		}
		vals[i], at = x, a
		if r == seriesWidth {
			width = bucketAt(bs, a)
		}
	}
	b := probes.BatchShape{Rows: int(vals[0]), Width: int(vals[1]), Tokens: int(vals[2])}
	note := "batch " + b.String()
	if at != step {
		note += fmt.Sprintf(" @%d", at)
	}
	if width.Count > 1 && width.Min != width.Max && !math.IsNaN(width.Min) {
		note += fmt.Sprintf(" · widths %d–%d", int(width.Min), int(width.Max))
	}
	return note
}

// bucketAt is the bucket whose last step is step (valueAt's answer).
func bucketAt(bs []bucket, step int) bucket {
	for i := len(bs) - 1; i >= 0; i-- {
		if bs[i].LastStep == step {
			return bs[i]
		}
	}
	return bucket{}
}
