package record

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/normtop/normtop/probes"
)

// spikeLines is a one-variant stream body: gamma_drift 1 at every step, and
// spike at the steps in spikes (ada_frac 0 throughout, 0.5 at adaAt).
func spikeLines(steps int, spikes map[int]float64, adaAt int, extra map[int]string) string {
	var b strings.Builder
	for s := 1; s <= steps; s++ {
		v := 1.0
		if x, ok := spikes[s]; ok {
			v = x
		}
		ada := 0.0
		if s == adaAt {
			ada = 0.5
		}
		fmt.Fprintf(&b, `{"variant":"ln","step":%d,"layers":{"b":{"gamma_drift":%g,"ada_frac":%g}}%s}`+"\n", s, v, ada, extra[s])
	}
	return b.String()
}

const oneVariantHead = `{"normtop_stream":1,"meta":{"RunID":"r","Model":"pytorch:Net","Variants":[{"Name":"ln","Spec":"ln"}],"Layers":["a","b"]}%s}` + "\n"

type alertKey struct {
	kind  probes.AlertKind
	step  int
	layer int
	probe probes.Probe
}

func keysOf(fs []probes.Frame) []alertKey {
	var out []alertKey
	for _, f := range fs {
		for _, a := range f.Alerts {
			out = append(out, alertKey{a.Kind, a.Step, a.Layer, a.Probe})
		}
	}
	return out
}

// TestStreamDerivedAlerts: a stream whose writer computes no alerts gets
// normtop's from the reader (the Collector's rules: warm-up window, 10×
// the running median, one alert per episode); "alerts":"written" turns
// that off; an alert the line carries is not doubled; Seek re-derives the
// same alerts.
func TestStreamDerivedAlerts(t *testing.T) {
	w := probes.OutlierWindow
	written := map[int]string{w + 1: `,"alerts":[{"kind":"outlier","step":` + itoa(w+1) + `,"layer":"b","probe":"gamma_drift","value":50,"threshold":10,"msg":"writer's"}]`}
	outlier := alertKey{probes.AlertOutlier, w + 1, 1, probes.GammaDrift}
	ada := alertKey{probes.AlertAdaNegPhi, 3, 1, probes.AdaFrac}
	cases := []struct {
		name   string
		header string
		body   string
		want   []alertKey
		msg    string // the outlier alert's message starts with this
	}{
		{"derived by default", "", spikeLines(w+5, map[int]float64{w + 1: 50, w + 2: 60}, 3, nil),
			[]alertKey{ada, outlier}, "b gamma_drift = 50"},
		{"derived when the header says so", `,"alerts":"derived"`, spikeLines(w+5, map[int]float64{w + 1: 50}, 3, nil),
			[]alertKey{ada, outlier}, "b gamma_drift = 50"},
		{"warm-up: none before the window is full", "", spikeLines(w, map[int]float64{w: 50}, 0, nil), nil, ""},
		{"written: none derived", `,"alerts":"written"`, spikeLines(w+5, map[int]float64{w + 1: 50}, 3, nil), nil, ""},
		{"a written alert is not doubled", "", spikeLines(w+5, map[int]float64{w + 1: 50}, 3, written),
			[]alertKey{ada, outlier}, "writer's"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Open(writeStream(t, []byte(fmt.Sprintf(oneVariantHead, tc.header)+tc.body)))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			fs := readAllFrames(t, r)
			got := keysOf(fs)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("alerts %v, want %v", got, tc.want)
			}
			for _, f := range fs {
				for _, a := range f.Alerts {
					if a.Kind == probes.AlertOutlier && !strings.HasPrefix(a.Msg, tc.msg) {
						t.Errorf("outlier alert msg %q, want it to start with %q", a.Msg, tc.msg)
					}
				}
			}
			if err := r.Seek(w); err != nil {
				t.Fatal(err)
			}
			var again []alertKey
			for _, k := range keysOf(readAllFrames(t, r)) {
				if k.step >= w {
					again = append(again, k)
				}
			}
			var want []alertKey
			for _, k := range tc.want {
				if k.step >= w {
					want = append(want, k)
				}
			}
			if fmt.Sprint(again) != fmt.Sprint(want) {
				t.Errorf("after Seek(%d): alerts %v, want %v", w, again, want)
			}
		})
	}
}

// TestStreamDerivedAlertsPerVariant: each variant has its own running
// medians, so a spike in one variant is judged against its own history.
func TestStreamDerivedAlertsPerVariant(t *testing.T) {
	var b strings.Builder
	b.WriteString(twoLayerHead)
	w := probes.OutlierWindow
	for s := 1; s <= w+1; s++ {
		ln, bn := 1.0, 100.0 // bn's level is ln's spike: no alert for bn
		if s == w+1 {
			ln = 100
		}
		fmt.Fprintf(&b, `{"variant":"ln","step":%d,"layers":{"a":{"in_std":%g}}}`+"\n", s, ln)
		fmt.Fprintf(&b, `{"variant":"bn","step":%d,"layers":{"a":{"in_std":%g}}}`+"\n", s, bn)
	}
	r, err := Open(writeStream(t, []byte(b.String())))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for _, f := range readAllFrames(t, r) {
		for _, a := range f.Alerts {
			got = append(got, fmt.Sprintf("v%d %v step %d layer %d %v", f.Variant, a.Kind, a.Step, a.Layer, a.Probe))
		}
	}
	want := fmt.Sprintf("[v0 outlier step %d layer 0 in_std]", w+1)
	if fmt.Sprint(got) != want {
		t.Errorf("alerts %v, want %s", got, want)
	}
}

func TestStreamAlertsHeaderValue(t *testing.T) {
	_, err := Open(writeStream(t, []byte(fmt.Sprintf(oneVariantHead, `,"alerts":"sometimes"`))))
	if err == nil || !strings.Contains(err.Error(), `"alerts":"sometimes"`) {
		t.Fatalf("err = %v, want one naming the bad alerts value", err)
	}
	if errors.Is(err, ErrIncompleteHeader) {
		t.Error("a bad header value is not an incomplete header")
	}
}
