// Package probes owns what normtop measures and how it travels: the Frame
// (one per training step per variant), the probe names of spec/NORMS.md §5,
// alerts, shadow statistics, the embedding spectrum, sampling intervals and
// the bounded, downsampled History the dashboard draws from.
//
// It depends on norm (for the layer taps) and nothing else in normtop; tui and
// record depend on probes only.
package probes
