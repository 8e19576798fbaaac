// Package report is `normtop report`: the diagnosis a reader would otherwise
// script by hand from one or more run files. Per variant (mean ± sd over
// seeds, grouping a spec's replicates across --seeds and across files) it
// gives the final and best validation metric, train loss, generalization
// gap and its trend; per layer and probe, after the start-up window of
// docs/math.md §5 and docs/findings.md, the median, p99/median,
// max/median, outliers per 1,000 steps, their persistence and the trend;
// the embedding spectrum's effective rank and σ_k/σ_1; the Theorem-1
// checks the recorded probes allow; and a Findings section judging the
// paper claims by the rules of docs/findings.md.
//
// Files, one concern each:
//
//	read.go      Read: a run file in parallel parts (one Reader per part from its own
//	             seek point), joined in step order → per-variant collections
//	load.go      Run, Replicate, ProbeStats and the per-replicate summaries
//	stats.go     exact order statistics by selection, slope (mean ± sd is probes.MeanSD)
//	rules.go     docs/findings.md's common rules on one series: start-up window,
//	             outliers against the rolling median, quarters (persistence, growth)
//	outliers.go  the outliers' steps: rolling median of the previous steps, a sliding
//	             minimum proving most values are not outliers
//	batches.go   each outlier of (ii) and (iii) with its step's batch shape
//	group.go     which files may be compared; grouping by (model, spec, setup) over seeds
//	setup.go     the setup keys (placement, blocks, warm-up) that keep runs of one model apart
//	theorem.go   the Theorem-1 checks that row-averaged probes can support
//	verdict.go   "beyond seed noise" and the verdict rules
//	findings.go  the findings, (i) and (v)
//	findings_pn.go        PowerNorm's (ii) and (iii): first layer, sub-claims
//	findings_spectrum.go  PowerNorm's (iv): σ_k/σ_1 and "still moving"
//	findings_placement.go, findings_warmup.go   claim (vi): Pre-LN vs Post-LN
//	findings_lstm.go      claim (vii): LayerNorm in an LSTM
//	report.go    Report, and the sections shared by the text and Markdown output
//	text.go, markdown.go, json.go   the three formats
//	summary.go   each finding in one line (the dashboard's Summary screen)
//	collected.go findings gathered from several reports (normtop findings)
//	format.go    number formatting (metrics, mean ± sd and the missing glyph from probes)
//	curve.go     the series figures draw, thinned while the file is read (spikes kept)
//	figure.go    a figure as data: panels, axes, series of (x, y); the seed lines and bands
//	figure_findings.go  each finding's figure (PowerNorm Figs. 2-4, 6; Xu et al.'s curves)
//	figure_placement.go (vi)'s figures: step-1 gradient norms per block, Pre-LN against Post-LN curves
//	figure_draw.go      a Figure drawn with gonum.org/v1/plot as SVG, PNG or PDF
//	html.go      the self-contained HTML page (inline SVG and CSS)
//	plot.go, plot_figure.go  normtop plot: one recorded series of several files, one chart
//
// It depends on probes (the Frame vocabulary, Standings, Warmup), record (the
// reader) and gonum.org/v1/plot (no gorgonia); cmd/normtop and findings
// (which judges the runs it trains with the report) depend on it.
package report
