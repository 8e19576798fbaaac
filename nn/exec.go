package nn

import (
	"fmt"

	"github.com/normtop/normtop/internal/graphop"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Executor runs a compiled graph the way gorgonia's TapeMachine does, in
// the same order and with the same ops, but keeps every op's output from
// one run to the next and hands it back to the op as the buffer of its next
// output. The TapeMachine's Reset drops every register, so each run
// allocated every built-in op's output afresh: 13 MB and ~1,500
// allocations per step of the default transformer, and the memclr and GC
// time that goes with them.
//
// An output is handed back only when it is the op's own memory: a dense,
// non-view tensor that is not an input node's (a weight's) tensor. An op
// that once returned one of its inputs' tensors (or a tensor on the same
// memory) always runs Do. (gorgonia's ReturnsPtr says an op returns a
// tensor rather than a scalar, not that it aliases, so it decides nothing.)
type Executor struct {
	steps []execStep
	vals  []G.Value // each step's output of the last run, by step
	at    map[*G.Node]int
	fixed map[uintptr]bool // backing arrays of the input nodes' values
	args  []G.Value        // scratch for one op's inputs
}

// execStep is one node: an input node (op nil: its bound value is read) or
// an op applied to the outputs of earlier steps.
type execStep struct {
	node     *G.Node
	op       G.Op
	prealloc G.UsePreallocDoer // nil: the op is always run with Do
	in       []int             // steps of the op's inputs, in argument order
}

// NewExecutor orders g's nodes as the TapeMachine does (gorgonia's stable
// topological sort, reversed: inputs first).
func NewExecutor(g *G.ExprGraph) (*Executor, error) {
	sorted, err := G.Sort(g)
	if err != nil {
		return nil, fmt.Errorf("executor: %w", err)
	}
	e := &Executor{at: make(map[*G.Node]int, len(sorted)), fixed: map[uintptr]bool{}}
	e.steps = make([]execStep, len(sorted))
	for k := range sorted {
		n := sorted[len(sorted)-1-k]
		e.at[n] = k
		s := execStep{node: n, op: n.Op()}
		if s.op != nil {
			if p, ok := s.op.(G.UsePreallocDoer); ok {
				s.prealloc = p
			}
			children := g.From(n.ID())
			for children.Next() {
				c := children.Node().(*G.Node)
				i, ok := e.at[c]
				if !ok {
					return nil, fmt.Errorf("executor: %v is sorted before its input %v", n, c)
				}
				s.in = append(s.in, i)
			}
			if len(s.in) > cap(e.args) {
				e.args = make([]G.Value, 0, len(s.in))
			}
		}
		e.steps[k] = s
	}
	e.vals = make([]G.Value, len(e.steps))
	return e, nil
}

// Run executes every step once. Input nodes' values are read afresh, so a
// batch copied into an input tensor, or weights updated in place, are seen.
func (e *Executor) Run() error {
	for k := range e.steps {
		s := &e.steps[k]
		if s.op == nil {
			v := s.node.Value()
			if v == nil {
				return fmt.Errorf("executor: input %v has no value", s.node)
			}
			if d, ok := v.(*tensor.Dense); ok && e.vals[k] != v {
				e.fixed[d.Uintptr()] = true
			}
			e.vals[k] = v
			continue
		}
		args := e.args[:0]
		for _, i := range s.in {
			args = append(args, e.vals[i])
		}
		v, err := e.apply(s, e.vals[k], args)
		if err != nil {
			return fmt.Errorf("executor: %v: %w", s.node, err)
		}
		if s.prealloc != nil && aliasesAny(v, args) {
			s.prealloc = nil
		}
		e.vals[k] = v
	}
	return nil
}

// apply runs one op, into its previous output where that is the op's own.
// An op that refuses the buffer runs Do, as the TapeMachine does, and is
// not offered one again.
func (e *Executor) apply(s *execStep, prev G.Value, args []G.Value) (G.Value, error) {
	if s.prealloc != nil {
		if buf, ok := prev.(*tensor.Dense); ok && !buf.IsView() && !e.fixed[buf.Uintptr()] {
			v, err := s.prealloc.UsePreallocDo(buf, args...)
			if err == nil {
				return v, nil
			}
			s.prealloc = nil
		}
	}
	return s.op.Do(args...)
}

// aliasesAny reports whether v shares its backing array with one of args.
func aliasesAny(v G.Value, args []G.Value) bool {
	d, ok := v.(*tensor.Dense)
	if !ok {
		return false
	}
	for _, a := range args {
		if ad, ok := a.(*tensor.Dense); ok && ad.Uintptr() == d.Uintptr() {
			return true
		}
	}
	return false
}

// Value is n's output of the last run (an input node's bound value).
func (e *Executor) Value(n *G.Node) G.Value {
	if k, ok := e.at[n]; ok {
		return e.vals[k]
	}
	return n.Value()
}

// Reset ends a run. The executor has nothing to end (every output stays
// until the next Run overwrites it); Reset lets it and gorgonia's
// TapeMachine, whose Reset drops the values, stand behind one interface.
func (e *Executor) Reset() {}

// HeldFloats is how many floats the op outputs of the last run and the
// convolutions' patch matrices hold: what a step keeps alive besides the
// parameters and inputs (train's memory estimate is tested against it).
func (e *Executor) HeldFloats() int {
	var n int
	for i, s := range e.steps {
		if s.op == nil {
			continue // inputs and weights
		}
		if d, ok := e.vals[i].(*tensor.Dense); ok {
			n += d.Shape().TotalSize()
		}
		if c, ok := convState(s.node); ok {
			switch cols := c.cols.(type) {
			case []float64:
				n += len(cols)
			case []float32:
				n += len(cols)
			}
		}
	}
	return n
}

// convState is the state of n's op when n is a Conv2D node.
func convState(n *G.Node) (*convOp, bool) {
	d, _ := graphop.Of(n)
	c, ok := d.State.(*convOp)
	return c, ok
}
