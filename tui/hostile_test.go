package tui

import (
	"math"
	"testing"

	"github.com/normtop/normtop/probes"
)

// TestHostileFrames: values a diverging or corrupt run can carry (NaN, ±Inf,
// huge, tiny, negative, zero; steps out of order; unknown variants; more or
// fewer layers than the meta; empty spectra) never break a screen, in any
// scale or smoothing mode.
func TestHostileFrames(t *testing.T) {
	weird := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e308, -1e308, 1e-308, 0, -5, 5e-324}
	meta := fixtureMeta(3, 4, 100)
	m := newLive(meta, newFakeFeed(), Options{})
	step, known := 1, 0
	for i := range 400 {
		x := weird[i%len(weird)]
		f := probes.Frame{
			Variant:   i % 4, // variant 3 does not exist
			Step:      step,
			TrainLoss: x,
			Epoch:     x,
			Elapsed:   -1,
		}
		if i%7 == 0 {
			step -= 3 // out of order
		} else {
			step += 2
		}
		nl := []int{0, 2, 4, 9}[i%4]
		f.Layers = make([]probes.LayerValues, nl)
		for l := range f.Layers {
			for p := range probes.NumProbes {
				f.Layers[l][p] = weird[(i+l+int(p))%len(weird)]
			}
		}
		switch i % 5 {
		case 0:
			f.Eval = []probes.Eval{{Split: "val", Loss: x, Metric: x, TrainLoss: -x}}
		case 1:
			f.Spectrum = &probes.Spectrum{Step: step, Sigma: []float64{1, x, 0, -1}, EffRank: x}
		case 2:
			f.Spectrum = &probes.Spectrum{Step: step}
			f.Alerts = []probes.Alert{{Kind: probes.AlertKind(i % 9), Layer: i%9 - 2, Probe: probes.Probe(i % 30), Step: step}}
		case 3:
			f.Status = probes.Status(i % 6)
		}
		if f.Variant < len(meta.Variants) {
			known++
		}
		m.data.add(&f)
	}
	for _, keys := range [][]string{nil, {"l"}, {"s"}, {"l", "s"}} {
		for s := range numScreens {
			mm := *m
			mm.st = NewState(false, 1)
			for _, p := range []probes.Probe{0, 3, 7, 14} {
				mm.st.Probe = p
				screenText(t, &mm, s, 100, 30, keys...)
			}
		}
	}
	if m.data.frames != known {
		t.Fatalf("the store took %d frames, want the %d of known variants", m.data.frames, known)
	}
}
