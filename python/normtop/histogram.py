"""A layer's input histogram (watch(histogram=...)): fixed bins in units of
the input's own standard deviation, written every spectrum_every steps.

Why standardised bins. The in_mean and in_std probes already chart where a
layer's input sits and how wide it is, at every measured step. What they
cannot show is its shape: heavy tails, skew, a second mode, the few huge
entries that make batch statistics noisy (the outliers PowerNorm's paper
blames BatchNorm's failure in Transformers on). In units of the input's own
σ, with fixed edges [-6σ, 6σ), a 5σ entry is a 5σ entry in every layer, in
every variant and at every step, so histograms line up bin for bin across
all three; absolute edges (TensorBoard's) would put a residual stream that
grows a hundredfold into other bins and a LayerNorm input and a BatchNorm
input of different scales side by side in bins neither fills. Each entry
also carries the mean and σ it was standardised with, so the edges in the
input's own units are mean + edge·σ, exactly, for a reader who wants them.

The bins, for B bins over [lo, hi) (the header's meta.Histogram): edge k is
lo + k·(hi − lo)/B; bin k holds lo + k·w ≤ z < lo + (k+1)·w; "under" holds
z < lo and −Inf, "over" z ≥ hi and +Inf; "nan" counts NaN entries. Mean and
σ (biased) are taken over the finite real entries; padding (set_mask) is
left out of everything, so under + Σcounts + over + nan is the number of
real entries. σ = 0 (a constant input) puts every finite entry at z = 0.

Cost: a dozen elementwise passes and one bincount over the input on its
own device, only on histogram steps; the counts come back in the step's
one copy (finish.Copy), in float64 so that counts stay exact past 2²⁴."""

import math

import torch

from .stream import num

DEFAULT_BINS = 48  # 0.25σ wide over [-6σ, 6σ)
RANGE = 6.0  # the edges are ±RANGE standard deviations
MAX_BINS = 1024


def check(histogram, spectrum_every):
    """The bin count watch(histogram=...) asks for: 0 (off) for False/None/0,
    DEFAULT_BINS for True, else the integer given. ValueError for a value
    that is none of these, or a histogram without spectrum_every."""
    if histogram is None or histogram is False:
        return 0
    if histogram is True:
        bins = DEFAULT_BINS
    elif isinstance(histogram, int) and 2 <= histogram <= MAX_BINS:
        bins = histogram
    else:
        raise ValueError(f"normtop: histogram={histogram!r}: want False, True ({DEFAULT_BINS} bins) or a bin "
                         f"count from 2 to {MAX_BINS}")
    if spectrum_every == 0:
        raise ValueError("normtop: histogram needs spectrum_every > 0 (histograms are written every "
                         "spectrum_every steps)")
    return bins


def layout(bins):
    """The header's meta.Histogram for bins bins (docs/formats.md)."""
    return {"Bins": bins, "Lo": -RANGE, "Hi": RANGE, "Unit": "std"}


def measure(xf, w, bins):
    """The histogram of xf [rows, C] over its real rows (w: 1 real, 0
    padding; None: all real), on xf's device, as one float64 vector:
    [under, counts[0..B-1], over, nan, mean, σ]. No value leaves the device.

    The bin of z is floor((z − lo)·B/(hi − lo)), computed as one affine map
    of x (no bucketize: on a CPU its binary search cost as much as the rest
    together); an entry within rounding of an edge may land on either side
    of it. One scratch tensor the size of xf is made and reused in place:
    on a CPU each new tensor of a large input is fresh memory the kernel
    maps page by page, which cost more than the arithmetic."""
    # |x| < ∞ is false for NaN and ±Inf: isfinite in one pass (torch's own
    # was slower here). count_nonzero: a bool sum() first copies the mask to
    # int64.
    fin = xf.abs() < math.inf
    if w is not None:
        fin &= (w > 0)[:, None]
    n = torch.count_nonzero(fin).to(xf.dtype)
    out = ~fin
    buf = xf.clone().masked_fill_(out, 0)  # masked_fill_, not where or × mask: no float copy of the mask
    mean = buf.sum() / n  # NaN when no entry is finite (0/0)
    buf.sub_(mean).masked_fill_(out, 0)  # the finite entries' deviations, 0 elsewhere
    flat = buf.view(-1)
    std = (torch.dot(flat, flat) / n).sqrt()
    ok = n > 0
    centre = torch.where(ok, mean, torch.zeros_like(mean))
    scale = torch.where(ok & (std > 0), std, torch.ones_like(std))
    per = bins / (2 * RANGE)  # bins per σ
    # k = floor(z·per + RANGE·per) + 1, z = (x − centre)/scale: 0 is under,
    # B + 1 over (±Inf there too), B + 2 NaN, B + 3 padding (dropped).
    torch.sub(xf, centre, out=buf)
    buf.mul_(per / scale).add_(RANGE * per).floor_().clamp_(-1, bins).add_(1).nan_to_num_(nan=bins + 2)
    if w is not None:
        buf.masked_fill_((w <= 0)[:, None], bins + 3)
    counts = count(flat.to(torch.int32), bins + 4, xf.is_cuda and torch.are_deterministic_algorithms_enabled())
    return torch.cat([counts[:bins + 3].to(torch.float64), torch.stack([mean, std]).to(torch.float64)])


def count(k, n, sorted_counts):
    """How many of k (integers in [0, n)) are each of 0..n−1. bincount,
    unless sorted_counts: under torch.use_deterministic_algorithms a CUDA
    bincount may raise (some torch versions list it as nondeterministic),
    so the training loop would stop for a histogram; a sort and a
    searchsorted count the same, deterministically."""
    if not sorted_counts:
        return torch.bincount(k, minlength=n)
    s = k.sort().values
    return torch.searchsorted(s, torch.arange(n + 1, device=k.device, dtype=k.dtype)).diff()


def entry(vals, bins):
    """The stream's "hist" entry of one layer from measure()'s values on the
    host (docs/formats.md)."""
    c = [int(v) for v in vals[:bins + 3]]
    mean, std = vals[bins + 3], vals[bins + 4]
    return {"mean": num(mean), "std": num(std), "under": c[0], "counts": c[1:bins + 1],
            "over": c[bins + 1], "nan": c[bins + 2]}


def due(step, bins, spectrum_every):
    """A histogram is taken at this step."""
    return bins > 0 and step % spectrum_every == 0
