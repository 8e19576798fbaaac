// Package norm implements the normalization variants of docs/math.md
// (LayerNorm and its Xu et al. 2019 relatives, RMSNorm, BatchNorm, the
// PowerNorm family of Shen et al. 2020, and the norm zoo's GroupNorm and
// InstanceNorm, whose unit of a sample comes from the Site's SampleRows and
// Spatial) exactly, as float64 reference
// kernels over row-major n×d data and as gorgonia ops (float32 and float64)
// built on the same kernels, and it fills the per-step quantities
// (normspec.Taps) that the probes turn into the dashboard's numbers.
//
// A variant is named by a spec string such as "powernorm:alpha_fwd=0.95" that
// normspec.Parse turns into a normspec.Config; NewLayer binds a Config to a Site (the place in
// a model) and Layer.Apply adds the layer to a gorgonia graph, as three
// internal/graphop descriptions (ops.go: the forward, the backward that
// also computes dγ and dβ, and their reads), as nn's ops are. The layer owns
// its γ/β tensors and its running state, so Apply can be called on a training
// graph and on a forward-only evaluation graph that share them. A recurrent
// op (the LSTM's N_h and N_c) uses a per-row layer through Seq instead: the
// same kernels one time step's rows at a time, then one pass over all rows
// for the step counter, the taps and dγ, dβ.
//
// Statistics are accumulated in float64 whatever the tensor dtype, and
// variances are computed in two passes, as the spec demands. On amd64 with
// AVX and FMA the float32 hot loops run in assembly kernels (simd_amd64.s)
// that keep that float64 arithmetic four lanes at a time, because Go does not
// vectorise and a scalar float32→float64 pass costs more than copying the
// batch; `-tags purego` and other architectures run the Go loops.
package norm
