//go:build race

package record

// raceBuild leaves out, under -race, the parts of the damage tests that
// only measure (the keyframe policy before this one, for the log): each
// reads a 3,000-frame file 50 times, which took 290 s of a cold
// `go test -race ./...` on a loaded 2-core machine. What they assert runs
// in every build.
const raceBuild = true
