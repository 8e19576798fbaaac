package train

import G "gorgonia.org/gorgonia"

// engine runs a net's graph: run computes every node once, value reads a
// node's output of the last run, reset ends the run (after the trainer
// has read the outputs it needs).
type engine interface {
	run() error
	value(n *G.Node) G.Value
	reset()
}

// newEngine builds the engine of every net: the executor. Tests swap in
// gorgonia's TapeMachine to hold the executor to it bit for bit.
var newEngine = func(g *G.ExprGraph) (engine, error) { return newExecutor(g) }

func (e *executor) reset() {}
