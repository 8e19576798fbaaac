// Package train is normtop's embedded trainer: the models (mlp, cnn,
// transformer), the gorgonia ops gorgonia itself gets wrong or makes slow
// (dropout, fused softmax cross-entropy, embedding lookup, causal
// self-attention, bias add), Adam with warmup and inverse-sqrt decay, and
// the side-by-side Runner that trains one copy of the model per
// normalization variant and turns every step into a probes.Frame.
//
// Every op here has a finite-difference test (ops_test.go); so does every
// gorgonia built-in the models rely on.
package train

import _ "go4.org/unsafe/assume-no-moving-gc" // gorgonia panics at start on Go ≥1.22 without it
