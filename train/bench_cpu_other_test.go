//go:build !unix

package train

import "time"

// cpuTime is 0 where the process's CPU time is not read: the benchmarks'
// cpu-ms/step is then 0.
func cpuTime() time.Duration { return 0 }
