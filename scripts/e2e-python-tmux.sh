#!/usr/bin/env bash
# End-to-end: the PyTorch example (python/examples/train_two_norms.py) trains
# a small Transformer with LayerNorm and BatchNorm side by side, writing the
# stream of docs/formats.md, while `normtop replay --follow` shows it in a
# real terminal (tmux). Checks the live dashboard names both variants and the
# probes' layers and the selected layer's input histogram (the example's
# --histogram), follows the run to its last step, and exits cleanly on q.
# With E2E_PNG_DIR set (and aha and chromium installed) it saves the Layers
# screen with the histogram panel as PNGs at 100×30 and 160×48.
#
# Needs /usr/bin/python3 with torch, tmux and Go. Usage (from anywhere):
#   bash scripts/e2e-python-tmux.sh
# Knobs: NORMTOP=path/to/binary, E2E_STEPS=40, E2E_KEEP=1 (keep the temp dir).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="/usr/local/go/bin:$PATH"
STEPS=${E2E_STEPS:-40}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/normtop-e2e-py.XXXXXX")
SOCK="$TMP/tmux.sock"
SESSION=e2epy
TRAIN_PID=""

tmx() { tmux -S "$SOCK" "$@"; }
log() { echo "e2e-python: $*"; }
# shellcheck source=scripts/tmux-snapshot.sh
source scripts/tmux-snapshot.sh
pane() { tmx capture-pane -p -t "$SESSION" 2>/dev/null || echo "(no pane: the session is gone)"; }
cleanup() {
	[[ -n "$TRAIN_PID" ]] && kill "$TRAIN_PID" 2>/dev/null || true
	tmx kill-server 2>/dev/null || true
	[[ -n "${E2E_KEEP:-}" ]] && echo "kept $TMP" || rm -rf "$TMP"
}
trap cleanup EXIT
fail() {
	echo "e2e-python: FAIL: $*" >&2
	echo "----- captured pane -----" >&2
	pane >&2
	echo "----- trainer output -----" >&2
	cat "$TMP/train.out" >&2 2>/dev/null || true
	exit 1
}
# wait_for PATTERN SECONDS WHAT: poll the pane until grep -E PATTERN matches.
wait_for() {
	local deadline=$(($(date +%s) + $2))
	until pane | grep -Eq "$1"; do
		(($(date +%s) < deadline)) || fail "no '$1' within $2s ($3)"
		sleep 0.3
	done
}

BIN=${NORMTOP:-}
if [[ -z "$BIN" ]]; then
	BIN="$TMP/normtop"
	go build -o "$BIN" ./cmd/normtop
fi
STREAM="$TMP/two-norms.jsonl"
/usr/bin/python3 python/examples/train_two_norms.py --out "$STREAM" --steps "$STEPS" --eval-every 20 \
	--spectrum-every 10 --histogram 48 --delay 0.05 >"$TMP/train.out" 2>&1 &
TRAIN_PID=$!
deadline=$(($(date +%s) + 120))
until [[ -s "$STREAM" ]]; do
	(($(date +%s) < deadline)) || fail "the example wrote no stream within 120s"
	sleep 0.2
done
tmx new-session -d -s "$SESSION" -x 100 -y 30 "$BIN replay $STREAM --follow; echo EXIT=\$?; sleep 60"
tmx set-window-option -t "$SESSION" window-size manual >/dev/null 2>&1 || true
wait_for 'following' 60 "the follow dashboard"
wait_for 'layernorm' 30 "the LayerNorm model on the dashboard"
wait_for 'batchnorm' 5 "the BatchNorm model beside it"
tmx send-keys -t "$SESSION" 2
wait_for 'blocks\.0\.norm1' 20 "the layers screen with the model's norm sites"
wait_for 'dist_mu' 5 "the probe columns"
wait_for "step $STEPS/$STEPS" 300 "the followed run to reach step $STEPS"
wait "$TRAIN_PID" || fail "the example failed"
TRAIN_PID=""
wait_for 'input @[0-9]+' 10 "the selected layer's input histogram beside the chart"
wait_for 'steps 10–[0-9]+ ↓' 5 "the histogram's steps × bins strip"
if [[ -n "${E2E_PNG_DIR:-}" ]]; then
	snapshot python_layers_hist_100x30
	tmx resize-window -t "$SESSION" -x 160 -y 48
	wait_for 'under [0-9,]+ · over' 10 "the histogram panel at 160×48"
	snapshot python_layers_hist_160x48
fi
tmx send-keys -t "$SESSION" q
wait_for 'EXIT=0' 20 "a clean exit on q"
if pane | grep -Eq 'panic|goroutine'; then fail "the dashboard panicked"; fi
echo "e2e-python: PASS"
