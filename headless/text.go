package headless

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/normtop/normtop/probes"
)

// Text lines look like
//
//	step    200  ep 0.12  8.1s | layernorm loss 0.3121 val 0.2950 acc 91.20% 24.6/s | powernorm loss 0.3302 val - 24.1/s ! outlier dist_mu at fc1.norm
//
// Numbers use fixed precision so that columns stay put between lines.

func (p *Printer) textHeader() {
	var b strings.Builder
	b.WriteString("# normtop")
	if p.meta.RunID != "" {
		b.WriteString(" run " + p.meta.RunID)
	}
	b.WriteString(": model " + orDash(p.meta.Model))
	b.WriteString(", data " + orDash(p.meta.Data))
	b.WriteString(", metric " + orDash(p.meta.Metric))
	b.WriteString(", variants " + strings.Join(p.labels, " "))
	b.WriteString(", log every " + itoa(p.opt.Every) + " steps\n")
	p.write(b.String())
}

func (p *Printer) textRow(step int, row []cell) {
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
		switch c.status {
		case probes.Diverged:
			b.WriteString(" DIVERGED at step " + itoa(c.step))
		case probes.Stopped:
			b.WriteString(" stopped")
		case probes.Done:
			b.WriteString(" done")
		}
		b.WriteString(" loss " + lossNum(c.trainLoss))
		b.WriteString(" val " + num(c.val.Loss, 4))
		if m := p.metric(c.val.Metric); m != "" {
			b.WriteString(" " + m)
		}
		b.WriteString(" " + strconv.FormatFloat(c.sps, 'f', 1, 64) + "/s")
		for _, a := range c.alerts {
			b.WriteString(" ! " + p.alertText(a))
		}
	}
	b.WriteByte('\n')
	p.write(b.String())
}

func (p *Printer) textSummary() {
	for i, v := range p.variants {
		if !v.seen {
			continue
		}
		var b strings.Builder
		b.WriteString("# end " + p.labels[i] + ": " + v.status.String() + " at step " + itoa(v.lastStep))
		b.WriteString(", train loss " + lossNum(v.trainLoss))
		b.WriteString(", val loss " + num(v.val.Loss, 4))
		if m := p.metric(v.val.Metric); m != "" {
			b.WriteString(" " + m)
		}
		if !math.IsNaN(v.test.Loss) {
			b.WriteString(", test loss " + num(v.test.Loss, 4))
			if m := p.metric(v.test.Metric); m != "" {
				b.WriteString(" " + m)
			}
		}
		for _, a := range v.pending {
			b.WriteString(" ! " + p.alertText(a))
		}
		b.WriteByte('\n')
		p.write(b.String())
	}
}

// metric formats a validation metric by the run's metric kind; "" when the
// metric is unknown or not measured yet.
func (p *Printer) metric(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	switch p.meta.Metric {
	case "accuracy":
		return "acc " + strconv.FormatFloat(100*x, 'f', 2, 64) + "%"
	case "bpc":
		return "bpc " + strconv.FormatFloat(x, 'f', 3, 64)
	case "":
		return ""
	}
	return p.meta.Metric + " " + num(x, 4)
}

func (p *Printer) alertText(a probes.Alert) string {
	if a.Msg != "" {
		return a.Kind.String() + ": " + a.Msg
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

func num(x float64, prec int) string {
	switch {
	case math.IsNaN(x):
		return "-"
	case math.IsInf(x, 1):
		return "+Inf"
	case math.IsInf(x, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(x, 'f', prec, 64)
}

// lossNum is num for a value that is always measured, so NaN means a real
// NaN (a diverging variant) rather than "not yet".
func lossNum(x float64) string {
	if math.IsNaN(x) {
		return "NaN"
	}
	return num(x, 4)
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
}

func itoa(i int) string { return strconv.Itoa(i) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func padLeft(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return strings.Repeat(" ", n-len(s)) + s
}
