#!/usr/bin/env bash
# End-to-end test of the normtop dashboard in a real terminal (tmux).
#
# It builds ./cmd/normtop (or uses $NORMTOP), starts a short real training
# run in a detached tmux session of fixed size, waits for the dashboard,
# switches through the seven screens with keys 1..7 and checks each one's
# title, reads the chart cursor, zooms, filters the events, checks that ?
# then q only closes the help and that q on a live run asks first, resizes
# the window (too small, then larger) and checks the redraw, waits for the
# run to end and land on the Summary screen, quits with q and checks a
# clean exit (status 0, no panic), then replays the run file and checks a
# screen there too, drives the difference view (d, b), the Grid with a
# filter and the config panel (i) at 160×48, and finally watches a headless run with replay --follow
# until its last step, and opens the workspace of both run files (two
# runs overlaid, one opened and left). With E2E_PNG_DIR set and aha and chromium installed
# (Debian packages), it also saves the Overview and Summary screens as PNGs
# there (ANSI → HTML → headless Chromium) for a person to look at, and the
# difference view, the Grid and the config panel too.
#
# Every wait is time-bounded; any failure prints the captured pane and exits
# non-zero. Usage (from anywhere):
#   bash scripts/e2e-tmux.sh
# Knobs: NORMTOP=path/to/binary, E2E_STEPS=6000, E2E_TIMEOUT=240 (seconds for
# the run to finish), E2E_START_TIMEOUT=120 (seconds for the dashboard to
# appear), E2E_KEEP=1 (keep the temp dir for inspection), E2E_PNG_DIR=dir.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="/usr/local/go/bin:$PATH"

# The live run must outlast the interactive checks (about 10 s): a run that
# ends mid-way lands on the Summary screen (from the Overview) or never does
# (from another screen), and the checks after it then wait for the wrong
# screen. With the Go GEMM 300 mlp steps took 5 s and 2,500 took 30 s; since
# the executor and the AVX-512 GEMM, 2,500 take 11 s on an idle 2-core
# machine, against 5 s of checks. 6,000 keep the margin.
STEPS=${E2E_STEPS:-6000}
RUN_TIMEOUT=${E2E_TIMEOUT:-240}
START_TIMEOUT=${E2E_START_TIMEOUT:-120}
COLS=100
ROWS=30
TMP=$(mktemp -d "${TMPDIR:-/tmp}/normtop-e2e.XXXXXX")
SOCK="$TMP/tmux.sock"
SESSION=e2e
RUNFILE="$TMP/run.ntr"
T0=$(date +%s)

tmx() { tmux -S "$SOCK" "$@"; }

HEADLESS_PID=""

cleanup() {
	tmx kill-server >/dev/null 2>&1 || true
	if [[ -n "$HEADLESS_PID" ]]; then kill "$HEADLESS_PID" 2>/dev/null || true; fi
	if [[ -z "${E2E_KEEP:-}" ]]; then rm -rf "$TMP"; else echo "e2e-tmux: kept $TMP"; fi
}
trap cleanup EXIT

log() { printf 'e2e-tmux [%3ds] %s\n' "$(($(date +%s) - T0))" "$*"; }

pane() { tmx capture-pane -p -t "$SESSION" 2>/dev/null || echo "(no pane: the session is gone)"; }

fail() {
	echo "e2e-tmux: FAIL: $*" >&2
	echo "----- captured pane ($COLS×$ROWS unless resized) -----" >&2
	pane >&2
	echo "----- stderr of the program -----" >&2
	cat "$TMP/stderr" >&2 2>/dev/null || true
	if [[ -s "$TMP/status" ]]; then
		echo "----- the program exited with status $(cat "$TMP/status")" >&2
	fi
	echo "-----" >&2
	exit 1
}

# wait_for PATTERN SECONDS WHAT: poll the pane until grep -E PATTERN matches.
wait_for() {
	local pattern=$1 secs=$2 what=$3
	local deadline=$(($(date +%s) + secs))
	while (($(date +%s) < deadline)); do
		if pane | grep -Eq -- "$pattern"; then
			return 0
		fi
		sleep 0.2
	done
	fail "timed out after ${secs}s waiting for $what (pattern: $pattern)"
}

# wait_exit SECONDS: wait for the program's exit status file.
wait_exit() {
	local secs=$1 deadline=$(($(date +%s) + $1))
	while (($(date +%s) < deadline)); do
		[[ -s "$TMP/status" ]] && return 0
		sleep 0.2
	done
	fail "the program did not exit within ${secs}s of q"
}

check_clean_exit() {
	local what=$1 code
	code=$(cat "$TMP/status")
	if [[ "$code" != "0" ]]; then
		fail "$what exited with status $code, want 0"
	fi
	if grep -Eq 'panic:|goroutine [0-9]+ \[|SIGSEGV' "$TMP/stderr" || pane | grep -Eq 'panic:|goroutine [0-9]+ \['; then
		fail "$what printed a panic"
	fi
}

# start CMD...: run the command in a fresh session; its stderr goes to a
# file and its exit status to $TMP/status; the pane stays after exit.
# Each start gets its own tmux server (a fresh socket): reusing a socket
# right after kill-server races with the dying server.
STARTS=0
start() {
	rm -f "$TMP/status" "$TMP/stderr"
	tmx kill-server >/dev/null 2>&1 || true
	STARTS=$((STARTS + 1))
	SOCK="$TMP/tmux-$STARTS.sock"
	local cmd
	printf -v cmd '%q ' "$@"
	tmx -f /dev/null new-session -d -s "$SESSION" -x "$COLS" -y "$ROWS" \
		"env TERM=xterm-256color $cmd 2>$(printf %q "$TMP/stderr"); echo \$? >$(printf %q "$TMP/status"); sleep 600" ||
		fail "tmux new-session failed"
	tmx set-option -t "$SESSION" remain-on-exit on >/dev/null
	tmx set-window-option -t "$SESSION" window-size manual >/dev/null 2>&1 || true
}

# shellcheck source=scripts/tmux-snapshot.sh
source scripts/tmux-snapshot.sh # snapshot NAME: pane → HTML → PNG (the working directory is the repository root)

key() { tmx send-keys -t "$SESSION" "$@" || fail "tmux send-keys $* failed"; }

# Screen-specific text (the tab bar shows every title, so each check looks
# for something only that screen draws).
SCREEN_TEXT=(
	'loss( \(log axis\))? · train ─'
	'layers × probes'
	'dist_mu · [^ ]+ · ‖μ_B'
	'embedding spectrum'
	'Theorem 1'
	'events [0-9]+'
	'ranked by final val'
	'[0-9]+ charts · layer × probe'
)

check_screens() {
	local i
	for i in 1 2 3 4 5 6 7 8; do
		key "$i"
		wait_for "${SCREEN_TEXT[$((i - 1))]}" 10 "screen $i after key $i"
		log "screen $i ok"
	done
	key 1
}

command -v tmux >/dev/null || fail "tmux is not installed"

BIN=${NORMTOP:-}
if [[ -z "$BIN" ]]; then
	log "building ./cmd/normtop"
	go build -o "$TMP/normtop" ./cmd/normtop || fail "go build ./cmd/normtop failed"
	BIN="$TMP/normtop"
fi
[[ -x "$BIN" ]] || fail "$BIN is not an executable"

log "live: $BIN train --model mlp --steps $STEPS in tmux ${COLS}×${ROWS}"
start "$BIN" train --model mlp --steps "$STEPS" --eval-every 50 --record "$RUNFILE"
wait_for '1 Overview' "$START_TIMEOUT" "the dashboard to appear"
wait_for 'normtop .*mlp' 5 "the header (run, model)"
grep -Fq -- "$RUNFILE" <(pane) || fail "header does not show the run file $RUNFILE"
log "dashboard up"
check_screens

log "cursor, zoom, filter, help, quit question"
key c
wait_for 'cursor [0-9]+ . batch 32.1 \(32 tok\)' 10 "the chart cursor (c) and its step's batch (32 images, 1 wide) in the overview's title"
key Left
key z
wait_for 'steps [0-9]+–[0-9]+ \(0: all\)' 10 "the zoomed window (z)"
key 0
key c
key 6
key f
wait_for 'showing divergence · all variants' 10 "the events filter (f)"
key f
key f
key f
key f
key f
wait_for 'showing all kinds · all variants' 10 "the events filter back to all"
key 1
key ?
wait_for 'Keys · esc or \? closes' 10 "the full help (?)"
key q
wait_for 'loss( \(log axis\))? · train ─' 10 "q to close the help and show the overview"
sleep 0.5
[[ -s "$TMP/status" ]] && fail "? then q quit the live run"
if ! pane | grep -q 'live (ended)'; then
	key q
	wait_for 'stop the live run and quit\?' 10 "the question before stopping a live run"
	key x
	wait_for 'help • q quit' 10 "another key to cancel the question"
	[[ -s "$TMP/status" ]] && fail "q then x quit the live run"
fi
log "cursor, zoom, filter, help and quit question ok"

log "resize to 70×20 (too small), then 120×40"
tmx resize-window -t "$SESSION" -x 70 -y 20 || fail "tmux resize-window failed"
wait_for 'terminal too small \(need 80×24' 10 "the too-small message after resizing to 70×20"
tmx resize-window -t "$SESSION" -x 120 -y 40 || fail "tmux resize-window failed"
wait_for '1 Overview' 10 "the dashboard to come back at 120×40"
# The redraw uses the new width: the tab bar's row is padded to 120 columns
# and the help bar sits on row 40.
rows=$(pane | wc -l)
[[ $rows -ge 40 ]] || fail "pane has $rows rows after resizing to 40"
pane | sed -n '40p' | grep -Eq 'quit|help' || fail "help bar not on the last row (40) after the resize"
log "resize ok"

log "waiting up to ${RUN_TIMEOUT}s for the run to end"
wait_for 'live \(ended\)' "$RUN_TIMEOUT" "the run to end (header 'live (ended)')"
wait_for 'ranked by final val' 10 "the finished run to land on the Summary screen"
wait_for '★' 10 "the best variant marked on the Summary screen"
log "the finished run landed on the Summary screen"
if [[ -n "${E2E_PNG_DIR:-}" ]]; then
	snapshot summary
	key 1
	wait_for 'loss( \(log axis\))? · train ─' 10 "the overview for its snapshot"
	snapshot overview
fi
key q
wait_exit 30
check_clean_exit "normtop train"
[[ -s "$RUNFILE" ]] || fail "run file $RUNFILE missing or empty"
log "clean exit, run file $(wc -c <"$RUNFILE") bytes"

log "replay: $BIN replay $RUNFILE --speed 8"
start "$BIN" replay "$RUNFILE" --speed 8
wait_for 'replay ×8' 30 "the replay dashboard"
wait_for "step $STEPS" 60 "the replay to reach step $STEPS"
key 5
wait_for 'Theorem 1' 10 "the gradients screen in replay"
key Space
wait_for 'paused' 10 "the replay to pause"
key g
wait_for 'step 0/' 10 "a seek to the start while paused (step 0)"
key Space
key q
wait_exit 30
check_clean_exit "normtop replay"
log "replay ok"

# Who is winning, a grid of charts, the run's config: on the finished run,
# at 160×48 (the PNGs are taken there).
log "replay: difference view, grid with a filter, config panel at 160×48"
start "$BIN" replay "$RUNFILE" --speed 64
wait_for "step $STEPS" 60 "the replay to reach step $STEPS"
# The finished replay lands on the Summary screen once, from the Overview,
# a moment after its last step shows: wait for it, or it can land after
# the keys below and take the screen they chose.
wait_for 'ranked by final val' 30 "the finished replay to land on the Summary screen"
tmx resize-window -t "$SESSION" -x 160 -y 48 || fail "tmux resize-window failed"
key 1
wait_for 'loss( \(log axis\))? · train ─ \(ema' 10 "the overview, smoothed by default"
key d
wait_for 'Δ loss vs [^ ]+' 10 "the difference view (d)"
wait_for 'baseline \(0\)' 10 "the baseline in the difference view's legend"
first=$(pane | grep -Eo 'Δ loss vs [^ ]+' | head -1)
key b
deadline=$(($(date +%s) + 10))
until second=$(pane | grep -Eo 'Δ loss vs [^ ]+' | head -1) && [[ -n "$second" && "$second" != "$first" ]]; do
	(($(date +%s) < deadline)) || fail "b did not change the baseline ($first)"
	sleep 0.2
done
key b
key b
key b
key b
wait_for "$first" 10 "b to cycle back to the first baseline"
log "difference view ok ($first, then $second)"
[[ -n "${E2E_PNG_DIR:-}" ]] && snapshot overview_diff
key d
key 8
wait_for '[0-9]+ charts · layer × probe' 10 "the grid (8)"
key /
tmx send-keys -t "$SESSION" -l 'dist_*' || fail "typing the grid's filter failed"
key Enter
wait_for 'filter /dist_\*' 10 "the grid's filter"
wait_for '· dist_' 10 "a dist_ chart in the filtered grid"
if pane | grep -Eq ' · (g_|dx_|dy_|in_)'; then fail "the filter dist_* left another probe's chart"; fi
log "grid and its filter ok"
[[ -n "${E2E_PNG_DIR:-}" ]] && snapshot grid
key i
wait_for 'run config' 10 "the config panel (i)"
wait_for 'variants \(every option' 10 "the variants in the config panel"
wait_for 'batch ' 10 "the batch size in the config panel"
[[ -n "${E2E_PNG_DIR:-}" ]] && snapshot config
key Escape
wait_for '[0-9]+ charts · layer × probe' 10 "esc to close the config panel"
key q
wait_exit 30
check_clean_exit "normtop replay (difference, grid, config)"
log "difference view, grid and config panel ok"

# Follow: a headless run writes a file while the dashboard watches it.
FOLLOW="$TMP/follow.ntr"
log "follow: headless run in the background, replay --follow in tmux"
"$BIN" train --headless --model mlp --steps "$STEPS" --eval-every 50 --record "$FOLLOW" >"$TMP/headless.out" 2>&1 &
HEADLESS_PID=$!
deadline=$(($(date +%s) + START_TIMEOUT))
until [[ -s "$FOLLOW" ]]; do
	(($(date +%s) < deadline)) || { kill "$HEADLESS_PID" 2>/dev/null || true; fail "headless run wrote no run file within ${START_TIMEOUT}s: $(cat "$TMP/headless.out")"; }
	sleep 0.2
done
start "$BIN" replay "$FOLLOW" --follow
wait_for 'following' 60 "the follow dashboard to catch up with the writer"
wait_for "step $STEPS" "$RUN_TIMEOUT" "the followed run to reach step $STEPS"
wait "$HEADLESS_PID" || fail "the headless run failed: $(cat "$TMP/headless.out")"
HEADLESS_PID=""
key q
wait_exit 30
check_clean_exit "normtop replay --follow"

# The workspace: the directory holding both run files.
log "workspace: $BIN replay $TMP (two run files)"
start "$BIN" replay "$TMP"
wait_for 'workspace · 2 run files' 30 "the workspace's list"
deadline=$(($(date +%s) + 60))
while pane | grep -q 'loading…' || [[ $(pane | grep -c ' done ') -lt 2 ]]; do
	(($(date +%s) < deadline)) || fail "the workspace did not load both runs within 60 s"
	sleep 0.2
done
key Space
key Down
key Space
wait_for 'of 2 runs, run·variant' 10 "the two runs overlaid (space, ↓, space)"
[[ -n "${E2E_PNG_DIR:-}" ]] && snapshot workspace
key Enter
wait_for '1 Overview' 30 "enter to open a run"
key Escape
wait_for 'workspace · 2 run files' 10 "esc back to the list"
key q
wait_exit 30
check_clean_exit "normtop replay DIR (workspace)"
log "workspace ok"
log "PASS"
