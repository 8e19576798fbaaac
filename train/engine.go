package train

import (
	"github.com/normtop/normtop/nn"
	G "gorgonia.org/gorgonia"
)

// engine runs a net's graph: Run computes every node once, Value reads a
// node's output of the last run, Reset ends the run (after the trainer
// has read the outputs it needs).
type engine interface {
	Run() error
	Value(n *G.Node) G.Value
	Reset()
}

// newEngine builds the engine of every net: nn's executor. Tests swap in
// gorgonia's TapeMachine to hold the executor to it bit for bit.
var newEngine = func(g *G.ExprGraph) (engine, error) { return nn.NewExecutor(g) }
