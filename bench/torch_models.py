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
batch 32, Adam). The resnet of train/model_resnet.go (3×3 convolutions without bias, a
BatchNorm2d after each, widths 8/16/32, one block per stage, option-A
shortcuts, global average pool, fc; MNIST's 28×28, batch 32, Adam 3e-3,
no clipping); the LSTM of train/model_lstm.go with no norm ("none":
nn.LSTM, H 64, one layer, batch 16 × 64 characters, Adam 3e-3, clip 1;
its second bias b_hh is frozen at zero, since normtop's LSTM has one bias,
so both train the same parameters); the classifier of
train/model_classifier.go (one pre-norm block, bidirectional attention
with a key padding mask, the mean over each document's real tokens, a
linear layer to the classes; batch 32 × 64, Adam 1e-3, clip 1).

--vocab and --classes take the data's sizes as normtop reports them
(bench/peer.sh passes them), so both sides train the same number of
parameters; --d sets the word model's width. Each timed step includes
making its batch, as normtop's does. Prints one line:
"ms/step <median wall> cpu-ms/step <process CPU / steps> params <n>".
Data are random tokens or pixels: the step's cost does not depend on them.
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
    def __init__(self, d, heads, norm, causal=True):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.ln1, self.ln2 = norm_layer(norm, d), norm_layer(norm, d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.fc_proj = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def attention(self, x, b, t, keep=None):
        d = x.shape[1]
        dh = d // self.heads
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, dh).permute(2, 0, 3, 1, 4)
        s = (q @ k.transpose(-2, -1)) / dh ** 0.5
        mask = torch.ones(t, t, dtype=torch.bool).triu(1) if self.causal else torch.zeros(t, t, dtype=torch.bool)
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
    """The character model (causal, logits per position), or with
    causal=False and out=classes the classifier (keys masked by padding,
    logits of the mean over each document's real positions)."""

    def __init__(self, vocab, d, layers, heads, seq, norm, out=None, causal=True):
        super().__init__()
        self.causal = causal
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(Block(d, heads, norm, causal) for _ in range(layers))
        self.final = norm_layer(norm, d)
        self.out = nn.Linear(d, out or vocab)
        for p in self.parameters():
            if p.dim() == 2:
                nn.init.normal_(p, std=0.02)

    def forward(self, x, keep=None):
        b, t = x.shape
        h = (self.tok(x) + self.pos(torch.arange(t)).unsqueeze(0)).reshape(b * t, -1)
        for blk in self.blocks:
            h = blk(h, b, t, keep)
        h = self.final(h)
        if not self.causal:
            k = keep.reshape(b, t, 1).float()
            h = (h.view(b, t, -1) * k).sum(1) / k.sum(1)
        return self.out(h)


class ResNet(nn.Module):
    """train/model_resnet.go: conv1, then per stage one residual block
    conv-norm-ReLU-conv-norm plus the shortcut, ReLU; the option-A shortcut
    samples every second pixel and pads the new channels with zeros."""

    def __init__(self, norm, classes, widths=(8, 16, 32)):
        super().__init__()
        bn = (lambda c: nn.BatchNorm2d(c)) if norm == "batchnorm" else (lambda c: nn.Identity())
        if norm not in ("batchnorm", "none"):
            raise SystemExit(f"torch_models: the resnet peer has batchnorm and none, not {norm!r}")
        self.conv1, self.bn1 = nn.Conv2d(1, widths[0], 3, padding=1, bias=False), bn(widths[0])
        self.stages = nn.ModuleList()
        cin = widths[0]
        for s, w in enumerate(widths):
            stride = 1 if s == 0 else 2
            self.stages.append(nn.ModuleList([
                nn.Conv2d(cin, w, 3, stride=stride, padding=1, bias=False), bn(w),
                nn.Conv2d(w, w, 3, padding=1, bias=False), bn(w)]))
            cin = w
        self.fc = nn.Linear(widths[-1], classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        for c1, n1, c2, n2 in self.stages:
            y = n2(c2(F.relu(n1(c1(x)))))
            sc = x
            if c1.stride[0] != 1 or c1.in_channels != c1.out_channels:
                sc = x[:, :, ::c1.stride[0], ::c1.stride[0]]
                sc = F.pad(sc, (0, 0, 0, 0, 0, c1.out_channels - c1.in_channels))
            x = F.relu(y + sc)
        return self.fc(x.mean((2, 3)))


class LSTMLM(nn.Module):
    """train/model_lstm.go without norms: embedding, one nn.LSTM layer, the
    output layer. nn.LSTM adds two biases; normtop's LSTM has one, so b_hh
    stays zero and untrained."""

    def __init__(self, vocab, d):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.lstm = nn.LSTM(d, d, batch_first=True)
        nn.init.zeros_(self.lstm.bias_hh_l0)
        self.lstm.bias_hh_l0.requires_grad_(False)
        self.out = nn.Linear(d, vocab)

    def forward(self, x):
        h, _ = self.lstm(self.tok(x))
        return self.out(h.reshape(-1, h.shape[-1]))


def mlp(norm):
    return nn.Sequential(nn.Linear(784, 256), norm_layer(norm, 256), nn.ReLU(),
                         nn.Linear(256, 256), norm_layer(norm, 256), nn.ReLU(),
                         nn.Linear(256, 10))


def padded_batch(vocab, batch, seq, shift):
    """Random sentences of 2..seq positions, right-padded with id 0: tokens
    (seq+shift columns), and the [batch, seq] mask of real positions."""
    lens = torch.randint(2, seq + 1, (batch, 1))
    keep = torch.arange(seq).unsqueeze(0) < lens
    return torch.randint(3, vocab, (batch, seq + shift)), keep


def main():
    models = ["transformer", "words", "words-batch32", "mlp", "resnet", "lstm", "classifier"]
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="transformer",
                    help="one of " + ", ".join(models) + ", words-dN (the word model at width N), "
                    "or any of them with -bare (normtop's name for the run without probes)")
    ap.add_argument("--norm", default="layernorm")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--vocab", type=int, default=0, help="the data's vocabulary (0: the preset's own guess)")
    ap.add_argument("--classes", type=int, default=0, help="the data's classes (0: the preset's own guess)")
    a = ap.parse_args()
    d = 64
    name = a.model.removesuffix("-bare")  # normtop without probes; the same model here
    if name.startswith("words-d"):
        d, name = int(name[len("words-d"):]), "words"
    if name not in models:
        raise SystemExit(f"torch_models: unknown model {a.model!r}")
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    if name == "words":
        vocab, seq, batch, lr, clip = a.vocab or 2000, 32, 32, 1e-3, 1.0
        model = FairseqLM(vocab, d, 2, 4, seq, a.norm)

        def data():
            x, keep = padded_batch(vocab, batch, seq, 1)
            y = x[:, 1:].masked_fill(~keep, -100)
            return x[:, :-1].masked_fill(~keep, 0), y, keep

        def loss_of(xy):
            return F.cross_entropy(model(xy[0], xy[2]), xy[1].reshape(-1), ignore_index=-100)
    elif name in ("transformer", "words-batch32"):
        vocab, seq, batch, lr, clip = a.vocab or 91, 64, 16, 3e-3, 1.0
        if name == "words-batch32":
            vocab, seq, batch, lr = a.vocab or 2000, 32, 32, 1e-3
        model = Transformer(vocab, 64, 2, 4, seq, a.norm)
        data = lambda: torch.randint(vocab, (batch, seq + 1))

        def loss_of(xy):
            return F.cross_entropy(model(xy[:, :-1]), xy[:, 1:].reshape(-1))
    elif name == "classifier":
        vocab, classes, seq, batch, lr, clip = a.vocab or 8000, a.classes or 2, 64, 32, 1e-3, 1.0
        model = Transformer(vocab, 64, 1, 4, seq, a.norm, out=classes, causal=False)

        def data():
            x, keep = padded_batch(vocab, batch, seq, 0)
            return x.masked_fill(~keep, 0), keep, torch.randint(classes, (batch,))

        def loss_of(xy):
            return F.cross_entropy(model(xy[0], xy[1]), xy[2])
    elif name == "lstm":
        if a.norm != "none":
            raise SystemExit(f"torch_models: the lstm peer is nn.LSTM, norm none, not {a.norm!r}")
        vocab, seq, batch, lr, clip = a.vocab or 91, 64, 16, 3e-3, 1.0
        model = LSTMLM(vocab, 64)
        data = lambda: torch.randint(vocab, (batch, seq + 1))

        def loss_of(xy):
            return F.cross_entropy(model(xy[:, :-1]), xy[:, 1:].reshape(-1))
    elif name == "resnet":
        model = ResNet(a.norm, a.classes or 10)
        lr, clip = 3e-3, 0
        data = lambda: (torch.rand(32, 1, 28, 28), torch.randint(a.classes or 10, (32,)))

        def loss_of(xy):
            return F.cross_entropy(model(xy[0]), xy[1])
    else:
        model = mlp(a.norm)
        lr, clip = 1e-3, 0
        data = lambda: (torch.rand(32, 784), torch.randint(10, (32,)))

        def loss_of(xy):
            return F.cross_entropy(model(xy[0]), xy[1])
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.Adam(params, lr=lr)
    times = []
    for i in range(a.warmup + a.steps):
        if i == a.warmup:
            cpu0 = time.process_time()
        t0 = time.perf_counter()
        xy = data()  # timed: normtop's step makes its batch too
        opt.zero_grad(set_to_none=True)
        loss = loss_of(xy)
        loss.backward()
        if clip:
            nn.utils.clip_grad_norm_(params, clip)
        opt.step()
        if i >= a.warmup:
            times.append(time.perf_counter() - t0)
    cpu = (time.process_time() - cpu0) / a.steps
    print(f"ms/step {1e3 * statistics.median(times):.3f} cpu-ms/step {1e3 * cpu:.3f} "
          f"params {sum(p.numel() for p in params)}")


if __name__ == "__main__":
    main()
