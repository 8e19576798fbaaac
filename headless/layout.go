package headless

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/normtop/normtop/probes"
)

// Layout selects how the text format lays a log step out.
type Layout int

const (
	// LayoutAuto: columns while a step's line fits maxLineWidth, rows
	// beyond (a run of many variants, or of long specs).
	LayoutAuto Layout = iota
	// LayoutColumns: one line per log step, the variants side by side.
	LayoutColumns
	// LayoutRows: one line per variant per log step.
	LayoutRows
)

// maxLineWidth is the widest line LayoutAuto writes in columns.
const maxLineWidth = 160

func (l Layout) String() string {
	switch l {
	case LayoutColumns:
		return "columns"
	case LayoutRows:
		return "rows"
	}
	return "auto"
}

// ParseLayout maps a --log-layout value (auto, columns or rows) to a
// Layout.
func ParseLayout(s string) (Layout, error) {
	switch s {
	case "auto":
		return LayoutAuto, nil
	case "columns":
		return LayoutColumns, nil
	case "rows":
		return LayoutRows, nil
	}
	return LayoutAuto, fmt.Errorf("unknown log layout %q (valid: auto, columns, rows)", s)
}

// columnsWidth estimates a columns line of the run without alerts: the
// step prefix, then per variant its label, loss, val, metric and speed as
// textRow writes them.
func columnsWidth(labels []string, meta probes.RunMeta) int {
	const prefix = len("step 123456  ep 12.34  1234.5s")
	metric := 0
	if m := meta.MetricKind(); m != "" {
		metric = len(" ") + len(m.Short()) + len(" 100.00%")
	}
	w := prefix
	for _, l := range labels {
		w += len(" | ") + len(l) + len(" loss 1.2345 val 1.2345") + metric + len(" 123.4/s")
	}
	return w
}

// byRows reports whether the text lines go one per variant.
func (p *Printer) byRows() bool {
	switch p.opt.Layout {
	case LayoutRows:
		return true
	case LayoutColumns:
		return false
	}
	return columnsWidth(p.labels, p.meta) > maxLineWidth
}

// textRows writes a log step as one line per variant that has a cell:
//
//	step    200  ep 0.12    8.1s  layernorm   loss 0.3121 val 0.2950 acc 91.20% 24.6/s
//	step    200  ep 0.12    8.1s  powernorm   loss 0.3302 val – 24.1/s ! outlier dist_mu at fc1.norm
//
// the labels padded alike so that the numbers line up.
func (p *Printer) textRows(step int, row []cell) {
	lw := 0
	for _, l := range p.labels {
		lw = max(lw, len(l))
	}
	for i, c := range row {
		if !c.has {
			continue
		}
		var b strings.Builder
		b.WriteString("step " + padLeft(itoa(step), 6))
		b.WriteString("  ep " + num(c.epoch, 2))
		b.WriteString("  " + padLeft(seconds(c.elapsed), 7))
		b.WriteString("  " + p.labels[i] + strings.Repeat(" ", lw-len(p.labels[i])))
		p.cellText(&b, c)
		b.WriteByte('\n')
		p.write(b.String())
	}
}

// cellText writes one variant's values: status, loss, val, metric, speed
// and alerts, as both layouts print them.
func (p *Printer) cellText(b *strings.Builder, c cell) {
	switch c.status {
	case probes.Diverged:
		b.WriteString(" DIVERGED at step " + itoa(c.step))
	case probes.Stopped:
		b.WriteString(" stopped")
	case probes.Done:
		b.WriteString(" done")
	}
	b.WriteString(" loss " + lossNum(c.trainLoss))
	b.WriteString(" val " + probes.FormatLoss(c.val.Loss))
	if m := p.metric(c.val.Metric); m != "" {
		b.WriteString(" " + m)
	}
	b.WriteString(" " + strconv.FormatFloat(c.sps, 'f', 1, 64) + "/s")
	b.WriteString(p.alertsText(c.alerts))
}
