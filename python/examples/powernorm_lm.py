"""PowerNorm's own setting in PyTorch, watched by normtop: a pre-norm
Transformer language model with LayerNorm, the PowerNorm authors'
BatchNorm and PowerNorm side by side (Shen et al. 2020; docs/math.md §2,
§3, §11), for a machine with a GPU (the Go trainer needs 3.9 CPU-seconds a
step at the paper's size on two cores).

    python3 python/examples/powernorm_lm.py --out runs/pn.jsonl \\
        [--d-model 512 --layers 6 --max-tokens 4096 --steps 20000] [--data FILE]
    normtop replay --follow runs/pn.jsonl

What is the paper's and what is this script's:
- pre-norm blocks (x + attn(norm1(x)), x + ffn(norm2(x))) and a final norm;
- BatchNorm as the authors' code has it: a layer-scale step first (each
  row divided by its RMS, docs/math.md §3 with G = 1), then BatchNorm over
  the real tokens only (padding out of every statistic), momentum 0.05;
- PowerNorm (math.md §2): the same layer-scale step, ψ² of the real
  tokens, the forward divisor from the batch during the warm-up and the
  running ψ² after, the backward's ν correction, α_fwd = α_bwd = 0.9, the
  warm-up the learning rate's, the backward divisor ψ_B (the code's);
- fairseq's input: token embedding · √d plus sinusoidal positions;
- fairseq's batches: whole sentences grouped by length into token budgets
  (rows × padded length ≤ --max-tokens), long sentences left out, never cut;
- fairseq's loss: summed over the real tokens, the gradients divided by the
  token count after the backward; Adam (0.9, 0.98), inverse-sqrt schedule.
The data: word-level sentences of a text file (--data; default Newton's
Opticks from the Go distribution, which normtop's own trainer reads too),
not IWSLT14: this machine has no network. The paper's size is d 512, 6
layers, 4,096 tokens; the defaults are a CPU-sized d 128, 2 layers, 1,024
tokens.

The stream's model is "transformer" and its variants are named as
normtop's (layernorm, batchnorm, powernorm), so `normtop report` takes it
beside a `normtop train --model resnet` run for finding (ii) (three seeds
each: --seed) and reads (iv) from the embedding spectra. The hook measures
PowerNorm on its input statistics and Theorem-1 moments only
(normtop_stats_only): its backward is not BatchNorm's, and the hook has no
probe of PowerNorm's own (pn_gamma, pn_nu, g_ψ²)."""

import argparse
import math
import os
import random
import re
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import normtop  # noqa: E402

PAD, UNK, EOS = 0, 1, 2
OPTICKS = "/usr/local/go/src/testdata/Isaac.Newton-Opticks.txt"


class RowRMS(nn.Module):
    """The authors' layer-scale step (GroupScaling with one group): each row
    divided by its root mean square (docs/math.md §3)."""

    def __init__(self, eps=1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        return x / (x.square().mean(-1, keepdim=True) + self.eps).sqrt()


class MaskBatchNorm(nn.Module):
    """BatchNorm over the real rows of [rows, d] (mask: bool [rows], set by
    the model before each forward), as the authors' MaskSyncBatchNorm: the
    batch's μ and σ² (biased) of the real rows normalize them, the running
    statistics move at `momentum` with the unbiased σ², padded rows are 0."""

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
        if self.training:
            n = w.sum()
            mu = (x * w).sum(0) / n
            var = ((x - mu).square() * w).sum(0) / n
            with torch.no_grad():
                m = self.momentum
                self.running_mean.lerp_(mu, m)
                self.running_var.lerp_(var * n / (n - 1).clamp(min=1), m)
        else:
            mu, var = self.running_mean, self.running_var
        return ((x - mu) * torch.rsqrt(var + self.eps) * self.weight + self.bias) * w


class _Power(torch.autograd.Function):
    """PowerNorm's step on the real rows x [n, d] (docs/math.md §2, steps 2-7)."""

    @staticmethod
    def forward(ctx, x, gamma, beta, pn):
        psi_b = x.square().mean(0)
        t = pn.t
        div = (psi_b + pn.eps).sqrt() if t <= pn.warmup else (pn.running_psi2 + pn.eps).sqrt()
        xh = x / div
        with torch.no_grad():
            r = pn.running_psi2
            if t < pn.warmup:
                r.mul_((t - 1) / t).add_(psi_b / t)
            r.mul_(pn.alpha_fwd).add_((1 - pn.alpha_fwd) * psi_b)
        ctx.pn = pn
        ctx.save_for_backward(xh, psi_b, gamma)
        return xh * gamma + beta

    @staticmethod
    def backward(ctx, g):
        xh, psi_b, gamma = ctx.saved_tensors
        pn = ctx.pn
        gh = g * gamma
        dx = (gh - pn.nu * xh) / (psi_b + pn.eps).sqrt()  # the code's divisor, ψ_B
        a = 1 - pn.alpha_bwd
        with torch.no_grad():
            pn.nu.mul_(1 - a * xh.square().mean(0)).add_(a * (gh * xh).mean(0))
        return dx, (g * xh).sum(0), g.sum(0), None


class MaskPowerNorm(nn.Module):
    """PowerNorm over the real rows of [rows, d]; padded rows are 0. Its
    backward is its own (ν), so normtop measures it on its input
    statistics and moments only."""

    normtop_stats_only = True

    def __init__(self, d, warmup, eps=1e-5, alpha_fwd=0.9, alpha_bwd=0.9):
        super().__init__()
        self.eps, self.warmup, self.alpha_fwd, self.alpha_bwd = eps, warmup, alpha_fwd, alpha_bwd
        self.weight = nn.Parameter(torch.ones(d))
        self.bias = nn.Parameter(torch.zeros(d))
        self.register_buffer("running_psi2", torch.ones(d))
        self.register_buffer("nu", torch.zeros(d))
        self.t = 0
        self.mask = None

    def forward(self, x):
        out = torch.zeros_like(x)
        if self.training:
            self.t += 1
            out[self.mask] = _Power.apply(x[self.mask], self.weight, self.bias, self)
        else:
            out[self.mask] = x[self.mask] * torch.rsqrt(self.running_psi2 + self.eps) * self.weight + self.bias
        return out


class Norm(nn.Module):
    """One norm site of [batch, seq, d]: nn.LayerNorm, or the layer-scale
    step and the masked BatchNorm / PowerNorm over the real tokens. The
    watched module is `.norm` in all three, so the sites share names."""

    def __init__(self, kind, d, warmup):
        super().__init__()
        self.kind = kind
        self.scale = None if kind == "layernorm" else RowRMS()
        if kind == "layernorm":
            self.norm = nn.LayerNorm(d)
        elif kind == "batchnorm":
            self.norm = MaskBatchNorm(d)
        else:
            self.norm = MaskPowerNorm(d, warmup)

    def forward(self, x, mask):
        if self.kind == "layernorm":
            return self.norm(x)
        b, t, d = x.shape
        self.norm.mask = mask.reshape(-1)
        return self.norm(self.scale(x).reshape(b * t, d)).reshape(b, t, d)


class Block(nn.Module):
    def __init__(self, kind, d, heads, ffn, dropout, warmup):
        super().__init__()
        self.norm1 = Norm(kind, d, warmup)
        self.attn = nn.MultiheadAttention(d, heads, dropout=dropout, batch_first=True)
        self.norm2 = Norm(kind, d, warmup)
        self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.drop = nn.Dropout(dropout)

    def forward(self, x, mask, causal):
        h = self.norm1(x, mask)
        x = x + self.drop(self.attn(h, h, h, attn_mask=causal, key_padding_mask=~mask, need_weights=False)[0])
        return x + self.drop(self.fc2(self.drop(F.relu(self.fc1(self.norm2(x, mask))))))


def sinusoidal(n, d):
    """fairseq's sinusoidal positions: sin in the first half, cos in the second."""
    half = d // 2
    f = torch.exp(torch.arange(half, dtype=torch.float32) * -(math.log(10000.0) / (half - 1)))
    a = torch.arange(n, dtype=torch.float32)[:, None] * f[None, :]
    pe = torch.cat([a.sin(), a.cos()], 1)
    return F.pad(pe, (0, d - 2 * half))


class LM(nn.Module):
    def __init__(self, vocab, kind, d, layers, heads, dropout, warmup, max_len):
        super().__init__()
        self.emb = nn.Embedding(vocab, d, padding_idx=PAD)
        nn.init.normal_(self.emb.weight, 0, d ** -0.5)
        with torch.no_grad():
            self.emb.weight[PAD].zero_()
        self.scale = math.sqrt(d)
        self.register_buffer("pos", sinusoidal(max_len, d), persistent=False)
        self.blocks = nn.ModuleList(Block(kind, d, heads, 4 * d, dropout, warmup) for _ in range(layers))
        self.final = Norm(kind, d, warmup)
        self.out = nn.Linear(d, vocab)

    def forward(self, tok, mask):
        t = tok.shape[1]
        x = self.emb(tok) * self.scale + self.pos[:t]
        causal = torch.triu(torch.ones(t, t, dtype=torch.bool, device=tok.device), 1)
        for b in self.blocks:
            x = b(x, mask, causal)
        return self.out(self.final(x, mask))


def sentences(path, vocab_size, max_len):
    """Word-level sentences of a text file as id lists (each with its end
    marker, after a start marker), split 95/5 into train and validation;
    the vocabulary is the commonest training words (rarer: <unk>). Longer
    sentences than max_len are left out (fairseq's filter), never cut."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = re.sub(r"\s+", " ", f.read().lower())
    sents = [re.findall(r"[a-z]+(?:'[a-z]+)?|[0-9]+|[^\sa-z0-9]", s) for s in re.split(r"(?<=[.!?;])\s", text)]
    sents = [s for s in sents if 2 <= len(s) + 1 <= max_len]
    cut = int(len(sents) * 0.95)
    counts = {}
    for s in sents[:cut]:
        for w in s:
            counts[w] = counts.get(w, 0) + 1
    words = sorted(counts, key=lambda w: (-counts[w], w))[:vocab_size - 3]
    ids = {w: i + 3 for i, w in enumerate(words)}
    enc = [[EOS] + [ids.get(w, UNK) for w in s] + [EOS] for s in sents]
    return 3 + len(words), enc[:cut], enc[cut:]


def token_batches(sents, max_tokens, rng):
    """fairseq's batches: sentences sorted by length (ties shuffled), cut
    into runs whose rows × longest length fits max_tokens; the batches in a
    new random order each epoch."""
    order = sorted(range(len(sents)), key=lambda i: (len(sents[i]), rng.random()))
    batches, cur, longest = [], [], 0
    for i in order:
        n = len(sents[i]) - 1  # input length
        if cur and max(longest, n) * (len(cur) + 1) > max_tokens:
            batches.append(cur)
            cur, longest = [], 0
        cur.append(i)
        longest = max(longest, n)
    if cur:
        batches.append(cur)
    while True:
        rng.shuffle(batches)
        yield from batches


def tensors(sents, idx, device):
    """Input, target and real-token mask [rows, longest] of one batch."""
    n = max(len(sents[i]) - 1 for i in idx)
    inp = torch.full((len(idx), n), PAD, dtype=torch.long)
    tgt = torch.full((len(idx), n), PAD, dtype=torch.long)
    for r, i in enumerate(idx):
        s = torch.tensor(sents[i])
        inp[r, :len(s) - 1], tgt[r, :len(s) - 1] = s[:-1], s[1:]
    return inp.to(device), tgt.to(device), (inp != PAD).to(device)


def evaluate(model, val, max_tokens, device):
    """Validation loss per real token (nats)."""
    model.eval()
    total, count = 0.0, 0
    rng = random.Random(0)
    gen = token_batches(val, max_tokens, rng)
    seen = 0
    with torch.no_grad():
        while seen < len(val):
            idx = next(gen)
            seen += len(idx)
            inp, tgt, mask = tensors(val, idx, device)
            logits = model(inp, mask)
            total += F.cross_entropy(logits[mask], tgt[mask], reduction="sum").item()
            count += int(mask.sum())
    model.train()
    return total / max(count, 1)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="the normtop stream to write (runs/pn.jsonl)")
    ap.add_argument("--data", default=OPTICKS, help="a UTF-8 text file (default: %(default)s)")
    ap.add_argument("--norms", default="layernorm,batchnorm,powernorm")
    ap.add_argument("--d-model", type=int, default=128)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--max-tokens", type=int, default=1024)
    ap.add_argument("--max-len", type=int, default=64, help="longest sentence kept, in tokens")
    ap.add_argument("--vocab", type=int, default=8000)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--warmup", type=int, default=400, help="learning-rate warm-up steps (and PowerNorm's)")
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--eval-every", type=int, default=200)
    ap.add_argument("--every", type=int, default=1, help="normtop: measure the probes every N steps")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    a = ap.parse_args(argv)
    kinds = [k.strip() for k in a.norms.split(",") if k.strip()]
    bad = [k for k in kinds if k not in ("layernorm", "batchnorm", "powernorm")]
    if bad or not kinds:
        ap.error(f"--norms: {','.join(bad) or 'none given'}; valid: layernorm, batchnorm, powernorm")
    if a.d_model % a.heads:
        ap.error(f"--d-model {a.d_model} is not a multiple of --heads {a.heads}")
    if not os.path.isfile(a.data):
        ap.error(f"--data {a.data}: no such file")
    vocab, train, val = sentences(a.data, a.vocab, a.max_len)
    if not train or not val:
        ap.error(f"--data {a.data}: too few sentences of 1 to {a.max_len - 1} words")
    if a.max_tokens < a.max_len:
        ap.error(f"--max-tokens {a.max_tokens} is below --max-len {a.max_len}: a sentence would not fit")
    dev = torch.device(a.device)
    models, opts, scheds = {}, {}, {}
    for k in kinds:
        torch.manual_seed(a.seed)  # the same initial weights where the layers agree
        m = models[k] = LM(vocab, k, a.d_model, a.layers, a.heads, a.dropout, a.warmup, a.max_len).to(dev)
        opts[k] = torch.optim.Adam(m.parameters(), lr=a.lr, betas=(0.9, 0.98), eps=1e-8)
        scheds[k] = torch.optim.lr_scheduler.LambdaLR(
            opts[k], lambda s: min((s + 1) / a.warmup, math.sqrt(a.warmup / (s + 1))))
    cfg = {"steps": a.steps, "d_model": a.d_model, "layers": a.layers, "heads": a.heads,
           "max_tokens": a.max_tokens, "max_len": a.max_len, "vocab": vocab, "lr": a.lr, "warmup": a.warmup,
           "dropout": a.dropout, "seed": a.seed, "device": str(dev), "loss": "sum over real tokens, "
           "gradients divided by the token count after the backward", "input": "embedding*sqrt(d)+sinusoidal",
           "batches": "whole sentences by length, rows*longest <= max_tokens"}
    run = normtop.watch(models, a.out, every=a.every, model_name="transformer",
                        data=os.path.basename(a.data), config=cfg, if_exists="suffix",
                        kinds={MaskBatchNorm: "batchnorm", MaskPowerNorm: "batchnorm"})
    print(f"writing {run.path}: {len(train)} train / {len(val)} validation sentences, vocabulary {vocab}, "
          f"{', '.join(kinds)} on {dev}", flush=True)
    batches = token_batches(train, a.max_tokens, random.Random(a.seed))
    t0 = time.time()
    diverged = set()
    for step in range(1, a.steps + 1):
        inp, tgt, mask = tensors(train, next(batches), dev)
        ntok = int(mask.sum())
        for k in kinds:
            if k in diverged:
                continue
            m, opt = models[k], opts[k]
            run.set_mask(mask, variant=k)
            loss = F.cross_entropy(m(inp, mask)[mask], tgt[mask], reduction="sum")
            opt.zero_grad(set_to_none=True)
            loss.backward()
            for p in m.parameters():  # fairseq: the summed loss's gradient over the token count
                if p.grad is not None:
                    p.grad.div_(ntok)
            opt.step()
            scheds[k].step()
            per_tok = loss.detach() / ntok
            run.log(step, train_loss=per_tok, variant=k)
            if not math.isfinite(float(per_tok)):
                diverged.add(k)
            if a.eval_every and step % a.eval_every == 0:
                run.log(step, val_loss=evaluate(m, val, a.max_tokens, dev), variant=k)
        if step % 50 == 0 or step == a.steps:
            print(f"step {step}/{a.steps}  {(time.time() - t0) / step:.3f} s/step", flush=True)
        if len(diverged) == len(kinds):
            break
    run.close("diverged" if diverged else "completed")
    print(f"done: {run.path}")


if __name__ == "__main__":
    main()
