"""How low can a per-layer hook's cost go? The evidence behind the overhead
section of python/README.md.

On the Transformer of bench_overhead.py it times a training step without
the hook and with normtop's hook reduced, step by step, to less than the
probes need, all with every=1:

  empty      the hooks are attached and called, their bodies do nothing
             (no tensor op), log() writes the step's line;
  one-pass   one reduction per hook: x.sum() in the forward, g.sum() in the
             backward; the least that reads the layer's data at all;
  passes     the passes over x, g and dx that the LayerNorm probes of
             docs/math.md §5 need and nothing else (per feature Σx, Σ(x−μ)²,
             min/max; per row ‖x−μ‖, Σĝ, Σĝ(x−μ), Σg, ‖g‖, Σdx, ‖dx‖), the
             vectors copied to the host unreduced: no probe arithmetic;
  full       normtop's hook as shipped.

Modes are timed in blocks whose order rotates from round to round; the
overhead is the median over rounds of each block's median step against the
hook-free block of the same round. LayerNorm only (the passes mode is
LayerNorm's).

    python3 python/examples/overhead_floor.py [--rounds 12] [--steps 30] [--d-model 64]
"""

import argparse
import importlib
import math
import os
import statistics
import sys
import tempfile
import time

# One OpenBLAS thread, as bench_overhead.py (which says why): before torch loads it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
import normtop  # noqa: E402
from tiny_transformer import bench_step  # noqa: E402
from normtop.probes import NUM_PROBES  # noqa: E402

W = importlib.import_module("normtop.variant")
_Call = importlib.import_module("normtop.layer_state")._Call
SHIPPED = {n: getattr(W._Variant, n) for n in ("_forward", "_backward", "take")}


# The hook (variant.py) measures a layer's backward only when _forward
# returns the _Call it added to the layer's runs (None means "skip this layer
# this step": no backward hook is attached); the backward then calls
# _backward(st, call, x, g, dx, mean), which must set call.bwd. The stand-ins
# keep that contract, so each mode times its forward and its backward.


def _run(st, fwd):
    call = _Call(fwd, None, None, None, False, st.backwards, False, ())
    st.calls.append(call)
    return call


def _empty_forward(self, st, x, node, frozen=False):
    return _run(st, ())


def _empty_backward(self, st, call, x, g, dx, mean=None):
    call.bwd = ()
    self.touched = True


def _one_forward(self, st, x, node, frozen=False):
    return _run(st, (x.sum(),))


def _one_backward(self, st, call, x, g, dx, mean=None):
    call.bwd = (g.sum(),)
    self.touched = True


def _pass_forward(self, st, x, node, frozen=False):
    n = float(x.shape[0])
    s = x.sum(0)
    q = torch.sub(x, s, alpha=1 / n).square_().sum(0)
    return _run(st, (s, q, torch.aminmax(x)))


def _pass_backward(self, st, call, x, g, dx, mean=None):
    gam = st.site.weight.detach()
    ones = self._ones(x.shape[1], x.dtype, x.device)
    if mean is not None:  # the row means LayerNorm saved for its own backward, as the shipped hook reads them
        xc = torch.sub(x, mean.reshape(-1, 1))
    else:
        xc = torch.sub(x, torch.mv(x, ones)[:, None], alpha=1 / x.shape[1])
    nc = torch.linalg.vector_norm(xc, dim=1)
    sgh, sg = torch.mv(g, gam), torch.mv(g, ones)
    sghx = torch.mv(xc.mul_(g), gam)
    vecs = (nc, sgh, sghx, sg, torch.linalg.vector_norm(g, dim=1))
    if dx is not None:
        vecs += (torch.mv(dx, ones), torch.linalg.vector_norm(dx, dim=1))
    call.bwd = vecs
    self.touched = True


def _tensors(*items):
    for t in items:
        if isinstance(t, torch.Tensor):
            yield t.reshape(-1)
        elif isinstance(t, tuple):
            yield from _tensors(*t)


def _raw_take(self, extra=None):
    """The step's vectors to the host in one copy, unreduced; no probe values."""
    parts = list(_tensors(*[(c.fwd, c.bwd) for st in self.states for c in st.calls if c.bwd is not None]))
    if extra is not None:
        parts.append(extra.detach().reshape(1))
    vals = torch.cat(parts).tolist() if parts else []
    for st in self.states:
        st.calls = []
    self.touched = False
    return [[math.nan] * NUM_PROBES for _ in self.run.layers], (vals[-1] if extra is not None else None)


MODES = {
    "none": None,
    "empty": (_empty_forward, _empty_backward, _raw_take),
    "one-pass": (_one_forward, _one_backward, _raw_take),
    "passes": (_pass_forward, _pass_backward, _raw_take),
    "full": (SHIPPED["_forward"], SHIPPED["_backward"], SHIPPED["take"]),
}


def use(mode):
    fns = MODES[mode] or tuple(SHIPPED.values())
    for name, fn in zip(("_forward", "_backward", "take"), fns):
        setattr(W._Variant, name, fn)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--d-model", type=int, default=64)
    a = ap.parse_args()
    if a.rounds < 1 or a.steps < 1:
        ap.error("--rounds and --steps want 1 or more")
    if a.d_model < 4 or a.d_model % 4:
        ap.error(f"--d-model {a.d_model}: want a multiple of 4 (the model has 4 heads)")
    model, step = bench_step("layernorm", a.d_model)
    tmp = tempfile.mkdtemp()

    for i in range(5):
        step(None, i)
    names = list(MODES)
    med = {m: [] for m in names}
    for r in range(a.rounds):
        for m in names[r % len(names):] + names[:r % len(names)]:
            use(m)
            run = None if m == "none" else normtop.watch(model, os.path.join(tmp, f"{m}-{r}.jsonl"),
                                                         spectrum_every=0)
            ts = []
            for i in range(1, a.steps + 1):
                t0 = time.perf_counter()
                step(run, i)
                ts.append(time.perf_counter() - t0)
            med[m].append(statistics.median(ts))
            if run is not None:
                run.close()
    use("full")
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, layernorm, d {a.d_model}, every=1, "
          f"{a.rounds} rounds × {a.steps} steps per mode")
    for m in names:
        r = sorted(100 * (t / b - 1) for t, b in zip(med[m], med["none"]))
        q = statistics.quantiles(r, n=4) if len(r) > 1 else [r[0]] * 3
        print(f"{m:9s} step {statistics.median(med[m]) * 1e3:7.2f} ms  {statistics.median(r):+6.1f}% "
              f"[{q[0]:+5.1f}, {q[2]:+5.1f}]")


if __name__ == "__main__":
    main()
