"""A small decoder-only Transformer for character-level language modelling,
with its normalization layer chosen by name: the model of normtop's own
transformer benchmark (2 layers, d 64, 4 heads, 64 characters of context),
written in plain PyTorch."""

import torch
from torch import nn


class TokenNorm(nn.Module):
    """Normalizes a [batch, seq, d] activation as [batch·seq, d] rows, so that
    BatchNorm takes its statistics over every token of the batch (as
    PowerNorm's authors do) and the site has the same name whatever the
    norm is (the inner module is `.norm`)."""

    def __init__(self, kind, d):
        super().__init__()
        self.norm = nn.LayerNorm(d) if kind == "layernorm" else nn.BatchNorm1d(d, momentum=0.05)

    def forward(self, x):
        b, t, d = x.shape
        return self.norm(x.reshape(b * t, d)).reshape(b, t, d)


class Block(nn.Module):
    def __init__(self, kind, d, heads):
        super().__init__()
        self.norm1 = TokenNorm(kind, d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.norm2 = TokenNorm(kind, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x, causal):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, attn_mask=causal, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class TinyTransformer(nn.Module):
    def __init__(self, vocab, kind="layernorm", d=64, layers=2, heads=4, seq=64):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(seq, d))
        self.blocks = nn.ModuleList(Block(kind, d, heads) for _ in range(layers))
        self.norm = TokenNorm(kind, d)
        self.head = nn.Linear(d, vocab)
        self.register_buffer("causal", torch.triu(torch.ones(seq, seq, dtype=torch.bool), 1), persistent=False)

    def forward(self, tok):
        t = tok.shape[1]
        x = self.emb(tok) + self.pos[:t]
        for b in self.blocks:
            x = b(x, self.causal[:t, :t])
        return self.head(self.norm(x))


def char_data(text, seq, batch, seed):
    """Batches of (input, target) windows of a text, and a held-out tail."""
    chars = sorted(set(text))
    ids = torch.tensor([chars.index(c) for c in text])
    cut = int(len(ids) * 0.9)
    train, val = ids[:cut], ids[cut:]
    g = torch.Generator().manual_seed(seed)

    def batches(split):
        src = train if split == "train" else val
        while True:
            at = torch.randint(0, len(src) - seq - 1, (batch,), generator=g)
            w = torch.stack([src[i:i + seq + 1] for i in at.tolist()])
            yield w[:, :-1], w[:, 1:]
    return len(chars), batches


def bench_step(norm="layernorm", d=64, seed=0):
    """The model and training step normtop's overhead scripts time
    (bench_overhead.py, overhead_floor.py): this Transformer on random
    characters (vocabulary 96, 64 per window, batch 16), Adam at 1e-3.
    step(run, i) makes one forward, backward and update, then logs to run
    (None: reads the loss back, the same one sync log() makes)."""
    torch.manual_seed(seed)
    vocab, seq, batch = 96, 64, 16
    model = TinyTransformer(vocab, norm, d=d, seq=seq)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randint(0, vocab, (batch, seq))
    y = torch.randint(0, vocab, (batch, seq))

    def step(run, i):
        loss = nn.functional.cross_entropy(model(x).reshape(-1, vocab), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if run is not None:
            run.log(i, train_loss=loss)
        else:
            float(loss)

    return model, step
