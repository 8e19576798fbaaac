package headless

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/normtop/normtop/probes"
)

// Text lines look like
//
//	step    200  ep 0.12  8.1s | layernorm batch 0.3121 val 0.2950 acc 91.20% 24.6/s | powernorm batch 0.3302 val – 24.1/s
//
// "batch" is the step's own batch loss; the end lines' "train loss" is
// probes.VariantStanding.Train, the one the dashboard and report print.
//
// Numbers use fixed precision so that columns stay put between lines.

func (p *Printer) textHeader() {
	var b strings.Builder
	b.WriteString("# normtop")
	if p.meta.RunID != "" {
		b.WriteString(" run " + p.meta.RunID)
	}
	b.WriteString(": model " + probes.OrMissing(p.meta.ModelLabel()))
	b.WriteString(", data " + probes.OrMissing(p.meta.Data))
	b.WriteString(", metric " + probes.OrMissing(p.meta.Metric))
	b.WriteString(", variants " + strings.Join(p.labels, " "))
	if iv := p.meta.Config["input_var"]; iv != "" {
		// the first norm's input in a pre-norm model (docs/models.md, the PowerNorm setting)
		b.WriteString(", input variance " + iv + " at the first block")
	}
	b.WriteString(", log every " + itoa(p.opt.Every) + " steps")
	if p.byRows() {
		b.WriteString(", one line per variant")
	}
	b.WriteString("\n")
	p.write(b.String())
}

func (p *Printer) textRow(step int, row []cell) {
	if p.byRows() {
		p.textRows(step, row)
		return
	}
	var b strings.Builder
	b.WriteString("step ")
	b.WriteString(padLeft(itoa(step), 6))
	epoch, elapsed := 0.0, time.Duration(0)
	for _, c := range row {
		if c.has {
			epoch = math.Max(epoch, c.epoch)
			if c.elapsed > elapsed {
				elapsed = c.elapsed
			}
		}
	}
	b.WriteString("  ep " + strconv.FormatFloat(epoch, 'f', 2, 64))
	b.WriteString("  " + seconds(elapsed))
	for i, c := range row {
		if !c.has {
			continue
		}
		b.WriteString(" | " + p.labels[i])
		p.cellText(&b, c)
	}
	b.WriteByte('\n')
	p.write(b.String())
}

func (p *Printer) textSummary() {
	for i, v := range p.standings.Variants {
		if !v.Seen {
			continue
		}
		val, test := evalOrNone(v.Val), evalOrNone(v.Test)
		var b strings.Builder
		b.WriteString("# end " + p.labels[i] + ": " + v.Status.String() + " at step " + itoa(v.Step))
		b.WriteString(", train loss " + probes.FormatLoss(v.Train))
		if w := v.TrainWindow(); w != "" {
			b.WriteString(" (" + w + ")")
		}
		b.WriteString(", val loss " + probes.FormatLoss(val.Loss))
		if m := p.metric(val.Metric); m != "" {
			b.WriteString(" " + m)
		}
		if v.Val != nil {
			b.WriteString(", gap " + probes.FormatLoss(v.Val.Gap()))
		}
		if !math.IsNaN(test.Loss) {
			b.WriteString(", test loss " + probes.FormatLoss(test.Loss))
			if m := p.metric(test.Metric); m != "" {
				b.WriteString(" " + m)
			}
		}
		b.WriteString(p.alertsText(p.variants[i].pending))
		b.WriteByte('\n')
		p.write(b.String())
	}
}

// metric is an evaluation metric as every screen prints it (probes.Metric:
// its short name and Format); "" when the run names no metric or the value
// is not measured yet.
func (p *Printer) metric(x float64) string {
	m := p.meta.MetricKind()
	if math.IsNaN(x) || m == "" {
		return ""
	}
	return m.Short() + " " + m.Format(x)
}

// maxOutlierNames bounds how many layer/probe names an outlier summary lists.
const maxOutlierNames = 3

// alertsText renders a variant's alerts for one line: each rare alert
// (divergence, ν growth, AdaNorm φ, over-fitting) in full, and the outliers,
// which can come several per step, as one summary naming where they were.
// The full messages are in the JSON format, the run file and the dashboard.
func (p *Printer) alertsText(as []probes.Alert) string {
	var b strings.Builder
	var where []string
	outliers := 0
	for _, a := range as {
		if a.Kind != probes.AlertOutlier {
			b.WriteString(" ! " + p.alertText(a))
			continue
		}
		outliers++
		name := p.outlierName(a)
		if !slices.Contains(where, name) {
			where = append(where, name)
		}
	}
	if outliers == 0 {
		return b.String()
	}
	b.WriteString(" ! " + itoa(outliers) + " outlier")
	if outliers > 1 {
		b.WriteString("s")
	}
	more := len(where) - maxOutlierNames
	if more > 0 {
		where = where[:maxOutlierNames]
	}
	b.WriteString(": " + strings.Join(where, ", "))
	if more > 0 {
		b.WriteString(" +" + itoa(more) + " more")
	}
	return b.String()
}

// outlierName is "layer probe" for an outlier alert.
func (p *Printer) outlierName(a probes.Alert) string {
	var parts []string
	if a.Layer >= 0 && a.Layer < len(p.meta.Layers) {
		parts = append(parts, p.meta.Layers[a.Layer])
	}
	if a.Probe < probes.NumProbes {
		parts = append(parts, a.Probe.String())
	}
	if len(parts) == 0 {
		return "?"
	}
	return strings.Join(parts, " ")
}

func (p *Printer) alertText(a probes.Alert) string {
	if a.Msg != "" {
		return a.Kind.String() + ": " + probes.SafeText(a.Msg)
	}
	s := a.Kind.String()
	if a.Kind == probes.AlertOutlier && a.Probe < probes.NumProbes {
		s += " " + a.Probe.String()
	}
	if a.Layer >= 0 && a.Layer < len(p.meta.Layers) {
		s += " at " + p.meta.Layers[a.Layer]
	}
	return s + " (step " + itoa(a.Step) + ")"
}

// num is x with prec decimals; a value not measured (NaN) is probes.Missing.
func num(x float64, prec int) string {
	if s, ok := probes.NonFinite(x); ok {
		return s
	}
	return strconv.FormatFloat(x, 'f', prec, 64)
}

// lossNum is probes.FormatLoss for a value that is always measured (the
// train loss), so NaN means a real NaN (a diverging variant) rather than
// "not yet".
func lossNum(x float64) string {
	if math.IsNaN(x) {
		return "NaN"
	}
	return probes.FormatLoss(x)
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
}

func itoa(i int) string { return strconv.Itoa(i) }

func padLeft(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return strings.Repeat(" ", n-len(s)) + s
}
