package record

import (
	"bytes"
	"strings"
	"testing"

	"github.com/normtop/normtop/probes"
)

// The relative distances travel like every probe: recorded by name, read
// back, and exported in CSV and JSON Lines under their docs/math.md names.
func TestRelativeDistancesRecordedAndExported(t *testing.T) {
	path := tempRun(t)
	w, err := Create(path, testMeta(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	lv := probes.EmptyLayerValues()
	lv[probes.RdistMu], lv[probes.RdistVar], lv[probes.RdistPsi2] = 0.5, 0.25, 0.125
	if err := w.Write(probes.Frame{Step: 1, TrainLoss: 1, Layers: []probes.LayerValues{lv}, Status: probes.Done}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(End{}); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := r.Next()
	if err != nil || f.Layers[0][probes.RdistVar] != 0.25 || f.Layers[0][probes.RdistPsi2] != 0.125 {
		t.Fatalf("read back %v, %v", f.Layers, err)
	}
	r.Close()
	for _, tc := range []struct {
		export func(*bytes.Buffer, *Reader) error
		want   []string
	}{
		{func(b *bytes.Buffer, r *Reader) error { return ExportCSV(b, r) }, []string{",rdist_mu,0.5,", ",rdist_var,0.25,", ",rdist_psi2,0.125,"}},
		{func(b *bytes.Buffer, r *Reader) error { return ExportJSONL(b, r) }, []string{`"rdist_mu":0.5`, `"rdist_var":0.25`, `"rdist_psi2":0.125`}},
	} {
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := tc.export(&b, r); err != nil {
			t.Fatal(err)
		}
		r.Close()
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("export lacks %q:\n%s", w, b.String())
			}
		}
	}
}
