package train

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gorgonia.org/tensor"
)

// TestSitesSampleRows: a sequence model's sites hold one sequence of
// seq-len rows per sample (the rows are sample-major: encode gives row i
// position i mod seq), the image models' fc sites one row per sample.
func TestSitesSampleRows(t *testing.T) {
	for _, c := range []struct {
		m    model
		rows int
	}{
		{newTransformer(10, 16, 2, 2, 12, PlacePre), 12},
		{newTransformer(10, 16, 2, 2, 12, PlacePost), 12},
		{newTransformer(10, 16, 2, 2, 12, PlaceSandwich), 12},
		{newClassifier(10, 2, 16, 1, 2, 9, PlacePre), 9},
		{newMLP(64, 10), 1},
		{newCNN(28, 28, 10), 1},
	} {
		for _, s := range c.m.Sites() {
			if s.SampleRows != c.rows || s.Spatial {
				t.Errorf("%s site %s: SampleRows %d, Spatial %v; want %d, false", c.m.Name(), s.Name, s.SampleRows, s.Spatial, c.rows)
			}
			if ns := normSite(s, 0, tensor.Float64); ns.SampleRows != s.SampleRows || ns.Spatial != s.Spatial {
				t.Errorf("%s: normSite drops the unit fields: %+v", s.Name, ns)
			}
		}
	}
}

// TestVariantMisfitsModel: a variant that cannot sit at a model's sites is
// a *VariantError naming the site (the command turns it into a usage
// error, exit 2), found before any weight is built.
func TestVariantMisfitsModel(t *testing.T) {
	mlp := MNISTConfig("mlp")
	mlp.DataPath = writeIDXSet(t, 36, 2, 8, 8)
	cnn := mlp
	cnn.Model = "cnn"
	tr := tinyTransformer()
	for _, c := range []struct {
		cfg     Config
		variant string
		wantIn  string
	}{
		{mlp, "instancenorm", "model mlp: norm: fc1: instancenorm normalises each feature over a sample's positions, and this site has one position per sample"},
		{cnn, "instancenorm", "model cnn: norm: fc1: instancenorm"},
		{cnn, "groupnorm:groups=7", "model cnn: norm: fc1: groupnorm: groups=7 does not divide d=500 channels"},
		{tr, "groupnorm:groups=3", "model transformer: norm: block0.ln1: groupnorm: groups=3 does not divide d=16"},
	} {
		c.cfg.Variants = []string{"layernorm", c.variant}
		_, err := NewRunner(c.cfg)
		var ve *VariantError
		if !errors.As(err, &ve) || ve.Spec != c.variant || !strings.Contains(err.Error(), c.wantIn) {
			t.Errorf("%s with %s: %v, want a VariantError containing %q", c.cfg.Model, c.variant, err, c.wantIn)
		}
	}
}

// TestZooTrains: groupnorm and instancenorm train in the transformer
// (finite losses that go down), and groupnorm in the cnn.
func TestZooTrains(t *testing.T) {
	tr := tinyTransformer()
	tr.Variants = []string{"groupnorm:groups=4", "instancenorm"}
	cnn := MNISTConfig("cnn")
	cnn.DataPath = writeIDXSet(t, 36, 2, 28, 28)
	cnn.Variants, cnn.Steps, cnn.Batch, cnn.EvalEvery, cnn.EvalSize = []string{"groupnorm:groups=4"}, 3, 4, 3, 3
	for _, c := range []Config{tr, cnn} {
		t.Run(string(c.Model), func(t *testing.T) {
			r, err := NewRunner(c)
			if err != nil {
				t.Fatal(err)
			}
			for i, fs := range collect(t, t.Context(), r, nil) {
				if len(fs) != c.Steps {
					t.Fatalf("variant %d: %d frames, want %d", i, len(fs), c.Steps)
				}
				for _, f := range fs {
					if math.IsNaN(f.TrainLoss) || math.IsInf(f.TrainLoss, 0) {
						t.Fatalf("variant %d step %d: loss %v", i, f.Step, f.TrainLoss)
					}
				}
				if c.Model == "transformer" && !(fs[len(fs)-1].TrainLoss < fs[0].TrainLoss) {
					t.Errorf("variant %d: loss %v → %v does not go down", i, fs[0].TrainLoss, fs[len(fs)-1].TrainLoss)
				}
			}
		})
	}
}
