package record

import (
	"reflect"
	"slices"
	"testing"

	"github.com/normtop/normtop/probes"
)

// TestProbesTypesCovered fails when probes adds a field to a type the run
// file stores, so the codec (codec.go, eval.go) and docs/formats.md are extended
// in step (codec_batch.go for the batch shape, codec_hist.go for the input histograms). RunMeta is stored as JSON and needs no entry here. Frame.System
// is not stored, on purpose: it is a stream writer's report of its own
// process (docs/formats.md "system"), which only a stream carries; normtop's
// trainer writes run files and records no process facts (its dashboard
// measures them live).
func TestProbesTypesCovered(t *testing.T) {
	for _, tc := range []struct {
		typ    any
		stored []string
	}{
		{probes.Frame{}, []string{"Variant", "Step", "Epoch", "TrainLoss", "Layers", "Eval", "Spectrum", "Alerts", "Status", "Batch", "Hists", "Elapsed", "StepsPerSec", "System"}},
		{probes.BatchShape{}, []string{"Rows", "Width", "Tokens"}},
		{probes.Histogram{}, []string{"Layer", "Mean", "Std", "Under", "Counts", "Over", "NaN"}},
		{probes.Eval{}, []string{"Split", "Loss", "Metric", "TrainLoss"}},
		{probes.Spectrum{}, []string{"Step", "Sigma", "EffRank"}},
		{probes.Alert{}, []string{"Kind", "Step", "Layer", "Probe", "Value", "Threshold", "Msg"}},
	} {
		rt := reflect.TypeOf(tc.typ)
		var got []string
		for i := 0; i < rt.NumField(); i++ {
			got = append(got, rt.Field(i).Name)
		}
		if !slices.Equal(got, tc.stored) {
			t.Errorf("probes.%s has fields %v; the run file stores %v: extend record/codec.go and docs/formats.md", rt.Name(), got, tc.stored)
		}
	}
	if probes.NumProbes > maxRegistryProbes {
		t.Errorf("%d probes do not fit the %d-bit presence bitmap", probes.NumProbes, maxRegistryProbes)
	}
}
