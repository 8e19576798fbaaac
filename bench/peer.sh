#!/usr/bin/env bash
# Peer benchmark: normtop's training step against the same model in
# PyTorch (torch_models.py, Debian's python3-torch), run as alternating
# process pairs so machine load hits both alike. Reports each side's median
# ms/step over the pairs and the ratio normtop/PyTorch, per model and
# thread count. normtop's step is BenchmarkSteps (one variant, default
# probes on) at GOMAXPROCS = threads; PyTorch runs torch.set_num_threads.
#
# Usage: bash bench/peer.sh [pairs (3)] [steps per run (30)] [norm (layernorm)]
# Models: $PEER_MODELS, default "transformer mlp words words-batch32"
# (words: the word-level preset, BenchmarkSteps/words, token-budget
# batches with fairseq's input; words-batch32: the preset before it, 32
# padded sentences with learned positions; both need the sotu data normtop
# fetches; a model normtop cannot run is reported as skipped).
# With PEER_OPENBLAS=1, a third process per round runs normtop built with
# -tags openblas (Debian's libopenblas-dev, cgo), the reference the pure-Go
# GEMM is measured against, and its column is added.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
pairs=${1:-3}
steps=${2:-30}
norm=${3:-layernorm}
py=/usr/bin/python3

if ! "$py" -c 'import torch' 2>/dev/null; then
	echo "peer: PyTorch is not installed for $py (Debian: apt-get install python3-torch); skipped"
	exit 0
fi

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go test -c -o "$bin/train.test" ./train
blas=${PEER_OPENBLAS:-0}
if [[ $blas == 1 ]]; then
	go test -tags openblas -c -o "$bin/train-openblas.test" ./train
fi

# normtop_ms MODEL THREADS [BINARY]: median ms/step of one BenchmarkSteps run.
normtop_ms() {
	(cd train && "$bin/${3:-train.test}" -test.run '^$' -test.bench "^BenchmarkSteps/$1/$norm\$" \
		-test.benchtime "${steps}x" -test.cpu "$2") |
		awk '/median-steps\/s/ { for (i = 1; i < NF; i++) if ($(i+1) == "median-steps/s") printf "%.3f\n", 1000 / $i }'
}

torch_ms() {
	"$py" bench/torch_models.py --model "$1" --norm "$norm" --threads "$2" --steps "$steps" | awk '{ print $2 }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

if [[ $blas == 1 ]]; then
	printf '%-12s %-8s %7s %14s %14s %14s %8s\n' model norm threads normtop-ms/step openblas-ms/step pytorch-ms/step ratio
else
	printf '%-12s %-8s %7s %14s %14s %8s\n' model norm threads normtop-ms/step pytorch-ms/step ratio
fi
for model in ${PEER_MODELS:-transformer mlp words words-batch32}; do
	# one normtop run first: a warm-up, and the check that it can run the model
	if [[ -z $(normtop_ms "$model" 1 2>/dev/null | head -1) ]]; then
		echo "peer: normtop's BenchmarkSteps/$model/$norm gave no result (no such benchmark, or its data is missing); skipped"
		continue
	fi
	for threads in 1 2; do
		n=() t=() o=()
		for ((i = 0; i < pairs; i++)); do
			# alternate which side runs first
			if ((i % 2 == 0)); then
				n+=("$(normtop_ms "$model" "$threads")")
				t+=("$(torch_ms "$model" "$threads")")
			else
				t+=("$(torch_ms "$model" "$threads")")
				n+=("$(normtop_ms "$model" "$threads")")
			fi
			if [[ $blas == 1 ]]; then
				o+=("$(normtop_ms "$model" "$threads" train-openblas.test)")
			fi
		done
		nm=$(printf '%s\n' "${n[@]}" | median)
		tm=$(printf '%s\n' "${t[@]}" | median)
		ratio=$(awk -v a="$nm" -v b="$tm" 'BEGIN { print a / b }')
		if [[ $blas == 1 ]]; then
			om=$(printf '%s\n' "${o[@]}" | median)
			printf '%-12s %-8s %7d %14.2f %14.2f %14.2f %7.2fx\n' "$model" "$norm" "$threads" "$nm" "$om" "$tm" "$ratio"
		else
			printf '%-12s %-8s %7d %14.2f %14.2f %7.2fx\n' "$model" "$norm" "$threads" "$nm" "$tm" "$ratio"
		fi
	done
done
