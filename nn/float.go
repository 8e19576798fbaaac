package nn

import "github.com/normtop/normtop/internal/graphop"

// Float is the element type of every tensor the trainer touches: graphop's
// constraint, which the kernels of nn (and train) are written over.
type Float = graphop.Float
