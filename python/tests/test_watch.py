"""watch(): which modules are found, what the stream holds, thinning,
masks, evaluation passes, spectrum, and the user's mistakes."""

import math
import sys

import pytest
import torch
from torch import nn

import normtop
from helpers import close, read_stream


class RMSNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = 1e-6

    def forward(self, x):
        return self.weight * x * torch.rsqrt(x.square().mean(-1, keepdim=True) + self.eps)


class Scale(nn.Module):
    """A user's own normalization the search cannot know."""

    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return self.weight * x / (x.square().mean(-1, keepdim=True) + 1e-5).sqrt()


class Net(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.emb = nn.Embedding(20, d)
        self.ln = nn.LayerNorm(d)
        self.bn = nn.BatchNorm1d(d)
        self.rms = RMSNorm(d)
        self.mine = Scale(d)
        self.out = nn.Linear(d, 20)

    def forward(self, tok):
        h = self.emb(tok)  # [B, T, d]
        h = self.ln(h)
        b, t, d = h.shape
        h = self.bn(h.reshape(b * t, d)).reshape(b, t, d)
        h = self.mine(self.rms(h))
        return self.out(h)


def train(net, run, steps, every_eval=None, mask=None):
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    g = torch.Generator().manual_seed(0)
    for step in range(1, steps + 1):
        tok = torch.randint(0, 20, (4, 6), generator=g)
        if mask is not None:
            run.set_mask(mask)
        logits = net(tok)
        loss = nn.functional.cross_entropy(logits.reshape(-1, 20), tok.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        run.log(step, train_loss=loss, epoch=step / 10)
        if every_eval and step % every_eval == 0:
            net.eval()
            with torch.no_grad():
                vl = nn.functional.cross_entropy(net(tok).reshape(-1, 20), tok.reshape(-1))
            net.train()
            run.log(step, val_loss=vl, val_metric=0.25)


def test_stream_holds_every_site_and_step(tmp_path):
    torch.manual_seed(0)
    net = Net()
    path = tmp_path / "run.jsonl"
    run = normtop.watch(net, str(path), modules={"mine": "rmsnorm"}, spectrum_every=5, metric="accuracy",
                        data="random tokens", config={"lr": 0.05})
    train(net, run, 10, every_eval=5)
    run.close()
    head, frames, end = read_stream(path)
    meta = head["meta"]
    assert head["normtop_stream"] == 1
    assert meta["Layers"] == ["ln", "bn", "rms", "mine"]
    assert meta["Variants"] == [{"Name": "Net", "Spec": "Net"}]
    assert meta["Metric"] == "accuracy" and meta["Config"]["lr"] == "0.05"
    assert [f["step"] for f in frames] == list(range(1, 11))
    assert [f["status"] for f in frames] == ["running"] * 9 + ["done"]
    assert end == {"end": {"status": "completed"}}
    f = frames[4]
    assert f["epoch"] == 0.5 and math.isfinite(f["train_loss"])
    # The evaluation logged at the same step joins that step's line, with
    # the mean train loss since the previous evaluation.
    (ev,) = f["eval"]
    assert ev["split"] == "val" and ev["metric"] == 0.25
    assert close(ev["train_loss"], sum(x["train_loss"] for x in frames[:5]) / 5, 1e-12)
    assert f["spectrum"]["step"] == 5 and f["spectrum"]["sigma"][0] == 1.0
    ln, bn, rms, mine = (f["layers"][n] for n in meta["Layers"])
    rdist = {"rdist_mu", "rdist_var", "rdist_psi2"}
    assert set(ln) == {"dist_mu", "dist_var", "dist_psi2", "g_mu", "g_var", "dx_mean", "dx_var", "dy_mean",
                       "dy_var", "in_mean", "in_std", "in_maxabs", "gamma_drift", "beta_norm"} | rdist
    assert set(rms) == {"dist_mu", "dist_var", "dist_psi2", "g_psi2", "dx_mean", "dx_var",
                        "dy_mean", "dy_var", "in_mean", "in_std", "in_maxabs", "gamma_drift"} | rdist
    assert set(mine) == set(rms) | {"gw_norm"}  # mine's output feeds the output layer
    assert set(bn) == set(ln)
    # Shadows start from the first batch: distance 0 at step 1, while
    # BatchNorm's own running stats (μ = 0, σ² = 1 at init) are far off.
    first = frames[0]["layers"]
    assert first["ln"]["dist_mu"] == first["ln"]["dist_var"] == first["bn"]["dist_psi2"] == 0
    assert first["bn"]["dist_mu"] > 0 and first["bn"]["dist_var"] > 0
    # LayerNorm's dx has zero row mean (Theorem 1), up to float32 rounding.
    assert abs(ln["dx_mean"]) < 1e-5 * math.sqrt(ln["dx_var"])
    assert ln["gamma_drift"] > 0  # γ moved under SGD


def test_every_n_thins_probes(tmp_path):
    net = Net()
    run = normtop.watch(net, str(tmp_path / "r.jsonl"), every=3, spectrum_every=0)
    train(net, run, 9)
    run.close()
    _, frames, _ = read_stream(tmp_path / "r.jsonl")
    assert [f["step"] for f in frames if "layers" in f] == [3, 6, 9]
    assert all("spectrum" not in f for f in frames)
    assert all(math.isfinite(f["train_loss"]) for f in frames)


def test_eval_passes_leave_probes_alone(tmp_path):
    """Forward passes in eval mode or under no_grad are not training steps."""
    torch.manual_seed(1)
    a, b = Net(), Net()
    b.load_state_dict(a.state_dict())
    ra = normtop.watch(a, str(tmp_path / "a.jsonl"), spectrum_every=0)
    rb = normtop.watch(b, str(tmp_path / "b.jsonl"), spectrum_every=0)
    train(a, ra, 6)
    train(b, rb, 6, every_eval=2)
    ra.close()
    rb.close()
    _, fa, _ = read_stream(tmp_path / "a.jsonl")
    _, fb, _ = read_stream(tmp_path / "b.jsonl")
    for x, y in zip(fa, fb):
        assert x["layers"] == y["layers"]


def test_batchnorm2d_is_batchnorm1d_on_channels_last(tmp_path):
    """BatchNorm2d's statistics are per channel over (N, H, W): the same
    probes as BatchNorm1d on the [N·H·W, C] view of the same values."""
    torch.manual_seed(2)
    x = torch.randn(3, 4, 5, 6, dtype=torch.float64) * 2 + 1
    g = torch.randn(3, 4, 5, 6, dtype=torch.float64)
    bn2, bn1 = nn.BatchNorm2d(4).double(), nn.BatchNorm1d(4).double()
    out = {}
    for name, mod, inp, gr in (("2d", bn2, x, g), ("1d", bn1, x.permute(0, 2, 3, 1).reshape(-1, 4),
                                                    g.permute(0, 2, 3, 1).reshape(-1, 4))):
        p = tmp_path / f"{name}.jsonl"
        run = normtop.watch(nn.Sequential(mod), str(p), spectrum_every=0)
        for step in (1, 2):
            xi = inp.clone().requires_grad_()
            (mod(xi) * gr).sum().backward()
            run.log(step)
        run.close()
        out[name] = [f["layers"]["0"] for f in read_stream(p)[1]]
    for a, b in zip(out["2d"], out["1d"]):
        assert a.keys() == b.keys()
        for k in a:
            assert close(a[k], b[k], 1e-12, 1e-15), k


def test_groupnorm_one_group_is_layernorm_over_chw(tmp_path):
    """GroupNorm(1, C) normalizes each sample over (C, H, W) like
    LayerNorm([C, H, W]); with γ = 1 the gradient probes and Theorem-1
    moments agree."""
    torch.manual_seed(3)
    x = torch.randn(5, 4, 3, 3, dtype=torch.float64) * 3 - 1
    g = torch.randn(5, 4, 3, 3, dtype=torch.float64)
    out = {}
    for name, mod in (("gn", nn.GroupNorm(1, 4)), ("ln", nn.LayerNorm([4, 3, 3]))):
        mod = mod.double()
        p = tmp_path / f"{name}.jsonl"
        run = normtop.watch(nn.Sequential(mod), str(p), spectrum_every=0)
        xi = x.clone().requires_grad_()
        (mod(xi) * g).sum().backward()
        run.log(1)
        run.close()
        out[name] = read_stream(p)[1][0]["layers"]["0"]
    for k in ("g_mu", "g_var", "dx_mean", "dx_var", "dy_mean", "dy_var", "in_mean", "in_std", "in_maxabs"):
        assert close(out["gn"][k], out["ln"][k], 1e-12, 1e-15), k


def test_mask_leaves_padding_out(tmp_path):
    """With a mask, padded positions change nothing: the probes equal those
    of the batch without the padded rows."""
    torch.manual_seed(4)
    ln = nn.LayerNorm(6).double()
    x = torch.randn(2, 5, 6, dtype=torch.float64)
    g = torch.randn(2, 5, 6, dtype=torch.float64)
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 0]], dtype=torch.bool)
    x_pad, g_pad = x.clone(), g.clone()
    x_pad[~mask] = 1e3  # padding holds garbage
    g_pad[~mask] = 0  # and gets no gradient from the loss
    res = []
    for inp, gr, m in ((x_pad, g_pad, mask), (x[mask], g[mask], None)):
        p = tmp_path / f"m{len(res)}.jsonl"
        run = normtop.watch(nn.Sequential(ln), str(p), spectrum_every=0)
        run.set_mask(m)
        xi = inp.clone().requires_grad_()
        (ln(xi) * gr).sum().backward()
        run.log(1)
        run.close()
        res.append(read_stream(p)[1][0]["layers"]["0"])
    assert res[0].keys() == res[1].keys()
    for k in res[0]:
        assert close(res[0][k], res[1][k], 1e-12, 1e-15), k


def test_spectrum_and_effective_rank(tmp_path):
    emb = nn.Embedding(30, 5)
    net = nn.Sequential(emb, nn.LayerNorm(5))
    run = normtop.watch(net, str(tmp_path / "s.jsonl"), spectrum_every=2)
    for step in (1, 2):
        net(torch.arange(6)).sum().backward()
        run.log(step)
    run.close()
    frames = read_stream(tmp_path / "s.jsonl")[1]
    assert "spectrum" not in frames[0]
    sp = frames[1]["spectrum"]
    s = torch.linalg.svd(emb.weight.detach().double(), full_matrices=False).S
    assert len(sp["sigma"]) == 5
    for got, want in zip(sp["sigma"], (s / s[0]).tolist()):
        assert close(got, want, 1e-12)
    p = s / s.sum()
    assert close(sp["eff_rank"], float(torch.exp(-(p * p.log()).sum())), 1e-12)


def test_several_models_are_variants(tmp_path):
    a, b = Net(), Net()
    run = normtop.watch({"layernorm": a, "batchnorm": b}, str(tmp_path / "v.jsonl"), spectrum_every=0)
    for step in (1, 2):
        for name, net in (("layernorm", a), ("batchnorm", b)):
            net(torch.randint(0, 20, (2, 3))).sum().backward()
            run.log(step, train_loss=1.0, variant=name)
    with pytest.raises(ValueError, match="say which"):
        run.log(3, train_loss=1.0)
    run.close()
    head, frames, _ = read_stream(tmp_path / "v.jsonl")
    assert [v["Name"] for v in head["meta"]["Variants"]] == ["layernorm", "batchnorm"]
    assert [(f["variant_index"], f["step"]) for f in frames] == [(0, 1), (1, 1), (0, 2), (1, 2)]


@pytest.mark.parametrize("call,msg", [
    (lambda p: normtop.watch(nn.Linear(2, 2), p), "found no normalization module"),
    (lambda p: normtop.watch(nn.Sequential(nn.LayerNorm(2)), p, every=0), "every=0"),
    (lambda p: normtop.watch(nn.Sequential(nn.LayerNorm(2)), p, modules=["nope"]), "no module named 'nope'"),
    (lambda p: normtop.watch(nn.Sequential(nn.Linear(2, 2)), p, modules=["0"]), "say its kind"),
    (lambda p: normtop.watch(nn.Sequential(nn.LayerNorm(2)), p, precision="half"), "precision"),
])
def test_mistakes_are_one_clear_error(tmp_path, call, msg):
    with pytest.raises(ValueError, match=msg):
        call(str(tmp_path / "x.jsonl"))


def test_refuses_existing_file(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text("precious\n")
    with pytest.raises(FileExistsError, match="already exists"):
        normtop.watch(nn.Sequential(nn.LayerNorm(2)), str(p))
    assert p.read_text() == "precious\n"


def test_layers_batched_together_match_layers_alone(tmp_path):
    """The §5 arithmetic runs batched over layers of one shape: two RMSNorm
    layers with different ε give, together, what each gives alone."""
    torch.manual_seed(6)
    x = torch.randn(10, 5, dtype=torch.float64)
    g = torch.randn(10, 5, dtype=torch.float64)

    def probes(mods, name):
        p = tmp_path / f"{name}.jsonl"
        run = normtop.watch(nn.Sequential(*mods), str(p), spectrum_every=0)
        for m in mods:
            xi = x.clone().requires_grad_()
            (m(xi) * g).sum().backward()
        run.log(1)
        run.close()
        return read_stream(p)[1][0]["layers"]
    a, b = RMSNorm(5).double(), RMSNorm(5).double()
    a.eps, b.eps = 1e-6, 0.5
    both = probes([a, b], "both")
    assert both["0"] == probes([a], "a")["0"]
    assert both["1"] == probes([b], "b")["0"]
    assert both["0"]["g_psi2"] != both["1"]["g_psi2"]


def test_gamma_follows_in_place_updates_and_replaced_storage(tmp_path):
    """γ and β are read through views made once (no detach/reshape per
    call): the values reported must be those of each step's forward, after
    in-place updates (the optimizer's) and after the parameter's storage
    is replaced (param.data = ..., as module.to() does)."""
    torch.manual_seed(0)
    ln = nn.LayerNorm(4)
    net = nn.Sequential(nn.Linear(4, 4), ln)
    path = str(tmp_path / "s.jsonl")
    run = normtop.watch(net, path, spectrum_every=0)
    want = []
    for step in range(1, 5):
        if step == 2:
            with torch.no_grad():
                ln.weight.mul_(3)  # in place
        if step == 3:
            ln.weight.data = torch.full((4,), -2.0)  # a new storage
            ln.bias.data = torch.full((4,), 0.5)
        want.append(((ln.weight.detach() - 1).norm().item(), ln.bias.detach().norm().item()))
        net(torch.randn(8, 4)).square().mean().backward()
        with torch.no_grad():
            ln.weight.add_(0.25)  # after the forward: not this step's value
        run.log(step, train_loss=0.0)
    run.close()
    _, frames, _ = read_stream(path)
    got = [(f["layers"]["1"]["gamma_drift"], f["layers"]["1"]["beta_norm"]) for f in frames]
    for step, (g, w) in enumerate(zip(got, want), 1):
        assert close(g[0], w[0], 1e-6) and close(g[1], w[1], 1e-6), f"step {step}: got {g}, want {w}"


def test_shadows_follow_a_layer_that_skips_steps(tmp_path):
    """Layers of one shape share one shadow tensor per step (finish.py); a
    layer used on some steps only changes the group's make-up. Each layer's
    distances to its shadows must be those it has when watched alone on
    the same steps, fresh start and all."""
    torch.manual_seed(3)
    batches = [torch.randn(12, 6, dtype=torch.float64) * (1 + 0.2 * s) + 0.1 * s for s in range(6)]
    grads = [torch.randn(12, 6, dtype=torch.float64) for _ in range(6)]
    uses = {"a": range(6), "b": (1, 2, 4)}  # b joins at step 2, skips 4 and 6

    def probes(names, tag):
        torch.manual_seed(0)
        mods = {n: nn.LayerNorm(6).double() for n in ("a", "b")}
        path = tmp_path / f"{tag}.jsonl"
        run = normtop.watch(nn.ModuleDict({n: mods[n] for n in names}), str(path), spectrum_every=0)
        for s, (x, g) in enumerate(zip(batches, grads)):
            for n in names:
                if s in uses[n]:
                    (mods[n](x.clone().requires_grad_()) * g).sum().backward()
            run.log(s + 1)
        run.close()
        return [f.get("layers", {}) for f in read_stream(path)[1]]

    both, alone = probes(("a", "b"), "both"), {n: probes((n,), n) for n in ("a", "b")}
    compared = 0
    for n in ("a", "b"):
        for s, (got, want) in enumerate(zip(both, alone[n]), 1):
            assert (n in got) == (n in want), f"step {s}: layer {n} measured in one run only"
            for k, w in want.get(n, {}).items():
                assert close(got[n][k], w, 1e-12), f"step {s} layer {n} {k}: together {got[n][k]}, alone {w}"
                compared += k.startswith("dist_")
    assert compared == 3 * (6 + 3)
    # b's first step starts its shadows (distance 0); later ones are not 0.
    assert both[1]["b"]["dist_mu"] == 0 and both[2]["b"]["dist_mu"] > 0


@pytest.mark.parametrize("make,shape", [
    (lambda: nn.LayerNorm(6), (5, 4, 6)),
    (lambda: nn.LayerNorm(6, elementwise_affine=False), (20, 6)),
    (lambda: nn.LayerNorm((3, 4)), (5, 3, 4)),
    (lambda: nn.BatchNorm1d(6), (20, 6)),
    (lambda: nn.BatchNorm1d(6, affine=False), (5, 6, 4)),
    (lambda: nn.BatchNorm2d(3), (4, 3, 5, 5)),
    (lambda: nn.GroupNorm(2, 6), (4, 6, 5)),
    (lambda: nn.GroupNorm(3, 6, affine=False), (4, 6, 2, 3)),
], ids=["ln", "ln-no-affine", "ln-2d", "bn1d", "bn1d-3d-no-affine", "bn2d", "gn", "gn-no-affine"])
def test_statistics_read_from_the_node_match_those_computed(tmp_path, monkeypatch, make, shape):
    """A native layer's batch or row means (and BatchNorm's 1/√(σ²+ε)) are
    read from what its autograd node saved instead of a pass over x; with
    the node unknown (as for a user's own module) every value is computed
    from the data. Both ways must agree."""
    W = sys.modules["normtop.layer_state"]

    def probes(tag):
        torch.manual_seed(4)
        net = nn.Sequential(make()).double()
        path = tmp_path / f"{tag}.jsonl"
        run = normtop.watch(net, str(path), spectrum_every=0)
        for step in range(1, 4):
            x = (torch.randn(*shape, dtype=torch.float64) * 2 + 0.5 * step).requires_grad_()
            (net(x) * torch.randn(*shape, dtype=torch.float64)).sum().backward()
            run.log(step)
        run.close()
        return [f["layers"]["0"] for f in read_stream(path)[1]]

    native = probes("native")
    monkeypatch.setattr(W, "_NATIVE_MODULES", ())  # a full backward hook from the first step
    computed = probes("computed")
    for step, (a, b) in enumerate(zip(native, computed), 1):
        assert set(a) == set(b), f"step {step}: {sorted(a)} against {sorted(b)}"
        for k in a:
            assert close(a[k], b[k], 1e-9, 1e-13), f"step {step} {k}: from the node {a[k]}, computed {b[k]}"
