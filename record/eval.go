package record

import (
	"math"

	"github.com/normtop/normtop/probes"
)

// evalFloats is how many float fields an Eval carries in this version:
// Loss, Metric, TrainLoss. Each stored Eval says how many follow its split,
// so a later probes.Eval field can be appended without a format bump: an
// older reader skips fields it does not know, a newer one leaves missing
// fields NaN ("unknown").
const evalFloats = 3

// minEvalSize is the smallest encoded Eval: empty split and field count.
const minEvalSize = 2

func (e *enc) eval(ev probes.Eval) {
	e.str(ev.Split)
	e.uvarint(evalFloats)
	e.f64(ev.Loss)
	e.f64(ev.Metric)
	e.f64(ev.TrainLoss)
}

func (d *dec) eval() probes.Eval {
	ev := probes.Eval{Split: d.str(), Loss: math.NaN(), Metric: math.NaN(), TrainLoss: math.NaN()}
	n := d.uvarint()
	if n > uint64(len(d.b)/8) {
		d.bad = true
		return ev
	}
	for i := uint64(0); i < n; i++ {
		x := d.f64()
		switch i {
		case 0:
			ev.Loss = x
		case 1:
			ev.Metric = x
		case 2:
			ev.TrainLoss = x
		}
	}
	return ev
}
