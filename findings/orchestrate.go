package findings

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/report"
)

// Progress is how far a training run has got: the step every variant has
// reached, of Steps.
type Progress struct{ Step, Steps int }

// Trainer trains one run of the plan: `normtop train args`, recorded to the
// run file path, calling progress as it goes. It stops when ctx is
// cancelled, closing the run file (which then says interrupted).
type Trainer func(ctx context.Context, args []string, path string, progress func(Progress)) error

// Options configure Execute.
type Options struct {
	Dir    string  // output directory: run files under Dir/runs, reports in Dir
	Claims []Claim // the claims to judge (Select)
	Train  Trainer
	Log    io.Writer        // progress lines
	Now    func() time.Time // the clock of the progress lines (time.Now when nil)
	Every  time.Duration    // at most one progress line per run this often (10 s when 0)
}

// Interrupted is the error of a findings run stopped by its context: which
// run was training, and where its run file is.
type Interrupted struct {
	Run, Path string
	Progress  Progress
	Recorded  bool // the run file exists (else it stopped before creating it)
	Err       error
}

func (e *Interrupted) Error() string {
	again := "run normtop findings again: complete runs are not trained again, this one is trained again from scratch"
	if !e.Recorded {
		return fmt.Sprintf("stopped before run %s had recorded anything (%s not created); %s", e.Run, e.Path, again)
	}
	return fmt.Sprintf("stopped while training run %s at step %d of %d: its run file %s is kept (it says interrupted); %s",
		e.Run, e.Progress.Step, e.Progress.Steps, e.Path, again)
}

func (e *Interrupted) Unwrap() error { return e.Err }

// Execute trains every run the claims need that has no complete run file in
// o.Dir, one after another, then writes the reports. A complete run file is
// not trained again; an incomplete one (interrupted, damaged) is renamed
// aside, never removed, and its run is trained again from scratch.
func Execute(ctx context.Context, o Options) error {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Every <= 0 {
		o.Every = 10 * time.Second
	}
	runs, err := RunsOf(o.Claims)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(o.Dir, runsDir), 0o755); err != nil {
		return err
	}
	for i, r := range runs {
		tag := fmt.Sprintf("findings: [%d/%d] %s", i+1, len(runs), r.Name)
		if err := o.ensure(ctx, r, tag); err != nil {
			return err
		}
	}
	return o.writeReports()
}

// ensure leaves a complete run file for r, training it when needed.
func (o Options) ensure(ctx context.Context, r Run, tag string) error {
	path := r.Path(o.Dir)
	switch st, why := stateOf(path); st {
	case complete:
		fmt.Fprintf(o.Log, "%s: complete (%s), not trained again\n", tag, path)
		return nil
	case partial:
		aside, err := keepAside(path)
		if err != nil {
			return fmt.Errorf("run %s: %s is not complete (%s) and could not be kept aside: %w", r.Name, path, why, err)
		}
		fmt.Fprintf(o.Log, "%s: %s was not complete (%s); kept as %s, training again from scratch\n", tag, path, why, aside)
	}
	if err := ctx.Err(); err != nil {
		return &Interrupted{Run: r.Name, Path: path, Err: err}
	}
	fmt.Fprintf(o.Log, "%s: %s → %s\n", tag, r.Command(), path)
	pl := &progressLine{w: o.Log, tag: tag, now: o.Now, every: o.Every, start: o.Now()}
	pl.last = pl.start
	err := o.Train(ctx, r.Args, path, pl.update)
	if ctx.Err() != nil {
		st, _ := stateOf(path)
		return &Interrupted{Run: r.Name, Path: path, Progress: pl.at, Recorded: st != absent, Err: errors.Join(ctx.Err(), err)}
	}
	if err != nil {
		return fmt.Errorf("run %s (%s): %w", r.Name, r.Command(), err)
	}
	if st, why := stateOf(path); st != complete {
		return fmt.Errorf("run %s (%s) ended without a complete run file %s (%s)", r.Name, r.Command(), path, why)
	}
	fmt.Fprintf(o.Log, "%s: done in %s\n", tag, o.Now().Sub(pl.start).Round(time.Second))
	return nil
}

// progressLine prints a run's progress: at most one line per every.
type progressLine struct {
	w           io.Writer
	tag         string
	now         func() time.Time
	every       time.Duration
	start, last time.Time
	at          Progress
}

func (p *progressLine) update(pr Progress) {
	p.at = pr
	t := p.now()
	if t.Sub(p.last) < p.every || pr.Step <= 0 {
		return
	}
	p.last = t
	el := t.Sub(p.start)
	eta := probes.Missing // no estimate before the first step
	if pr.Steps > pr.Step {
		eta = (time.Duration(float64(el) * float64(pr.Steps-pr.Step) / float64(pr.Step))).Round(time.Second).String()
	} else if pr.Steps > 0 {
		eta = "0s"
	}
	fmt.Fprintf(p.w, "%s: step %d/%d, %s elapsed, ETA %s\n", p.tag, pr.Step, pr.Steps, el.Round(time.Second), eta)
}

// reportFormats are the report files written per claim and for all.
var reportFormats = []struct {
	ext    string
	report func(*report.Report, io.Writer) error
	all    func(*report.Collected, io.Writer) error
}{
	{"txt", (*report.Report).WriteText, (*report.Collected).WriteText},
	{"md", (*report.Report).WriteMarkdown, (*report.Collected).WriteMarkdown},
	{"json", (*report.Report).WriteJSON, (*report.Collected).WriteJSON},
}

// writeReports writes, per claim, the full report of the runs it reads
// (report-ID.txt, .md, .json) and, for all claims, their findings
// (findings.txt, .md, .json).
func (o Options) writeReports() error {
	var all report.Collected
	for _, c := range o.Claims {
		var paths []string
		for _, name := range c.Reads {
			for _, r := range c.Runs {
				if r.Name == name {
					paths = append(paths, r.Path(o.Dir))
				}
			}
		}
		rep, err := report.Build(paths)
		if err != nil {
			return fmt.Errorf("claim %s: %w", c.ID, err)
		}
		base := "report-" + c.ID
		for _, f := range reportFormats {
			if err := writeOwn(filepath.Join(o.Dir, base+"."+f.ext), func(w io.Writer) error { return f.report(rep, w) }); err != nil {
				return err
			}
		}
		if !all.Add(rep, c.ID, base+".md") {
			return fmt.Errorf("claim %s: the report has no finding %s", c.ID, c.ID)
		}
	}
	for _, f := range reportFormats {
		if err := writeOwn(filepath.Join(o.Dir, "findings."+f.ext), func(w io.Writer) error { return f.all(&all, w) }); err != nil {
			return err
		}
	}
	var lines []string
	for _, f := range all.Findings {
		lines = append(lines, f.Line())
	}
	fmt.Fprintf(o.Log, "findings: %s\nfindings: reports in %s (findings.txt, findings.md, findings.json; report-ID.* per claim)\n",
		strings.Join(lines, "\nfindings: "), o.Dir)
	return nil
}
