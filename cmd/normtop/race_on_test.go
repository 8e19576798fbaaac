//go:build race

package main

// raceOn: the tests' normtop is this test binary (see TestMain), so under
// -race it runs with the race detector's instrumentation, and the few checks
// that read hundreds of MiB through it skip (they run under a plain
// `go test ./cmd/normtop/`).
const raceOn = true
