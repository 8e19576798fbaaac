package headless

import (
	"bufio"
	"io"
	"math"
	"sort"
	"time"

	"github.com/normtop/normtop/probes"
)

// Options configure a Printer.
type Options struct {
	Format Format
	// Every is the log interval in steps: a line is printed for every step
	// that is a multiple of Every, and for the step at which a variant stops
	// (done, diverged or interrupted). Values below 1 mean 1.
	Every int
	// Layout lays the text format's steps out in columns or rows
	// (LayoutAuto: rows when a line would pass 160 characters).
	Layout Layout
	// Standings, when set, are the run's standings as the caller folds them
	// (a live run: the recorder's writer folds each Frame before the Printer
	// takes it), so a Frame is folded once in the process; nil: the Printer
	// folds the Frames it takes itself (a replay).
	Standings *probes.Standings
}

// Printer turns a stream of Frames into log lines. Frames of one variant must
// arrive in step order; variants may interleave and run at different speeds:
// the line for step S is written once every variant still running has passed
// S, so lines come out in step order. A Printer is not safe for concurrent
// use (the trainer serialises its emit callback).
type Printer struct {
	w         *bufio.Writer
	meta      probes.RunMeta
	opt       Options
	labels    []string
	standings *probes.Standings // where each variant stands (Options.Standings, or folded here)
	folds     bool              // the Printer folds each Frame into standings itself
	variants  []variantState
	rows      map[int][]cell // pending lines by step; nil cells are absent
	started   bool
	err       error
}

// variantState is what the printer keeps of one variant besides its
// standing in the standings: whether it stopped (later Frames are ignored) and
// the alerts not printed yet.
type variantState struct {
	ended   bool
	pending []probes.Alert
}

// cell is one variant's part of one line.
type cell struct {
	has       bool
	step      int
	epoch     float64
	trainLoss float64
	val       probes.Eval
	sps       float64
	elapsed   time.Duration
	status    probes.Status
	alerts    []probes.Alert
}

// New returns a Printer writing to w. Nothing is written before the first
// Frame or Close.
func New(w io.Writer, meta probes.RunMeta, opt Options) *Printer {
	if opt.Every < 1 {
		opt.Every = 1
	}
	meta = meta.Safe() // names from a run file, a stream or a flag: nothing raw reaches the terminal
	p := &Printer{
		w:         bufio.NewWriter(w),
		meta:      meta,
		opt:       opt,
		labels:    variantLabels(meta.Variants),
		standings: opt.Standings,
		variants:  make([]variantState, len(meta.Variants)),
		rows:      map[int][]cell{},
	}
	if p.standings == nil {
		p.standings, p.folds = probes.NewStandings(meta), true
	}
	return p
}

// evalOrNone is e, or an evaluation whose values are not measured (NaN)
// before the first one.
func evalOrNone(e *probes.Eval) probes.Eval {
	if e == nil {
		return probes.Eval{Loss: math.NaN(), Metric: math.NaN()}
	}
	return *e
}

// variantLabels are the variants' labels, as every screen and export
// prints them (probes.VariantMeta.Label: the full spec, and the seed in a
// run of several seeds).
func variantLabels(vs []probes.VariantMeta) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Label()
	}
	return out
}

// Frame takes one Frame and writes every line that became complete. Frames
// naming a variant outside the run's metadata are ignored. The first write
// error is returned by this and every later call.
func (p *Printer) Frame(f probes.Frame) error {
	if p.err != nil {
		return p.err
	}
	if f.Variant < 0 || f.Variant >= len(p.variants) {
		return nil
	}
	p.header()
	v := &p.variants[f.Variant]
	if v.ended {
		return p.err
	}
	if p.folds {
		p.standings.Fold(&f)
	}
	v.pending = append(v.pending, f.Alerts...)
	if f.Status != probes.Running {
		v.ended = true
	}
	if f.Step%p.opt.Every == 0 || v.ended {
		row := p.rows[f.Step]
		if row == nil {
			row = make([]cell, len(p.variants))
			p.rows[f.Step] = row
		}
		row[f.Variant] = cell{
			has: true, step: f.Step, epoch: f.Epoch, trainLoss: f.TrainLoss, val: evalOrNone(p.standings.Variants[f.Variant].Val),
			sps: f.StepsPerSec, elapsed: f.Elapsed, status: f.Status, alerts: v.pending,
		}
		v.pending = nil
	}
	p.flush(false)
	return p.err
}

// flush writes pending lines in step order, stopping at the first line some
// running variant may still add to (unless all is set).
func (p *Printer) flush(all bool) {
	steps := make([]int, 0, len(p.rows))
	for s := range p.rows {
		steps = append(steps, s)
	}
	sort.Ints(steps)
	for _, s := range steps {
		row := p.rows[s]
		if !all && !p.complete(s, row) {
			break
		}
		delete(p.rows, s)
		p.writeRow(s, row)
	}
	if err := p.w.Flush(); err != nil && p.err == nil {
		p.err = err
	}
}

// complete reports whether no variant can add a cell to the line at step s.
func (p *Printer) complete(s int, row []cell) bool {
	for i, v := range p.variants {
		if row[i].has || v.ended || p.standings.Variants[i].Step >= s {
			continue
		}
		return false
	}
	return true
}

// Close writes every pending line and one summary line per variant that was
// seen, then flushes. It returns the first write error.
func (p *Printer) Close() error {
	if p.err != nil {
		return p.err
	}
	p.header()
	p.flush(true)
	p.summary()
	if err := p.w.Flush(); err != nil && p.err == nil {
		p.err = err
	}
	return p.err
}

func (p *Printer) header() {
	if p.started {
		return
	}
	p.started = true
	if p.opt.Format == JSON {
		p.jsonHeader()
	} else {
		p.textHeader()
	}
}

func (p *Printer) writeRow(step int, row []cell) {
	if p.opt.Format == JSON {
		p.jsonRow(step, row)
	} else {
		p.textRow(step, row)
	}
}

func (p *Printer) summary() {
	if p.opt.Format == JSON {
		p.jsonSummary()
	} else {
		p.textSummary()
	}
}

func (p *Printer) write(s string) {
	if p.err != nil {
		return
	}
	if p.opt.Format != JSON && p.opt.Layout != LayoutColumns {
		s = fitWidth(s, maxLineWidth)
	}
	if _, err := p.w.WriteString(s); err != nil {
		p.err = err
	}
}
