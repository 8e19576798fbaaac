#!/usr/bin/env bash
# Checks that a change moved code without moving outputs: builds normtop at
# REV (default: main) and from the working tree, then
#  1. trains short seeded runs with REV's binary (transformer with three
#     variants and two seeds, mlp, lstm) and has both binaries export (CSV,
#     JSON Lines), report (text, Markdown, JSON) and replay (headless) the
#     same run files: each output must be byte-identical, or differ only
#     where a DELIBERATE file lists a sed substitution that makes it so;
#  2. trains the same runs again with the working tree's binary: the
#     recorded numbers (timing fields dropped, lines sorted, since variants
#     interleave) must equal REV's.
# Usage: bash scripts/same-outputs.sh [REV] [DELIBERATE.sed]
# Exit 0 when everything matches; 1 with the differing outputs named.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REV=${1:-main}
SUBST=${2:-}
W=$(mktemp -d)
trap 'git worktree remove --force "$W/old" >/dev/null 2>&1 || true; rm -rf "$W"' EXIT

git worktree add --detach "$W/old" "$REV" >/dev/null 2>&1
(cd "$W/old" && go build -o "$W/normtop-old" ./cmd/normtop)
go build -o "$W/normtop-new" ./cmd/normtop

# train BIN DIR: the short runs (the Opticks text and MNIST need no flags
# beyond these; MNIST is fetched once by the Go module cache).
train() {
	local bin=$1 dir=$2
	mkdir -p "$dir"
	(cd "$dir" &&
		"$bin" train --headless --model transformer --data text --steps 30 --eval-every 10 --log-every 5 \
			--variants layernorm,powernorm,batchnorm --seeds 1,2 --record tr.ntr >/dev/null 2>&1 &&
		"$bin" train --headless --model mlp --steps 30 --eval-every 10 --log-every 5 --seeds 1 --record mlp.ntr >/dev/null 2>&1 &&
		"$bin" train --headless --model lstm --data text --steps 20 --eval-every 10 --log-every 5 --record lstm.ntr >/dev/null 2>&1)
}

# outputs BIN DIR: every product of the run files in DIR, into DIR/BIN's name.
outputs() {
	local bin=$1 dir=$2 out
	out=$dir/$(basename "$bin")
	mkdir -p "$out"
	for f in tr mlp lstm; do
		"$bin" export --format csv "$dir/$f.ntr" >"$out/$f.csv"
		"$bin" export --format jsonl "$dir/$f.ntr" >"$out/$f.jsonl"
		"$bin" export --format md "$dir/$f.ntr" >"$out/$f.md"
		"$bin" report "$dir/$f.ntr" >"$out/$f.report.txt"
		"$bin" report --format md "$dir/$f.ntr" >"$out/$f.report.md"
		"$bin" report --format json "$dir/$f.ntr" >"$out/$f.report.json"
		"$bin" replay --headless "$dir/$f.ntr" >"$out/$f.replay.log"
	done
}

numbers() { sed -E 's/"(elapsed_s|steps_per_sec)":[^,}]*//g' "$1" | sort; }

bad=0
train "$W/normtop-old" "$W/runs"
outputs "$W/normtop-old" "$W/runs"
outputs "$W/normtop-new" "$W/runs"
for old in "$W/runs/normtop-old"/*; do
	name=$(basename "$old")
	want=$old
	if [[ -n "$SUBST" ]]; then
		want=$W/want.$name
		sed -E -f "$SUBST" "$old" >"$want"
	fi
	if cmp -s "$want" "$W/runs/normtop-new/$name"; then
		echo "same     $name"
	else
		echo "DIFFERS  $name ($(diff "$want" "$W/runs/normtop-new/$name" | grep -c '^<') lines)"
		bad=1
	fi
done
train "$W/normtop-new" "$W/again"
for f in tr mlp lstm; do
	"$W/normtop-new" export --format jsonl "$W/again/$f.ntr" >"$W/again/$f.jsonl"
	if cmp -s <(numbers "$W/runs/normtop-old/$f.jsonl") <(numbers "$W/again/$f.jsonl"); then
		echo "same     $f: the numbers trained again"
	else
		echo "DIFFERS  $f: the numbers trained again"
		bad=1
	fi
done
exit $bad
