//go:build race

package datasets

// raceOn: the race detector makes the 256 MiB reads of /dev/zero take
// tens of seconds; those tests skip under it (cmd/normtop checks the same
// path with a normal binary).
const raceOn = true
