#!/usr/bin/env bash
# Peak resident memory of a watcher on a 100,000-step mlp run (issue 34):
# replay --headless of the closed run file, the dashboard's replay of it
# (--from the last step, in a pseudo-terminal made by script(1)), and
# replay --follow --headless of a file a writer is appending. The run's
# frames are a real 30-step mlp run's, repeated with renumbered steps.
#
# Usage: bash scripts/watch-memory.sh            (fails over 150 MB)
#        NORMTOP_MEMCHECK_MB=400 NORMTOP_MEMCHECK_STEPS=20000 bash scripts/watch-memory.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
NORMTOP_MEMCHECK=1 exec go test ./cmd/normtop/ -run '^TestWatcherMemory$' -v -count=1 -timeout 30m
