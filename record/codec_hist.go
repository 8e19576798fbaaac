package record

import (
	"math"

	"github.com/normtop/normtop/probes"
)

// The layers' input histograms of a frame (probes.Frame.Hists), flag
// flagHist: after the batch shape (if any), at the very end of the frame,
//
//	n:uvarint (layer:uvarint mean:f64 std:f64 under:uvarint over:uvarint
//	           nan:uvarint B:uvarint count:uvarint*B)*n
//
// so a reader that knows neither flag 64 nor these bytes (an older
// normtop) decodes every other field as before and never reaches them: no
// version bump, as with the batch shape (docs/formats.md "Frames").

// minHistSize is the fewest bytes one histogram takes: layer, mean, std,
// three counts and B, with no bin (a decoder's bound on a forged n).
const minHistSize = 1 + 8 + 8 + 3 + 1

// hists appends hs.
func (e *enc) hists(hs []probes.Histogram) {
	e.uvarint(uint64(len(hs)))
	for i := range hs {
		h := &hs[i]
		e.uvarint(uint64(h.Layer))
		e.f64(h.Mean)
		e.f64(h.Std)
		e.uvarint(uint64(h.Under))
		e.uvarint(uint64(h.Over))
		e.uvarint(uint64(h.NaN))
		e.uvarint(uint64(len(h.Counts)))
		for _, c := range h.Counts {
			e.uvarint(uint64(c))
		}
	}
}

// hists reads what enc.hists wrote for a run of layers layers; a layer out
// of range, a count over probes.MaxHistCount, more than probes.MaxHistBins
// bins or fewer bytes than the counts claim mark d bad. (That every
// histogram has the run's bin count is the writer's check: the codec does
// not hold the header.)
func (d *dec) hists(layers int) []probes.Histogram {
	n := d.count(minHistSize)
	if d.bad {
		return nil
	}
	hs := make([]probes.Histogram, n)
	for i := range hs {
		h := &hs[i]
		l := d.uvarint()
		if l >= uint64(layers) {
			d.bad = true
			return nil
		}
		h.Layer = int(l)
		h.Mean, h.Std = d.f64(), d.f64()
		h.Under, h.Over, h.NaN = d.histCount(), d.histCount(), d.histCount()
		b := d.count(1)
		if b > probes.MaxHistBins {
			d.bad = true
		}
		if d.bad {
			return nil
		}
		h.Counts = make([]int, b)
		for k := range h.Counts {
			h.Counts[k] = d.histCount()
		}
		if d.bad {
			return nil
		}
	}
	return hs
}

// histCount reads one count, bad when over probes.MaxHistCount.
func (d *dec) histCount() int {
	c := d.uvarint()
	if c > probes.MaxHistCount || c > math.MaxInt {
		d.bad = true
		return 0
	}
	return int(c)
}
