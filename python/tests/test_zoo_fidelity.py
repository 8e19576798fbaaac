"""normtop's groupnorm and instancenorm (docs/math.md §8) against PyTorch's
F.group_norm and F.instance_norm, float64: y, dx, dγ and dβ agree to 1e-12
relative to each tensor's largest entry (at least 1: a unit of one element
has x̂ = 0 and dx = 0, which normtop gives exactly and torch to 1e-13), through normtop's own float64
reference kernels (tests/gocheck), on both layouts normtop's sites use:

- image sites: a [B, C, H, W] tensor in torch is [B·H·W, C] rows in normtop
  (channels last, sample-major), SampleRows = H·W, Spatial;
- token rows: a [B, T, d] tensor is [B·T, d] rows, SampleRows = T; a
  padding mask marks each sequence's tail, and torch sees only the real
  positions of each sequence.

instancenorm keeps no running statistics by default (PyTorch's default);
with running=1 (PyTorch's track_running_stats) its running mean and
variance after each training step, and an inference step on them, are
compared too."""

import json
import subprocess

import pytest
import torch
import torch.nn.functional as F

EPS = 1e-5
RTOL = 1e-12
DT = torch.float64


def go_steps(go_tool, spec, steps, gamma, beta, sample_rows, spatial):
    """Steps of normtop's layer, each (rows_x, rows_g, mask, eval): per step
    y, dx, dγ, dβ and the state after it."""
    d = steps[0][0].shape[1]
    inp = {"spec": spec, "dtype": "float64", "d": d, "gamma": gamma.tolist(), "beta": beta.tolist(),
           "sample_rows": sample_rows, "spatial": spatial,
           "steps": [{"x": x.reshape(-1).tolist(), "g": g.reshape(-1).tolist(),
                      "mask": None if m is None else m.tolist(), "eval": ev} for x, g, m, ev in steps]}
    exe = go_tool("./python/tests/gocheck", "gocheck")
    res = subprocess.run([exe], input=json.dumps(inp), capture_output=True, text=True, check=True)
    t = lambda v: torch.tensor(v, dtype=DT)  # noqa: E731
    out = []
    for (x, _, _, _), s in zip(steps, json.loads(res.stdout)["steps"]):
        out.append((t(s["y"]).reshape(x.shape), t(s["dx"]).reshape(x.shape), t(s["dgamma"]), t(s["dbeta"]), s["state"]))
    return out


def go_step(go_tool, spec, rows_x, rows_g, gamma, beta, sample_rows, spatial, mask=None):
    """One training step of normtop's layer: y, dx, dγ, dβ."""
    return go_steps(go_tool, spec, [(rows_x, rows_g, mask, False)], gamma, beta, sample_rows, spatial)[0][:4]


def check(name, got, want):
    scale = max(want.abs().max().item(), 1.0)
    err = (got - want).abs().max().item()
    assert err <= RTOL * scale, f"{name}: max |normtop − torch| = {err:.3g}, {err / scale:.3g} of the scale {scale:.3g}"


def params(d, seed):
    g = torch.Generator().manual_seed(seed)
    return (1 + 0.3 * torch.randn(d, generator=g, dtype=DT)), 0.2 * torch.randn(d, generator=g, dtype=DT)


def leaf(t):
    return t.clone().requires_grad_()


def rows_of(nchw):
    """[B, C, H, W] → [B·H·W, C]: the image site's rows."""
    b, c, h, w = nchw.shape
    return nchw.permute(0, 2, 3, 1).reshape(b * h * w, c)


B, C, H, W = 3, 8, 3, 5


@pytest.mark.parametrize("spec", ["groupnorm:groups=1", "groupnorm:groups=2", "groupnorm:groups=4",
                                  "groupnorm:groups=8", "groupnorm", "instancenorm"])
def test_image_layout_matches_torch(go_tool, spec):
    g = torch.Generator().manual_seed(3)
    # unequal channel means and scales, so every unit's statistics differ
    x = torch.randn(B, C, H, W, generator=g, dtype=DT) * torch.linspace(0.5, 3, C, dtype=DT)[:, None, None] \
        + torch.linspace(-1, 2, C, dtype=DT)[:, None, None]
    up = torch.randn(B, C, H, W, generator=g, dtype=DT)
    gamma, beta = params(C, 4)
    xt, gt, bt = leaf(x), leaf(gamma), leaf(beta)
    if spec.startswith("groupnorm"):
        groups = int(spec.split("=")[1]) if "=" in spec else min(32, C)
        y = F.group_norm(xt, groups, gt, bt, eps=EPS)
    else:
        y = F.instance_norm(xt, weight=gt, bias=bt, use_input_stats=True, eps=EPS)
    (y * up).sum().backward()
    gy, gdx, gdg, gdb = go_step(go_tool, spec, rows_of(x), rows_of(up), gamma, beta, H * W, True)
    check("y", gy, rows_of(y.detach()))
    check("dx", gdx, rows_of(xt.grad))
    check("dγ", gdg, gt.grad)
    check("dβ", gdb, bt.grad)


T, D = 7, 8


def sequences(seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(B, T, D, generator=g, dtype=DT) * torch.linspace(0.5, 3, D, dtype=DT) + torch.linspace(-1, 2, D, dtype=DT)
    return x, torch.randn(B, T, D, generator=g, dtype=DT)


@pytest.mark.parametrize("lengths", [(T, T, T), (T, 4, 2)], ids=["nomask", "padded"])
@pytest.mark.parametrize("groups", [1, 2, 8])  # 8 = d: units of one element
def test_groupnorm_token_rows_match_torch(go_tool, groups, lengths):
    """On token rows a unit is one row's block of d/G features: torch's
    GroupNorm on the [B·T, d] rows. Padded rows get no upstream gradient in
    torch (rows are independent); normtop must give them dx = 0."""
    x, up = sequences(5)
    mask = torch.tensor([[t < n for t in range(T)] for n in lengths])
    up = up * mask[..., None]
    gamma, beta = params(D, 6)
    xt, gt, bt = leaf(x.reshape(B * T, D)), leaf(gamma), leaf(beta)
    y = F.group_norm(xt, groups, gt, bt, eps=EPS)
    (y * up.reshape(B * T, D)).sum().backward()
    m = None if all(n == T for n in lengths) else mask.reshape(-1)
    gy, gdx, gdg, gdb = go_step(go_tool, f"groupnorm:groups={groups}", x.reshape(B * T, D), up.reshape(B * T, D),
                                gamma, beta, T, False, m)
    check("y", gy, y.detach())
    check("dx", gdx, xt.grad)
    check("dγ", gdg, gt.grad)
    check("dβ", gdb, bt.grad)


@pytest.mark.parametrize("lengths", [(T, T, T), (T, 4, 2)], ids=["nomask", "padded"])
def test_instancenorm_sequences_match_torch(go_tool, lengths):
    """Per sequence and feature over its real positions: torch's
    InstanceNorm1d on each sequence's [1, d, length] slice. Padded rows:
    dx = 0 in normtop, and they change no statistic."""
    x, up = sequences(7)
    gamma, beta = params(D, 8)
    xt, gt, bt = leaf(x), leaf(gamma), leaf(beta)
    ys = []
    for b, n in enumerate(lengths):
        yb = F.instance_norm(xt[b:b + 1, :n].transpose(1, 2), weight=gt, bias=bt, use_input_stats=True, eps=EPS)
        ys.append(yb.transpose(1, 2)[0])
        (ys[-1] * up[b, :n]).sum().backward(retain_graph=True)
    mask = torch.tensor([[t < n for t in range(T)] for n in lengths]).reshape(-1)
    m = None if all(n == T for n in lengths) else mask
    gy, gdx, gdg, gdb = go_step(go_tool, "instancenorm", x.reshape(B * T, D), up.reshape(B * T, D),
                                gamma, beta, T, False, m)
    check("y (real rows)", gy[mask], torch.cat(ys).detach())
    check("dx", gdx, xt.grad.reshape(B * T, D))
    assert (gdx[~mask] == 0).all(), "padded rows must get dx = 0"
    check("dγ", gdg, gt.grad)
    check("dβ", gdb, bt.grad)


@pytest.mark.parametrize("layout", ["image", "sequence"])
def test_instancenorm_running_stats_match_torch(go_tool, layout):
    """instancenorm:running=1 against F.instance_norm with running_mean and
    running_var (momentum 0.1): the running statistics after each of three
    training steps, then an inference step on them (use_input_stats=False):
    y, dx, dγ, dβ."""
    g = torch.Generator().manual_seed(9)
    if layout == "image":
        shape, c, rows, sample_rows = (B, C, H, W), C, rows_of, H * W
    else:  # torch's [B, d, T] is normtop's [B·T, d] rows
        shape, c, sample_rows = (B, D, T), D, T
        rows = lambda t: t.transpose(1, 2).reshape(-1, D)  # noqa: E731
    scale = torch.linspace(0.5, 3, c, dtype=DT).reshape(1, c, *([1] * (len(shape) - 2)))
    gamma, beta = params(c, 10)
    rm, rv = torch.zeros(c, dtype=DT), torch.ones(c, dtype=DT)
    steps, states = [], []
    for s in range(3):
        x = torch.randn(*shape, generator=g, dtype=DT) * scale + 0.5 * s
        F.instance_norm(x, rm, rv, gamma, beta, use_input_stats=True, momentum=0.1, eps=EPS)
        states.append((rm.clone(), rv.clone()))
        steps.append((rows(x), rows(torch.randn(*shape, generator=g, dtype=DT)), None, False))
    x = torch.randn(*shape, generator=g, dtype=DT) * scale
    up = torch.randn(*shape, generator=g, dtype=DT)
    xt, gt, bt = leaf(x), leaf(gamma), leaf(beta)
    y = F.instance_norm(xt, rm, rv, gt, bt, use_input_stats=False, eps=EPS)
    (y * up).sum().backward()
    steps.append((rows(x), rows(up), None, True))
    out = go_steps(go_tool, "instancenorm:running=1", steps, gamma, beta, sample_rows, layout == "image")
    for s, ((mean, var), o) in enumerate(zip(states, out), 1):
        check(f"step {s} running mean", torch.tensor(o[4]["Mean"], dtype=DT), mean)
        check(f"step {s} running variance", torch.tensor(o[4]["Var"], dtype=DT), var)
    gy, gdx, gdg, gdb, st = out[-1]
    check("inference y", gy, rows(y.detach()))
    check("inference dx", gdx, rows(xt.grad))
    check("inference dγ", gdg, gt.grad)
    check("inference dβ", gdb, bt.grad)
    check("state unchanged by inference", torch.tensor(st["Var"], dtype=DT), states[-1][1])
