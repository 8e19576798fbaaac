"""What a researcher's real models hit (PyTorch III): channels-first
LayerNorm (timm's/torchvision's LayerNorm2d, ConvNeXt's data_format), a
frozen BatchNorm inside a training model, norm classes the search does not
know (the one warning, kinds=), gradient accumulation against a shared
module, warnings at the user's line, bounded memory without log(), gw_norm
against autograd, and the per-step batch shape."""

import math
import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import normtop
from helpers import close, read_stream

DT = torch.float64


class LayerNorm2d(nn.LayerNorm):
    """timm's and torchvision's: an nn.LayerNorm that permutes NCHW inside forward."""

    def forward(self, x):
        x = x.permute(0, 2, 3, 1)
        x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        return x.permute(0, 3, 1, 2)


class ConvNeXtLayerNorm(nn.Module):
    """ConvNeXt's own LayerNorm, written out along dim 1 for channels_first."""

    def __init__(self, c, eps=1e-6, data_format="channels_last"):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(c))
        self.bias = nn.Parameter(torch.zeros(c))
        self.eps, self.data_format, self.normalized_shape = eps, data_format, (c,)

    def forward(self, x):
        if self.data_format == "channels_last":
            return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        u = x.mean(1, keepdim=True)
        s = (x - u).pow(2).mean(1, keepdim=True)
        x = (x - u) / torch.sqrt(s + self.eps)
        return self.weight[:, None, None] * x + self.bias[:, None, None]


class LlamaRMSNorm(nn.Module):
    """HF Llama's: named ...Norm, a variance_epsilon, not found by class name."""

    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.variance_epsilon = eps

    def forward(self, x):
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.variance_epsilon)


class NanoLayerNorm(nn.Module):
    """nanoGPT's LayerNorm (optional bias), named LayerNorm but no nn.LayerNorm."""

    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.bias = None

    def forward(self, x):
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)


LayerNorm = type("LayerNorm", (NanoLayerNorm,), {})  # the class name nanoGPT gives it


def _steps(tmp_path, tag, net, batches, **kw):
    """Trains net one step per (x, g) (loss Σ net(x)·g), logging each;
    returns the frames and the header."""
    path = tmp_path / f"{tag}.jsonl"
    run = normtop.watch(net, str(path), spectrum_every=0, **kw)
    for step, (x, g) in enumerate(batches, 1):
        (net(x.clone().requires_grad_()) * g).sum().backward()
        run.log(step)
    run.close()
    head, frames, _ = read_stream(path)
    return head, frames


def _images(steps, shape, seed=0):
    gen = torch.Generator().manual_seed(seed)
    # channels with unequal means and scales, so the axis matters
    c = shape[1]
    loc = torch.linspace(-2, 3, c, dtype=DT).reshape(1, c, 1, 1)
    sc = torch.linspace(0.5, 2, c, dtype=DT).reshape(1, c, 1, 1)
    return [(torch.randn(*shape, generator=gen, dtype=DT) * sc + loc + 0.3 * s,
             torch.randn(*shape, generator=gen, dtype=DT)) for s in range(steps)]


def _truth(x, g, w, eps):
    """Float64 recomputation of a channels-first LayerNorm's row probes on
    NCHW x and ∂L/∂y g (docs/math.md §5): rows are the (n, h, w) positions,
    normalized over C; ĝ = g⊙γ; g_μ = mean |Σĝ|/√(‖r‖²+dε) and g_σ² = mean
    √d·‖r‖·|Σĝ⊙r|/(‖r‖²+dε)^{3/2} over rows, r = x − μ."""
    c = x.shape[1]
    xr = x.permute(0, 2, 3, 1).reshape(-1, c)
    gr = g.permute(0, 2, 3, 1).reshape(-1, c)
    r = xr - xr.mean(1, keepdim=True)
    gh = gr * w
    den = r.square().sum(1) + c * eps
    gmu = (gh.sum(1).abs() / den.sqrt()).mean()
    gvar = (math.sqrt(c) * r.norm(dim=1) * (gh * r).sum(1).abs() / den ** 1.5).mean()
    dy = gr - gr.mean(1, keepdim=True)
    return {"g_mu": gmu.item(), "g_var": gvar.item(), "in_mean": xr.mean().item(),
            "in_std": xr.std(unbiased=False).item(), "in_maxabs": xr.abs().max().item(),
            "dy_mean": gr.mean().item(), "dy_var": dy.square().mean().item()}


@pytest.mark.parametrize("make,kw,shape", [
    (lambda c: LayerNorm2d(c), {}, (3, 6, 4, 5)),
    (lambda c: LayerNorm2d(c), {}, (3, 6, 4, 6)),  # W = C: both layouts fit; read from the output
    (lambda c: ConvNeXtLayerNorm(c, data_format="channels_first"), {"modules": {"0": "layernorm"}}, (3, 6, 4, 5)),
    (lambda c: ConvNeXtLayerNorm(c, data_format="channels_first"), {"modules": {"0": "layernorm"}}, (3, 6, 6, 6)),
], ids=["layernorm2d", "layernorm2d-w-eq-c", "convnext-channels-first", "convnext-h-w-c-equal"])
def test_channels_first_layernorm_measured_along_channels(tmp_path, make, kw, shape):
    """Every probe of a channels-first LayerNorm equals nn.LayerNorm's on the
    same values laid out NHWC, from step 1; the row probes also equal a
    float64 recomputation along C (before, rows were taken along W: g_mu
    +45%)."""
    torch.manual_seed(0)
    c = shape[1]
    first = nn.Sequential(make(c)).double()
    last = nn.Sequential(nn.LayerNorm(c, eps=first[0].eps)).double()
    w, b = 1 + 0.3 * torch.randn(c, dtype=DT), 0.2 * torch.randn(c, dtype=DT)
    with torch.no_grad():
        for m in (first[0], last[0]):
            m.weight.copy_(w)
            m.bias.copy_(b)
    batches = _images(3, shape)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: the layout is known
        _, got = _steps(tmp_path, "first", first, batches, **kw)
    nhwc = [(x.permute(0, 2, 3, 1), g.permute(0, 2, 3, 1)) for x, g in batches]
    _, want = _steps(tmp_path, "last", last, nhwc)
    assert "g_mu" in got[0]["layers"]["0"], "step 1 not measured"
    for step, (a, b) in enumerate(zip(got, want), 1):
        a, b = a["layers"]["0"], b["layers"]["0"]
        assert set(a) == set(b), f"step {step}: {sorted(a)} against {sorted(b)}"
        for k in b:
            assert close(a[k], b[k], 1e-10, 1e-14), f"step {step} {k}: channels first {a[k]}, NHWC {b[k]}"
        x, g = batches[step - 1]
        for k, v in _truth(x, g, first[0].weight.detach(), first[0].eps).items():
            assert close(a[k], v, 1e-10, 1e-14), f"step {step} {k}: hook {a[k]}, float64 recomputation {v}"


class ScaledLayerNorm2d(nn.LayerNorm):
    """Permutes and scales its output by 3 without a weight: neither layout's
    rows come out normalized, so with W = C its layout cannot be known."""

    def forward(self, x):
        y = F.layer_norm(x.permute(0, 2, 3, 1), self.normalized_shape, None, None, self.eps)
        return 3 * y.permute(0, 3, 1, 2)


def test_unknowable_layout_one_warning_at_the_users_line_and_no_values(tmp_path):
    net = nn.Sequential(ScaledLayerNorm2d(5, elementwise_affine=False)).double()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        # batches of several shapes (token budgets change them every step): still one warning
        batches = _images(2, (2, 5, 3, 5)) + _images(2, (4, 5, 2, 5), seed=1)
        _, frames = _steps(tmp_path, "unknown", net, batches)
    ours = [x for x in w if "cannot tell which axis" in str(x.message)]
    assert len(ours) == 1, [str(x.message) for x in w]
    assert "layer 0" in str(ours[0].message)
    assert ours[0].filename == __file__, ours[0].filename
    assert all(not f.get("layers", {}).get("0") for f in frames), frames


def test_a_module_that_says_neither_width_nor_layout_one_warning_at_watch(tmp_path):
    class Norm(nn.Module):
        def forward(self, x):
            return x / x.norm(dim=1, keepdim=True)

    net = nn.Sequential(Norm())
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        run = normtop.watch(net, str(tmp_path / "n.jsonl"), modules={"0": "rmsnorm"})
        for step in (1, 2, 3):
            net(torch.randn(4, 3, 5, requires_grad=True)).sum().backward()
            run.log(step)
        run.close()
    msgs = [str(x.message) for x in w]
    assert len(msgs) == 1 and "cannot be measured" in msgs[0] and "0 (" in msgs[0], msgs
    assert w[0].filename == __file__


def _frozen_net():
    torch.manual_seed(1)
    net = nn.Sequential(nn.Conv2d(3, 4, 1), nn.BatchNorm2d(4), nn.Conv2d(4, 2, 1)).double()
    with torch.no_grad():
        net[1].running_mean.copy_(torch.tensor([0.5, -0.2, 0.1, 0.0]))
        net[1].running_var.copy_(torch.tensor([2.0, 0.5, 1.5, 1.0]))
    net.train()
    net[1].eval()  # fine-tuning: this BatchNorm is frozen
    return net


@pytest.mark.parametrize("backbone_frozen", [False, True], ids=["trained-through", "frozen-backbone"])
def test_frozen_batchnorm_measured_against_its_running_statistics(tmp_path, backbone_frozen):
    net = _frozen_net()
    if backbone_frozen:
        for p in list(net[0].parameters()) + list(net[1].parameters()):
            p.requires_grad_(False)
    rm, rv = net[1].running_mean.clone(), net[1].running_var.clone()
    path = tmp_path / "frozen.jsonl"
    run = normtop.watch(net, str(path), spectrum_every=0)
    xs = [torch.randn(5, 3, 4, 4, dtype=DT) * 2 + s for s in range(3)]
    for step, x in enumerate(xs, 1):
        net(x).square().mean().backward()
        run.log(step)
    run.close()
    assert torch.equal(net[1].running_mean, rm) and torch.equal(net[1].running_var, rv)
    head, frames, _ = read_stream(path)
    assert head["meta"]["Config"]["layer.1.frozen"] == "true"
    for step, (f, x) in enumerate(zip(frames, xs), 1):
        p = f["layers"]["1"]
        with torch.no_grad():
            h = net[0](x).permute(0, 2, 3, 1).reshape(-1, 4)
        mu, var = h.mean(0), h.var(0, unbiased=False)
        assert close(p["dist_mu"], ((mu - rm).norm() / 4).item(), 1e-10)
        assert close(p["dist_var"], ((var - rv).norm() / 4).item(), 1e-10)
        assert close(p["rdist_mu"], ((mu - rm).norm() / rv.sum().sqrt()).item(), 1e-10)
        assert close(p["rdist_var"], ((var - rv).norm() / rv.norm()).item(), 1e-10)
        # no gradient flows through a frozen layer's batch statistics
        assert "g_mu" not in p and "g_var" not in p
        assert ("dy_var" in p) == (not backbone_frozen)


def test_frozen_batchnorm_not_measured_in_evaluation(tmp_path):
    net = _frozen_net()
    path = tmp_path / "eval.jsonl"
    run = normtop.watch(net, str(path), spectrum_every=0)
    net(torch.randn(5, 3, 4, 4, dtype=DT)).sum().backward()
    run.log(1)
    net.eval()
    net(torch.randn(5, 3, 4, 4, dtype=DT) + 10).sum().backward()
    run.log(2)
    run.close()
    frames = read_stream(path)[1]
    assert "1" in frames[0]["layers"] and "layers" not in frames[1]


class Block(nn.Module):
    def __init__(self, d=6):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.rms = LlamaRMSNorm(d)
        self.nano = LayerNorm(d)
        self.fc = nn.Linear(d, d)

    def forward(self, x):
        return self.fc(self.nano(self.rms(self.ln(x))))


def test_unwatched_norm_like_modules_named_in_one_warning(tmp_path):
    net = nn.Sequential(Block(), Block())
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        run = normtop.watch(net, str(tmp_path / "u.jsonl"))
        for step in (1, 2):
            net(torch.randn(3, 6)).sum().backward()
            run.log(step)
        run.close()
    msgs = [str(x.message) for x in w]
    assert len(msgs) == 1, msgs
    m = msgs[0]
    listed = m.split("not watched: ")[1].split(" (class")[0].split(", ")
    assert sorted(listed) == ["0.nano", "0.rms", "1.nano", "1.rms"], m  # the nn.LayerNorm are watched
    for name in ("LlamaRMSNorm: KIND", "LayerNorm: KIND", "kinds={"):
        assert name in m, (name, m)
    assert w[0].filename == __file__


def test_kinds_maps_a_class_to_a_kind(tmp_path):
    """kinds={LlamaRMSNorm: "rmsnorm"} watches every module of the class,
    with the values of the same computation found by its class name."""
    from test_watch import RMSNorm

    def frames(tag, mod, **kw):
        torch.manual_seed(0)
        net = nn.Sequential(nn.Linear(6, 6), mod).double()
        gen = torch.Generator().manual_seed(5)
        batches = [(torch.randn(4, 6, generator=gen, dtype=DT), torch.randn(4, 6, generator=gen, dtype=DT))
                   for _ in range(3)]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            head, fr = _steps(tmp_path, tag, net, batches, **kw)
        return head, [f["layers"]["1"] for f in fr]

    head, got = frames("kinds", LlamaRMSNorm(6, eps=1e-6), kinds={LlamaRMSNorm: "rmsnorm"})
    ref = RMSNorm(6)
    ref.eps = 1e-6
    _, want = frames("byname", ref)
    assert head["meta"]["Config"]["layer.1.kind"] == "rmsnorm"
    for a, b in zip(got, want):
        assert set(a) == set(b) and all(close(a[k], b[k], 1e-12, 1e-15) for k in b), (a, b)


@pytest.mark.parametrize("kinds,msg", [
    ({nn.GroupNorm: "groupnorm"}, "class GroupNorm, of which the model has no module"),
    ({LlamaRMSNorm: "rmsnrom"}, "no kind 'rmsnrom'"),
    ({"LlamaRMSNorm": "rmsnorm"}, "is not a class"),
    ([LlamaRMSNorm], "want a dict"),
])
def test_bad_kinds_one_value_error_naming_it(tmp_path, kinds, msg):
    with pytest.raises(ValueError, match=msg):
        normtop.watch(nn.Sequential(LlamaRMSNorm(4), nn.LayerNorm(4)), str(tmp_path / "k.jsonl"), kinds=kinds)
    assert not (tmp_path / "k.jsonl").exists()


GRAD_KEYS = ("g_mu", "g_var", "dx_mean", "dx_var", "dy_mean", "dy_var")


@pytest.mark.parametrize("make,shape", [
    (lambda: nn.LayerNorm(6), (4, 5, 6)),
    (lambda: nn.BatchNorm1d(6), (20, 6)),
    (lambda: LlamaRMSNorm(6), (4, 5, 6)),
], ids=["layernorm", "batchnorm", "llama-rmsnorm"])
def test_accumulation_reports_the_last_micro_batch_without_a_shared_warning(tmp_path, make, shape):
    """4 micro-batches, each forward then backward, between two optimizer
    steps: no shared-module warning, and each step's probes are those of
    its last micro-batch (docs/python.md), equal to a run of that batch
    alone."""
    def run_with(tag, micro):
        torch.manual_seed(0)
        mod = make().double()
        path = tmp_path / f"{tag}.jsonl"
        kinds = {LlamaRMSNorm: "rmsnorm"} if isinstance(mod, LlamaRMSNorm) else None
        run = normtop.watch(nn.Sequential(mod), str(path), spectrum_every=0, kinds=kinds)
        for step in (1, 2, 3):
            for k in micro:
                gen = torch.Generator().manual_seed(10 * step + k)
                x = torch.randn(*shape, generator=gen, dtype=DT) * (1 + k) + k
                (mod(x.requires_grad_()) * torch.randn(*shape, generator=gen, dtype=DT)).sum().backward()
            run.log(step)
        run.close()
        return [f["layers"]["0"] for f in read_stream(path)[1]]

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        acc = run_with("acc", range(4))
    last = run_with("last", [3])
    for step, (a, b) in enumerate(zip(acc, last), 1):
        for k in GRAD_KEYS + ("in_mean", "in_std", "gamma_drift"):
            if k in b:
                assert close(a[k], b[k], 1e-12, 1e-15), f"step {step} {k}: accumulated {a[k]}, last alone {b[k]}"


def test_shared_module_warned_once_at_the_users_log_line(tmp_path):
    ln = nn.LayerNorm(4)
    run = normtop.watch(nn.Sequential(ln), str(tmp_path / "s.jsonl"), spectrum_every=0)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for step in (1, 2, 3):
            x = torch.randn(3, 4, requires_grad=True)
            (ln(x).sum() + ln(2 * x).square().sum()).backward()
            run.log(step)
    run.close()
    ours = [x for x in w if "shared module" in str(x.message)]
    assert len(ours) == 1 and "ran 2 times in one forward" in str(ours[0].message)
    assert ours[0].filename == __file__, ours[0].filename


def test_captured_runs_bounded_without_log(tmp_path):
    """1,000 training forwards and backwards without log() keep one run per
    layer; 1,000 forwards without a backward at most MAX_WAITING; one
    warning says that steps are measured and never logged."""
    from normtop.layer_state import MAX_WAITING
    net = nn.Sequential(nn.Linear(8, 8), nn.LayerNorm(8), LlamaRMSNorm(8), nn.BatchNorm1d(8))
    run = normtop.watch(net, str(tmp_path / "b.jsonl"), spectrum_every=0, kinds={LlamaRMSNorm: "rmsnorm"})
    states = run.variants[0].states
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for _ in range(1000):
            net(torch.randn(16, 8)).sum().backward()
        # the last run and the one before it, until the next forward drops that
        assert max(len(st.calls) for st in states) <= 2, [len(st.calls) for st in states]
        for _ in range(1000):
            net(torch.randn(16, 8))
        assert max(len(st.calls) for st in states) <= MAX_WAITING + 2
    msgs = [str(x.message) for x in w]
    assert sum("since the last log()" in m for m in msgs) == 3, msgs  # one per layer
    run.log(1)
    assert all(not st.calls for st in states)
    run.close()


class PreLN(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.ln1, self.ln2, self.lnf = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)
        self.q, self.k, self.v = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 2 * d), nn.Linear(2 * d, d)
        self.out = nn.Linear(d, 5)

    def forward(self, x):
        h = self.ln1(x)
        a = torch.softmax(self.q(h) @ self.k(h).transpose(-1, -2), -1) @ self.v(h)
        x = x + a
        x = x + self.fc2(torch.relu(self.fc1(self.ln2(x))))
        return self.out(torch.tanh(self.lnf(x)))  # an op between: lnf feeds nothing seen


def test_gw_norm_against_autograd(tmp_path):
    """gw_norm of ln1 is ‖∂L/∂(W_q, W_k, W_v)‖_F, of ln2 ‖∂L/∂W_fc1‖_F, of
    the last micro-batch of the step; lnf's output passes a tanh first
    and has none."""
    torch.manual_seed(0)
    net = PreLN().double()
    path = tmp_path / "gw.jsonl"
    run = normtop.watch(net, str(path), spectrum_every=0)
    want = []
    for step in (1, 2):
        for k in range(3):
            x = torch.randn(2, 5, 8, dtype=DT) * (1 + k)
            loss = net(x).square().mean()
            if k == 2:
                ws = [net.q.weight, net.k.weight, net.v.weight, net.fc1.weight]
                gs = torch.autograd.grad(loss, ws, retain_graph=True)
                want.append((math.sqrt(sum(g.square().sum().item() for g in gs[:3])), gs[3].norm().item()))
            loss.backward()
        run.log(step)
    run.close()
    for f, (w1, w2) in zip(read_stream(path)[1], want):
        lay = f["layers"]
        assert close(lay["ln1"]["gw_norm"], w1, 1e-12), (lay["ln1"]["gw_norm"], w1)
        assert close(lay["ln2"]["gw_norm"], w2, 1e-12), (lay["ln2"]["gw_norm"], w2)
        assert "gw_norm" not in lay["lnf"]


def test_batch_shape_in_each_line(tmp_path):
    """[batch, seq] inputs with a mask: rows, padded width and real tokens;
    images: rows = width·… = the samples; a step not measured (every=2)
    takes it from the mask."""
    seq = nn.Sequential(nn.Embedding(10, 4), nn.LayerNorm(4))
    path = tmp_path / "seq.jsonl"
    run = normtop.watch(seq, str(path), spectrum_every=0, every=2)
    lens = [[5, 3, 2], [4, 4, 1], [2, 2, 2]]
    for step, ls in enumerate(lens, 1):
        mask = torch.arange(6)[None, :] < torch.tensor(ls)[:, None]
        run.set_mask(mask)
        seq(torch.randint(0, 10, (3, 6))).sum().backward()
        run.log(step)
    run.close()
    got = [f.get("batch") for f in read_stream(path)[1]]
    assert got == [{"rows": 3, "width": 6, "tokens": sum(ls)} for ls in lens], got

    img = nn.Sequential(nn.Conv2d(3, 4, 1), nn.BatchNorm2d(4))
    path = tmp_path / "img.jsonl"
    run = normtop.watch(img, str(path), spectrum_every=0)
    for step, n in enumerate((5, 7), 1):
        img(torch.randn(n, 3, 4, 4)).sum().backward()
        run.log(step)
    run.set_mask(torch.tensor([True, False, True, True, False]))
    img(torch.randn(5, 3, 4, 4)).sum().backward()
    run.log(3)
    run.close()
    got = [f.get("batch") for f in read_stream(path)[1]]
    assert got == [{"rows": 5, "width": 1, "tokens": 5}, {"rows": 7, "width": 1, "tokens": 7},
                   {"rows": 5, "width": 1, "tokens": 3}], got


def test_gw_norm_follows_a_view_of_the_output(tmp_path):
    """A BatchNorm over [B·T, d] rows whose output is reshaped back to
    [B, T, d] before a Linear feeds that Linear (a view shares its memory)."""
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.bn, self.fc = nn.BatchNorm1d(4), nn.Linear(4, 3)

        def forward(self, x):
            b, t, d = x.shape
            return self.fc(self.bn(x.reshape(b * t, d)).reshape(b, t, d))

    torch.manual_seed(0)
    net = Net().double()
    path = tmp_path / "view.jsonl"
    run = normtop.watch(net, str(path), spectrum_every=0)
    loss = net(torch.randn(2, 5, 4, dtype=DT)).square().sum()
    (gw,) = torch.autograd.grad(loss, [net.fc.weight], retain_graph=True)
    loss.backward()
    run.log(1)
    run.close()
    got = read_stream(path)[1][0]["layers"]["bn"]["gw_norm"]
    assert close(got, gw.norm().item(), 1e-12), (got, gw.norm().item())


def test_batchnorm_frozen_after_watch_measured_and_warned_once(tmp_path):
    net = nn.Sequential(nn.Conv2d(3, 4, 1), nn.BatchNorm2d(4)).double()
    path = tmp_path / "late.jsonl"
    run = normtop.watch(net, str(path), spectrum_every=0)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for step in (1, 2, 3):
            if step == 2:
                net[1].eval()  # frozen after watch()
            net(torch.randn(5, 3, 2, 2, dtype=DT)).sum().backward()
            run.log(step)
    run.close()
    msgs = [str(x.message) for x in w]
    assert len(msgs) == 1 and "was not at watch()" in msgs[0] and w[0].filename == __file__, msgs
    head, frames, _ = read_stream(path)
    assert "layer.1.frozen" not in head["meta"]["Config"]
    assert "g_var" in frames[0]["layers"]["1"] and "g_var" not in frames[2]["layers"]["1"]
    assert "rdist_var" in frames[2]["layers"]["1"]
