package main

import (
	"flag"
	"path/filepath"
	"slices"
	"strings"

	"github.com/normtop/normtop/report"
)

const plotHelpHint = "normtop plot --help"

type plotOptions struct {
	paths    []string
	probe    string
	layer    string
	variants string
	log      bool
	smooth   int
	out      string
	force    bool   // --out may replace a recording (checkOut)
	format   string // from --out's extension
}

func newPlotFlags() (*flag.FlagSet, *plotOptions) {
	o := &plotOptions{}
	fs := newFlagSet("plot")
	fs.StringVar(&o.probe, "probe", "", "the series: a probe name (rdist_var, g_mu, …), train_loss, val_loss, val_metric or spectrum")
	fs.StringVar(&o.layer, "layer", "", "norm layer of a probe (default: each run's first norm layer)")
	fs.StringVar(&o.variants, "variants", "", "comma-separated specs or names to draw (default: all)")
	fs.BoolVar(&o.log, "log", false, "logarithmic y axis (values ≤ 0 are left out and counted on the x label)")
	fs.IntVar(&o.smooth, "smooth", 0, "draw the centred moving mean over this many values, the raw series faint under it and ± sd over seeds as a band")
	fs.StringVar(&o.out, "out", "", "the file to write: .svg, .png or .pdf (required)")
	fs.BoolVar(&o.force, "force", false, "let --out replace a file that holds a run file or a stream")
	return fs, o
}

func parsePlot(args []string) (*plotOptions, error) {
	fs, o := newPlotFlags()
	pos, err := parseArgs(fs, args, plotHelpHint)
	if err != nil {
		return nil, err
	}
	o.format = strings.TrimPrefix(strings.ToLower(filepath.Ext(o.out)), ".")
	switch {
	case len(pos) == 0:
		return nil, usageErrorf(plotHelpHint, "plot needs one or more run files (e.g. normtop plot runs/latest --probe rdist_var --out fig.svg)")
	case o.probe == "":
		return nil, usageErrorf(plotHelpHint, "plot needs --probe (one of %s)", strings.Join(report.PlotSeriesNames(), ", "))
	case o.out == "":
		return nil, usageErrorf(plotHelpHint, "plot needs --out FILE.svg, .png or .pdf")
	case !slices.Contains(report.Formats, o.format):
		return nil, usageErrorf(plotHelpHint, "--out %s: cannot write %q files; give a name ending in .svg, .png or .pdf", o.out, filepath.Ext(o.out))
	case o.smooth < 0:
		return nil, usageErrorf(plotHelpHint, "--smooth %d: want a number of values ≥ 0", o.smooth)
	}
	o.paths = pos
	return o, nil
}

// variantList splits --variants.
func (o *plotOptions) variantList() []string {
	var out []string
	for _, v := range strings.Split(o.variants, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

const plotHelp = `Usage: normtop plot FILE [FILE ...] --probe P --out FIG.svg|.png|.pdf [flags]

One chart of one recorded series, the run files overlaid, for a paper:
a probe of one norm layer (docs/math.md §5 names: rdist_var, g_mu, …), the
train loss, the validation loss or metric, or the embedding spectrum (the
last one per seed, σ_k/σ_1 against k). One colour per variant; its seeds
(across --seeds and across files) as lines, or with --smooth as their
smoothed mean, ± sd over seeds as a band, the raw series faint. The format
follows --out's extension; the file is written whole or not at all.

Runs must be of one model and data (cnn or resnet runs may sit next to
transformer runs, as in PowerNorm's Fig. 2).

Examples:
  normtop plot runs/t.ntr runs/c.ntr --probe rdist_var --log --out fig2.pdf
  normtop plot runs/latest --probe train_loss --smooth 50 --out loss.svg
  normtop plot runs/latest --probe g_var --layer block0.ln1 --variants batchnorm,pn-v --log --out g.png

Flags:
`
