"""The hook on nn.InstanceNorm and nn.GroupNorm: InstanceNorm is watched
(kind "instancenorm", normalization rows (sample, channel)); it reports what
GroupNorm with one group per channel reports; unbatched input is a batch of
one; and on an image both give the probe values of normtop's own
instancenorm/groupnorm kernels on the [B·H·W, C] rows (float64, 1e-10)."""

import json
import subprocess

import pytest
import torch
from torch import nn

import normtop
from helpers import close, read_stream

DT = torch.float64


def probe_frames(tmp_path, tag, mod, inputs, grads, masks=None):
    path = tmp_path / f"{tag}.jsonl"
    run = normtop.watch(nn.Sequential(mod), str(path), spectrum_every=0)
    for step, (x, g) in enumerate(zip(inputs, grads), 1):
        run.set_mask(None if masks is None else masks[step - 1])
        xi = x.clone().requires_grad_()
        (mod(xi) * g).sum().backward()
        run.log(step)
    run.close()
    return [f["layers"]["0"] for f in read_stream(path)[1]]


def data(shape, steps, seed):
    g = torch.Generator().manual_seed(seed)
    c = shape[1]
    scale = torch.linspace(0.5, 3, c, dtype=DT).reshape(1, c, *([1] * (len(shape) - 2)))
    xs = [torch.randn(*shape, generator=g, dtype=DT) * scale + 0.4 * s - 1 for s in range(steps)]
    gs = [torch.randn(*shape, generator=g, dtype=DT) for _ in range(steps)]
    return xs, gs


def set_affine(mod, seed):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        mod.weight.copy_(1 + 0.3 * torch.randn(mod.weight.shape, generator=g, dtype=DT))
        mod.bias.copy_(0.2 * torch.randn(mod.bias.shape, generator=g, dtype=DT))


def test_instancenorm_is_found():
    for mod in (nn.InstanceNorm1d(4), nn.InstanceNorm2d(4, affine=True), nn.InstanceNorm3d(4)):
        sites = normtop.sites.find_sites(nn.Sequential(mod))
        assert [s.kind for s in sites] == ["instancenorm"], type(mod).__name__


@pytest.mark.parametrize("masked", [False, True], ids=["nomask", "mask"])
def test_instancenorm_reports_groupnorm_with_c_groups(tmp_path, masked):
    xs, gs = data((5, 6, 3, 4), 3, seed=1)
    masks = [torch.tensor([True, True, False, True, s == 0]) for s in range(3)] if masked else None
    out = {}
    for tag, mod in (("in", nn.InstanceNorm2d(6, affine=True)), ("gn", nn.GroupNorm(6, 6))):
        mod = mod.double()
        set_affine(mod, 2)
        out[tag] = probe_frames(tmp_path, tag, mod, xs, gs, masks)
    for step, (a, b) in enumerate(zip(out["in"], out["gn"]), 1):
        assert set(a) == set(b), f"step {step}: {sorted(a)} against {sorted(b)}"
        assert "g_mu" in a and "dist_mu" in a
        for k in a:
            assert close(a[k], b[k], 1e-12, 1e-15), f"step {step} {k}: instancenorm {a[k]}, groupnorm {b[k]}"


def test_instancenorm_unbatched_is_a_batch_of_one(tmp_path):
    xs, gs = data((1, 4, 9), 2, seed=3)
    batched = probe_frames(tmp_path, "b", nn.InstanceNorm1d(4).double(), xs, gs)
    single = probe_frames(tmp_path, "s", nn.InstanceNorm1d(4).double(), [x[0] for x in xs], [g[0] for g in gs])
    for a, b in zip(batched, single):
        assert set(a) == set(b) and "g_var" in a
        for k in a:
            assert close(a[k], b[k], 1e-12, 1e-15), k


def rows_of(nchw):
    b, c, h, w = nchw.shape
    return nchw.permute(0, 2, 3, 1).reshape(b * h * w, c)


@pytest.mark.parametrize("spec", ["instancenorm", "groupnorm:groups=2"])
def test_hook_matches_normtop_zoo_kernels(tmp_path, go_tool, spec):
    """The hook on PyTorch's module and normtop's own kernel (same weights,
    same batches, image layout) give the same probe values."""
    B, C, H, W = 4, 6, 3, 5
    xs, gs = data((B, C, H, W), 3, seed=4)
    mod = nn.InstanceNorm2d(C, affine=True) if spec == "instancenorm" else nn.GroupNorm(2, C)
    mod = mod.double()
    set_affine(mod, 5)
    gamma, beta = mod.weight.detach().clone(), mod.bias.detach().clone()
    hook = probe_frames(tmp_path, "h", mod, xs, gs)
    inp = {"spec": spec, "dtype": "float64", "d": C, "gamma": gamma.tolist(), "beta": beta.tolist(),
           "sample_rows": H * W, "spatial": True,
           "steps": [{"x": rows_of(x).reshape(-1).tolist(), "g": rows_of(g).reshape(-1).tolist(), "mask": None}
                     for x, g in zip(xs, gs)]}
    exe = go_tool("./python/tests/gocheck", "gocheck")
    res = subprocess.run([exe], input=json.dumps(inp), capture_output=True, text=True, check=True)
    ref = [s["probes"] for s in json.loads(res.stdout)["steps"]]
    compared = 0
    for step, (h, r) in enumerate(zip(hook, ref), 1):
        for name, w in r.items():
            got = h.get(name)
            atol = 1e-10 * (r.get("dx_var") or 1) ** 0.5 if name in ("dx_mean", "dy_mean") else 0.0
            assert close(got, w, 1e-10, atol), f"step {step} {name}: hook {got}, normtop {w}"
            compared += got is not None
        assert not set(h) - set(r), f"step {step}: the hook reports {set(h) - set(r)}, normtop does not"
    assert compared >= 12 * len(xs)
