package probes

import (
	"reflect"
	"testing"
)

// TestStandingsCopyTo: a copy equals its source, keeps its own element
// addresses, and does not change when the source folds more Frames (the
// slices a Fold changes in place are copied, not shared).
func TestStandingsCopyTo(t *testing.T) {
	m := RunMeta{Metric: string(MetricAccuracy), Layers: []string{"a", "b"},
		Variants: []VariantMeta{{Name: "layernorm"}, {Name: "batchnorm"}}}
	src, dst := NewStandings(m), NewStandings(m)
	first := &dst.Variants[1]
	fold := func(v, step int, acc float64, alerts ...Alert) {
		f := Frame{Variant: v, Step: step, TrainLoss: 1 / float64(step), Alerts: alerts,
			Eval: []Eval{{Split: "val", Loss: 1, Metric: acc}, {Split: "test", Loss: 1, Metric: acc}}}
		src.Fold(&f)
	}
	fold(0, 1, 0.5)
	fold(1, 1, 0.6, Alert{Kind: AlertOutlier, Layer: 1, Step: 1})
	src.CopyTo(dst)
	if !reflect.DeepEqual(src, dst) {
		t.Fatalf("copy differs:\n%+v\n%+v", src.Variants, dst.Variants)
	}
	if &dst.Variants[1] != first {
		t.Errorf("CopyTo replaced dst's Variants slice; consumers' pointers into it go stale")
	}
	before := *dst.Variants[1].Val
	evals := append([]Eval(nil), dst.Variants[1].Evals...)
	fold(1, 2, 0.7, Alert{Kind: AlertOutlier, Layer: 1, Step: 2})
	v := dst.Variants[1]
	if v.Step != 1 || v.Outliers[1] != 1 || *v.Val != before || !reflect.DeepEqual(v.Evals, evals) {
		t.Errorf("the copy changed with its source: step %d, outliers %v, val %+v, evals %+v", v.Step, v.Outliers, *v.Val, v.Evals)
	}
	src.CopyTo(dst)
	if !reflect.DeepEqual(src, dst) || dst.Variants[1].Best != 0.7 {
		t.Errorf("second copy differs: %+v", dst.Variants[1])
	}
}
