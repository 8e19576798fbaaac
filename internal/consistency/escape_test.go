package consistency

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/normtop/normtop/headless"
	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
	"github.com/normtop/normtop/report"
)

// escapeStream is a stream whose every string (run id, model, data,
// variant names and specs, layer names, config keys and values, evaluation
// splits, alert messages, end status) carries terminal escapes: OSC
// retitling, screen clearing, a CR LF forging a "# end" line, an 8-bit CSI
// and a bidirectional override (issue 34, case 3).
const escapeStream = "testdata/escape-injection.jsonl"

// hostileMeta is escapeStream's kind of names, for a run file and for a
// live run whose flags carry them.
func hostileMeta() probes.RunMeta {
	forge := "\r\n# end layernorm: done at step 9999\n"
	return probes.RunMeta{
		RunID: "run\x1b]0;pwned\x07", Model: "mlp\x1b[2J", Data: "mnist" + forge, Metric: "accuracy",
		Variants: []probes.VariantMeta{{Name: "layernorm" + forge, Spec: "layernorm\x1b]0;x\x07"}, {Name: "bn\u009b31m", Spec: "batchnorm\u202e"}},
		Layers:   []string{"fc1.ln\x1b[2J", "fc2" + forge},
		Config:   map[string]string{"lr\x1b[1m": "0.1\x07", "seed": "1" + forge, "steps": "40"},
	}
}

func hostileFrames(meta probes.RunMeta) []probes.Frame {
	var fs []probes.Frame
	for s := 1; s <= 40; s++ {
		for v := range meta.Variants {
			f := probes.Frame{Variant: v, Step: s, TrainLoss: 1 / float64(s), Status: probes.Running,
				Layers: make([]probes.LayerValues, len(meta.Layers))}
			for l := range f.Layers {
				for p := range f.Layers[l] {
					f.Layers[l][p] = float64(s + l + p)
				}
			}
			if s%10 == 0 {
				f.Eval = []probes.Eval{{Split: "val\x1b]0;t\x07", Loss: 1, Metric: 0.5, TrainLoss: 1}}
				f.Alerts = []probes.Alert{{Kind: probes.AlertOutlier, Step: s, Layer: 1, Probe: 0, Value: 3, Threshold: 1, Msg: "spike\x1b[2J\r\n# forged"}}
			}
			fs = append(fs, f)
		}
	}
	return fs
}

// textOutputs runs the recording at path through every text output of a
// run file: the headless log (text), the exports (csv, md) and the report
// (text, md). A file the reader refuses gives none.
func textOutputs(path string) map[string]string {
	out := map[string]string{}
	if r, err := record.Open(path); err == nil {
		var b bytes.Buffer
		p := headless.New(&b, r.Meta(), headless.Options{Format: headless.Text, Every: 1})
		for n := 0; n < 100000; n++ {
			f, err := r.Next()
			if err != nil {
				break
			}
			p.Frame(f)
		}
		p.Close()
		r.Close()
		out["replay --headless"] = b.String()
	}
	for name, export := range map[string]func(io.Writer, *record.Reader) error{"export csv": record.ExportCSV, "export md": record.ExportMarkdown} {
		if r, err := record.Open(path); err == nil {
			var b bytes.Buffer
			export(&b, r)
			r.Close()
			out[name] = b.String()
		}
	}
	if rep, err := report.Build([]string{path}); err == nil {
		var t, m bytes.Buffer
		rep.WriteText(&t)
		rep.WriteMarkdown(&m)
		out["report text"], out["report md"] = t.String(), m.String()
	}
	return out
}

// controlIn names the first byte or rune of s a terminal would act on:
// a control character other than the newline and the tab the formats
// themselves write (md and csv cells, report columns), DEL, a C1 control,
// a bidirectional override or a line separator; "" when there is none.
func controlIn(s string) string {
	for i, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029 ||
			r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
			lo := max(0, i-40)
			return strings.ToValidUTF8(s[lo:min(len(s), i+20)], "?")
		case r == utf8.RuneError:
			if _, n := utf8.DecodeRuneInString(s[i:]); n <= 1 {
				return "invalid UTF-8 at byte " + string(rune('0'+i%10))
			}
		}
	}
	return ""
}

// forgedLine: a line of the output that starts with what the hostile names
// try to forge, as a CR LF in a name would have made one.
func forgedLine(s string) bool {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "# end layernorm: done at step 9999") {
			return true
		}
	}
	return false
}

// TestEscapeInjection (issue 34, case 3): a hostile stream and a hostile
// run file reach no text output with a control character or a forged line,
// and a live run's headless log with hostile flags neither.
func TestEscapeInjection(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "hostile.ntr")
	meta := hostileMeta()
	w, err := record.Create(run, meta)
	if err != nil {
		t.Fatal(err)
	}
	var live bytes.Buffer
	p := headless.New(&live, meta, headless.Options{Format: headless.Text, Every: 1, Standings: w.Standings()})
	for _, f := range hostileFrames(meta) {
		if err := w.Write(f); err != nil {
			t.Fatal(err)
		}
		p.Frame(f)
	}
	p.Close()
	if err := w.Close(record.End{}); err != nil {
		t.Fatal(err)
	}
	check := func(what, out string) {
		t.Helper()
		if out == "" {
			t.Errorf("%s: no output", what)
		}
		if c := controlIn(out); c != "" {
			t.Errorf("%s: control character near %q", what, c)
		}
		if forgedLine(out) {
			t.Errorf("%s: a forged line", what)
		}
	}
	check("train --headless (live)", live.String())
	for _, path := range []string{run, escapeStream} {
		outs := textOutputs(path)
		for _, name := range []string{"replay --headless", "export csv", "export md", "report text", "report md"} {
			check(path+": "+name, outs[name])
		}
	}
}

// FuzzTextOutputs: whatever a run file or stream holds, no text output
// (headless log, csv and md exports, text and md reports) carries a byte a
// terminal acts on. Seeded with the escape-injection stream and a run file
// with the same names.
func FuzzTextOutputs(f *testing.F) {
	seed, err := os.ReadFile(escapeStream)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	dir := f.TempDir()
	run := filepath.Join(dir, "seed.ntr")
	meta := hostileMeta()
	w, err := record.Create(run, meta)
	if err != nil {
		f.Fatal(err)
	}
	for _, fr := range hostileFrames(meta)[:8] {
		w.Write(fr)
	}
	w.Close(record.End{})
	b, err := os.ReadFile(run)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "in")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		for name, out := range textOutputs(path) {
			if c := controlIn(out); c != "" {
				t.Fatalf("%s: control character near %q", name, c)
			}
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Fatalf("outputs took %v", d)
		}
	})
}
