package report

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/normtop/normtop/probes"
)

func tinyRun(model, data string) fixture {
	m := meta(model, "bpc", []string{"l0"}, []int64{1}, "layernorm")
	m.Config["data"] = data
	return fixture{meta: m, steps: 5, fill: func(f *probes.Frame, _ *rand.Rand) { f.TrainLoss = 1 }}
}

// Files that may not be compared fail with one line naming both.
func TestIncompatibleRuns(t *testing.T) {
	dir := t.TempDir()
	tf := tinyRun("transformer", "opticks").write(t, dir, "tf.ntr")
	tf2 := tinyRun("transformer", "sotu").write(t, dir, "tf2.ntr")
	mlp := tinyRun("mlp", "mnist").write(t, dir, "mlp.ntr")
	cnn := tinyRun("cnn", "mnist").write(t, dir, "cnn.ntr")
	other := tinyRun("transformer", "opticks")
	other.meta.Layers = []string{"l0", "l1"}
	other.meta.Variants[0].Seed = 2
	tfLayers := other.write(t, dir, "layers.ntr")
	for _, tc := range []struct {
		name  string
		paths []string
		want  []string
	}{
		{"mlp next to transformer", []string{tf, mlp}, []string{"tf.ntr", "mlp.ntr", "one model"}},
		{"mlp next to cnn", []string{cnn, mlp}, []string{"cnn.ntr", "mlp.ntr"}},
		{"mlp next to resnet", []string{tinyRun("resnet", "mnist").write(t, dir, "resnet.ntr"), mlp}, []string{"resnet.ntr", "mlp.ntr"}},
		{"different data", []string{tf, tf2}, []string{"different data", "opticks", "sotu"}},
		{"different norm sites", []string{tf, tfLayers}, []string{"different norm sites"}},
		{"a seed twice", []string{tf, tf}, []string{"seed 1", "once"}},
	} {
		_, err := Build(tc.paths)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") {
			t.Errorf("%s: error is not one line: %q", tc.name, msg)
		}
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q lacks %q", tc.name, msg, w)
			}
		}
	}
	if _, err := Build([]string{tf, cnn}); err != nil {
		t.Errorf("cnn next to transformer is PowerNorm's Fig. 2 comparison: %v", err)
	}
}

// Unreadable files fail with record's one-line errors, naming the file.
func TestBadRunFiles(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.ntr")
	os.WriteFile(garbage, []byte(strings.Repeat("not a run file\n", 20)), 0o644)
	empty := filepath.Join(dir, "empty.ntr")
	os.WriteFile(empty, nil, 0o644)
	for _, p := range []string{filepath.Join(dir, "missing.ntr"), garbage, empty, dir} {
		_, err := Read(p)
		if err == nil || !strings.Contains(err.Error(), p) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", p, err)
		}
	}
	// A variant spec the registry does not know (a file from a newer normtop)
	// is summarised without a window, with a note.
	fx := tinyRun("transformer", "x")
	fx.meta.Variants[0] = probes.VariantMeta{Name: "fancynorm", Spec: "fancynorm"}
	p := fx.write(t, dir, "fancy.ntr")
	run, err := Read(p)
	if err != nil || !strings.Contains(run.note(), "fancynorm") || run.Reps[0].Warmup.Steps != 0 {
		t.Errorf("unknown variant: %v, note %q", err, run.note())
	}
}
