package probes

import (
	"fmt"
	"math"
	"strconv"
)

// Header keys by which a run that is not normtop's own (a PyTorch stream,
// python/normtop) says what each layer is: its kind and, for a layer that
// keeps running statistics, their own EMA rate. normtop's own runs name the
// variant's spec instead, which says the same for all of a variant's layers.
const (
	layerKindKey     = "layer.%s.kind"
	layerMomentumKey = "layer.%s.momentum"
	// CumulativeMomentum is what a stream says of PyTorch's momentum=None (a
	// cumulative average, no fixed rate): no window can be derived from it.
	CumulativeMomentum = "cumulative"
)

// EmbeddingWidth is d of the embedding matrix whose spectrum the run
// records: the model width of normtop's own runs (d_model), or what a
// PyTorch stream's header says (embedding_d); 0 when neither says.
func (m RunMeta) EmbeddingWidth() int {
	for _, k := range []string{"d_model", "embedding_d"} {
		if d, err := strconv.Atoi(m.Config[k]); err == nil && d > 0 {
			return d
		}
	}
	return 0
}

// LayerKind is what the run header says of a layer's kind ("batchnorm",
// "layernorm", "groupnorm", "rmsnorm"), or "" when it says nothing (every
// run of normtop's own trainer: there the variant spec says it).
func (m RunMeta) LayerKind(layer string) string {
	return m.Config[fmt.Sprintf(layerKindKey, layer)]
}

// LayerWarmup is docs/math.md §5's warm-up window of one layer of variant v.
// A layer the header describes (a PyTorch stream's BatchNorm with its own
// momentum, PyTorch's default 0.1) takes the window of that rate; any other
// layer the window of the variant's spec (WarmupOf), as every layer of
// normtop's own runs does. ok is false when neither says (a spec this
// normtop cannot parse, a momentum it cannot read): no window, and a note.
func (m RunMeta) LayerWarmup(v int, layer string) (w Warmup, ok bool) {
	switch m.LayerKind(layer) {
	case "":
	case "batchnorm":
		s := m.Config[fmt.Sprintf(layerMomentumKey, layer)]
		rate, err := strconv.ParseFloat(s, 64)
		if err != nil || !(rate > 0) || rate > 1 {
			return Warmup{}, false
		}
		return Warmup{Steps: int(math.Ceil(3/rate - 1e-9)), Rate: rate, Probes: runningMeanVarProbes}, true
	default: // a layer the header says keeps no running statistics
		return Warmup{}, true
	}
	if v < 0 || v >= len(m.Variants) {
		return Warmup{}, false
	}
	w, err := WarmupOf(m.Variants[v].Group())
	return w, err == nil
}
