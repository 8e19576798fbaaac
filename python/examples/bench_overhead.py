"""Overhead of normtop's hook on a training step, on CPU: the Transformer
of normtop's own benchmark (2 layers, d 64, 4 heads, 64 characters, batch
16; 5 LayerNorm or BatchNorm sites), Adam, one forward+backward+step.

Blocks of steps without the hook and with it (default probes, every=1;
every=5 and every=10) alternate, in an order that rotates from round to
round (with a fixed order the hook-free block, always first, ran 5% slower
than the others at d 128: a position effect must not fall on one mode), so that a machine whose load changes
affects all alike; the report gives, per mode, the median step time and the overhead over the
blocks without the hook of the same round (median and quartiles over the
rounds), for wall time and for the training thread's CPU time.

    python3 python/examples/bench_overhead.py [--norm layernorm] [--rounds 8] [--steps 20]

--against DIR times another version of the package beside this one (DIR
holds its `normtop` directory, e.g. the python/ of an older checkout made
with `git worktree add /tmp/old <commit>`): the modes are then none,
every=1 and against every=1, and the last line gives, paired per round,
this version's step against the other's.

--histogram times watch(histogram=True) with a histogram at every step
(spectrum_every=1, no embedding spectrum): the modes are none, every=1 and
every=1+hist, and the last line gives, paired per round, the histogram
step against the plain every=1 step (the worst case: a run pays it on one
step in spectrum_every).
"""

import argparse
import importlib.util
import os
import re
import statistics
import sys
import tempfile
import time

# Debian's torch calls the system BLAS, OpenBLAS's pthread build, which runs
# its own threads whatever torch.set_num_threads says: on a loaded 2-core
# machine its matrix-vector products then took 2-4 ms instead of 30 µs and
# the timings were noise. The step is timed on one BLAS thread unless the
# caller says otherwise (read when the library loads: before torch).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
import normtop  # noqa: E402
from tiny_transformer import bench_step  # noqa: E402


def blas():
    """The BLAS library torch runs on (as this process mapped it) and its
    thread setting, for the report's first line."""
    a = torch.ones(64, 64)
    torch.mv(a, a[0])  # load it
    try:
        with open("/proc/self/maps") as f:
            libs = sorted({os.path.basename(l.split()[-1]) for l in f
                           if re.search(r"blas|mkl|lapack|blis", l.split()[-1], re.I)})
    except OSError:
        libs = []
    env = ", ".join(f"{k}={os.environ[k]}" for k in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")
                    if k in os.environ)
    return f"BLAS {' + '.join(libs) or 'built into torch'}" + (f" ({env})" if env else "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--norm", default="layernorm", choices=["layernorm", "batchnorm"])
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    ap.add_argument("--precision", default="input", choices=["input", "float32", "float64"])
    ap.add_argument("--d-model", type=int, default=64)
    ap.add_argument("--against", metavar="DIR", help="another version's python/ directory, timed beside this one")
    ap.add_argument("--histogram", action="store_true", help="time input histograms at every step against every=1")
    a = ap.parse_args()
    if a.rounds < 1 or a.steps < 1 or a.threads < 0:
        ap.error("--rounds and --steps want 1 or more, --threads 0 or more")
    if a.d_model < 4 or a.d_model % 4:
        ap.error(f"--d-model {a.d_model}: want a multiple of 4 (the model has 4 heads)")
    against = _load(ap, a.against) if a.against else None
    if a.threads:
        torch.set_num_threads(a.threads)
    model, train_step = bench_step(a.norm, a.d_model)
    tmp = tempfile.mkdtemp()
    modes = {"none": None, "every=1": 1, "every=5": 5, "every=10": 10}
    if against is not None:
        modes = {"none": None, "every=1": 1, "against": 1}
    if a.histogram:
        modes = {"none": None, "every=1": 1, "every=1+hist": 1}
    # Per mode and round: the median step's wall time and the main thread's
    # CPU time (time.thread_time: the work done on the training thread,
    # which other processes on a shared machine do not inflate; torch runs
    # its ops on this thread unless BLAS spawns its own).
    wall = {k: [] for k in modes}
    cpu = {k: [] for k in modes}
    step = 0

    def one(run):
        nonlocal step
        step += 1
        t0, c0 = time.perf_counter(), time.thread_time()
        train_step(run, step)
        return time.perf_counter() - t0, time.thread_time() - c0

    for _ in range(3):  # warm up
        one(None)
    names = list(modes)
    for r in range(a.rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            every = modes[name]
            run = None
            if every:
                pkg = against if name == "against" else normtop
                hist = {"spectrum_every": 1, "histogram": True, "embedding": False} if name == "every=1+hist" else {}
                run = pkg.watch(model, os.path.join(tmp, f"{name}-{r}.jsonl"), every=every,
                                precision=a.precision, **{"spectrum_every": 100, **hist})
            step = 0
            ts = [one(run) for _ in range(a.steps)]
            wall[name].append(statistics.median(t[0] for t in ts))
            cpu[name].append(statistics.median(t[1] for t in ts))
            if run is not None:
                run.close()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {a.norm}, d {a.d_model}, "
          f"{a.rounds} rounds × {a.steps} steps per mode, precision {a.precision}; {blas()}")
    print("overhead over 'none' of the same round: median [quartiles] of the rounds")
    for name in modes:
        print(f"{name:9s} step {statistics.median(wall[name]) * 1e3:6.2f} ms wall {_spread(wall[name], wall['none'])}, "
              f"{statistics.median(cpu[name]) * 1e3:6.2f} ms thread CPU {_spread(cpu[name], cpu['none'])}")
    if against is not None:
        print(f"every=1 against {a.against}, paired per round: wall {_spread(wall['every=1'], wall['against'])}, "
              f"thread CPU {_spread(cpu['every=1'], cpu['against'])}")
    if a.histogram:
        print(f"every=1+hist against every=1, paired per round: wall {_spread(wall['every=1+hist'], wall['every=1'])}, "
              f"thread CPU {_spread(cpu['every=1+hist'], cpu['every=1'])}")


def _load(ap, root):
    """The normtop package under root, imported under another name so that
    both versions live in one process."""
    init = os.path.join(root, "normtop", "__init__.py")
    if not os.path.isfile(init):
        ap.error(f"--against {root}: no normtop/__init__.py there")
    spec = importlib.util.spec_from_file_location("normtop_against", init,
                                                  submodule_search_locations=[os.path.dirname(init)])
    mod = importlib.util.module_from_spec(spec)
    sys.modules["normtop_against"] = mod
    spec.loader.exec_module(mod)
    return mod


def _spread(xs, base):
    r = sorted(100 * (x / b - 1) for x, b in zip(xs, base))
    q = statistics.quantiles(r, n=4) if len(r) > 1 else [r[0]] * 3
    return f"{statistics.median(r):+6.1f}% [{q[0]:+5.1f}, {q[2]:+5.1f}]"


if __name__ == "__main__":
    main()
