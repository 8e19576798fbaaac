package headless

import (
	"bytes"
	"testing"

	"github.com/normtop/normtop/probes"
)

// TestSharedStandings: a Printer drawing on standings its caller folds (a
// live run: the writer folds each Frame first) prints exactly what a Printer
// folding the Frames itself prints, in every format, and never folds a Frame
// a second time (the caller's standings hold each Frame once).
func TestSharedStandings(t *testing.T) {
	for _, opt := range []Options{{Format: Text, Every: 2}, {Format: Text, Every: 1, Layout: LayoutRows}, {Format: JSON, Every: 2}} {
		want := render(t, fixtureFrames(), opt)
		shared, alone := probes.NewStandings(fixtureMeta()), probes.NewStandings(fixtureMeta())
		var buf bytes.Buffer
		opt.Standings = shared
		p := New(&buf, fixtureMeta(), opt)
		for _, f := range fixtureFrames() {
			shared.Fold(&f)
			alone.Fold(&f)
			if err := p.Frame(f); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if got := buf.String(); got != want {
			t.Errorf("format %v: with the caller's standings\n%s\nalone\n%s", opt.Format, got, want)
		}
		for v := range shared.Variants {
			if s, a := shared.Variants[v], alone.Variants[v]; s.Step != a.Step || s.Alerts != a.Alerts {
				t.Errorf("variant %d: the printer folded into the caller's standings: step %d, alerts %d; want %d, %d",
					v, s.Step, s.Alerts, a.Step, a.Alerts)
			}
		}
	}
}
