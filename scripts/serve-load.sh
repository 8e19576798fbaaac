#!/usr/bin/env bash
# Load check of normtop serve (not a test: it reports numbers). A folder of
# 20 run files (4 short real training runs, each copied 5 times under its
# own name: 20 files the cache reads and decodes one by one), a server on
# 127.0.0.1, then
#   1. one session for 15 s: the server's RSS with the cache full;
#   2. SESSIONS (32) sessions at once for DURATION (60 s), each in its own
#      window size, pressing a key every 2 s (list, open a run, screens, back);
#      none may be dropped;
# sampling the server's RSS (VmRSS) and CPU time (/proc/PID/stat) every
# second. It prints the peak RSS of each phase, the memory per extra
# session ((peak with 32 − peak with 1) / 31), the CPU used, then stops the
# server with SIGTERM (exit 143 expected). Bounded: every step has a
# timeout and the whole takes about 2.5 minutes on 2 cores.
# Usage (from anywhere): bash scripts/serve-load.sh
# Knobs: SESSIONS=32 DURATION=60 NORMTOP=path/to/binary KEEP=1 (keep the temp dir).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="/usr/local/go/bin:$PATH"
SESSIONS=${SESSIONS:-32}
DURATION=${DURATION:-60}

TMP=$(mktemp -d)
SERVER=""
SAMPLER=""
cleanup() {
	[[ -n "$SAMPLER" ]] && kill "$SAMPLER" 2>/dev/null || true
	[[ -n "$SERVER" ]] && kill -9 "$SERVER" 2>/dev/null || true
	if [[ -z "${KEEP:-}" ]]; then rm -rf "$TMP"; else echo "kept $TMP"; fi
}
trap cleanup EXIT

BIN=${NORMTOP:-$TMP/normtop}
if [[ -z "${NORMTOP:-}" ]]; then
	go build -o "$BIN" ./cmd/normtop
fi
go build -o "$TMP/serveload" ./scripts/serveload

echo "=== 20 run files"
mkdir -p "$TMP/work/runs"
cd "$TMP/work"
i=0
for spec in "mlp layernorm,batchnorm" "mlp rmsnorm,pn-v" "mlp adanorm,layernorm-simple" "mlp layernorm,rmsnorm,batchnorm"; do
	set -- $spec
	timeout 300 "$BIN" train --headless --model "$1" --variants "$2" --steps 300 --log-every 1000 >/dev/null
	src=$(readlink -f runs/latest)
	for k in 1 2 3 4 5; do
		i=$((i + 1))
		cp "$src" "runs/copy-$(printf %02d $i)-$(basename "$src")"
	done
	rm "$src"
done
rm -f runs/latest
ls runs | wc -l | xargs echo "run files:"
du -sh runs | cut -f1 | xargs echo "on disk:"

ssh-keygen -q -t ed25519 -N '' -C load -f "$TMP/client"
cp "$TMP/client.pub" "$TMP/keys"

echo "=== server"
"$BIN" serve runs --authorized-keys "$TMP/keys" --host-key "$TMP/host_key" --listen 127.0.0.1:0 \
	--max-sessions $((SESSIONS + 8)) 2>"$TMP/serve.log" &
SERVER=$!
for _ in $(seq 100); do
	grep -q "serving" "$TMP/serve.log" && break
	sleep 0.1
done
PORT=$(sed -n 's/.* on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$TMP/serve.log")
[[ -n "$PORT" ]] || { cat "$TMP/serve.log"; echo "serve-load: the server did not start"; exit 1; }
TICKS=$(getconf CLK_TCK)

# sample PHASE: one line a second "phase rss_kb cpu_ticks" into samples.
PHASE=idle
echo idle >"$TMP/phase"
(
	while kill -0 "$SERVER" 2>/dev/null; do
		rss=$(awk '/VmRSS/ {print $2}' /proc/$SERVER/status 2>/dev/null || echo 0)
		cpu=$(awk '{print $14 + $15}' /proc/$SERVER/stat 2>/dev/null || echo 0)
		echo "$(cat "$TMP/phase") $rss $cpu" >>"$TMP/samples"
		sleep 1
	done
) &
SAMPLER=$!
sleep 2

load() { # load N SECONDS
	timeout $(($2 + 60)) "$TMP/serveload" -addr "127.0.0.1:$PORT" -key "$TMP/client" -host-key "$TMP/host_key" \
		-sessions "$1" -duration "$2s"
}

echo "=== 1 session, 15 s"
echo one >"$TMP/phase"
load 1 15 | tail -1
sleep 2
echo "=== $SESSIONS sessions, ${DURATION} s"
echo many >"$TMP/phase"
START_CPU=$(awk '{print $14 + $15}' /proc/$SERVER/stat)
START=$(date +%s.%N)
rc=0
load "$SESSIONS" "$DURATION" >"$TMP/load.out" || rc=$?
END=$(date +%s.%N)
END_CPU=$(awk '{print $14 + $15}' /proc/$SERVER/stat)
echo after >"$TMP/phase"
grep -E "DROPPED" "$TMP/load.out" || true
tail -1 "$TMP/load.out"
sleep 1

peak() { awk -v p="$1" '$1 == p && $2 > m {m = $2} END {print m + 0}' "$TMP/samples"; }
IDLE=$(peak idle)
ONE=$(peak one)
MANY=$(peak many)
echo "=== results"
echo "server RSS: idle $((IDLE / 1024)) MiB; 1 session (cache full) $((ONE / 1024)) MiB; $SESSIONS sessions $((MANY / 1024)) MiB"
PER=$(((MANY - ONE) / (SESSIONS - 1)))
echo "memory per extra session: $PER KiB ((peak with $SESSIONS - peak with 1) / $((SESSIONS - 1))), $((PER / 20)) KiB per run file listed"
awk -v t="$TICKS" -v c0="$START_CPU" -v c1="$END_CPU" -v s="$START" -v e="$END" \
	'BEGIN {cpu = (c1 - c0) / t; wall = e - s; printf "server CPU during the %d sessions: %.1f s in %.1f s wall (%.0f%% of one core)\n", '"$SESSIONS"', cpu, wall, 100 * cpu / wall}'
grep -c "normtop serve: connect " "$TMP/serve.log" | xargs echo "connect lines:"
grep -c "normtop serve: disconnect " "$TMP/serve.log" | xargs echo "disconnect lines:"

kill -TERM "$SERVER"
code=0
wait "$SERVER" || code=$?
SERVER=""
echo "server exit after SIGTERM: $code (want 143)"
[[ $code -eq 143 ]] || exit 1
if [[ $rc -ne 0 ]]; then
	echo "serve-load: FAIL: sessions dropped (see above)"
	exit 1
fi
echo "serve-load: OK"
