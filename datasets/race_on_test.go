//go:build race

package datasets

// raceOn: the race detector makes the 256 MiB reads of /dev/zero take
// tens of seconds, and the real data sets' reads minutes; those tests skip
// under it (cmd/normtop checks the same paths with a normal binary, and
// CI runs `go test ./datasets/` without -race).
const raceOn = true
