package findings

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/normtop/normtop/train"
)

// TestPaperPlan: --scale paper's plan holds claims ii-iv, each run once
// with one argument list; the word LM runs are `--scale paper` runs of
// Plan's four word-LM variants, one per seed, and each costs what the
// trainer's cost model says of one seed of that configuration.
func TestPaperPlan(t *testing.T) {
	if got := IDs(PaperPlan(estimatedCPUMin(t))); !slices.Equal(got, []string{"ii", "iii", "iv"}) {
		t.Errorf("claims %v", got)
	}
	runs, err := RunsOf(PaperPlan(estimatedCPUMin(t)))
	if err != nil {
		t.Fatal(err)
	}
	est := estimate(t)
	paper := 0
	for _, r := range runs {
		if !strings.HasPrefix(r.Name, "paper-wordlm-s") {
			continue
		}
		paper++
		if !slices.Contains(r.Args, "--scale") || !strings.Contains(r.Command(), "--scale paper") ||
			!strings.Contains(r.Command(), "--variants batchnorm:groups=1,pn-v:groups=1,alpha=0.95,layernorm,powernorm") {
			t.Errorf("%s: %s", r.Name, r.Command())
		}
		if want := est.CPUSeconds / 60; math.Abs(r.CPUMin-want) > 1e-9*want || r.CPUMin < 60 {
			t.Errorf("%s: %g CPU-minutes planned, the cost model says %g", r.Name, r.CPUMin, want)
		}
	}
	if paper != 3 {
		t.Errorf("%d paper word-LM runs, want 3 (seeds 1, 2, 3)", paper)
	}
}

// estimate is the trainer's cost model of one paper-size seed (the test
// may link the trainer; the package does not).
func estimate(t *testing.T) train.RunEstimate {
	t.Helper()
	c := train.PaperConfig("sotu")
	c.Variants = PaperWordLMVariants
	est, err := train.EstimateRun(c)
	if err != nil {
		t.Fatal(err)
	}
	return est
}

func estimatedCPUMin(t *testing.T) float64 { return estimate(t).CPUSeconds / 60 }
