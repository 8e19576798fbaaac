"""Overhead of normtop's hook on a training step, on CPU: the Transformer
of normtop's own benchmark (2 layers, d 64, 4 heads, 64 characters, batch
16; 5 LayerNorm or BatchNorm sites), Adam, one forward+backward+step.

Blocks of steps without the hook and with it (default probes, every=1;
and every=10) alternate, so that a machine whose load changes affects both
alike; the report gives the median step time of each and the overhead.

    python3 python/examples/bench_overhead.py [--norm layernorm] [--rounds 8] [--steps 20]
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
import normtop  # noqa: E402
from tiny_transformer import TinyTransformer  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--norm", default="layernorm", choices=["layernorm", "batchnorm"])
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    ap.add_argument("--precision", default="input")
    ap.add_argument("--d-model", type=int, default=64)
    a = ap.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    vocab, seq, batch = 96, 64, 16
    model = TinyTransformer(vocab, a.norm, d=a.d_model, seq=seq)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randint(0, vocab, (batch, seq))
    y = torch.randint(0, vocab, (batch, seq))
    tmp = tempfile.mkdtemp()
    modes = {"none": None, "every=1": 1, "every=5": 5, "every=10": 10}
    times = {k: [] for k in modes}
    cpu = {k: [] for k in modes}
    step = 0

    def one(run):
        nonlocal step
        step += 1
        t0, c0 = time.perf_counter(), time.process_time()
        loss = nn.functional.cross_entropy(model(x).reshape(-1, vocab), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if run is not None:
            run.log(step, train_loss=loss)
        else:
            float(loss)  # the same one sync the hook's log() makes
        return time.perf_counter() - t0, time.process_time() - c0

    for _ in range(3):  # warm up
        one(None)
    for r in range(a.rounds):
        for name, every in modes.items():
            run = None
            if every:
                run = normtop.watch(model, os.path.join(tmp, f"{name}-{r}.jsonl"), every=every,
                                    precision=a.precision, spectrum_every=100)
            step = 0
            for _ in range(a.steps):
                w, c = one(run)
                times[name].append(w)
                cpu[name].append(c)
            if run is not None:
                run.close()
    base = statistics.median(times["none"])
    cbase = statistics.median(cpu["none"])
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {a.norm}, d {a.d_model}, "
          f"{a.rounds} rounds × {a.steps} steps per mode, precision {a.precision}")
    for name in modes:
        m, c = statistics.median(times[name]), statistics.median(cpu[name])
        print(f"{name:9s} median step {m * 1e3:7.2f} ms wall ({100 * (m / base - 1):+6.1f}%), "
              f"{c * 1e3:7.2f} ms CPU ({100 * (c / cbase - 1):+6.1f}%)")


if __name__ == "__main__":
    main()
