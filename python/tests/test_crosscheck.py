"""The same weights and batches through a PyTorch module with normtop's hook
and through normtop's own kernels (norm/ + probes/, via tests/gocheck) give
the same probe values: float64 to 1e-10, float32 to 1e-5 (relative). Also
when the module runs twice in a step (the hook reports the last run), when
an evaluation forward comes between steps, and when masked batches change
size from step to step."""

import json
import subprocess

import pytest
import torch
from torch import nn

import normtop
from helpers import close, read_stream

N, D, STEPS = 24, 8, 4


class RMSNorm(nn.Module):
    """r = √(mean(x²)+ε), y = γ⊙x/r (docs/math.md §1); found by its class name."""

    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return self.weight * x / (x.square().mean(-1, keepdim=True) + self.eps).sqrt()


class MaskedBatchNorm(nn.Module):
    """BatchNorm over the real rows only (docs/math.md §2): padded rows are left
    out of the statistics and of the gradient, as normtop's batchnorm does."""

    def __init__(self, d, eps=1e-5, momentum=0.05):
        super().__init__()
        self.eps, self.momentum = eps, momentum
        self.weight = nn.Parameter(torch.ones(d))
        self.bias = nn.Parameter(torch.zeros(d))
        self.register_buffer("running_mean", torch.zeros(d))
        self.register_buffer("running_var", torch.ones(d))
        self.mask = None

    def forward(self, x):
        w = self.mask.to(x.dtype)[:, None]
        n = w.sum()
        mu = (x * w).sum(0) / n
        var = ((x - mu) * w).square().sum(0) / n
        with torch.no_grad():
            m = self.momentum
            self.running_mean.mul_(1 - m).add_(m * mu)
            self.running_var.mul_(1 - m).add_(m * var * n / (n - 1))
        y = self.weight * (x - mu) / (var + self.eps).sqrt() + self.bias
        return torch.where(self.mask[:, None], y, torch.zeros_like(y))


# How the hook side runs each step, after the module's kind (the part of the
# test id before the first "-", or the whole id).
SHARED, EVAL, RESIZED = "-shared", "-eval", "-resized"


def make(kind, dtype):
    for tag in (SHARED, EVAL, RESIZED):
        if kind.endswith(tag):
            kind = kind[: -len(tag)]
    if kind == "layernorm":
        return nn.LayerNorm(D, eps=1e-5).to(dtype), "layernorm", None
    if kind == "batchnorm":
        return nn.BatchNorm1d(D, eps=1e-5, momentum=0.05).to(dtype), "batchnorm:momentum=0.05", None
    if kind == "rmsnorm":
        return RMSNorm(D).to(dtype), "rmsnorm", None
    if kind == "batchnorm-masked":
        return MaskedBatchNorm(D).to(dtype), "batchnorm:momentum=0.05", {"0": "batchnorm"}
    if kind in ("layernorm-masked", "layernorm-one-row"):
        return nn.LayerNorm(D, eps=1e-5).to(dtype), "layernorm", None
    raise ValueError(kind)


def batches(dtype, masked, seed, resized=False):
    g = torch.Generator().manual_seed(seed)
    out = []
    for s in range(STEPS):
        n = N - 4 * (s % 3) if resized else N  # 24, 20, 16, 24 rows: a batch of another size each step
        # Non-zero means and unequal scales per feature, so that every
        # statistic and distance is far from 0.
        x = (torch.randn(n, D, generator=g) * torch.linspace(0.5, 3, D) + torch.linspace(-1, 2, D) + 0.3 * s).to(dtype)
        gr = torch.randn(n, D, generator=g).to(dtype)
        mask = None
        if masked:
            mask = torch.ones(n, dtype=torch.bool)
            mask[-(3 + s):] = False  # a different amount of padding each step
            if masked == "one-row" and s == 1:
                mask[1:] = False  # one real row: no variance to fold into the shadow
        out.append((x, gr, mask))
    return out


def hook_side(tmp_path, kind, dtype, data, gamma, beta):
    mod, spec, extra = make(kind, dtype)
    with torch.no_grad():
        mod.weight.copy_(gamma.to(dtype))
        if getattr(mod, "bias", None) is not None:
            mod.bias.copy_(beta.to(dtype))
    net = nn.Sequential(mod)
    path = str(tmp_path / "s.jsonl")
    run = normtop.watch({"v": net}, path, modules=extra, spectrum_every=0)
    decoy = torch.Generator().manual_seed(99)
    for i, (x, gr, mask) in enumerate(data, 1):
        xt = x.clone().requires_grad_()
        run.set_mask(mask)
        if isinstance(mod, MaskedBatchNorm):
            mod.mask = mask
        loss = 0
        if kind.endswith(SHARED):  # the module runs first on another batch: the hook reports the last run
            x0 = (torch.randn(x.shape, generator=decoy) * 5 - 2).to(dtype).requires_grad_()
            loss = (net(x0) * torch.randn(x.shape, generator=decoy).to(dtype)).sum()
        loss = loss + (net(xt) * gr).sum()
        loss.backward()
        run.log(i, train_loss=0.0)
        if kind.endswith(EVAL):  # a forward with gradients on and no backward, then the val log
            # BatchNorm evaluates in eval mode (in train mode torch itself
            # would fold the batch into its running statistics); LayerNorm
            # stays in train mode: the hooks see it and must let it pass.
            net.train(not kind.startswith("batchnorm"))
            net(torch.randn(x.shape, generator=decoy).to(dtype) * 3 + 1)
            net.train()
            run.log(i, val_loss=1.0)
    run.close()
    _, frames, _ = read_stream(path)
    return [f["layers"]["0"] for f in frames], spec


def go_side(go_tool, spec, dtype, data, gamma, beta, has_beta):
    inp = {
        "spec": spec, "dtype": "float32" if dtype == torch.float32 else "float64", "d": D,
        "gamma": gamma.double().tolist(), "beta": (beta if has_beta else torch.zeros(D)).double().tolist(),
        "steps": [{"x": x.double().reshape(-1).tolist(), "g": gr.double().reshape(-1).tolist(),
                   "mask": None if mask is None else mask.tolist()} for x, gr, mask in data],
    }
    exe = go_tool("./python/tests/gocheck", "gocheck")
    res = subprocess.run([exe], input=json.dumps(inp), capture_output=True, text=True, check=True)
    return json.loads(res.stdout)["steps"]


# Probes whose value sits near 0 by construction (mean of dx is 0 for
# LayerNorm, Theorem 1) are compared against the spread they sit in.
SCALE_OF = {"dx_mean": "dx_var", "dy_mean": "dy_var", "in_mean": "in_std"}


@pytest.mark.parametrize("dtype,rtol", [(torch.float64, 1e-10), (torch.float32, 1e-5)], ids=["float64", "float32"])
@pytest.mark.parametrize("kind", ["layernorm", "batchnorm", "rmsnorm", "batchnorm-masked", "layernorm-masked",
                                  "layernorm-one-row", "layernorm-shared", "rmsnorm-shared", "layernorm-eval",
                                  "batchnorm-eval", "layernorm-masked-resized", "batchnorm-masked-resized"])
def test_hook_matches_normtop_kernels(tmp_path, go_tool, kind, dtype, rtol):
    masked = "one-row" if kind.endswith("-one-row") else "-masked" in kind
    data = batches(dtype, masked, seed=11, resized=kind.endswith(RESIZED))
    g = torch.Generator().manual_seed(5)
    gamma = (1 + 0.3 * torch.randn(D, generator=g)).to(dtype)
    beta = (0.2 * torch.randn(D, generator=g)).to(dtype)
    hook, spec = hook_side(tmp_path, kind, dtype, data, gamma, beta)
    has_beta = not kind.startswith("rmsnorm")
    ref = go_side(go_tool, spec, dtype, data, gamma, beta, has_beta)
    compared = 0
    for step, (h, r) in enumerate(zip(hook, ref), 1):
        want = dict(r["probes"])
        if not has_beta:
            want.pop("beta_norm")
        for name, w in want.items():
            got = h.get(name)
            atol = 0.0
            if name in SCALE_OF and r["probes"].get(SCALE_OF[name]) is not None:
                spread = r["probes"][SCALE_OF[name]]
                atol = rtol * (spread ** 0.5 if name.endswith("_mean") and SCALE_OF[name].endswith("var") else spread)
            assert close(got, w, rtol, atol), f"step {step} {name}: hook {got}, normtop {w}"
            compared += got is not None
        extra = set(h) - set(want)
        assert not extra, f"step {step}: the hook reports {extra}, normtop does not"
    # Every step compares at least the 12 probes a norm layer has.
    assert compared >= 12 * STEPS
