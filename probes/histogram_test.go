package probes

import (
	"math"
	"strings"
	"testing"
)

// TestHistLayoutCheck: the bins a reader accepts, and the reason for each
// it does not.
func TestHistLayoutCheck(t *testing.T) {
	for _, tc := range []struct {
		l    HistLayout
		want string // "" accepted
	}{
		{HistLayout{Bins: 48, Lo: -6, Hi: 6, Unit: HistUnitStd}, ""},
		{HistLayout{Bins: 2, Lo: -1, Hi: 3, Unit: HistUnitStd}, ""},
		{HistLayout{Bins: MaxHistBins, Lo: -6, Hi: 6, Unit: HistUnitStd}, ""},
		{HistLayout{Bins: 1, Lo: -6, Hi: 6, Unit: HistUnitStd}, "1 bins"},
		{HistLayout{Bins: MaxHistBins + 1, Lo: -6, Hi: 6, Unit: HistUnitStd}, "1025 bins"},
		{HistLayout{Bins: 4, Lo: 6, Hi: 6, Unit: HistUnitStd}, "not a finite interval"},
		{HistLayout{Bins: 4, Lo: math.NaN(), Hi: 6, Unit: HistUnitStd}, "not a finite interval"},
		{HistLayout{Bins: 4, Lo: -6, Hi: math.Inf(1), Unit: HistUnitStd}, "not a finite interval"},
		{HistLayout{Bins: 4, Lo: -6, Hi: 6, Unit: ""}, `unit ""`},
	} {
		err := tc.l.Check()
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.l, err, tc.want)
		}
	}
	l := HistLayout{Bins: 48, Lo: -6, Hi: 6, Unit: HistUnitStd}
	if l.Edge(0) != -6 || l.Edge(24) != 0 || l.Edge(48) != 6 || l.Edge(1) != -5.75 {
		t.Errorf("edges %v %v %v %v", l.Edge(0), l.Edge(1), l.Edge(24), l.Edge(48))
	}
}

// TestCheckHists: a frame's histograms against its run, table-driven.
func TestCheckHists(t *testing.T) {
	l := &HistLayout{Bins: 3, Lo: -6, Hi: 6, Unit: HistUnitStd}
	h := func(layer int, counts ...int) Histogram {
		return Histogram{Layer: layer, Mean: 1, Std: 2, Counts: counts}
	}
	nan := h(1, 0, 0, 0)
	nan.Mean, nan.Std, nan.NaN = math.NaN(), math.NaN(), 5
	for _, tc := range []struct {
		name   string
		hs     []Histogram
		layout *HistLayout
		want   string
	}{
		{"none", nil, nil, ""},
		{"two layers", []Histogram{h(0, 1, 2, 3), h(2, 0, 0, 1)}, l, ""},
		{"no finite entry", []Histogram{nan}, l, ""},
		{"no bins declared", []Histogram{h(0, 1, 2, 3)}, nil, "declares no histogram bins"},
		{"bin count", []Histogram{h(0, 1, 2)}, l, "2 counts; the run's histograms have 3 bins"},
		{"negative", []Histogram{h(0, 1, -2, 3)}, l, "bin 1 has count -2"},
		{"over 2^53", []Histogram{h(0, 1, MaxHistCount+1, 3)}, l, "over 2^53"},
		{"layer", []Histogram{h(3, 1, 2, 3)}, l, "layer 3; the run has 3"},
		{"order", []Histogram{h(2, 1, 2, 3), h(1, 1, 2, 3)}, l, "ascending"},
		{"twice", []Histogram{h(1, 1, 2, 3), h(1, 1, 2, 3)}, l, "ascending"},
	} {
		err := CheckHists(tc.hs, tc.layout, 3)
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	x := Histogram{Under: 2, Over: 3, NaN: 4, Counts: []int{5, 6}}
	if x.Total() != 20 {
		t.Errorf("total %d, want 20", x.Total())
	}
}
