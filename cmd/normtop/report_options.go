package main

import (
	"flag"
	"io"

	"github.com/normtop/normtop/report"
)

const reportHelpHint = "normtop report --help"

type reportOptions struct {
	paths []string
	productFlags
}

func newReportFlags() (*flag.FlagSet, *reportOptions) {
	o := &reportOptions{}
	fs := newFlagSet("report")
	o.define(fs, "text", "text | md | json | html (one self-contained page with figures; use with --out)")
	return fs, o
}

// reportWriters maps --format values to the report's writers.
var reportWriters = map[string]func(*report.Report, io.Writer) error{
	"text": (*report.Report).WriteText,
	"md":   (*report.Report).WriteMarkdown,
	"json": (*report.Report).WriteJSON,
	"html": (*report.Report).WriteHTML,
}

func parseReport(args []string) (*reportOptions, error) {
	fs, o := newReportFlags()
	pos, err := parseArgs(fs, args, reportHelpHint)
	if err != nil {
		return nil, err
	}
	switch {
	case len(pos) == 0:
		return nil, usageErrorf(reportHelpHint, "report needs one or more run files (e.g. normtop report runs/latest)")
	case reportWriters[o.format] == nil:
		return nil, usageErrorf(reportHelpHint, "--format %q: want text, md, json or html", o.format)
	}
	o.paths = pos
	return o, nil
}

const reportHelp = `Usage: normtop report FILE [FILE ...] [flags]

The diagnosis of one or more run files. Per variant, as mean ± sd over
seeds (a variant's seeds are grouped across --seeds and across files): the
final and best validation metric, train loss, the generalization gap and
its trend. Per layer and probe, after the start-up window (docs/math.md §5,
docs/findings.md): median, p99/median, max/median, outliers (over 10× the median
of the previous 100 steps) per 1,000 steps, their persistence and the trend
(last quarter / first quarter). The embedding spectrum's effective rank
and σ_k/σ_1 at k = d/4, d/2; the Theorem-1 checks the probes allow. Then
the Findings, by the rules of docs/findings.md: each paper claim, its
sub-claims with their numbers, and a verdict (supported, not supported,
within seed noise, not measurable with this model/run). --format html
writes one self-contained page (inline SVG, no script, no URL) with each
finding's figure drawn from the runs above its numbers and verdict, and
the loss curves per model; normtop plot draws one chart of any series.

Files must be runs of one model on one data set, except that cnn and
resnet runs may sit next to transformer runs (PowerNorm's Fig. 2 compares
BatchNorm in both).

Examples:
  normtop report runs/latest
  normtop report runs/t-seeds.ntr runs/c-seeds.ntr --format md --out findings.md
  normtop report runs/a.ntr runs/b.ntr --format json | jq '.findings[] | {id, verdict}'
  normtop report runs/t-seeds.ntr runs/c-seeds.ntr --format html --out report.html

Flags:
`
