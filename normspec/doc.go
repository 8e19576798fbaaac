// Package normspec describes a normalization variant as data: its kind and
// options (Config, parsed from a spec such as "powernorm:alpha_fwd=0.95"),
// the registry that `normtop variants` prints, the warm-up window of its
// running statistics, and the Taps a layer of the variant fills on every step.
//
// It is split from package norm, which implements the variants as gorgonia
// ops, so that the consumers of a run (probes, tui, record, headless, report)
// know the vocabulary without linking gorgonia; deps_test.go holds them to it.
package normspec
