"""No host sync per layer, by construction: during the forward and
backward passes the hooks read no tensor value back to the host (no
.item(), .tolist(), .cpu(), float(t), bool(t), ...), and log() brings the
step's probes back in one copy per device. On a GPU each of those would
wait for the device; here (no GPU) the calls are counted on the CPU, where
the same code runs."""

import contextlib
import json

import pytest
import torch
from torch import nn

import normtop

# Tensor methods that copy a value to the host (and on a GPU wait for it).
HOST_READS = ("item", "tolist", "cpu", "numpy", "__float__", "__int__", "__bool__", "__index__", "__array__")


@contextlib.contextmanager
def counting_host_reads():
    calls = []
    saved = {}
    for name in HOST_READS:
        orig = getattr(torch.Tensor, name, None)
        if orig is None:
            continue
        saved[name] = torch.Tensor.__dict__.get(name)

        def wrap(orig=orig, name=name):
            def counted(self, *a, **k):
                calls.append(name)
                return orig(self, *a, **k)
            return counted
        setattr(torch.Tensor, name, wrap())
    try:
        yield calls
    finally:
        for name, orig in saved.items():
            if orig is None:
                delattr(torch.Tensor, name)
            else:
                setattr(torch.Tensor, name, orig)


class RMSNorm(nn.Module):  # heard through a full backward hook, not its autograd node
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return self.weight * x * torch.rsqrt(x.square().mean(-1, keepdim=True) + 1e-6)


class Net(nn.Module):
    def __init__(self, d=8, groupnorm=True):
        super().__init__()
        self.inp = nn.Linear(4, d)
        self.ln = nn.LayerNorm(d)
        self.bn = nn.BatchNorm1d(d)
        self.rms = RMSNorm(d)
        self.conv = nn.Conv1d(d, d, 1)
        self.gn = nn.GroupNorm(2, d) if groupnorm else nn.Identity()
        self.bn2 = nn.BatchNorm1d(d)

    def forward(self, x):  # x [B, T, 4]
        h = self.ln(self.inp(x))
        b, t, d = h.shape
        h = self.rms(self.bn(h.reshape(b * t, d)).reshape(b, t, d))
        c = self.gn(self.conv(h.transpose(1, 2)))  # [B, d, T]
        return self.bn2(c).square().mean()


@pytest.mark.parametrize("hist", [False, True], ids=["nohist", "histogram"])
@pytest.mark.parametrize("masked", [False, True], ids=["unmasked", "masked"])
@pytest.mark.parametrize("precision", ["input", "float64"])
def test_no_host_read_in_the_hooks_and_one_per_log(tmp_path, masked, precision, hist):
    """Input histograms (at every step here) ride in the same one copy."""
    torch.manual_seed(0)
    net = Net(groupnorm=not masked)  # GroupNorm takes a mask of one flag per sample only
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    run = normtop.watch(net, str(tmp_path / "s.jsonl"), precision=precision, spectrum_every=1 if hist else 0,
                        histogram=8 if hist else False, embedding=False)
    assert len(run.layers) == 4 if masked else 5
    x = torch.randn(4, 6, 4)
    mask = torch.ones(4, 6, dtype=torch.bool)
    mask[:, -2:] = False
    for step in range(1, 4):
        if masked:
            run.set_mask(mask)
        with counting_host_reads() as calls:
            loss = net(x)
            opt.zero_grad()
            loss.backward()
            opt.step()
        assert calls == [], f"step {step}: the hooks read values back to the host: {calls}"
        with counting_host_reads() as calls:
            run.log(step, train_loss=loss)
        # The probes of all layers and the loss: one copy.
        assert calls == ["tolist"], f"step {step}: log() made {calls}"
    run.close()
    if hist:
        frames = [json.loads(l) for l in open(tmp_path / "s.jsonl")][1:-1]
        assert all(len(f["hist"]) == len(run.layers) for f in frames)


def test_counting_sees_a_host_read():
    """The counter itself works (a test that cannot fail proves nothing)."""
    t = torch.ones(3)
    with counting_host_reads() as calls:
        t.sum().item()
        float(t[0])
        t.tolist()
        bool(t[0] > 0)
    assert calls == ["item", "__float__", "tolist", "__bool__"]
    assert not isinstance(torch.Tensor.__dict__.get("item"), type(lambda: 0))  # restored
