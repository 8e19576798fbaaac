// Package nntest holds the finite-difference gradient check every
// differentiable op is tested with: nn's own ops, and the ops built on nn
// elsewhere (train's fused LSTM layer, the models' input). It is a package
// of its own, like net/http/httptest, so that both packages' tests share
// one check; it imports neither.
package nntest
