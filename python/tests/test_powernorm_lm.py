"""python/examples/powernorm_lm.py at a tiny size on the CPU: it trains the
three variants, its stream holds every site's probes and each step's batch
shape (token budgets grouped by length), PowerNorm's and BatchNorm's parts
do what docs/math.md says, and normtop itself reads the stream."""

import csv
import io
import os
import subprocess
import sys

import pytest
import torch

from helpers import read_stream

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")
sys.path.insert(0, EXAMPLES)
import powernorm_lm as P  # noqa: E402

TEXT = " ".join(f"the {w} of light is {v} and the ray {u} ." for w, v, u in zip(
    ["colour", "motion", "refraction", "image", "heat", "force"] * 40,
    ["red", "green", "bent", "small", "great", "weak", "strong"] * 35,
    ["falls", "rises", "passes", "stops", "turns"] * 50))
TINY = ["--d-model", "16", "--layers", "2", "--heads", "2", "--max-tokens", "96", "--max-len", "16",
        "--steps", "6", "--warmup", "3", "--eval-every", "3", "--vocab", "60", "--dropout", "0"]


@pytest.fixture(scope="module")
def stream(tmp_path_factory):
    d = tmp_path_factory.mktemp("pn")
    data = d / "text.txt"
    data.write_text(TEXT)
    out = d / "pn.jsonl"
    res = subprocess.run([sys.executable, os.path.join(EXAMPLES, "powernorm_lm.py"), "--out", str(out),
                          "--data", str(data)] + TINY, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert "Warning" not in res.stderr, res.stderr  # every norm site watched, every layout known
    return str(out)


def test_stream_holds_every_variant_site_and_batch(stream):
    head, frames, end = read_stream(stream)
    meta = head["meta"]
    assert meta["Model"] == "transformer"
    assert [v["Name"] for v in meta["Variants"]] == ["layernorm", "batchnorm", "powernorm"]
    assert meta["Layers"] == ["blocks.0.norm1.norm", "blocks.0.norm2.norm", "blocks.1.norm1.norm",
                              "blocks.1.norm2.norm", "final.norm"]
    assert meta["Config"]["layer.blocks.0.norm1.norm.momentum"] == "0.05"  # the authors' BN rate
    assert end == {"end": {"status": "completed"}}
    by = {}
    for f in frames:
        by.setdefault(f["variant"], []).append(f)
    for name, fs in by.items():
        assert [f["step"] for f in fs] == list(range(1, 7)), name
        for f in fs:
            b = f["batch"]
            assert b["rows"] * b["width"] <= 96 and 0 < b["tokens"] <= b["rows"] * b["width"], b
            for layer in meta["Layers"]:
                p = f["layers"][layer]
                assert {"rdist_var", "rdist_mu", "dy_var", "in_std"} <= set(p), (name, layer, sorted(p))
                # PowerNorm's backward is its own: no BatchNorm gradient terms for it
                assert ("g_var" in p) == (name != "powernorm"), (name, layer)
        assert any("eval" in f for f in fs), name
    # the same batches for every variant, in the same order
    assert [f["batch"] for f in by["layernorm"]] == [f["batch"] for f in by["powernorm"]]
    # the pre-LN sites feed the attention and FFN matrices: gw_norm, also through BN's reshape
    assert all("gw_norm" in f["layers"]["blocks.0.norm1.norm"] for fs in by.values() for f in fs)


def test_token_batches_group_lengths_within_the_budget():
    import random
    sents = [[2] + [5] * n + [2] for n in (1, 9, 2, 8, 3, 3, 7, 1, 4, 9)]
    gen = P.token_batches(sents, 20, random.Random(0))
    seen = []
    for _ in range(6):
        idx = next(gen)
        lens = [len(sents[i]) - 1 for i in idx]
        assert max(lens) * len(lens) <= 20, lens
        seen += idx
    inp, tgt, mask = P.tensors(sents, [0, 1], "cpu")
    assert inp.shape == (2, 10) and mask.sum().item() == 2 + 10
    assert torch.equal(tgt[0, :2], torch.tensor([5, 2]))


def test_mask_batchnorm_leaves_padding_out():
    torch.manual_seed(0)
    bn = P.MaskBatchNorm(3)
    x = torch.randn(6, 3)
    mask = torch.tensor([True, True, False, True, False, True])
    bn.mask = mask
    y = bn(x)
    ref = torch.nn.functional.batch_norm(x[mask], None, None, training=True, eps=1e-5)
    assert torch.allclose(y[mask], ref, atol=1e-6) and torch.all(y[~mask] == 0)
    xr = x[mask]
    assert torch.allclose(bn.running_mean, 0.05 * xr.mean(0), atol=1e-6)
    assert torch.allclose(bn.running_var, 0.95 + 0.05 * xr.var(0, unbiased=True), atol=1e-6)


def test_powernorm_backward_against_finite_differences_and_nu():
    """PowerNorm's x-gradient is its own approximate backward (docs/math.md
    §2, step 5): with ν = 0 and the batch's ψ in the forward (warm-up), it
    equals the exact gradient of the forward with ψ_B held constant, checked
    by finite differences; ν then moves by step 6's rule."""
    torch.manual_seed(1)
    pn = P.MaskPowerNorm(4, warmup=10).double()
    with torch.no_grad():
        pn.weight.copy_(torch.tensor([1.0, 0.5, 2.0, -1.0]))
    x = torch.randn(7, 4, dtype=torch.float64, requires_grad=True)
    g = torch.randn(7, 4, dtype=torch.float64)
    pn.mask = torch.ones(7, dtype=torch.bool)
    (pn(x) * g).sum().backward()
    psi = x.detach().square().mean(0)
    h = 1e-6
    num = torch.zeros_like(x)
    for i in range(7):
        for j in range(4):
            e = torch.zeros_like(x)
            e[i, j] = h
            f = lambda z: ((z / (psi + 1e-5).sqrt() * pn.weight.detach() + pn.bias.detach()) * g).sum()  # noqa: E731
            num[i, j] = (f(x.detach() + e) - f(x.detach() - e)) / (2 * h)
    assert torch.allclose(x.grad, num, atol=1e-8), (x.grad - num).abs().max()
    xh = x.detach() / (psi + 1e-5).sqrt()
    gh = g * pn.weight.detach()
    assert torch.allclose(pn.nu, 0.1 * (gh * xh).mean(0))
    assert torch.allclose(pn.running_psi2, 0.9 * psi + 0.1 * psi)  # t = 1 < W: the cumulative average is ψ_B


def test_bad_flags_one_line_and_nonzero_exit(tmp_path):
    for args, msg in ((["--norms", "layernorm,groupnorm"], "--norms: groupnorm"),
                      (["--data", str(tmp_path / "none.txt")], "no such file"),
                      (["--d-model", "10", "--heads", "4"], "not a multiple")):
        res = subprocess.run([sys.executable, os.path.join(EXAMPLES, "powernorm_lm.py"), "--out",
                              str(tmp_path / "x.jsonl")] + args, capture_output=True, text=True)
        assert res.returncode == 2 and msg in res.stderr and "Traceback" not in res.stderr, res.stderr


def test_normtop_reads_the_example_stream(stream, go_tool):
    exe = go_tool("./cmd/normtop", "normtop")
    out = subprocess.run([exe, "export", stream, "--format", "csv"], capture_output=True, text=True, check=True).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    series = {(r["variant"], r["layer"], r["series"]) for r in rows}
    for v in ("layernorm", "batchnorm", "powernorm"):
        assert (v, "blocks.0.norm1.norm", "rdist_var") in series, sorted(series)[:20]
        assert (v, "blocks.0.norm1.norm", "gw_norm") in series
    rep = subprocess.run([exe, "replay", "--headless", stream], capture_output=True, text=True)
    assert rep.returncode == 0 and rep.stderr == "", rep.stderr
