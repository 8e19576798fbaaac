package train

import (
	"context"
	"fmt"
	"math"

	"github.com/normtop/normtop/probes"
)

// submitSpectrum hands a float64 copy of the token-embedding matrix to the
// collector, which computes its spectrum on another goroutine.
func (r *Runner) submitSpectrum(v *variant, step int) {
	for k, ws := range r.model.Weights() {
		if ws.Name != "tok_emb" {
			continue
		}
		w := v.weights[k]
		emb := make([]float64, w.Size())
		switch d := w.Data().(type) {
		case []float32:
			for i, x := range d {
				emb[i] = float64(x)
			}
		case []float64:
			copy(emb, d)
		}
		v.coll.SubmitSpectrum(step, emb, ws.Shape[0], ws.Shape[1])
	}
}

// evaluate runs v's eval graph (norm layers in inference mode) over a fixed
// evaluation set: loss as the mean over real predictions, and accuracy
// (images) or bits per character (text).
//
// Cancelling ctx stops it between batches with ctx's error, so a long
// evaluation does not hold up a Ctrl-C.
func (r *Runner) evaluate(ctx context.Context, v *variant, set []evalBatch, split string) (probes.Eval, error) {
	for _, l := range v.layers {
		l.SetTraining(false)
	}
	defer func() {
		for _, l := range v.layers {
			l.SetTraining(true)
		}
	}()
	var sum float64
	var real, hits int
	for _, b := range set {
		if err := ctx.Err(); err != nil {
			return probes.Eval{}, err
		}
		if b.images != nil {
			v.eval.setImages(b.images)
			copy(v.eval.b.targets, b.targets)
		} else {
			if b.layout.Rows > 0 {
				v.eval.setLayout(b.layout)
			}
			v.eval.setTokens(b.tokens, b.targets, b.mask)
		}
		for _, l := range v.layers {
			l.SetMask(b.mask)
		}
		loss, err := v.eval.run()
		if err != nil {
			v.eval.reset()
			return probes.Eval{}, fmt.Errorf("%s evaluation: %w", split, err)
		}
		sum += loss.NLL * float64(b.real)
		real += b.real
		hits += v.eval.correct()
		v.eval.reset()
	}
	e := probes.Eval{Split: split, Loss: sum / float64(real)}
	switch probes.Metric(r.metric()) {
	case probes.MetricAccuracy:
		e.Metric = float64(hits) / float64(real)
	case probes.MetricPerplexity:
		e.Metric = math.Exp(e.Loss)
	default:
		e.Metric = e.Loss / math.Ln2
	}
	return e, nil
}
