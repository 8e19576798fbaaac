package train

import (
	"testing"

	"github.com/normtop/normtop/probes"
)

// BenchmarkPlacement12Blocks: training steps per second of the character
// transformer with 12 blocks (layernorm, default probes, gw_norm included)
// in each placement, the placements' steps interleaved in one loop so that
// their ratios to pre-LN are measured under the same load.
func BenchmarkPlacement12Blocks(b *testing.B) {
	c := DefaultConfig()
	c.Layers = 12
	rs := make([]*Runner, len(Placements))
	for i, p := range Placements {
		c.Placement = p
		rs[i] = benchRunner(b, c, "layernorm", probes.DefaultIntervals())
		trainStep(b, rs[i], 1)
	}
	ts := rotatedSteps(b, rs, nil)
	pre := median(ts[0])
	for j, p := range Placements {
		ns := median(ts[j])
		b.ReportMetric(1e9/ns, string(p)+"-steps/s")
		if j > 0 {
			b.ReportMetric(pre/ns, string(p)+"/pre")
		}
	}
}
