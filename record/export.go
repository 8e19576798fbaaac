package record

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/normtop/normtop/probes"
)

// Exports read r from its current position to the current end of the file
// (io.EOF); they do not wait for a run that is still being written.

// exportNum formats a float so that it parses back to the same value:
// shortest round-trip decimal, "+Inf"/"-Inf" and "NaN" for non-finite values.
func exportNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// forEachFrame calls fn for every frame up to the current end.
func forEachFrame(r *Reader, fn func(f *probes.Frame) error) error {
	for {
		f, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(&f); err != nil {
			return err
		}
	}
}

// ExportCSV writes the long format, every recorded value of every Frame as
// one row (a run file's whole content but its header):
//
//	variant,step,epoch,layer,series,value,text
//	layernorm,12,0.5,,train_loss,2.31,
//	layernorm,12,0.5,,elapsed_s,1.5,
//	layernorm,12,0.5,,steps_per_sec,40,
//	layernorm,12,0.5,,status,,done                  (only when not running)
//	layernorm,12,0.5,,val_loss,2.40,
//	layernorm,12,0.5,,val_accuracy,97.42,           (accuracy in percent)
//	layernorm,12,0.5,,val_train_loss,2.35,
//	layernorm,12,0.5,block0.ln1,dist_mu,0.0123,
//	layernorm,12,0.5,,spectrum_step,10,
//	layernorm,12,0.5,,spectrum_eff_rank,1.9,
//	layernorm,12,0.5,,spectrum_sigma_1,1,           (σ_i/σ_1, i = 1, 2, ...)
//	layernorm,12,0.5,block0.ln1,alert_outlier.dist_mu,3,<message>
//	layernorm,12,0.5,block0.ln1,alert_outlier.dist_mu.threshold,0.3,
//
// variant is the variant's full spec; unmeasured probes have no row. An
// alert's series is alert_<kind>, then .<probe> when it concerns one probe;
// its value row carries the message in text, its .threshold row the
// threshold; its step is the row's. Metrics use probes.Metric.Value's units (accuracy in percent).
func ExportCSV(w io.Writer, r *Reader) error {
	bw := bufio.NewWriter(w)
	m := r.Meta()
	bw.WriteString("variant,step,epoch,layer,series,value,text\n")
	var f *probes.Frame
	row := func(layer, series, value, text string) {
		bw.WriteString(csvField(m.VariantLabel(f.Variant)))
		bw.WriteByte(',')
		bw.WriteString(strconv.Itoa(f.Step))
		bw.WriteByte(',')
		bw.WriteString(exportNum(f.Epoch))
		bw.WriteByte(',')
		bw.WriteString(csvField(layer))
		bw.WriteByte(',')
		bw.WriteString(csvField(series))
		bw.WriteByte(',')
		bw.WriteString(value)
		bw.WriteByte(',')
		bw.WriteString(csvField(text))
		bw.WriteByte('\n')
	}
	num := func(layer, series string, v float64) { row(layer, series, exportNum(v), "") }
	err := forEachFrame(r, func(fr *probes.Frame) error {
		f = fr
		num("", "train_loss", f.TrainLoss)
		num("", "elapsed_s", f.Elapsed.Seconds())
		num("", "steps_per_sec", f.StepsPerSec)
		if f.Status != probes.Running {
			row("", "status", "", f.Status.String())
		}
		for _, e := range f.Eval {
			num("", e.Split+"_loss", e.Loss)
			num("", e.Split+"_"+m.MetricKind().Name(), m.MetricKind().Value(e.Metric))
			if !math.IsNaN(e.TrainLoss) {
				num("", e.Split+"_train_loss", e.TrainLoss)
			}
		}
		for l := range f.Layers {
			for p := probes.Probe(0); p < probes.NumProbes; p++ {
				if f.Layers[l].Has(p) {
					num(m.LayerName(l), p.String(), f.Layers[l][p])
				}
			}
		}
		if s := f.Spectrum; s != nil {
			num("", "spectrum_step", float64(s.Step))
			num("", "spectrum_eff_rank", s.EffRank)
			for i, x := range s.Sigma {
				num("", "spectrum_sigma_"+strconv.Itoa(i+1), x)
			}
		}
		for _, a := range f.Alerts {
			layer := ""
			if a.Layer >= 0 {
				layer = m.LayerName(a.Layer)
			}
			series := "alert_" + a.Kind.String()
			if a.Probe < probes.NumProbes {
				series += "." + a.Probe.String()
			}
			row(layer, series, exportNum(a.Value), a.Msg)
			num(layer, series+".threshold", a.Threshold)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\n\r") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

func jsonStr(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// ExportJSONL writes one JSON object per Frame:
//
//	{"variant":"layernorm","variant_index":0,"step":12,"epoch":0.5,
//	 "train_loss":2.31,"status":"running","elapsed_s":1.5,"steps_per_sec":40,
//	 "layers":{"block0.ln1":{"dist_mu":0.0123,...},...},
//	 "eval":[{"split":"val","loss":2.4,"metric":3.46,"train_loss":2.3}],
//	 (an accuracy is a percentage and says so: "metric":97.42,"unit":"%")
//	 "spectrum":{"step":100,"sigma":[1,0.5],"eff_rank":1.9},
//	 "alerts":[{"kind":"outlier","step":12,"layer":"block0.ln1","probe":"dist_mu",
//	            "value":3,"threshold":0.3,"msg":"..."}]}
//
// Probe names are those of spec/NORMS.md §5; unmeasured probes are left
// out; layers, eval, spectrum and alerts appear only when the Frame has them.
func ExportJSONL(w io.Writer, r *Reader) error {
	bw := bufio.NewWriter(w)
	m := r.Meta()
	var b []byte
	err := forEachFrame(r, func(f *probes.Frame) error {
		b = append(b[:0], `{"variant":`...)
		b = jsonStr(b, m.VariantLabel(f.Variant))
		b = append(b, `,"variant_index":`...)
		b = strconv.AppendInt(b, int64(f.Variant), 10)
		b = append(b, `,"step":`...)
		b = strconv.AppendInt(b, int64(f.Step), 10)
		b = append(b, `,"epoch":`...)
		b = probes.AppendJSONFloat(b, f.Epoch)
		b = append(b, `,"train_loss":`...)
		b = probes.AppendJSONFloat(b, f.TrainLoss)
		b = append(b, `,"status":`...)
		b = jsonStr(b, f.Status.String())
		b = append(b, `,"elapsed_s":`...)
		b = probes.AppendJSONFloat(b, f.Elapsed.Seconds())
		b = append(b, `,"steps_per_sec":`...)
		b = probes.AppendJSONFloat(b, f.StepsPerSec)
		if f.Layers != nil {
			b = append(b, `,"layers":{`...)
			for l := range f.Layers {
				if l > 0 {
					b = append(b, ',')
				}
				b = jsonStr(b, m.LayerName(l))
				b = append(b, ":{"...)
				first := true
				for p := probes.Probe(0); p < probes.NumProbes; p++ {
					if !f.Layers[l].Has(p) {
						continue
					}
					if !first {
						b = append(b, ',')
					}
					first = false
					b = jsonStr(b, p.String())
					b = append(b, ':')
					b = probes.AppendJSONFloat(b, f.Layers[l][p])
				}
				b = append(b, '}')
			}
			b = append(b, '}')
		}
		if f.Eval != nil {
			b = append(b, `,"eval":[`...)
			for i, e := range f.Eval {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"split":`...)
				b = jsonStr(b, e.Split)
				b = append(b, `,"loss":`...)
				b = probes.AppendJSONFloat(b, e.Loss)
				b = append(b, `,"metric":`...)
				b = probes.AppendJSONFloat(b, m.MetricKind().Value(e.Metric))
				if u := m.MetricKind().Unit(); u == "%" {
					b = append(b, `,"unit":"%"`...)
				}
				b = append(b, `,"train_loss":`...)
				b = probes.AppendJSONFloat(b, e.TrainLoss)
				b = append(b, '}')
			}
			b = append(b, ']')
		}
		if s := f.Spectrum; s != nil {
			b = append(b, `,"spectrum":{"step":`...)
			b = strconv.AppendInt(b, int64(s.Step), 10)
			b = append(b, `,"sigma":[`...)
			for i, x := range s.Sigma {
				if i > 0 {
					b = append(b, ',')
				}
				b = probes.AppendJSONFloat(b, x)
			}
			b = append(b, `],"eff_rank":`...)
			b = probes.AppendJSONFloat(b, s.EffRank)
			b = append(b, '}')
		}
		if f.Alerts != nil {
			b = append(b, `,"alerts":[`...)
			for i, a := range f.Alerts {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"kind":`...)
				b = jsonStr(b, a.Kind.String())
				b = append(b, `,"step":`...)
				b = strconv.AppendInt(b, int64(a.Step), 10)
				if a.Layer >= 0 {
					b = append(b, `,"layer":`...)
					b = jsonStr(b, m.LayerName(a.Layer))
				}
				if a.Probe < probes.NumProbes {
					b = append(b, `,"probe":`...)
					b = jsonStr(b, a.Probe.String())
				}
				b = append(b, `,"value":`...)
				b = probes.AppendJSONFloat(b, a.Value)
				b = append(b, `,"threshold":`...)
				b = probes.AppendJSONFloat(b, a.Threshold)
				b = append(b, `,"msg":`...)
				b = jsonStr(b, a.Msg)
				b = append(b, '}')
			}
			b = append(b, ']')
		}
		b = append(b, "}\n"...)
		_, err := bw.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// ExportMarkdown writes a summary table in the papers' style: the final
// validation metric per variant ("Diverge" where the variant diverged) and
// the test metric when the run evaluated on the test split.
func ExportMarkdown(w io.Writer, r *Reader) error {
	m := r.Meta()
	tally := probes.NewStandings(m)
	err := forEachFrame(r, func(f *probes.Frame) error {
		tally.Fold(f)
		return nil
	})
	if err != nil {
		return err
	}
	end, ended := r.End()
	if ended {
		for v, step := range end.Diverged {
			tally.MarkDiverged(v, step)
		}
	}
	hasTest := false
	for _, s := range tally.Variants {
		hasTest = hasTest || s.Test != nil
	}
	kind := m.MetricKind()
	metric := kind.Name()
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Run %s: %s on %s; %s", m.RunID, m.Model, m.Data, metric)
	switch kind {
	case probes.MetricAccuracy:
		bw.WriteString(" in %, higher is better.")
	case probes.MetricBPC:
		bw.WriteString(" (bits per character), lower is better.")
	default:
		bw.WriteString(".")
	}
	switch {
	case !ended:
		fmt.Fprintf(bw, " The run file has no end record (%s): values are the last ones recorded.", r.State())
	case end.Status != StatusCompleted:
		fmt.Fprintf(bw, " The run was %s.", end.Status)
	}
	bw.WriteString("\n\n| Variant | Steps | Val " + metric + " |")
	if hasTest {
		bw.WriteString(" Test " + metric + " |")
	}
	bw.WriteString("\n|---|---:|---:|")
	if hasTest {
		bw.WriteString("---:|")
	}
	bw.WriteString("\n")
	for v, s := range tally.Variants {
		steps := "—"
		if s.Seen {
			steps = strconv.Itoa(s.Step)
		}
		val, test := "—", "—"
		switch {
		case s.Diverged():
			val, test = "Diverge", "Diverge"
			steps = strconv.Itoa(s.DivergedAt)
		default:
			if s.Val != nil {
				val = mdMetric(kind, s.Val.Metric)
			}
			if s.Test != nil {
				test = mdMetric(kind, s.Test.Metric)
			}
		}
		fmt.Fprintf(bw, "| %s | %s | %s |", mdEscape(m.VariantLabel(v)), steps, val)
		if hasTest {
			fmt.Fprintf(bw, " %s |", test)
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

// mdMetric is a metric as the table prints it: Metric.Format without the
// percent sign, which the header states once, and the papers' "Diverge" for
// a value that is not finite.
func mdMetric(m probes.Metric, v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "Diverge"
	}
	return strings.TrimSuffix(m.Format(v), "%")
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
