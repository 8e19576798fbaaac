package record

import (
	"bufio"
	"io"
	"strconv"

	"github.com/normtop/normtop/probes"
)

// ExportJSONL writes one JSON object per Frame:
//
//	{"variant":"layernorm","variant_index":0,"step":12,"epoch":0.5,
//	 "train_loss":2.31,"status":"running","elapsed_s":1.5,"steps_per_sec":40,
//	 "batch":{"rows":412,"width":5,"tokens":1802},
//	 "hist":{"block0.ln1":{"mean":0.1,"std":2,"under":0,"counts":[...],"over":1,"nan":0}},
//	 "layers":{"block0.ln1":{"dist_mu":0.0123,...},...},
//	 "eval":[{"split":"val","loss":2.4,"metric":3.46,"train_loss":2.3}],
//	 (an accuracy is a percentage and says so: "metric":97.42,"unit":"%")
//	 "spectrum":{"step":100,"sigma":[1,0.5],"eff_rank":1.9},
//	 "alerts":[{"kind":"outlier","step":12,"layer":"block0.ln1","probe":"dist_mu",
//	            "value":3,"threshold":0.3,"msg":"..."}]}
//
// Probe names are those of docs/math.md §5; unmeasured probes are left
// out; batch, hist, layers, eval, spectrum and alerts appear only when the
// Frame has them.
func ExportJSONL(w io.Writer, r *Reader) error {
	bw := bufio.NewWriter(w)
	m := r.Meta()
	var b []byte
	err := forEachFrame(r, func(f *probes.Frame) error {
		b = appendJSONFrame(b[:0], m, f)
		_, err := bw.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// appendJSONFrame appends f as one JSON line.
func appendJSONFrame(b []byte, m probes.RunMeta, f *probes.Frame) []byte {
	b = append(b, `{"variant":`...)
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
	b = appendJSONBatch(b, f.Batch)
	b = appendJSONHists(b, m, f.Hists)
	if f.Layers != nil {
		b = appendJSONLayers(b, m, f.Layers)
	}
	if f.Eval != nil {
		b = appendJSONEvals(b, m.MetricKind(), f.Eval)
	}
	if s := f.Spectrum; s != nil {
		b = appendJSONSpectrum(b, s)
	}
	if f.Alerts != nil {
		b = appendJSONAlerts(b, m, f.Alerts)
	}
	return append(b, "}\n"...)
}

// appendJSONLayers appends the "layers" field: each layer's measured
// probes by name.
func appendJSONLayers(b []byte, m probes.RunMeta, layers []probes.LayerValues) []byte {
	b = append(b, `,"layers":{`...)
	for l := range layers {
		if l > 0 {
			b = append(b, ',')
		}
		b = jsonStr(b, m.LayerName(l))
		b = append(b, ":{"...)
		first := true
		for p := probes.Probe(0); p < probes.NumProbes; p++ {
			if !layers[l].Has(p) {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = jsonStr(b, p.String())
			b = append(b, ':')
			b = probes.AppendJSONFloat(b, layers[l][p])
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendJSONEvals appends the "eval" field, metrics in the outputs' units
// (probes.Metric.Value).
func appendJSONEvals(b []byte, kind probes.Metric, evals []probes.Eval) []byte {
	b = append(b, `,"eval":[`...)
	for i, e := range evals {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"split":`...)
		b = jsonStr(b, e.Split)
		b = append(b, `,"loss":`...)
		b = probes.AppendJSONFloat(b, e.Loss)
		b = append(b, `,"metric":`...)
		b = probes.AppendJSONFloat(b, kind.Value(e.Metric))
		if u := kind.Unit(); u == "%" {
			b = append(b, `,"unit":"%"`...)
		}
		b = append(b, `,"train_loss":`...)
		b = probes.AppendJSONFloat(b, e.TrainLoss)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendJSONSpectrum appends the "spectrum" field.
func appendJSONSpectrum(b []byte, s *probes.Spectrum) []byte {
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
	return append(b, '}')
}

// appendJSONAlerts appends the "alerts" field.
func appendJSONAlerts(b []byte, m probes.RunMeta, alerts []probes.Alert) []byte {
	b = append(b, `,"alerts":[`...)
	for i, a := range alerts {
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
	return append(b, ']')
}
