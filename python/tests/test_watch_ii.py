"""What a careful user hit (PyTorch II): a module run twice in one step, an
evaluation forward with gradients on between log() calls, stale and
transposed masks, what the header says of each layer, steps that restart,
an existing path, a TorchScript model, and the system fields."""

import math
import warnings

import pytest
import torch
from torch import nn

import normtop
from helpers import close, read_stream
from test_watch import RMSNorm

GRAD_KEYS = ("g_mu", "g_var", "g_psi2", "dx_mean", "dx_var", "dy_mean", "dy_var")
FWD_KEYS = ("in_mean", "in_std", "in_maxabs", "gamma_drift", "beta_norm")


def _probes(tmp_path, tag, make, steps):
    """Frames of a watched one-layer model; steps(mod, step) runs one step."""
    torch.manual_seed(0)
    mod = make().double()
    path = tmp_path / f"{tag}.jsonl"
    run = normtop.watch(nn.Sequential(mod), str(path), spectrum_every=0)
    for step in (1, 2, 3):
        steps(mod, step)
        run.log(step)
    run.close()
    return [f.get("layers", {}).get("0", {}) for f in read_stream(path)[1]]


def _batch(step, shape, tag):
    g = torch.Generator().manual_seed(100 * step + tag)
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * (1 + tag) + tag,
            torch.randn(*shape, generator=g, dtype=torch.float64))


@pytest.mark.parametrize("make,shape", [
    (lambda: nn.LayerNorm(6), (4, 5, 6)),
    (lambda: nn.BatchNorm1d(6), (20, 6)),
    (lambda: RMSNorm(6), (4, 5, 6)),  # a user's module: a full backward hook, not the native node
], ids=["layernorm", "batchnorm", "own-rmsnorm"])
def test_module_run_twice_reports_its_last_run_with_that_runs_backward(tmp_path, make, shape):
    """A shared module (weight sharing, a siamese branch) runs twice in a
    step; the frame reports the last run, forward and gradient probes both
    from that run, equal to a model that ran only that batch."""
    def twice(mod, step):
        (x1, g1), (x2, g2) = _batch(step, shape, 1), _batch(step, shape, 2)
        ((mod(x1.requires_grad_()) * g1).sum() + (mod(x2.requires_grad_()) * g2).sum()).backward()

    def last_only(mod, step):
        x2, g2 = _batch(step, shape, 2)
        (mod(x2.requires_grad_()) * g2).sum().backward()

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        shared = _probes(tmp_path, "shared", make, twice)
    assert any("ran 2 times in one forward" in str(x.message) for x in w)
    alone = _probes(tmp_path, "alone", make, last_only)
    compared = 0
    for step, (a, b) in enumerate(zip(shared, alone), 1):
        for k in GRAD_KEYS + FWD_KEYS:
            if k in b:
                assert close(a[k], b[k], 1e-12, 1e-15), f"step {step} {k}: shared {a[k]}, last run alone {b[k]}"
                compared += 1
    assert compared >= 3 * 8


def test_eval_forward_with_gradients_never_replaces_a_step(tmp_path):
    """A train-mode forward with gradients on after log(step), then
    log(step, val_loss=...): that step's probes stay the training batch's,
    and no shadow moves (the next step's distances are unchanged)."""
    def train(tag, eval_between):
        torch.manual_seed(0)
        ln, bn = nn.LayerNorm(6).double(), nn.BatchNorm1d(6).double()
        path = tmp_path / f"{tag}.jsonl"
        run = normtop.watch(nn.ModuleDict({"ln": ln, "bn": bn}), str(path), spectrum_every=0)
        for step in (1, 2, 3):
            x, g = _batch(step, (12, 6), 0)
            (bn(ln(x.requires_grad_())) * g).sum().backward()
            run.log(step, train_loss=1.0)
            if eval_between:
                bn.eval()  # running stats untouched, as an evaluation should
                ln(_batch(step, (12, 6), 5)[0] * 7)  # train mode, gradients on, no backward
                bn.train()
                run.log(step, val_loss=2.0)
        run.close()
        return read_stream(path)[1]
    plain, with_eval = train("plain", False), train("eval", True)
    for a, b in zip(plain, with_eval):
        assert a["layers"] == b["layers"]
        assert b.get("eval", [{}])[0].get("loss") == 2.0


def test_stale_and_transposed_masks_skip_the_layer_with_one_warning(tmp_path):
    ln = nn.LayerNorm(3)
    path = tmp_path / "m.jsonl"
    run = normtop.watch(nn.Sequential(ln), str(path), spectrum_every=0)
    cases = [torch.ones(8, 5, dtype=torch.bool),  # left from a batch of 8
             torch.ones(5, 4, dtype=torch.bool),  # [T, B] for a [B, T, d] input
             torch.ones(4, 5, dtype=torch.bool)]  # right
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for step, m in enumerate(cases, 1):
            run.set_mask(m)
            ln(torch.randn(4, 5, 3, requires_grad=True)).sum().backward()  # never raises
            run.log(step, train_loss=0.5)
    run.close()
    msgs = [str(x.message) for x in w]
    assert sum("fits neither" in m for m in msgs) == 2, msgs
    assert all("layer 0" in m for m in msgs)
    frames = read_stream(path)[1]
    assert [("layers" in f) for f in frames] == [False, False, True]


def test_mask_is_cleared_at_log_and_a_step_without_one_warns(tmp_path):
    ln = nn.LayerNorm(3)
    path = tmp_path / "c.jsonl"
    run = normtop.watch(nn.Sequential(ln), str(path), spectrum_every=0)
    x = torch.randn(2, 4, 3)
    x[0, 3] = 1e3  # padding
    mask = torch.tensor([[1, 1, 1, 0], [1, 1, 1, 1]], dtype=torch.bool)
    run.set_mask(mask)
    ln(x.clone().requires_grad_()).sum().backward()
    run.log(1)
    with pytest.warns(RuntimeWarning, match="set_mask\\(\\) holds for one step"):
        ln(x.clone().requires_grad_()).sum().backward()
        run.log(2)
    run.close()
    f1, f2 = (f["layers"]["0"] for f in read_stream(path)[1])
    assert f1["in_maxabs"] < 10 < f2["in_maxabs"]  # step 2 saw the padding: no mask carried over


def test_header_says_each_layers_kind_width_and_rate(tmp_path):
    net = nn.Sequential(nn.Embedding(30, 8), nn.LayerNorm(8), nn.BatchNorm1d(8, momentum=0.1),
                        nn.BatchNorm1d(8, momentum=None), nn.GroupNorm(2, 8))
    run = normtop.watch(net, str(tmp_path / "h.jsonl"))
    run.close()
    cfg = read_stream(tmp_path / "h.jsonl")[0]["meta"]["Config"]
    assert cfg["layer.1.kind"] == "layernorm" and cfg["layer.1.d"] == "8" and "layer.1.momentum" not in cfg
    assert cfg["layer.2.kind"] == "batchnorm" and cfg["layer.2.momentum"] == "0.1"
    assert cfg["layer.3.momentum"] == "cumulative"
    assert cfg["layer.4.kind"] == "groupnorm" and cfg["layer.4.d"] == "8"
    assert cfg["embedding_d"] == "8" and cfg["embedding_rows"] == "30"


def test_steps_that_restart_are_numbered_on_with_one_warning(tmp_path):
    ln = nn.LayerNorm(3)
    path = tmp_path / "s.jsonl"
    run = normtop.watch(nn.Sequential(ln), str(path), spectrum_every=0)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for epoch in range(2):
            for step in (1, 2, 3):
                ln(torch.randn(4, 3, requires_grad=True)).sum().backward()
                run.log(step, train_loss=float(epoch))
                if step == 3:
                    run.log(step, val_loss=1.0)  # the same step again: adds to its line
    run.close()
    assert sum("steps must grow" in str(x.message) for x in w) == 1
    frames = read_stream(path)[1]
    assert [f["step"] for f in frames] == [1, 2, 3, 4, 5, 6]
    assert "eval" in frames[2] and "eval" in frames[5]


def test_existing_path_suffix(tmp_path):
    p = tmp_path / "r.jsonl"
    p.write_text("precious\n")
    run = normtop.watch(nn.Sequential(nn.LayerNorm(2)), str(p), if_exists="suffix")
    run.close()
    assert run.path == str(tmp_path / "r.1.jsonl") and p.read_text() == "precious\n"
    with pytest.raises(ValueError, match="if_exists='append'"):
        normtop.watch(nn.Sequential(nn.LayerNorm(2)), str(tmp_path / "q.jsonl"), if_exists="append")


def test_torchscript_model_gets_a_clear_error(tmp_path):
    m = torch.jit.script(nn.Sequential(nn.Linear(2, 2), nn.LayerNorm(2)))
    with pytest.raises(ValueError, match="TorchScript"):
        normtop.watch(m, str(tmp_path / "t.jsonl"))


def test_system_fields(tmp_path):
    ln = nn.LayerNorm(3)
    path = tmp_path / "y.jsonl"
    run = normtop.watch(nn.Sequential(ln), str(path), system=True, spectrum_every=0)
    for step in (1, 2, 3):
        ln(torch.randn(4, 3, requires_grad=True)).sum().backward()
        run.log(step)
    run.close()
    frames = read_stream(path)[1]
    assert frames[0]["system"]["wall_s"] is None  # no previous step to measure from
    for f in frames[1:]:
        assert f["system"]["wall_s"] > 0 and math.isfinite(f["system"]["wall_s"])
        assert f["system"]["rss_bytes"] > 1 << 20
