#!/usr/bin/python3
"""normtop's models in PyTorch, for the peer benchmark (bench/peer.sh).

The same default transformer as train/model_transformer.go (causal
character model, d 64, 2 pre-norm blocks, 4 heads, context 64, batch 16,
FFN 4d with ReLU, final norm, vocabulary 80, Adam with gradient clipping
at 1); the word-level preset (train.WordConfig, "words": the same blocks,
vocabulary 2000, lr 1e-3, fairseq's input, token embeddings N(0, 1/d)
scaled by sqrt(d) plus sinusoidal positions, Xavier-uniform linear
layers, output layer tied to the embedding; normtop's batches hold up to
1,024 positions, grouped by length, and every normtop step computes the
linear layers over all 1,024: here every batch is 32 sentences of 32
positions with a key padding mask and the padding left out of the loss,
the same linear-layer work and normtop's largest attention work); the
preset before it ("words-batch32": 32 padded sentences of context 32,
learned positions N(0, 0.02^2), untied; normtop masks the padding, which
this version, on full random rows, does not need); and the same mlp
as train/model_mlp.go (784-256-256-10, a norm before each hidden ReLU,
batch 32, Adam). Prints one line:
"ms/step <median>" over the timed steps. Data are random tokens or
pixels: the step's cost does not depend on them.
"""
import argparse
import statistics
import sys
import time

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    print("torch_models: PyTorch is not installed (Debian: apt-get install python3-torch); skipped")
    sys.exit(3)


def norm_layer(kind, d):
    if kind == "layernorm":
        return nn.LayerNorm(d)
    if kind == "batchnorm":
        return nn.BatchNorm1d(d)  # over the rows of a [B·T, d] matrix, as normtop
    if kind == "rmsnorm":
        class RMSNorm(nn.Module):
            def __init__(self):
                super().__init__()
                self.g = nn.Parameter(torch.ones(d))

            def forward(self, x):
                return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * self.g
        return RMSNorm()
    raise SystemExit(f"torch_models: unknown norm {kind!r}")


class Block(nn.Module):
    def __init__(self, d, heads, norm):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = norm_layer(norm, d), norm_layer(norm, d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.fc_proj = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def attention(self, x, b, t, keep=None):
        d = x.shape[1]
        dh = d // self.heads
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, dh).permute(2, 0, 3, 1, 4)
        s = (q @ k.transpose(-2, -1)) / dh ** 0.5
        mask = torch.ones(t, t, dtype=torch.bool).triu(1)
        if keep is not None:  # [b, t] key padding mask
            mask = mask | ~keep.view(b, 1, 1, t)
        p = s.masked_fill(mask, float("-inf")).softmax(-1)
        o = (p @ v).permute(0, 2, 1, 3).reshape(b * t, d)
        return self.proj(o)

    def forward(self, x, b, t, keep=None):
        x = x + self.attention(self.ln1(x), b, t, keep)
        return x + self.fc_proj(F.relu(self.fc(self.ln2(x))))


def sinusoids(n, d, offset=2):
    """fairseq's SinusoidalPositionalEmbedding rows for positions offset..offset+n-1:
    sin in the first d/2 features, cos in the second."""
    h = d // 2
    freq = torch.exp(torch.arange(h, dtype=torch.float) * -(torch.log(torch.tensor(10000.0)) / (h - 1)))
    args = torch.arange(offset, offset + n, dtype=torch.float).unsqueeze(1) * freq.unsqueeze(0)
    return torch.cat([torch.sin(args), torch.cos(args)], dim=1)


class FairseqLM(nn.Module):
    """normtop's word preset: fairseq's input, tied output, a key padding mask."""

    def __init__(self, vocab, d, layers, heads, seq, norm):
        super().__init__()
        self.d = d
        self.tok = nn.Embedding(vocab, d)
        nn.init.normal_(self.tok.weight, std=d ** -0.5)
        self.register_buffer("pos", sinusoids(seq, d))
        self.blocks = nn.ModuleList(Block(d, heads, norm) for _ in range(layers))
        self.final = norm_layer(norm, d)
        for blk in self.blocks:
            for lin in (blk.qkv, blk.proj, blk.fc, blk.fc_proj):
                nn.init.xavier_uniform_(lin.weight)
                nn.init.zeros_(lin.bias)

    def forward(self, x, keep):
        b, t = x.shape
        h = (self.tok(x) * self.d ** 0.5 + self.pos[:t].unsqueeze(0)).reshape(b * t, -1)
        for blk in self.blocks:
            h = blk(h, b, t, keep)
        return self.final(h) @ self.tok.weight.t()


class Transformer(nn.Module):
    def __init__(self, vocab, d, layers, heads, seq, norm):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(Block(d, heads, norm) for _ in range(layers))
        self.final = norm_layer(norm, d)
        self.out = nn.Linear(d, vocab)
        for p in self.parameters():
            if p.dim() == 2:
                nn.init.normal_(p, std=0.02)

    def forward(self, x):
        b, t = x.shape
        h = (self.tok(x) + self.pos(torch.arange(t)).unsqueeze(0)).reshape(b * t, -1)
        for blk in self.blocks:
            h = blk(h, b, t)
        return self.out(self.final(h))


def mlp(norm):
    return nn.Sequential(nn.Linear(784, 256), norm_layer(norm, 256), nn.ReLU(),
                         nn.Linear(256, 256), norm_layer(norm, 256), nn.ReLU(),
                         nn.Linear(256, 10))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="transformer", choices=["transformer", "words", "words-batch32", "mlp"])
    ap.add_argument("--norm", default="layernorm")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    if a.model == "words":
        vocab, seq, batch, lr, clip = 2000, 32, 32, 1e-3, 1.0
        model = FairseqLM(vocab, 64, 2, 4, seq, a.norm)

        def data():
            # sentences of 2..32 positions, right-padded; padding is id 0
            lens = torch.randint(2, seq + 1, (batch, 1))
            keep = torch.arange(seq).unsqueeze(0) < lens
            x = torch.randint(3, vocab, (batch, seq + 1))
            y = x[:, 1:].masked_fill(~keep, -100)
            return x[:, :-1].masked_fill(~keep, 0), y, keep

        def loss_of(xy):
            return F.cross_entropy(model(xy[0], xy[2]), xy[1].reshape(-1), ignore_index=-100)
    elif a.model in ("transformer", "words-batch32"):
        vocab, seq, batch, lr, clip = 80, 64, 16, 3e-3, 1.0
        if a.model == "words-batch32":
            vocab, seq, batch, lr = 2000, 32, 32, 1e-3
        model = Transformer(vocab, 64, 2, 4, seq, a.norm)
        data = lambda: torch.randint(vocab, (batch, seq + 1))
        def loss_of(xy):
            return F.cross_entropy(model(xy[:, :-1]), xy[:, 1:].reshape(-1))
    else:
        model = mlp(a.norm)
        lr, clip = 1e-3, 0
        data = lambda: (torch.rand(32, 784), torch.randint(10, (32,)))
        def loss_of(xy):
            return F.cross_entropy(model(xy[0]), xy[1])
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    times = []
    for i in range(a.warmup + a.steps):
        xy = data()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = loss_of(xy)
        loss.backward()
        if clip:
            nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        if i >= a.warmup:
            times.append(time.perf_counter() - t0)
    print(f"ms/step {1e3 * statistics.median(times):.3f}")


if __name__ == "__main__":
    main()
