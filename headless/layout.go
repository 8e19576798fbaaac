package headless

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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

// maxLineWidth is the widest line LayoutAuto writes: columns while a
// step's line fits, else rows; a longer line (a header naming many
// variants, a step's alerts) is broken between words onto indented
// continuation lines, so that an 80-column terminal never wraps a number.
const maxLineWidth = 80

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
		w += len(" | ") + len(l) + len(" batch 1.2345 val 1.2345") + metric + len(" 123.4/s")
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

// textRows writes a log step as a step line and one indented line per
// variant that has a cell, so that a default run's lines fit 80 columns:
//
//	step    200  ep 0.12    8.1s
//	  layernorm  batch 0.3121 val 0.2950 acc 91.20% 24.6/s
func (p *Printer) textRows(step int, row []cell) {
	lw := 0
	for _, l := range p.labels {
		lw = max(lw, len(l))
	}
	epoch, elapsed := 0.0, time.Duration(0)
	for _, c := range row {
		if c.has {
			epoch, elapsed = math.Max(epoch, c.epoch), max(elapsed, c.elapsed)
		}
	}
	p.write("step " + padLeft(itoa(step), 6) + "  ep " + num(epoch, 2) + "  " + padLeft(seconds(elapsed), 7) + "\n")
	for i, c := range row {
		if !c.has {
			continue
		}
		var b strings.Builder
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
	b.WriteString(" batch " + lossNum(c.trainLoss))
	b.WriteString(" val " + probes.FormatLoss(c.val.Loss))
	if m := p.metric(c.val.Metric); m != "" {
		b.WriteString(" " + m)
	}
	b.WriteString(" " + strconv.FormatFloat(c.sps, 'f', 1, 64) + "/s")
	b.WriteString(p.alertsText(c.alerts))
}

// fitWidth breaks line (ending in a newline) so that no piece is wider
// than width columns: each alert (" ! ...") of a line too long starts a
// continuation line, and a piece still too long is broken between words.
// Continuation lines are indented (a comment line's keep its "#"). A word
// wider than the width stays whole.
func fitWidth(line string, width int) string {
	body := strings.TrimSuffix(line, "\n")
	if utf8.RuneCountInString(body) <= width {
		return line
	}
	indent := "      "
	if strings.HasPrefix(body, "#") {
		indent = "#     "
	}
	var b strings.Builder
	for k, piece := range strings.Split(body, " ! ") {
		if k > 0 {
			piece = indent + "! " + piece
		}
		cur, curW := "", 0
		for j, w := range strings.Split(piece, " ") {
			ww := utf8.RuneCountInString(w)
			switch {
			case j == 0:
				cur, curW = w, ww
			case curW+1+ww <= width:
				cur, curW = cur+" "+w, curW+1+ww
			default:
				b.WriteString(cur + "\n")
				cur, curW = indent+"  "+w, len(indent)+2+ww
			}
		}
		b.WriteString(cur + "\n")
	}
	return b.String()
}
