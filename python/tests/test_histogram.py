"""watch(histogram=...): each layer's input histogram, fixed bins in units of
the input's own σ (histogram.py), every spectrum_every steps; checked
against numpy, across steps and scales, with padding, NaN and ±Inf, and
off by default at no cost."""

import numpy as np
import pytest
import torch
from torch import nn

import normtop
from normtop import histogram as HG
from helpers import read_stream

DT = torch.float64


def numpy_hist(x, bins, real=None):
    """The reference: mean and biased σ over the finite real entries in
    float64, z = (x − mean)/σ, bins [lo + k·w, lo + (k+1)·w), under z < lo
    (−Inf included), over z ≥ hi (+Inf included), NaN counted apart."""
    x = np.asarray(x, dtype=np.float64)
    if real is not None:
        x = x[np.asarray(real, dtype=bool)]
    x = x.reshape(-1)
    fin = x[np.isfinite(x)]
    mean, std = fin.mean(), fin.std()
    z = (x - mean) / std
    edges = np.linspace(-HG.RANGE, HG.RANGE, bins + 1)
    zf = z[~np.isnan(z)]
    inside = zf[(zf >= -HG.RANGE) & (zf < HG.RANGE)]
    counts, _ = np.histogram(inside, bins=edges)
    return {"mean": mean, "std": std, "under": int((zf < -HG.RANGE).sum()), "counts": counts.tolist(),
            "over": int((zf >= HG.RANGE).sum()), "nan": int(np.isnan(x).sum())}


def measured(x, bins, w=None):
    return HG.entry(HG.measure(x, w, bins).tolist(), bins)


@pytest.mark.parametrize("bins", [2, 12, 48, 101])
def test_counts_match_numpy(bins):
    g = torch.Generator().manual_seed(bins)
    x = torch.randn(300, 17, generator=g, dtype=DT) * 3 + 1
    x[5, 3], x[7, 1], x[9, 9] = 80.0, -60.0, 45.0  # tails beyond ±6σ
    got, want = measured(x, bins), numpy_hist(x.numpy(), bins)
    assert got["counts"] == want["counts"]
    assert (got["under"], got["over"], got["nan"]) == (want["under"], want["over"], want["nan"])
    assert got["under"] >= 1 and got["over"] >= 1
    assert got["mean"] == pytest.approx(want["mean"], rel=1e-12)
    assert got["std"] == pytest.approx(want["std"], rel=1e-12)
    assert got["under"] + sum(got["counts"]) + got["over"] + got["nan"] == x.numel()


def test_edges_are_half_open():
    """An entry exactly on an edge belongs to the bin it opens; exactly hi is over."""
    # Mean 0 and σ 1 exactly: ±1 each 50 times; then one entry at each place.
    x = torch.tensor([1.0, -1.0] * 50, dtype=DT)
    h = measured(x.reshape(-1, 1), 12)  # w = 1σ: edges at every integer
    assert h["counts"][5] == 50 and h["counts"][7] == 50  # -1 opens bin 5 ([-1, 0)), 1 opens bin 7
    assert h["under"] == h["over"] == 0


def test_nan_and_inf():
    x = torch.tensor([[0.0, 1.0], [2.0, 3.0], [float("nan"), float("inf")], [-float("inf"), 4.0]], dtype=DT)
    h = measured(x, 4)
    fin = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    assert h["nan"] == 1 and h["over"] == 1 and h["under"] == 1  # +Inf over, −Inf under
    assert h["mean"] == pytest.approx(fin.mean()) and h["std"] == pytest.approx(fin.std())
    assert sum(h["counts"]) == 5
    assert h == {**numpy_hist(x.numpy(), 4), "mean": h["mean"], "std": h["std"]}
    # Nothing finite: no mean or σ (null in the stream), the infinities still counted.
    h = measured(torch.tensor([[float("nan"), float("inf"), -float("inf")]], dtype=DT), 4)
    assert h["mean"] is None and h["std"] is None
    assert (h["nan"], h["over"], h["under"], sum(h["counts"])) == (1, 1, 1, 0)


def test_constant_input_is_at_zero():
    h = measured(torch.full((10, 3), 2.5, dtype=DT), 4)
    assert h["std"] == 0 and h["counts"] == [0, 0, 30, 0]  # z = 0 opens bin [0, 3)


def test_padding_is_left_out():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(40, 6, generator=g, dtype=DT)
    w = torch.zeros(40, dtype=DT)
    w[:25] = 1
    x[25:] = 1e6  # padding rows with garbage that must not count
    h = measured(x, 24, w)
    real = np.zeros((40, 6), dtype=bool)
    real[:25] = True
    want = numpy_hist(x.numpy(), 24, real)
    assert h["counts"] == want["counts"] and h["over"] == want["over"] == 0
    assert h["under"] + sum(h["counts"]) + h["over"] + h["nan"] == 25 * 6
    assert h["mean"] == pytest.approx(want["mean"], rel=1e-12)


def _train(path, steps, scale=1.0, mask_rows=None, **kw):
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 12), nn.LayerNorm(12), nn.Linear(12, 12), nn.BatchNorm1d(12), nn.Linear(12, 1))
    net = net.double()
    run = normtop.watch(net, str(path), **kw)
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    xs = []
    for step in range(1, steps + 1):
        x = torch.randn(32, 6, dtype=DT) * scale
        xs.append(x)
        if mask_rows is not None:
            m = torch.zeros(32)
            m[:mask_rows] = 1
            run.set_mask(m)
        loss = net(x).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        run.log(step, train_loss=loss)
    run.close()
    return read_stream(str(path)), xs


def test_stream_every_spectrum_every_steps(tmp_path):
    """The header states the bins once; every spectrum_every-th step's line
    has each layer's histogram with that many counts, summing to the
    layer's input entries; other steps have none."""
    (head, frames, _), _ = _train(tmp_path / "h.jsonl", 9, spectrum_every=3, histogram=16, every=2)
    assert head["meta"]["Histogram"] == {"Bins": 16, "Lo": -6.0, "Hi": 6.0, "Unit": "std"}
    with_hist = [f["step"] for f in frames if "hist" in f]
    assert with_hist == [3, 6, 9]
    for f in frames:
        for layer, h in f.get("hist", {}).items():
            assert layer in head["meta"]["Layers"]
            assert len(h["counts"]) == 16
            assert h["under"] + sum(h["counts"]) + h["over"] + h["nan"] == 32 * 12
        if "hist" in f:
            assert set(f["hist"]) == set(head["meta"]["Layers"]) and "layers" in f  # a histogram step is measured


def test_first_layer_matches_numpy(tmp_path):
    """Step 1's first-layer input is the initial Linear's output: recomputed
    here in float64 with numpy's histogram."""
    (head, frames, _), xs = _train(tmp_path / "a.jsonl", 3, spectrum_every=1, histogram=True)
    torch.manual_seed(0)
    lin = nn.Linear(6, 12).double()  # _train's first layer, same seed: the same initial weights
    with torch.no_grad():
        want = numpy_hist(lin(xs[0]).numpy(), HG.DEFAULT_BINS)
    got = frames[0]["hist"][head["meta"]["Layers"][0]]
    assert frames[0]["step"] == 1
    assert got["counts"] == want["counts"] and (got["under"], got["over"]) == (want["under"], want["over"])
    assert got["mean"] == pytest.approx(want["mean"], rel=1e-12, abs=1e-15)
    assert got["std"] == pytest.approx(want["std"], rel=1e-12)


def test_bins_do_not_move_with_scale_or_shift():
    """The same shape at another scale and place fills the same bins: the
    edges are in units of the input's own σ around its mean."""
    g = torch.Generator().manual_seed(3)
    x = torch.randn(200, 8, generator=g, dtype=DT).exp()  # skewed
    a, b = measured(x, 48), measured(x * 1024 - 300, 48)
    assert a["counts"] == b["counts"] and (a["under"], a["over"]) == (b["under"], b["over"])
    assert b["std"] == pytest.approx(a["std"] * 1024, rel=1e-12)


def test_masked_rows_are_left_out(tmp_path):
    (head, frames, _), _ = _train(tmp_path / "m.jsonl", 2, spectrum_every=1, histogram=8, mask_rows=20)
    for f in frames:
        for h in f["hist"].values():
            assert h["under"] + sum(h["counts"]) + h["over"] + h["nan"] == 20 * 12


def test_off_by_default_costs_nothing(tmp_path, monkeypatch):
    def boom(*a, **k):
        raise AssertionError("a histogram was taken with histogram off")
    monkeypatch.setattr(HG, "measure", boom)
    (head, frames, _), _ = _train(tmp_path / "off.jsonl", 4, spectrum_every=1)
    assert "Histogram" not in head["meta"]
    assert all("hist" not in f for f in frames)


@pytest.mark.parametrize("kw, msg", [
    ({"histogram": 1}, "histogram=1"),
    ({"histogram": "yes"}, "histogram='yes'"),
    ({"histogram": 5000}, "histogram=5000"),
    ({"histogram": True, "spectrum_every": 0}, "spectrum_every > 0"),
])
def test_bad_options(tmp_path, kw, msg):
    with pytest.raises(ValueError, match=msg):
        normtop.watch(nn.Sequential(nn.Linear(2, 2), nn.LayerNorm(2)), str(tmp_path / "x.jsonl"), **kw)


def test_normtop_reads_the_histograms(tmp_path, go_tool):
    """normtop itself reads them: `export --format jsonl` gives back every
    histogram the hook wrote, count for count, and replay --headless reads
    the stream without a word of damage."""
    import subprocess
    import json as _json
    (head, frames, _), _ = _train(tmp_path / "r.jsonl", 6, spectrum_every=3, histogram=12)
    exe = go_tool("./cmd/normtop", "normtop")
    out = subprocess.run([exe, "export", str(tmp_path / "r.jsonl"), "--format", "jsonl"], capture_output=True, text=True,
                         check=True).stdout
    got = {o["step"]: o.get("hist") for o in map(_json.loads, out.splitlines())}
    n = 0
    for f in frames:
        if "hist" not in f:
            assert got[f["step"]] is None
            continue
        for layer, h in f["hist"].items():
            g = got[f["step"]][layer]
            assert g["counts"] == h["counts"] and (g["under"], g["over"], g["nan"]) == (h["under"], h["over"], h["nan"])
            assert g["mean"] == h["mean"] and g["std"] == h["std"]
            n += 1
    assert n == 2 * len(head["meta"]["Layers"])
    rep = subprocess.run([exe, "replay", "--headless", str(tmp_path / "r.jsonl")], capture_output=True, text=True)
    assert rep.returncode == 0 and rep.stderr == "", rep.stderr


def test_sorted_count_is_bincount():
    """The deterministic count (CUDA under use_deterministic_algorithms)
    gives bincount's numbers."""
    g = torch.Generator().manual_seed(5)
    k = torch.randint(0, 52, (10000,), generator=g)
    k[:7] = 51  # the padding bin, and bins left empty
    k = k[k != 3]
    assert torch.equal(HG.count(k, 52, True), HG.count(k, 52, False))
    assert HG.count(k, 52, True)[3] == 0


def test_accumulation_reports_the_last_micro_batch(tmp_path):
    """Under gradient accumulation the step's histogram is the last
    micro-batch's input, as the step's probes are."""
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 12), nn.LayerNorm(12), nn.Linear(12, 1)).double()
    run = normtop.watch(net, str(tmp_path / "acc.jsonl"), spectrum_every=1, histogram=12)
    opt = torch.optim.SGD(net.parameters(), lr=0.0)  # weights fixed: the inputs are known
    xs = [torch.randn(16, 6, dtype=DT) + 3 * k for k in range(4)]
    opt.zero_grad()
    for x in xs:
        net(x).square().mean().backward()
    opt.step()
    run.log(1)
    run.close()
    head, frames, _ = read_stream(str(tmp_path / "acc.jsonl"))
    with torch.no_grad():
        want = numpy_hist(net[0](xs[-1]).numpy(), 12)
    got = frames[0]["hist"][head["meta"]["Layers"][0]]
    assert got["counts"] == want["counts"] and got["mean"] == pytest.approx(want["mean"], rel=1e-12)
    assert sum(got["counts"]) + got["under"] + got["over"] == 16 * 12
