"""What keeps the hooks cheap must not change what they measure: hooks exist
only on due steps, and the work buffers the hooks reuse between layers and
steps give the same probes, bit for bit, as fresh tensors."""

import pytest
import torch
from torch import nn

import normtop
from normtop import probes as P
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


def _train(net, path, steps=4, every=1, dtype=torch.float64, check=None, mask=None):
    net = net.to(dtype)
    with torch.no_grad():  # γ, β away from their init, so every term of every probe counts
        for p in net.parameters():
            p.add_(0.2 * torch.randn_like(p))
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    run = normtop.watch(net, str(path), every=every, spectrum_every=0)
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
    run.close()
    return read_stream(str(path))[1]


@pytest.mark.parametrize("masked", [False, True], ids=["unmasked", "masked"])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["float64", "float32"])
def test_work_buffers_change_no_value(tmp_path, monkeypatch, dtype, masked):
    mask = None
    if masked:  # [batch, seq] flags, a different padding each step
        mask = [torch.arange(5)[None, :] < torch.tensor([[5], [4], [3 - i], [2]]) for i in range(2)]
    torch.manual_seed(3)
    kept = _train(Stack(tail=not masked), tmp_path / "kept.jsonl", dtype=dtype, mask=mask)
    monkeypatch.setattr(P.Scratch, "__call__", lambda self, role, like: None)  # fresh tensors
    torch.manual_seed(3)
    fresh = _train(Stack(tail=not masked), tmp_path / "fresh.jsonl", dtype=dtype, mask=mask)
    assert len(kept) == len(fresh) == 4
    n = 0
    for a, b in zip(kept, fresh):
        assert a["layers"] == b["layers"]
        n += sum(len(v) for v in a["layers"].values())
    assert n >= (7 if masked else 9) * 4 * 10  # every site, every step, most probes


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
