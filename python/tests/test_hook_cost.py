"""What keeps the hooks cheap must not change the training: hooks exist only
on due steps, and the hooks' in-place arithmetic touches only their own
temporaries."""

import math

import pytest
import torch
from torch import nn

import normtop
from helpers import read_stream


class RMSNorm(nn.Module):  # heard through a full backward hook
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return self.weight * x * torch.rsqrt(x.square().mean(-1, keepdim=True) + 1e-6)


class Stack(nn.Module):
    """Several layers of each kind with inputs of one shape (they share the
    work buffers), then a GroupNorm and a BatchNorm2d of other shapes."""

    def __init__(self, d=8, tail=True):
        super().__init__()
        self.tail = tail  # GroupNorm takes a mask of one flag per sample only: no tail with a mask
        self.inp = nn.Linear(4, d)
        self.lns = nn.ModuleList(nn.LayerNorm(d) for _ in range(3))
        self.bns = nn.ModuleList(nn.BatchNorm1d(d) for _ in range(2))
        self.rmss = nn.ModuleList(RMSNorm(d) for _ in range(2))
        self.conv = nn.Conv1d(d, 6, 1)
        self.gn = nn.GroupNorm(3, 6)
        self.bn2 = nn.BatchNorm2d(6)

    def forward(self, x):  # x [B, T, 4]
        h = self.inp(x)
        b, t, d = h.shape
        for i, ln in enumerate(self.lns):
            h = torch.tanh(ln(h)) * (i + 1.5) + h
        for bn in self.bns:
            h = bn(h.reshape(b * t, d)).reshape(b, t, d).square() + h
        for rms in self.rmss:
            h = rms(h) * 0.7 + 0.2 * h
        if not self.tail:
            return h.square().mean()
        c = self.gn(self.conv(h.transpose(1, 2)))
        return self.bn2(c[..., None]).square().mean()


def _train(net, path, steps=4, every=1, dtype=torch.float64, check=None, mask=None, watch=True, losses=None):
    net = net.to(dtype)
    with torch.no_grad():  # γ, β away from their init, so every term of every probe counts
        for p in net.parameters():
            p.add_(0.2 * torch.randn_like(p))
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    run = normtop.watch(net, str(path), every=every, spectrum_every=0) if watch else normtop.NullRun()
    g = torch.Generator().manual_seed(1)
    for step in range(1, steps + 1):
        if check:
            check(run, step)
        if mask is not None:
            run.set_mask(mask[step % len(mask)])
        loss = net(torch.randn(4, 5, 4, generator=g, dtype=torch.float64).to(dtype))
        opt.zero_grad()
        loss.backward()
        opt.step()
        run.log(step, train_loss=loss)
        if losses is not None:
            losses.append(float(loss))
    run.close()
    return read_stream(str(path))[1] if watch else None


def test_probes_leave_the_model_alone(tmp_path):
    """The hooks work in place on their own temporaries only (x−μ becomes
    g⊙(x−μ)): a watched run trains exactly like an unwatched one, masked
    or not, float64 and float32."""
    for dtype in (torch.float64, torch.float32):
        for masked in (False, True):
            mask = None
            if masked:  # [batch, seq] flags, a different padding each step
                mask = [torch.arange(5)[None, :] < torch.tensor([[5], [4], [3 - i], [2]]) for i in range(2)]
            losses = []
            for watched in (True, False):
                torch.manual_seed(3)
                net = Stack(tail=not masked)
                got = []
                frames = _train(net, tmp_path / f"{dtype}-{masked}-{watched}.jsonl", dtype=dtype, mask=mask,
                                watch=watched, losses=got)
                if watched:
                    assert len(frames) == 4 and all(len(f["layers"]) == (7 if masked else 9) for f in frames)
                losses.append((got, [p.detach().clone() for p in net.parameters()]))
            (la, pa), (lb, pb) = losses
            # Equal up to the order in which autograd sums a gradient: the
            # full backward hook of the RMSNorms (a module without its own
            # node) adds identity nodes to the graph, which may reorder it.
            rtol = 1e-12 if dtype == torch.float64 else 1e-5
            assert all(math.isclose(a, b, rel_tol=rtol) for a, b in zip(la, lb)), (la, lb)
            assert all(torch.allclose(x, y, rtol=rtol, atol=0) for x, y in zip(pa, pb))


def test_hooks_exist_only_on_due_steps(tmp_path):
    net = Stack()
    mods = [m for m in net.modules() if isinstance(m, (nn.LayerNorm, nn.BatchNorm1d, nn.BatchNorm2d,
                                                       nn.GroupNorm, RMSNorm))]
    assert len(mods) == 9
    seen = []

    def check(run, step):
        due = step % 3 == 0
        for m in mods:
            assert bool(m._forward_hooks) == due, (step, m)
        for m in net.rmss:  # the full backward hook of a module without its own autograd node
            assert bool(m._backward_hooks) == due, (step, m)
        seen.append(due)

    frames = _train(net, tmp_path / "s.jsonl", steps=7, every=3, check=check)
    assert seen == [False, False, True, False, False, True, False]
    assert [f["step"] for f in frames if f.get("layers")] == [3, 6]
    assert all(len(f["layers"]) == 9 for f in frames if f.get("layers"))
    for m in mods:  # close() leaves the model as it found it
        assert not m._forward_hooks and not m._forward_pre_hooks and not m._backward_hooks
