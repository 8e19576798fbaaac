package probes

import (
	"math"
	"reflect"
	"testing"
)

func TestStandingsEndStatus(t *testing.T) {
	const (
		R = Running
		D = Diverged
		F = Done
		S = Stopped
		N = Status(255) // sentinel: the variant sends no frame
	)
	for _, tc := range []struct {
		name        string
		last        []Status
		want        string
		allDiverged bool
	}{
		{"all done", []Status{F, F}, RunCompleted, false},
		{"one diverged", []Status{F, D}, RunCompleted, false},
		{"all diverged", []Status{D, D}, RunDiverged, true},
		{"stopped by a signal", []Status{S, S}, RunInterrupted, false},
		{"diverged and stopped", []Status{D, S}, RunInterrupted, false},
		{"still running", []Status{R, F}, RunInterrupted, false},
		{"a variant never reported", []Status{F, N}, RunInterrupted, false},
		{"no variants", nil, RunCompleted, false},
	} {
		tl := NewStandingsSize(len(tc.last), 1)
		for v, s := range tc.last {
			if s != N {
				tl.Fold(&Frame{Variant: v, Step: 3, Status: R})
				tl.Fold(&Frame{Variant: v, Step: 7, Status: s})
			}
		}
		if got := tl.EndStatus(); got != tc.want {
			t.Errorf("%s: EndStatus %q, want %q", tc.name, got, tc.want)
		}
		if got := tl.AllDiverged(); got != tc.allDiverged {
			t.Errorf("%s: AllDiverged %v, want %v", tc.name, got, tc.allDiverged)
		}
		for v, s := range tc.last {
			at, ok := tl.DivergedSteps()[v]
			if ok != (s == D) || (ok && at != 7) {
				t.Errorf("%s: DivergedSteps %v", tc.name, tl.DivergedSteps())
			}
		}
	}
}

func TestStandingsFolds(t *testing.T) {
	m := RunMeta{Variants: []VariantMeta{{Name: "layernorm"}, {Name: "batchnorm"}}, Layers: []string{"a", "b"}}
	tl := NewStandings(m)
	if v := tl.Variants[0]; v.Seen || !math.IsNaN(v.TrainLoss) || v.Val != nil || len(v.Outliers) != 2 {
		t.Fatalf("empty tally: %+v", v)
	}
	tl.Fold(&Frame{Variant: 0, Step: 1, TrainLoss: 2.5, StepsPerSec: 10,
		Eval:   []Eval{{Split: "val", Loss: 2.6, Metric: 0.5}},
		Alerts: []Alert{{Kind: AlertOutlier, Layer: 1}, {Kind: AlertOutlier, Layer: 1}, {Kind: AlertOverfit, Layer: -1}, {Kind: AlertOutlier, Layer: 9}}})
	tl.Fold(&Frame{Variant: 0, Step: 2, TrainLoss: 2.4, StepsPerSec: 12,
		Eval: []Eval{{Split: "val", Loss: 2.5, Metric: 0.6}, {Split: "test", Loss: 2.7, Metric: 0.55}}})
	tl.Fold(&Frame{Variant: 1, Step: 5, TrainLoss: math.Inf(1), Status: Diverged})
	tl.Fold(&Frame{Variant: 1, Step: 6, Status: Diverged})
	tl.Fold(&Frame{Variant: 7, Step: 1}) // unknown variant: ignored
	tl.MarkDiverged(1, 99)               // already known: first step wins
	tl.MarkDiverged(-1, 3)               // out of range: ignored
	v := tl.Variants[0]
	if !v.Seen || v.Step != 2 || v.TrainLoss != 2.4 || v.StepsPerSec != 12 || v.Status != Running || v.Diverged() {
		t.Errorf("variant 0: %+v", v)
	}
	if v.Val == nil || v.Val.Metric != 0.6 || v.Test == nil || v.Test.Metric != 0.55 {
		t.Errorf("variant 0 evals: val %+v test %+v", v.Val, v.Test)
	}
	if v.Outliers[0] != 0 || v.Outliers[1] != 2 || v.Alerts[AlertOutlier] != 3 || v.Alerts[AlertOverfit] != 1 {
		t.Errorf("variant 0 alerts: outliers %v, by kind %v", v.Outliers, v.Alerts)
	}
	if w := tl.Variants[1]; w.DivergedAt != 5 || w.Step != 6 || w.Val != nil {
		t.Errorf("variant 1: %+v", w)
	}
	tl2 := NewStandings(m)
	tl2.MarkDiverged(1, 40)
	if tl2.Variants[1].DivergedAt != 40 {
		t.Errorf("MarkDiverged: %+v", tl2.Variants[1])
	}
}

func TestLabels(t *testing.T) {
	m := RunMeta{Variants: []VariantMeta{
		{Name: "layernorm", Spec: "layernorm"},
		{Name: "powernorm", Spec: "powernorm:alpha_fwd=0.95", Seed: 2},
		{Name: "batchnorm"},
		{Name: "rmsnorm", Seed: -3},
	}, Layers: []string{"block0.ln1"}}
	for i, want := range []string{"layernorm", "powernorm:alpha_fwd=0.95 s2", "batchnorm", "rmsnorm s-3"} {
		if got := m.VariantLabel(i); got != want {
			t.Errorf("VariantLabel(%d) = %q, want %q", i, got, want)
		}
	}
	if got := m.VariantLabel(4); got != "variant4" {
		t.Errorf("out of range: %q", got)
	}
	if m.LayerName(0) != "block0.ln1" || m.LayerName(1) != "layer1" || m.LayerName(-1) != "layer-1" {
		t.Error("LayerName")
	}
}

// Folding a stream in two parts and merging equals folding it whole.
func TestStandingsMerge(t *testing.T) {
	m := RunMeta{Variants: []VariantMeta{{Name: "a"}, {Name: "b"}, {Name: "c"}}, Layers: []string{"l0", "l1"}}
	var frames []Frame
	for s := 1; s <= 10; s++ {
		for v := 0; v < 3; v++ {
			if v == 2 && s > 4 {
				continue // c stops early: it is not seen in the second part
			}
			f := Frame{Variant: v, Step: s, TrainLoss: float64(s*10 + v), StepsPerSec: float64(s)}
			if s%3 == 0 {
				f.Eval = []Eval{{Split: "val", Loss: float64(s)}}
			}
			if s == 9 && v == 0 {
				f.Eval = append(f.Eval, Eval{Split: "test", Loss: 99})
			}
			if s >= 7 && v == 1 {
				f.Status = Diverged
			}
			if s%2 == 0 {
				f.Alerts = []Alert{{Kind: AlertOutlier, Layer: s % 2, Step: s}}
			}
			frames = append(frames, f)
		}
	}
	whole := NewStandings(m)
	for i := range frames {
		whole.Fold(&frames[i])
	}
	for cut := 0; cut <= len(frames); cut += 5 {
		a, b := NewStandings(m), NewStandings(m)
		for i := range frames[:cut] {
			a.Fold(&frames[i])
		}
		for i := range frames[cut:] {
			b.Fold(&frames[cut+i])
		}
		a.Merge(b)
		for v := range whole.Variants {
			w, g := whole.Variants[v], a.Variants[v]
			if w.Seen != g.Seen || w.Step != g.Step || w.Status != g.Status || w.DivergedAt != g.DivergedAt ||
				w.TrainLoss != g.TrainLoss || w.Alerts != g.Alerts || w.Outliers[0] != g.Outliers[0] ||
				(w.Val == nil) != (g.Val == nil) || (w.Val != nil && *w.Val != *g.Val) || (w.Test == nil) != (g.Test == nil) {
				t.Errorf("cut %d, variant %d: merged %+v, whole %+v", cut, v, g, w)
			}
		}
	}
}

// The end record keeps the newest evaluation of every split, in the order
// the splits first came, whatever their names.
func TestStandingsFinalEvals(t *testing.T) {
	tl := NewStandingsSize(3, 0)
	tl.Fold(&Frame{Variant: 0, Step: 1, Eval: []Eval{{Split: "test", Loss: 1}, {Split: "heldout", Loss: 2}}})
	tl.Fold(&Frame{Variant: 0, Step: 2, Eval: []Eval{{Split: "val", Loss: 3}, {Split: "test", Loss: 4}}})
	tl.Fold(&Frame{Variant: 2, Step: 2})
	later := NewStandingsSize(3, 0)
	later.Fold(&Frame{Variant: 0, Step: 3, Eval: []Eval{{Split: "heldout", Loss: 5}}})
	later.Fold(&Frame{Variant: 1, Step: 3, Eval: []Eval{{Split: "val", Loss: 6}}})
	tl.Merge(later)
	got := tl.FinalEvals()
	want := map[int][]Eval{
		0: {{Split: "test", Loss: 4}, {Split: "heldout", Loss: 5}, {Split: "val", Loss: 3}},
		1: {{Split: "val", Loss: 6}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FinalEvals %+v, want %+v", got, want)
	}
	if v := tl.Variants[0]; v.Val == nil || v.Val.Loss != 3 || v.Test == nil || v.Test.Loss != 4 {
		t.Errorf("val %+v test %+v", v.Val, v.Test)
	}
	got[0][0].Loss = 99
	if tl.Variants[0].Evals[0].Loss != 4 {
		t.Error("FinalEvals shares its slices with the tally")
	}
}

// Train is the one "train loss" of every output: the mean over the window
// up to the newest val evaluation (the one its gap used), so val loss −
// Train = gap; the open window before the first evaluation; and a run read
// in two parts (Merge) stands where the whole run folded at once does.
func TestStandingsTrainWindow(t *testing.T) {
	frame := func(step int, loss float64, val ...float64) Frame {
		f := Frame{Step: step, TrainLoss: loss, Status: Running}
		if len(val) == 2 {
			f.Eval = []Eval{{Split: "val", Loss: val[0], TrainLoss: val[1]}}
		}
		return f
	}
	nan := math.NaN()
	for _, tc := range []struct {
		name     string
		frames   []Frame
		train    float64
		from, to int
		window   string
	}{
		{"no frames", nil, nan, 0, 0, ""},
		{"open window: mean so far", []Frame{frame(1, 4), frame(2, 2)}, 3, 1, 2, "mean of steps 1–2"},
		{"NaN losses are not averaged", []Frame{frame(1, 4), frame(2, nan), frame(3, 2)}, 3, 1, 3, "mean of steps 1–3"},
		{"one step", []Frame{frame(7, 5)}, 5, 7, 7, "step 7"},
		{"a val evaluation closes the window with its own mean",
			[]Frame{frame(1, 4), frame(2, 2, 3.5, 2.9)}, 2.9, 1, 2, "mean of steps 1–2"},
		{"steps after the evaluation do not move it",
			[]Frame{frame(1, 4), frame(2, 2, 3.5, 3), frame(3, 0.1), frame(4, 0.2)}, 3, 1, 2, "mean of steps 1–2"},
		{"the next evaluation closes the next window",
			[]Frame{frame(1, 4), frame(2, 2, 3.5, 3), frame(3, 1), frame(4, 2, 3.4, 1.5)}, 1.5, 3, 4, "mean of steps 3–4"},
		{"an evaluation without a train mean takes the window's",
			[]Frame{frame(1, 4), frame(2, 2, 3.5, nan)}, 3, 1, 2, "mean of steps 1–2"},
	} {
		whole := NewStandingsSize(1, 0)
		for i := range tc.frames {
			whole.Fold(&tc.frames[i])
		}
		v := &whole.Variants[0]
		if !sameFloat(v.Train, tc.train) || (!math.IsNaN(tc.train) && (v.TrainFrom != tc.from || v.TrainTo != tc.to)) || v.TrainWindow() != tc.window {
			t.Errorf("%s: Train %v over %d–%d (%q), want %v over %d–%d (%q)", tc.name, v.Train, v.TrainFrom, v.TrainTo, v.TrainWindow(), tc.train, tc.from, tc.to, tc.window)
		}
		if v.Val != nil && !math.IsNaN(v.Val.TrainLoss) && v.Val.Loss-v.Train != v.Val.Gap() {
			t.Errorf("%s: val loss %v − train %v ≠ gap %v", tc.name, v.Val.Loss, v.Train, v.Val.Gap())
		}
		for cut := 0; cut <= len(tc.frames); cut++ {
			a, b := NewStandingsSize(1, 0), NewStandingsSize(1, 0)
			for i := range tc.frames {
				if i < cut {
					a.Fold(&tc.frames[i])
				} else {
					b.Fold(&tc.frames[i])
				}
			}
			a.Merge(b)
			m := &a.Variants[0]
			if !sameFloat(m.Train, v.Train) || m.TrainFrom != v.TrainFrom || m.TrainTo != v.TrainTo {
				t.Errorf("%s, merged at %d: Train %v over %d–%d, folded whole %v over %d–%d", tc.name, cut, m.Train, m.TrainFrom, m.TrainTo, v.Train, v.TrainFrom, v.TrainTo)
			}
		}
	}
}
