// Package report is `normtop report`: the diagnosis a reader would otherwise
// script by hand from one or more run files. Per variant (mean ± sd over
// seeds, grouping a spec's replicates across --seeds and across files) it
// gives the final and best validation metric, train loss, generalization
// gap and its trend; per layer and probe, after the warm-up window of
// spec/NORMS.md §5, the median, p99/median, max/median, outlier alerts per
// 1,000 steps and trend; the embedding spectrum's effective rank and
// σ_k/σ_1; the Theorem-1 checks the recorded probes allow; and a Findings
// section judging the five paper claims of issue 10.
//
// Files, one concern each:
//
//	read.go      Read: a run file in parallel parts (one Reader per part from its own
//	             seek point), joined in step order → per-variant collections
//	load.go      Run, Replicate, ProbeStats and the per-replicate summaries
//	stats.go     exact order statistics by selection, trend, mean ± sd, slope
//	group.go     which files may be compared; grouping by (model, spec, setup) over seeds
//	setup.go     the setup keys (placement, blocks, warm-up) that keep runs of one model apart
//	theorem.go   the Theorem-1 checks that row-averaged probes can support
//	verdict.go   "beyond seed noise" and the verdict rules
//	findings.go  the five claims
//	findings_placement.go, findings_warmup.go   claim (vi): Pre-LN vs Post-LN
//	report.go    Report, and the sections shared by the text and Markdown output
//	text.go, markdown.go, json.go   the three formats
//	format.go    number formatting
//
// It depends on probes (the Frame vocabulary, Tally, Warmup) and record (the
// reader); nothing depends on it but cmd/normtop.
package report
