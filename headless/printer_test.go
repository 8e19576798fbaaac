package headless

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/normtop/normtop/probes"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func fixtureMeta() probes.RunMeta {
	return probes.RunMeta{
		RunID:  "20261122-030000-mlp",
		Model:  "mlp",
		Data:   "mnist (GoMNIST)",
		Metric: "accuracy",
		Variants: []probes.VariantMeta{
			{Name: "layernorm", Spec: "layernorm"},
			{Name: "powernorm", Spec: "powernorm:alpha_fwd=0.9"},
		},
		Layers: []string{"fc1.norm", "fc2.norm"},
	}
}

// fixtureFrames is a small run: layernorm runs 7 steps (an outlier at step 3,
// validation at 4, test at the end); powernorm lags behind it and diverges at
// step 5. Frames of the two variants interleave as they do live.
func fixtureFrames() []probes.Frame {
	ln := func(step int) probes.Frame {
		f := probes.Frame{Variant: 0, Step: step, Epoch: float64(step) / 100,
			TrainLoss: 2.5 - 0.25*float64(step), StepsPerSec: 40 + float64(step),
			Elapsed: time.Duration(step) * 250 * time.Millisecond}
		switch step {
		case 3:
			f.Alerts = []probes.Alert{{Kind: probes.AlertOutlier, Step: 3, Layer: 1, Probe: probes.DistMu, Value: 12, Threshold: 1.2}}
		case 4:
			f.Eval = []probes.Eval{{Split: "val", Loss: 1.625, Metric: 0.8125, TrainLoss: 1.875}}
		case 7:
			f.Eval = []probes.Eval{{Split: "val", Loss: 0.875, Metric: 0.9375, TrainLoss: 1.0}, {Split: "test", Loss: 0.9, Metric: 0.93}}
			f.Status = probes.Done
		}
		return f
	}
	pn := func(step int) probes.Frame {
		f := probes.Frame{Variant: 1, Step: step, Epoch: float64(step) / 100,
			TrainLoss: 2.4 - 0.2*float64(step), StepsPerSec: 30,
			Elapsed: time.Duration(step) * 300 * time.Millisecond}
		switch step {
		case 4:
			f.Eval = []probes.Eval{{Split: "val", Loss: 1.75, Metric: 0.75, TrainLoss: 1.9}}
		case 5:
			f.TrainLoss = math.NaN()
			f.Status = probes.Diverged
			f.Alerts = []probes.Alert{{Kind: probes.AlertDivergence, Step: 5, Layer: -1, Probe: probes.NumProbes, Value: math.NaN(), Msg: "diverged at step 5 (last good 4)"}}
		}
		return f
	}
	return []probes.Frame{ln(1), ln(2), ln(3), pn(1), ln(4), pn(2), pn(3), ln(5), pn(4), pn(5), ln(6), ln(7)}
}

func render(t *testing.T, frames []probes.Frame, opt Options) string {
	t.Helper()
	var buf bytes.Buffer
	p := New(&buf, fixtureMeta(), opt)
	for _, f := range frames {
		if err := p.Frame(f); err != nil {
			t.Fatalf("Frame(step %d): %v", f.Step, err)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return buf.String()
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./headless -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s\n--- got\n%s--- want\n%s", path, got, want)
	}
}

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		opt    Options
	}{
		{"every2.txt.golden", Options{Format: Text, Every: 2}},
		{"every1.txt.golden", Options{Format: Text, Every: 1}},
		{"every2.jsonl.golden", Options{Format: JSON, Every: 2}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			checkGolden(t, tc.golden, render(t, fixtureFrames(), tc.opt))
		})
	}
}

// The lines must not depend on how the variants' frames interleave.
func TestInterleavingDoesNotChangeOutput(t *testing.T) {
	var ln, pn []probes.Frame
	for _, f := range fixtureFrames() {
		if f.Variant == 0 {
			ln = append(ln, f)
		} else {
			pn = append(pn, f)
		}
	}
	interleaved := fixtureFrames()
	for _, opt := range []Options{{Format: Text, Every: 2}, {Format: JSON, Every: 3}} {
		want := render(t, interleaved, opt)
		for name, order := range map[string][]probes.Frame{
			"layernorm first": append(append([]probes.Frame{}, ln...), pn...),
			"powernorm first": append(append([]probes.Frame{}, pn...), ln...),
		} {
			if got := render(t, order, opt); got != want {
				t.Errorf("%s, %v every %d:\n%s\nwant\n%s", name, opt.Format, opt.Every, got, want)
			}
		}
	}
}

// A line is held back until the slowest running variant has passed its step.
func TestLineWaitsForSlowestVariant(t *testing.T) {
	var buf bytes.Buffer
	p := New(&buf, fixtureMeta(), Options{Every: 2})
	frames := fixtureFrames()
	lines := func() int { return strings.Count(buf.String(), "\nstep ") }
	for _, f := range frames[:3] { // layernorm steps 1-3
		p.Frame(f)
	}
	if n := lines(); n != 0 {
		t.Fatalf("after layernorm alone: %d step lines, want 0 (powernorm has not reached step 2)\n%s", n, buf.String())
	}
	p.Frame(frames[3]) // powernorm 1
	p.Frame(frames[4]) // layernorm 4
	p.Frame(frames[5]) // powernorm 2
	if n := lines(); n != 1 {
		t.Fatalf("after powernorm step 2: %d step lines, want 1\n%s", n, buf.String())
	}
	if !strings.Contains(buf.String(), "step      2 ") {
		t.Errorf("first line is not step 2:\n%s", buf.String())
	}
}

func TestJSONLinesParse(t *testing.T) {
	out := render(t, fixtureFrames(), Options{Format: JSON, Every: 2})
	var types []string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		types = append(types, obj["type"].(string))
	}
	want := "start step step step step step end"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("line types %q, want %q", got, want)
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(b []byte) (int, error) {
	if w.n <= 0 {
		return 0, errors.New("disk full")
	}
	w.n--
	return len(b), nil
}

func TestWriteErrorIsReturned(t *testing.T) {
	p := New(&failWriter{}, fixtureMeta(), Options{})
	var err error
	for _, f := range fixtureFrames() {
		if e := p.Frame(f); e != nil {
			err = e
		}
	}
	if e := p.Close(); e == nil || err == nil {
		t.Fatalf("Frame error %v, Close error %v; want both to report the failing writer", err, e)
	}
}

func TestFramesOfUnknownVariantsAreIgnored(t *testing.T) {
	var buf bytes.Buffer
	p := New(&buf, fixtureMeta(), Options{})
	if err := p.Frame(probes.Frame{Variant: 7, Step: 1}); err != nil {
		t.Fatal(err)
	}
	if err := p.Frame(probes.Frame{Variant: -1, Step: 1}); err != nil {
		t.Fatal(err)
	}
	p.Close()
	if strings.Contains(buf.String(), "step ") {
		t.Errorf("printed a line for an unknown variant:\n%s", buf.String())
	}
}

func TestParseFormat(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Format
		ok   bool
	}{{"text", Text, true}, {"json", JSON, true}, {"JSON", Text, false}, {"", Text, false}, {"csv", Text, false}} {
		got, err := ParseFormat(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("ParseFormat(%q) = %v, %v", tc.in, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), "text, json") {
			t.Errorf("ParseFormat(%q) error %q does not name the valid formats", tc.in, err)
		}
	}
}

func TestDuplicateVariantNamesUseSpecs(t *testing.T) {
	got := variantLabels([]probes.VariantMeta{
		{Name: "powernorm", Spec: "powernorm"}, {Name: "powernorm", Spec: "powernorm:alpha_fwd=0.95"}, {Name: "rmsnorm", Spec: "rmsnorm"},
	})
	want := []string{"powernorm", "powernorm:alpha_fwd=0.95", "rmsnorm"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("labels %v, want %v", got, want)
	}
}

func TestOutliersAreSummarised(t *testing.T) {
	var buf bytes.Buffer
	p := New(&buf, fixtureMeta(), Options{Every: 1, Layout: LayoutColumns}) // one line: both variants
	out := func(layer int, probe probes.Probe) probes.Alert {
		return probes.Alert{Kind: probes.AlertOutlier, Step: 1, Layer: layer, Probe: probe, Msg: "a long message that text lines leave out"}
	}
	p.Frame(probes.Frame{Variant: 0, Step: 1, TrainLoss: 1, Alerts: []probes.Alert{
		out(0, probes.DistMu), out(0, probes.DistMu), out(1, probes.GVar), out(0, probes.DxVar), out(1, probes.DyVar),
		{Kind: probes.AlertOverfit, Step: 1, Layer: -1, Msg: "val loss rose 3 times"},
	}})
	p.Frame(probes.Frame{Variant: 1, Step: 1, TrainLoss: 1, Alerts: []probes.Alert{out(1, probes.PNNu)}})
	p.Close()
	got := strings.Split(buf.String(), "\n")[1]
	for _, want := range []string{
		"! overfit: val loss rose 3 times ! 5 outliers: fc1.norm dist_mu, fc2.norm g_var, fc1.norm dx_var +1 more |",
		"! 1 outlier: fc2.norm pn_nu",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("line %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "long message") {
		t.Errorf("outlier messages in a text line: %q", got)
	}
}

// The JSON log writes non-finite values by the rule of every normtop JSON
// output (probes.JSONFloat): NaN is null, ±Inf the strings "+Inf"/"-Inf".
func TestJSONNonFiniteValues(t *testing.T) {
	tests := []struct {
		loss float64
		want string
	}{
		{math.Inf(1), `"train_loss":"+Inf"`},
		{math.Inf(-1), `"train_loss":"-Inf"`},
		{math.NaN(), `"train_loss":null`},
		{1.5, `"train_loss":1.5`},
	}
	for _, tt := range tests {
		frames := []probes.Frame{
			{Variant: 0, Step: 1, TrainLoss: tt.loss, Status: probes.Done},
			{Variant: 1, Step: 1, TrainLoss: 1, Status: probes.Done},
		}
		out := render(t, frames, Options{Format: JSON})
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 3 {
			t.Fatalf("loss %v: %d lines, want start, step, end:\n%s", tt.loss, len(lines), out)
		}
		// The step line has the step's loss; the end line the mean of the
		// finite ones (VariantStanding.Train): none here when it is ±Inf.
		endWant := tt.want
		if math.IsInf(tt.loss, 0) {
			endWant = `"train_loss":null`
		}
		for i, want := range map[int]string{1: tt.want, 2: endWant} {
			if !strings.Contains(lines[i], want) {
				t.Errorf("loss %v: line lacks %s:\n%s", tt.loss, want, lines[i])
			}
		}
	}
}
