package train

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/normtop/normtop/probes"
)

// rssSizes are the word LMs whose peak RSS TestMemoryEstimateAgainstRSS
// measures: the default run's size, a middle one, and the PowerNorm
// authors' (PaperConfig's model).
var rssSizes = []struct{ d, layers, ffn, maxTokens int }{
	{64, 2, 0, 1024},
	{256, 4, 0, 2048},
	{512, 6, 1024, 4096},
}

// rssConfig is one size of rssSizes as a one-step run of the word preset
// (its four variants), with small evaluation sets: the eval graph is built
// at its full size whatever the set's size.
func rssConfig(d, layers, ffn, maxTokens int) Config {
	c := WordConfig("sotu")
	c.DModel, c.Layers, c.FFN, c.MaxTokens = d, layers, ffn, maxTokens
	c.Steps, c.EvalEvery, c.EvalSize, c.TestSize = 1, 1000, 32, 32
	c.Probes = probes.Intervals{}
	return c
}

// TestMemoryEstimateAgainstRSS holds the memory estimate against the peak
// RSS of real runs, one child process per size (a process's peak RSS only
// grows), and prints the CPU time beside the cost model's estimate. Slow
// (minutes) and reads the sotu corpus, so it runs only with
// NORMTOP_RSS_CHECK=1: scripts/memory-check.sh.
func TestMemoryEstimateAgainstRSS(t *testing.T) {
	if os.Getenv("NORMTOP_RSS_CHECK") == "" {
		t.Skip("set NORMTOP_RSS_CHECK=1 (scripts/memory-check.sh) to train the three sizes")
	}
	for _, s := range rssSizes {
		arg := fmt.Sprintf("%d,%d,%d,%d", s.d, s.layers, s.ffn, s.maxTokens)
		cmd := exec.Command(os.Args[0], "-test.run=^TestRSSChild$", "-test.v")
		cmd.Env = append(os.Environ(), "NORMTOP_RSS_CHILD="+arg)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("size %s: %v\n%s", arg, err, out)
		}
		var est, rss, cpu, cpuEst float64
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(line, "RSS ") {
				if _, err := fmt.Sscanf(line, "RSS %g %g %g %g", &est, &rss, &cpu, &cpuEst); err != nil {
					t.Fatalf("size %s: %q: %v", arg, line, err)
				}
			}
		}
		if rss == 0 {
			t.Fatalf("size %s: no RSS line in\n%s", arg, out)
		}
		ratio := est / rss
		t.Logf("d %d, %d layers, ffn %d, max-tokens %d: estimate %s, peak RSS %s (estimate/RSS %.2f); CPU %.1f s, cost model %.1f s (%.2f)",
			s.d, s.layers, s.ffn, s.maxTokens, bytesString(est), bytesString(rss), ratio, cpu, cpuEst, cpuEst/cpu)
		if ratio < 0.5 || ratio > 2 {
			t.Errorf("d %d: estimate %s against a peak RSS of %s: not within 2×", s.d, bytesString(est), bytesString(rss))
		}
	}
}

// TestRSSChild is one size of TestMemoryEstimateAgainstRSS, in its own
// process: it prints the estimate, the peak RSS and the CPU time of the
// whole process, and the cost model's CPU time.
func TestRSSChild(t *testing.T) {
	arg := os.Getenv("NORMTOP_RSS_CHILD")
	if arg == "" {
		t.Skip("run by TestMemoryEstimateAgainstRSS")
	}
	var v [4]int
	for i, f := range strings.Split(arg, ",") {
		n, err := strconv.Atoi(f)
		if err != nil || i >= len(v) {
			t.Fatalf("NORMTOP_RSS_CHILD %q", arg)
		}
		v[i] = n
	}
	c := rssConfig(v[0], v[1], v[2], v[3])
	est, err := EstimateRun(c)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRunner(c)
	if err != nil {
		t.Fatal(err)
	}
	before := cpuSeconds(t)
	start := time.Now()
	if err := r.Run(context.Background(), func(probes.Frame) {}); err != nil {
		t.Fatal(err)
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	cpu := cpuSeconds(t) - before
	t.Logf("run: %s wall", time.Since(start).Round(time.Millisecond))
	fmt.Printf("RSS %g %g %g %g\n", est.MemBytes, float64(ru.Maxrss)*1024, cpu, est.CPUSeconds)
}

func cpuSeconds(t *testing.T) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
