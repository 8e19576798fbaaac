// Package probes owns what normtop measures and how it travels: the Frame
// (one per training step per variant), the probe names of docs/math.md §5,
// alerts, shadow statistics, the embedding spectrum and sampling intervals.
//
// Files, one concern each:
//
//	frame.go      Frame, Probe names, LayerValues, Eval (+ Gap), Spectrum, Alert, RunMeta
//	vocabulary.go the presentation vocabulary: Split, Metric (+ Format, FormatSD, Unit, Value),
//	              VariantMeta.Label and Group (the key seeds share), LayerName, Missing, and the one
//	              significant-digit formatter (FormatSig; FormatLoss, FormatValue)
//	modellabel.go RunMeta.ModelLabel: the model as a header line shows it ("transformer (6 blocks, post)")
//	safetext.go   SafeText: the one sanitiser for every outside string before it reaches a terminal
//	meansd.go     MeanSD: mean ± sd over seeds (sd undefined for one), the 2·SE seed-noise rule
//	standings.go  Standings: where each variant stands (last step, status, divergence, evals,
//	              best, alerts) and the run's end status, folded once per Frame (Fold) on each path
//	standings_copy.go  Standings.CopyTo: the writer's fold handed to the live dashboard under a lock
//	groups.go     GroupStanding: the standings of a spec's seeds together, and their ranking
//	warmup.go     the warm-up window of a variant's own running statistics (spec §5)
//	warmup_layer.go  what a stream's header says of each layer (kind, momentum) and its window
//	intervals.go  per-group sampling intervals and the tap mask they imply
//	batch.go      BatchShape: one step's batch (rows, width, tokens), carried unchanged to every output
//	draft.go      the trainer's handoff: TrainStep → Draft (the divergence guard) → AddEval → Seal
//	collector.go  Collector: taps and losses → Frame (one per variant, on its goroutine); the
//	              one owner of every Frame field
//	jsonfloat.go  JSONFloat: the one JSON rule for non-finite values (NaN null, ±Inf "+Inf"/"-Inf")
//	shadow.go     shadow running statistics and spec §5's distance
//	alerts.go     outlier / ν-growth / AdaNorm alerts, one per episode
//	evaltrack.go  smoothed train loss, generalization gap, over-fitting alert
//	spectrum.go   embedding SVD off the training goroutine
//	histogram.go  a layer's input histogram (Histogram) in its run's fixed bins (HistLayout)
//	feed.go       Feed: the lossy, never-blocking path to the live UI
//
// It depends on normspec (the layer taps, variant specs) and gonum (SVD) and
// nothing else in normtop, so it links no gorgonia; tui, record, headless and
// report depend on probes only.
package probes
