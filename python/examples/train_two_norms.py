"""Trains the same small Transformer twice, with LayerNorm and with
BatchNorm, side by side, and streams normtop's probes of both to one file
that normtop shows live:

    python3 python/examples/train_two_norms.py --out runs/two-norms.jsonl &
    normtop replay --follow runs/two-norms.jsonl

Data: a character-level language model on any text file (default: this
repository's README.md); the metric is bits per character.
"""

import argparse
import math
import os
import sys
import time

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # the normtop package of this checkout
sys.path.insert(0, HERE)
import normtop  # noqa: E402
from tiny_transformer import TinyTransformer, char_data  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="runs/two-norms.jsonl", help="stream to write (must not exist)")
    ap.add_argument("--data", default=os.path.join(HERE, "..", "..", "README.md"), help="text file")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--seq", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--every", type=int, default=1, help="measure the probes every N steps")
    ap.add_argument("--delay", type=float, default=0, help="sleep this long after each step (demos)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--spectrum-every", type=int, default=100, help="embedding spectrum (and histograms) every N steps")
    ap.add_argument("--histogram", type=int, default=0,
                    help="write each norm layer's input histogram with this many bins every --spectrum-every steps "
                         "(0: off; 48 is normtop's default)")
    a = ap.parse_args()
    try:
        text = open(a.data, encoding="utf-8").read()
    except OSError as e:
        sys.exit(f"train_two_norms: {e}")
    if len(text) < 20 * a.seq:
        sys.exit(f"train_two_norms: {a.data} has {len(text)} characters; need at least {20 * a.seq}")
    torch.manual_seed(a.seed)
    vocab, batches = char_data(text, a.seq, a.batch, a.seed)
    models = {}
    for kind in ("layernorm", "batchnorm"):
        torch.manual_seed(a.seed)  # the same initial weights for both
        models[kind] = TinyTransformer(vocab, kind, seq=a.seq)
    opts = {k: torch.optim.Adam(m.parameters(), lr=a.lr) for k, m in models.items()}
    run = normtop.watch(models, a.out, every=a.every, metric="bpc", data=os.path.basename(a.data),
                        spectrum_every=a.spectrum_every, histogram=a.histogram or False,
                        model_name="pytorch:TinyTransformer",
                        config={"steps": a.steps, "batch": a.batch, "seq_len": a.seq, "lr": a.lr, "d_model": 64,
                                "layers": 2, "heads": 4, "loss_convention": "mean over tokens"})
    print(f"writing {a.out}; watch it with: normtop replay --follow {a.out}", file=sys.stderr)
    train_it, val_it = batches("train"), batches("val")
    with run:
        for step in range(1, a.steps + 1):
            x, y = next(train_it)  # the same batch for both variants
            for kind, m in models.items():
                loss = nn.functional.cross_entropy(m(x).reshape(-1, vocab), y.reshape(-1))
                opts[kind].zero_grad()
                loss.backward()
                opts[kind].step()
                run.log(step, train_loss=loss, epoch=step * a.batch * a.seq / len(text), variant=kind)
            if step % a.eval_every == 0 or step == a.steps:
                vx, vy = next(val_it)
                for kind, m in models.items():
                    m.eval()
                    with torch.no_grad():
                        vl = float(nn.functional.cross_entropy(m(vx).reshape(-1, vocab), vy.reshape(-1)))
                    m.train()
                    run.log(step, val_loss=vl, val_metric=vl / math.log(2), variant=kind)
            if a.delay:
                time.sleep(a.delay)


if __name__ == "__main__":
    main()
