package train

import (
	"fmt"

	"github.com/normtop/normtop/norm"
	"github.com/normtop/normtop/normspec"
	"gorgonia.org/tensor"
)

// normSite is the norm layer's view of a model site.
func normSite(s site, warmup int, dt tensor.Dtype) norm.Site {
	return norm.Site{Name: s.Name, D: s.D, Heads: s.Heads, Warmup: warmup, Dtype: dt,
		SampleRows: s.SampleRows, Spatial: s.Spatial}
}

// checkSites builds every variant's layer at every site of m once, before
// any weight is allocated, so that a variant that does not fit the model
// (groupnorm's groups not dividing d, instancenorm where a sample has one
// row, powernorm's groups not dividing d) is a *VariantError: a usage
// error that names the site, not a failure halfway through building.
func checkSites(cfg Config, specs []normspec.Config, m model, dt tensor.Dtype) error {
	for i, spec := range specs {
		for _, s := range m.Sites() {
			if _, err := norm.NewLayer(spec, normSite(s, cfg.Warmup, dt)); err != nil {
				return &VariantError{Spec: cfg.Variants[i], Err: fmt.Errorf("model %s: %w", m.Name(), err)}
			}
		}
	}
	return nil
}
