"""watch(): hooks on a model's normalization layers, and the Run they feed.

The pieces live beside it: run.py (Run: log, close), variant.py (one
model's hooks), measure.py (the passes over a layer's activations),
layer_state.py (what a layer keeps between hooks), finish.py (the step's
reductions), header.py and frame.py (the stream's header and lines)."""

import os

import torch

from .run import DEFAULT_MOMENTUM, Run  # noqa: F401 (DEFAULT_MOMENTUM: normtop.watch's before the split)


class NullRun:
    """What watch() returns on a rank that does not write: log() and close()
    do nothing, so the training loop needs no rank test."""

    path = None
    variants = ()

    def log(self, *a, **k):
        pass

    def set_mask(self, *a, **k):
        pass

    def close(self, *a, **k):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def rank_path(path, rank):
    """runs/x.jsonl → runs/x.rank3.jsonl."""
    root, ext = os.path.splitext(path)
    return f"{root}.rank{rank}{ext}"


def watch(model, path, every=1, modules=None, ranks=0, **kw):
    """Watches the normalization layers of model (or of each model of a
    dict {variant name: model}, shown side by side like normtop's variants)
    and writes the stream of docs/formats.md to path.

    every: probes are measured at steps every, 2·every, ... (1 = each step).
    modules: extra modules to watch (names or objects, or {name: kind}).
    kinds: {class: kind}: every module of that class is watched as that
    kind, e.g. {LlamaRMSNorm: "rmsnorm", T5LayerNorm: "rmsnorm"}.
    ranks: under torch.distributed, 0 (default) writes from rank 0 only and
    the other ranks get a NullRun; "all" makes every rank write its own
    stream (path with ".rank<r>" before the extension) and rank 0's stream
    lists them, so `normtop replay path` shows the ranks side by side.
    Other keywords: spectrum_every (100; 0 = off), embedding (module, name,
    tensor or False), momentum (0.05), precision ("input": statistics in the
    input's dtype, float32 at least; "float64": always float64, as docs/math.md §0
    asks of normtop's kernels, several times slower on CPU),
    run_id, model_name, data, metric ("accuracy" | "bpc" | ...), config,
    if_exists ("error": an existing path is refused; "suffix": the first
    free path.<k>, see run.path), system (False; True: each step's line
    carries the process's wall time per step, resident memory and peak
    CUDA memory, shown on the dashboard's config panel), histogram (False;
    True: every spectrum_every steps each layer's input histogram, 48 fixed
    bins over ±6 of the input's own standard deviations, shown on the
    dashboard's Layers screen; an integer: that many bins; histogram.py).
    """
    rank, world = 0, 1
    dist = torch.distributed
    if dist.is_available() and dist.is_initialized():
        rank, world = dist.get_rank(), dist.get_world_size()
    if world == 1:
        return Run(model, path, every, modules, **kw)
    if ranks == "all":
        if rank == 0:
            others = [os.path.basename(rank_path(path, r)) for r in range(1, world)]
            return Run(model, path, every, modules, streams=others, rank=0, **kw)
        return Run(model, rank_path(path, rank), every, modules, rank=rank, **kw)
    if ranks != 0 and ranks != "0":
        raise ValueError(f"normtop: ranks={ranks!r}; valid: 0 (rank 0 only) or \"all\"")
    if rank == 0:
        return Run(model, path, every, modules, rank=0, **kw)
    return NullRun()
