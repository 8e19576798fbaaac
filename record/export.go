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
//	layernorm,12,0.5,,batch_rows,412,               (the batch shape, when recorded)
//	layernorm,12,0.5,,batch_width,5,
//	layernorm,12,0.5,,batch_tokens,1802,
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
		if b := f.Batch; b.Known() {
			row("", "batch_rows", strconv.Itoa(b.Rows), "")
			row("", "batch_width", strconv.Itoa(b.Width), "")
			row("", "batch_tokens", strconv.Itoa(b.Tokens), "")
		}
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

// ExportMarkdown writes a summary table in the papers' style: the final
// validation metric per variant ("Diverge" where the variant diverged) and
// the test metric when the run evaluated on the test split, then a line on
// the batches when the run recorded their shapes.
func ExportMarkdown(w io.Writer, r *Reader) error {
	m := r.Meta()
	sums := make([]batchSummary, len(m.Variants))
	standings, err := readStandingsWith(r, func(f *probes.Frame) {
		if f.Batch.Known() && f.Variant >= 0 && f.Variant < len(sums) {
			sums[f.Variant].add(f.Batch)
		}
	})
	if err != nil {
		return err
	}
	end, ended := r.End()
	hasTest := false
	for _, s := range standings.Variants {
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
	for v, s := range standings.Variants {
		steps := probes.Missing
		if s.Seen {
			steps = strconv.Itoa(s.Step)
		}
		val, test := probes.Missing, probes.Missing
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
	writeBatchLine(bw, m, sums)
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
