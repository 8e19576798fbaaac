#!/usr/bin/env bash
# Peer benchmark: normtop's training step against the same model in
# PyTorch (bench/torch_models.py, Debian's python3-torch), run as
# alternating process pairs so machine load hits both alike. Fair by
# construction:
#
#   - PyTorch's BLAS is OpenBLAS: found (Debian's libopenblas0-pthread,
#     put first on the peer's library path when the libblas.so.3
#     alternative points elsewhere), installed with apt-get when missing and
#     this is root, else the run stops; the library torch loaded and
#     OpenBLAS's kernel (core name) and configuration are printed.
#   - The peer's BLAS and OpenMP threads are the thread count
#     (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS, torch.set_num_threads); its
#     command unsets an inherited OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, so
#     OpenBLAS picks its own kernels for this CPU (this script's processes
#     only: tests and CI keep their environment); glibc's malloc thresholds
#     are raised for it (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_), so
#     Adam's temporaries are not mapped and unmapped on every step.
#   - Both sides build the same model: the peer takes the vocabulary and
#     classes normtop reports for its data, and both parameter counts are
#     printed (a difference is flagged).
#   - On a loaded machine (see passive below) its threads wait passively
#     (OMP_WAIT_POLICY=PASSIVE, OPENBLAS_THREAD_TIMEOUT=4).
#   - Both time the same work: a whole training step including making its
#     batch (normtop's step also runs its default probes, which PyTorch has
#     not).
#   - Both report the median step's wall time and CPU time per step
#     (process user + system over the timed steps / steps).
#
# normtop's side is BenchmarkPeer in ./train at GOMAXPROCS = threads.
#
# Usage: bash bench/peer.sh [pairs (3)] [steps per run (30)]
# $PEER_MODELS: model:norm list (a model NAME-bare is normtop with every
#   probe off, against the same peer), default all: the transformer, the mlp,
#   the word LM at d 64 (words) and the sweep words-d128/256/512, the
#   classifier, the resnet (batchnorm) and the LSTM (none, PyTorch's
#   nn.LSTM); words and classifier need the sotu and spam data normtop
#   fetches, a model normtop cannot run is reported as skipped.
# $PEER_THREADS: thread counts, default "1 2".
# $PEER_OPENBLAS=1: a third process per pair runs normtop built with
#   -tags openblas (libopenblas-dev, cgo) under the peer's BLAS settings,
#   the reference the Go GEMM is measured against; its column is added.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
pairs=${1:-3}
steps=${2:-30}
threads_list=${PEER_THREADS:-1 2}
models=${PEER_MODELS:-transformer:layernorm mlp:layernorm words:layernorm words-d128:layernorm words-d256:layernorm words-d512:layernorm classifier:layernorm resnet:batchnorm lstm:none}
py=/usr/bin/python3
arch=$(uname -m)-linux-gnu

if ! "$py" -c 'import torch' 2>/dev/null; then
	echo "peer: PyTorch is not installed for $py (Debian: apt-get install python3-torch); skipped"
	exit 0
fi

# On a machine busier than its CPUs (load average above the CPU count at
# the start, or PEER_PASSIVE=1), the peer's worker threads wait passively:
# OpenMP's and OpenBLAS's default is to spin for a while at every barrier,
# which is fastest on an idle machine, but when a spinning thread holds the
# CPU its partner needs, a 2-thread PyTorch step took 30-700× its 1-thread
# CPU time (mlp 124 ms against 2.7 ms at load average 14 on 2 CPUs).
passive=${PEER_PASSIVE:-$(awk -v n="$(nproc)" '{ print ($1 > n) ? 1 : 0 }' /proc/loadavg)}

# peer_env THREADS: the environment the peer (and the OpenBLAS column) runs in.
ldpath=
peer_env() {
	local e=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE -u OPENBLAS_VERBOSE
		"OPENBLAS_NUM_THREADS=$1" "OMP_NUM_THREADS=$1"
		MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=1073741824)
	[[ -n $ldpath ]] && e+=("LD_LIBRARY_PATH=$ldpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
	[[ $passive == 1 ]] && e+=(OMP_WAIT_POLICY=PASSIVE OPENBLAS_THREAD_TIMEOUT=4)
	printf '%s\n' "${e[@]}"
}

# torch_blas: what BLAS torch loads in the peer's environment, one line
# each: the libraries mapped after a matrix product, then OpenBLAS's core
# name, configuration and threads (threadpoolctl when installed, else
# OpenBLAS's own entry points through ctypes).
torch_blas() {
	mapfile -t e < <(peer_env 1)
	"${e[@]}" "$py" - <<'EOF'
import ctypes, re, torch
a = torch.randn(256, 256)
a @ a
libs = sorted({l.split()[-1] for l in open("/proc/self/maps") if re.search(r"/lib(open)?blas|mkl|blis|atlas", l)})
for l in libs:
    print("lib", l)
try:
    import threadpoolctl
    for i in threadpoolctl.threadpool_info():
        if i.get("internal_api") == "openblas":
            print("openblas", i.get("architecture"), "|", i.get("version"), "| threads", i.get("num_threads"), "(threadpoolctl)")
except ImportError:
    for l in libs:
        if "openblas" in l:
            ob = ctypes.CDLL(l)
            ob.openblas_get_corename.restype = ctypes.c_char_p
            ob.openblas_get_config.restype = ctypes.c_char_p
            print("openblas", ob.openblas_get_corename().decode(), "|", ob.openblas_get_config().decode(),
                  "| threads", ob.openblas_get_num_threads())
            break
print("torch", torch.__version__, "| threads", torch.get_num_threads(), "|",
      [l.strip() for l in torch.__config__.show().splitlines() if "CPU capability" in l][0])
EOF
}

# Find OpenBLAS for torch: as loaded, else first on the library path, else
# install it.
blas=$(torch_blas)
if ! grep -q '^openblas ' <<<"$blas"; then
	for dir in "/usr/lib/$arch/openblas-pthread" "/usr/lib/$arch/openblas-openmp" "/usr/lib/$arch/openblas-serial"; do
		if [[ -e $dir/libblas.so.3 ]]; then
			ldpath=$dir
			break
		fi
	done
	if [[ -z $ldpath && $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
		echo "peer: torch loads no OpenBLAS and none is installed; apt-get install -y libopenblas0-pthread"
		apt-get install -y libopenblas0-pthread >/dev/null
		ldpath=/usr/lib/$arch/openblas-pthread
	fi
	[[ -n $ldpath ]] && blas=$(torch_blas)
	if ! grep -q '^openblas ' <<<"$blas"; then
		echo "peer: torch does not load OpenBLAS (it loads: $(grep '^lib ' <<<"$blas" | cut -d' ' -f2 | tr '\n' ' ')); install libopenblas0-pthread: a reference BLAS makes PyTorch ~10x slower" >&2
		exit 1
	fi
fi

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go test -c -o "$bin/train.test" ./train
withblas=${PEER_OPENBLAS:-0}
if [[ $withblas == 1 ]]; then
	go test -tags openblas -c -o "$bin/train-openblas.test" ./train
fi

echo "# peer setting: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
sed 's/^/# /' <<<"$blas"
echo "# peer environment (threads T): $(peer_env T | grep = | tr '\n' ' ')unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE (inherited: ${OPENBLAS_CORETYPE:-none} ${OPENBLAS_L2_SIZE:-none})"
echo "# $pairs interleaved pairs of $steps timed steps; wall: median step; cpu: process CPU / step; ratios: median over the pairs"

# normtop_run MODEL NORM THREADS [BINARY]: "wall cpu params vocab classes allocs" of one BenchmarkPeer run.
normtop_run() {
	local cmd=("$bin/${4:-train.test}")
	if [[ -n ${4:-} ]]; then
		mapfile -t e < <(peer_env "$3")
		cmd=("${e[@]}" "${cmd[@]}")
	fi
	(cd train && "${cmd[@]}" -test.run '^$' -test.bench "^BenchmarkPeer\$/^$1\$/^$2\$" \
		-test.benchtime "${steps}x" -test.cpu "$3" -test.benchmem) |
		awk '/median-ms\/step/ {
			for (i = 1; i < NF; i++) v[$(i+1)] = $i
			print v["median-ms/step"], v["cpu-ms/step"], int(v["params"]), int(v["vocab"]), int(v["classes"]), v["allocs/op"] }'
}

# torch_run MODEL NORM THREADS VOCAB CLASSES: "wall cpu params" of one peer run.
torch_run() {
	mapfile -t e < <(peer_env "$3")
	"${e[@]}" "$py" bench/torch_models.py --model "$1" --norm "$2" --threads "$3" --steps "$steps" \
		--vocab "$4" --classes "$5" | awk '$1 == "ms/step" { print $2, $4, $6 }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
col() { awk -v c="$1" '{ print $c }'; }

hdr='%-12s %-9s %3s  %9s %9s  %9s %9s  %6s %6s  %7s'
printf "$hdr" model norm thr nt-wall nt-cpu pt-wall pt-cpu wall× cpu× allocs
[[ $withblas == 1 ]] && printf '  %9s %9s' ob-wall ob-cpu
echo
for mn in $models; do
	model=${mn%%:*} norm=${mn#*:}
	# one normtop run first: a warm-up, the check that it can run the
	# model, and the data's sizes for the peer
	first=$(normtop_run "$model" "$norm" 1 2>/dev/null | head -1)
	if [[ -z $first ]]; then
		echo "peer: normtop's BenchmarkPeer/$model/$norm gave no result (no such benchmark, or its data is missing); skipped"
		continue
	fi
	read -r _ _ nparams vocab classes _ <<<"$first"
	if ! tparams=$(torch_run "$model" "$norm" 1 "$vocab" "$classes" | col 3) || [[ -z $tparams ]]; then
		echo "peer: bench/torch_models.py has no peer for $model/$norm; skipped"
		continue
	fi
	flag=
	[[ $nparams != "$tparams" ]] && flag="  DIFFERENT: the ratios compare different models"
	echo "# $model: parameters normtop $nparams, pytorch $tparams (vocab $vocab, classes $classes)$flag"
	for threads in $threads_list; do
		n=() t=() o=()
		for ((i = 0; i < pairs; i++)); do
			# alternate which side runs first
			if ((i % 2 == 0)); then
				n+=("$(normtop_run "$model" "$norm" "$threads")")
				t+=("$(torch_run "$model" "$norm" "$threads" "$vocab" "$classes")")
			else
				t+=("$(torch_run "$model" "$norm" "$threads" "$vocab" "$classes")")
				n+=("$(normtop_run "$model" "$norm" "$threads")")
			fi
			if [[ $withblas == 1 ]]; then
				o+=("$(normtop_run "$model" "$norm" "$threads" train-openblas.test)")
			fi
		done
		rw=() rc=()
		for ((i = 0; i < pairs; i++)); do
			read -r nw nc _ <<<"${n[i]}"
			read -r tw tc _ <<<"${t[i]}"
			rw+=("$(awk -v a="$nw" -v b="$tw" 'BEGIN { print a / b }')")
			rc+=("$(awk -v a="$nc" -v b="$tc" 'BEGIN { print a / b }')")
		done
		printf "$hdr" "$model" "$norm" "$threads" \
			"$(printf '%s\n' "${n[@]}" | col 1 | median)" "$(printf '%s\n' "${n[@]}" | col 2 | median)" \
			"$(printf '%s\n' "${t[@]}" | col 1 | median)" "$(printf '%s\n' "${t[@]}" | col 2 | median)" \
			"$(printf '%.2f' "$(printf '%s\n' "${rw[@]}" | median)")" \
			"$(printf '%.2f' "$(printf '%s\n' "${rc[@]}" | median)")" \
			"$(printf '%s\n' "${n[@]}" | col 6 | median)"
		if [[ $withblas == 1 ]]; then
			printf '  %9s %9s' "$(printf '%s\n' "${o[@]}" | col 1 | median)" "$(printf '%s\n' "${o[@]}" | col 2 | median)"
		fi
		echo
	done
done
echo "# load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
