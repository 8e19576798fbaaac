package report

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// naiveOutliers is the outlier rule written out: for each judged value,
// sort the judged values of the previous 100 steps and compare with 10×
// their median.
func naiveOutliers(vals []float32, steps []int, from int) []int {
	var out []int
	for i := from; i < len(vals); i++ {
		var win []float32
		for j := from; j < i; j++ {
			if steps[j] >= steps[i]-OutlierSteps {
				win = append(win, vals[j])
			}
		}
		if len(win) == 0 {
			continue
		}
		slices.Sort(win)
		if med := sortedMedian(win); med > 0 && float64(vals[i]) > OutlierFactor*med {
			out = append(out, steps[i])
		}
	}
	return out
}

// TestOutlierStepsAgainstNaive: the fast rule (sliding minimum, selection,
// the switch to a sorted window) finds exactly the outliers the rule
// written out finds, on series of every kind: smooth, spiky, heavy-tailed
// (which switch), with zeros, with gaps in the steps, judged from any
// index.
func TestOutlierStepsAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	kinds := []struct {
		name string
		draw func() float32
	}{
		{"smooth", func() float32 { return float32(1 + 0.05*rng.NormFloat64()) }},
		{"spiky", func() float32 {
			return float32(1+0.05*rng.NormFloat64()) * []float32{1, 1, 1, 1, 1, 1, 1, 1, 1, 30}[rng.IntN(10)]
		}},
		{"heavy-tail", func() float32 { return float32(rng.ExpFloat64() * rng.ExpFloat64()) }},
		{"with zeros", func() float32 { return float32(rng.IntN(3)) * float32(rng.IntN(40)) }},
		{"small ints", func() float32 { return float32(rng.IntN(4)) }},
		{"decade wide", func() float32 { return float32(rng.Float64() * 20) }},
	}
	for _, k := range kinds {
		name, draw := k.name, k.draw
		for trial := 0; trial < 4; trial++ {
			n := 200 + rng.IntN(600)
			vals := make([]float32, n)
			stepList := make([]int, n)
			var seq stepSeq
			st := 0
			for i := range vals {
				vals[i] = draw()
				st += 1 + rng.IntN(3)*rng.IntN(2) // gaps now and then
				stepList[i] = st
				seq.add(st)
			}
			from := rng.IntN(n / 4)
			got := outlierSteps(vals, &seq, from)
			want := naiveOutliers(vals, stepList, from)
			if !slices.Equal(got, want) {
				t.Fatalf("%s (trial %d, n %d, from %d): outliers\n%v\nwant\n%v", name, trial, n, from, got, want)
			}
		}
	}
}
