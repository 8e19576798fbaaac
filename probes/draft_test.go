package probes

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/normtop/normtop/normspec"
)

// Step is the divergence guard: it stops the variant on a non-finite loss,
// gradient or tap, names why, and lets everything finite through.
func TestStepDecidesDivergence(t *testing.T) {
	tests := []struct {
		name        string
		loss        float64
		gradsFinite bool
		badTap      int // index of the layer whose taps are non-finite, -1 none
		want        string
	}{
		{"finite", 1.5, true, -1, ""},
		{"nan loss", math.NaN(), true, -1, "train loss NaN"},
		{"inf loss", math.Inf(1), false, 1, "train loss +Inf"},
		{"gradient", 1.5, false, 1, "non-finite gradient"},
		{"tap", 1.5, true, 1, "non-finite values at norm site b.ln"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCollector(3, []string{"a.ln", "b.ln"}, DefaultIntervals())
			taps := []*normspec.Taps{{Mask: normspec.TapStats}, {Mask: normspec.TapStats}}
			ok := c.Step(TrainStep{Step: 1, Epoch: 0.25, Loss: 2, Taps: taps, GradsFinite: true})
			if ok.Diverged() {
				t.Fatalf("a finite step diverged: %+v", ok.f)
			}
			c.Seal(&ok, Running, time.Second)
			if tt.badTap >= 0 {
				taps[tt.badTap].NonFinite = true
			}
			d := c.Step(TrainStep{Step: 2, Epoch: 0.5, Loss: tt.loss, Taps: taps, GradsFinite: tt.gradsFinite})
			f := c.Seal(&d, Done, 4*time.Second)
			if d.Diverged() != (tt.want != "") {
				t.Fatalf("Diverged() = %v, want %v", d.Diverged(), tt.want != "")
			}
			if tt.want == "" {
				if f.Status != Done || len(f.Alerts) != 0 {
					t.Errorf("finite step: %+v", f)
				}
				return
			}
			if f.Status != Diverged {
				t.Errorf("status %v, want diverged (Seal must not overwrite it)", f.Status)
			}
			var div []Alert
			for _, a := range f.Alerts {
				if a.Kind == AlertDivergence {
					div = append(div, a)
				}
			}
			if len(div) != 1 || !strings.HasSuffix(div[0].Msg, "(last good 1): "+tt.want) {
				t.Errorf("divergence alerts %+v, want one ending in %q", div, tt.want)
			}
		})
	}
}

func TestSealAndStopped(t *testing.T) {
	c := NewCollector(1, []string{"l"}, DefaultIntervals())
	if f := c.Stopped(0, 0); f.Step != 0 || f.Epoch != 0 || f.TrainLoss != 0 || f.Status != Stopped || f.Variant != 1 {
		t.Errorf("stopped before any step: %+v", f)
	}
	d := c.Step(TrainStep{Step: 4, Epoch: 0.5, Loss: 2.5, GradsFinite: true})
	c.AddEval(&d, Eval{Split: "val", Loss: 3})
	f := c.Seal(&d, Running, 2*time.Second)
	if f.Status != Running || f.Elapsed != 2*time.Second || f.StepsPerSec != 2 || len(f.Eval) != 1 || f.Eval[0].TrainLoss != 2.5 {
		t.Errorf("sealed running frame: %+v", f)
	}
	f = c.Stopped(5, 0)
	if f.Step != 5 || f.Epoch != 0.5 || f.TrainLoss != 2.5 || f.Status != Stopped || f.StepsPerSec != 0 {
		t.Errorf("stopped after step 4: %+v", f)
	}
	d = c.Step(TrainStep{Step: 5, Epoch: 0.75, Loss: 2, GradsFinite: true})
	if f := c.Seal(&d, Stopped, time.Second); f.Status != Stopped || f.StepsPerSec != 5 {
		t.Errorf("sealed stopped frame: %+v", f)
	}
}
