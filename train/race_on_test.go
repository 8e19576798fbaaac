//go:build race

package train

// raceBuild shrinks the long training tests under -race (which slows the
// pure-Go kernels ~10×) so `go test -race ./...` stays within minutes;
// the full-size learning tests run in a plain `go test ./train/`.
const raceBuild = true
