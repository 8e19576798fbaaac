// Command gocheck is a test helper of the Python package's cross-check
// (python/tests/test_crosscheck.py), not a user command: it reads one norm
// layer's weights and a few training steps (inputs x, upstream gradients g,
// optional padding masks) as JSON on stdin, runs them through normtop's own
// float64 reference kernels (norm.Layer.Forward64/Backward64) and turns the
// layer's taps into probe values with probes.Collector, exactly as normtop's
// trainer does, and prints them as JSON, with each step's y, dx, dγ and dβ
// (python/tests/test_zoo_fidelity.py compares those with PyTorch's).
package main
