"""One step's line of the stream (docs/formats.md): the pending frame a
variant fills through the log() calls of a step, and the line written
from it."""

import math
import os
import time

import torch

from .stream import PROBES, num


def pending(v, step, start, system):
    """A new pending frame for step of variant v, with the step rate since
    v's previous step; start: the run's time.time() at its start; system:
    watch(system=True)."""
    now = time.time()
    rate, wall = 0.0, math.nan
    if v.last_time is not None and step > v.last_step and now > v.last_time:
        wall = (now - v.last_time) / (step - v.last_step)
        rate = 1 / wall
    v.last_time, v.last_step = now, step
    p = {"step": step, "epoch": 0.0, "train_loss": math.nan, "layers": None,
         "eval": None, "spectrum": None, "elapsed": now - start, "rate": rate}
    if system:
        p["wall"] = wall
        p["system"] = system_usage(p)
    return p


def add_evals(v, p, val_loss, val_metric, test_loss, test_metric):
    """Adds the evaluations given to p, each with the mean train loss since
    the last validation."""
    for split, loss, metric in (("val", val_loss, val_metric), ("test", test_loss, test_metric)):
        if loss is None and metric is None:
            continue
        ls = v.losses_since_eval
        ev = {"split": split, "loss": num(_f(loss)), "metric": num(_f(metric)),
              "train_loss": num(sum(ls) / len(ls)) if ls else None}
        if split == "val":
            v.losses_since_eval = []
        p["eval"] = (p["eval"] or []) + [ev]


def system_usage(p):
    """The process's resources at this step (watch(system=True)): wall
    seconds since the previous step's log, resident memory, and the
    peak CUDA memory where CUDA is in use."""
    out = {"wall_s": num(p["wall"])}
    try:
        with open("/proc/self/statm") as f:
            out["rss_bytes"] = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        pass
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        out["cuda_max_bytes"] = int(torch.cuda.max_memory_allocated())
    return out


def line(layers, v, p, status="running"):
    """The stream line of v's pending frame p; layers: the run's layer names."""
    o = {"variant": v.name, "variant_index": v.index, "step": p["step"], "epoch": num(p["epoch"]),
         "train_loss": num(p["train_loss"]), "status": status, "elapsed_s": num(p["elapsed"]),
         "steps_per_sec": num(p["rate"])}
    if p["layers"] is not None:
        lay = {}
        for name, row in zip(layers, p["layers"]):
            vals = {PROBES[i]: num(x) for i, x in enumerate(row) if not math.isnan(x)}
            if vals:
                lay[name] = vals
        o["layers"] = lay
    if p["eval"] is not None:
        o["eval"] = p["eval"]
    if p["spectrum"] is not None:
        o["spectrum"] = p["spectrum"]
    if p.get("system") is not None:
        o["system"] = p["system"]
    if p.get("batch") is not None:
        o["batch"] = p["batch"]
    if p.get("hist"):
        o["hist"] = p["hist"]
    return o


def _f(x):
    if x is None:
        return math.nan
    if isinstance(x, torch.Tensor):
        return float(x.detach())
    return float(x)
