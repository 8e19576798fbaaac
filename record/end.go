package record

import (
	"sort"

	"github.com/normtop/normtop/probes"
)

// Run statuses stored in the end record; probes.Standings.EndStatus decides
// which one a run gets.
const (
	StatusCompleted   = probes.RunCompleted   // every variant finished or diverged
	StatusInterrupted = probes.RunInterrupted // stopped by the user (SIGINT/SIGTERM)
	StatusDiverged    = probes.RunDiverged    // every variant diverged
)

// End is the end record: how the run finished. Close fills Diverged and
// Final from the Frames it wrote when they are nil.
type End struct {
	Status   string                // StatusCompleted, StatusInterrupted or StatusDiverged
	Diverged map[int]int           // variant → step it diverged at
	Final    map[int][]probes.Eval // variant → its last evaluation of each split, in first-seen split order
}

func (e *End) encode() []byte {
	var b enc
	b.str(e.Status)
	vs := sortedKeys(e.Diverged)
	b.uvarint(uint64(len(vs)))
	for _, v := range vs {
		b.uvarint(uint64(v))
		b.varint(int64(e.Diverged[v]))
	}
	fs := sortedKeys(e.Final)
	b.uvarint(uint64(len(fs)))
	for _, v := range fs {
		b.uvarint(uint64(v))
		b.uvarint(uint64(len(e.Final[v])))
		for _, ev := range e.Final[v] {
			b.eval(ev)
		}
	}
	return b.b
}

// decodeEnd parses an end record; variant numbers must be below variants.
func decodeEnd(p []byte, variants int) (End, bool) {
	d := dec{b: p}
	e := End{Status: d.str(), Diverged: map[int]int{}, Final: map[int][]probes.Eval{}}
	variant := func() int {
		v := d.uvarint()
		if v >= uint64(variants) {
			d.bad = true
		}
		return int(v)
	}
	n := d.count(2)
	for i := 0; i < n; i++ {
		v := variant()
		e.Diverged[v] = d.int()
	}
	n = d.count(2)
	for i := 0; i < n; i++ {
		v := variant()
		m := d.count(minEvalSize)
		evs := make([]probes.Eval, m)
		for j := range evs {
			evs[j] = d.eval()
		}
		e.Final[v] = evs
	}
	return e, !d.bad
}

func sortedKeys[V any](m map[int]V) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}

// safe is e with its strings (status, evaluation splits) passed through
// probes.SafeText: a copy, so the Reader's own End is left as read.
func (e End) safe() End {
	e.Status = probes.SafeText(e.Status)
	if e.Final != nil {
		final := make(map[int][]probes.Eval, len(e.Final))
		for v, evs := range e.Final {
			c := append([]probes.Eval(nil), evs...)
			for i := range c {
				c[i].Split = probes.SafeText(c[i].Split)
			}
			final[v] = c
		}
		e.Final = final
	}
	return e
}
