"""A step's probe values from the hooks' per-layer sums, batched over layers.

The hooks leave vectors per layer (per-feature sums from the forward,
per-row sums from the backward). Turning them into probe values is cheap
arithmetic, but in the middle of a training step a device op costs 6-8
µs on a CPU even over a few numbers (log() of the d-64 benchmark: 0.69
ms for 109 ops before this split, 0.58 ms for 69 after; python/README.md),
so the work is split where it is cheapest:

- on the device, one op for all the layers of a group (same kind, shape,
  device) does each reduction to per-layer numbers;
- those numbers come back in the step's one copy to the host (variant.take),
  and the last scalar formulas (divisions by d or C, square roots,
  max |x|) run there in Python floats;
- what the step changes on the device (the shadow EMAs) is done after the
  copy, once the host knows which statistics are finite.

Values agree with probes.py's formulas to rounding (the cross-check against
normtop's own kernels holds them to 1e-10 in float64, 1e-5 in float32).
"""

import math

import torch

from . import probes as P
from .sites import BATCHNORM, RMSNORM

NAN = math.nan


class Copy:
    """What one step brings back to the host: tensors, each group's with a
    callback that gets their values (lists of floats, in the order given)
    once the copy is done."""

    def __init__(self):
        self.parts = []  # (tensors, then)

    def add(self, tensors, then):
        self.parts.append((tensors, then))

    def run(self, extra=None):
        """Copies every part in one transfer per device, then calls the
        callbacks in the order the parts were added. extra: a tensor to
        bring back in the same copy; its value is returned (None if absent)."""
        by_dev = {}
        for k, (ts, _) in enumerate(self.parts):
            for j, t in enumerate(ts):
                by_dev.setdefault(t.device, []).append((k, j, t))
        extra_val = None
        host = [[None] * len(ts) for ts, _ in self.parts]
        for dev, items in by_dev.items():
            # float64 if any part is (a float64 variant beside a float32 one keeps its digits)
            dt = torch.float64 if any(t.dtype == torch.float64 for _, _, t in items) else items[0][2].dtype
            flat = [_as(t, dt).reshape(-1) for _, _, t in items]
            with_extra = extra is not None and extra_val is None and extra.device == dev
            if with_extra:
                flat.append(_as(extra.detach().reshape(1), dt))
            vals = torch.cat(flat).tolist()  # the step's one copy from this device
            if with_extra:
                extra_val = vals.pop()
            at = 0
            for (k, j, t), f in zip(items, flat):
                n = f.numel()
                host[k][j] = vals[at:at + n]
                at += n
        for (_, then), vals in zip(self.parts, host):
            then(vals)
        if extra is not None and extra_val is None:
            extra_val = float(extra.detach())
        return extra_val


def _as(t, dtype):
    """t in dtype, without a copy when it already is (measure.py uses it too)."""
    return t if t.dtype == dtype else t.to(dtype)


def _div(a, b):
    """a/b as a tensor op would give it: x/0 is ±inf, 0/0 and NaN are NaN."""
    if b != 0:
        return a / b
    if a != a or a == 0:
        return NAN
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _rel(num, den):
    """A relative distance: no value (NaN) for a zero or non-finite
    denominator, never Inf (spec §5; probes/shadow.go's ratioOrNaN)."""
    return num / den if den > 0 and math.isfinite(den) else NAN


def _sqrt(x):
    return math.sqrt(x) if x >= 0 else NAN  # NaN ≥ 0 is False: NaN stays NaN


def _maxabs(lo, hi):
    if lo != lo or hi != hi:
        return NAN
    return max(abs(lo), abs(hi))


def stats(group, momentum, consts, copy, out):
    """Batch vs reference statistics, input mean/std/max|x|, ‖γ−1‖, ‖β‖ for
    sites whose forward left (Σx, Σ(x−μ)², (min, max), n, own, params)."""
    fw = [st.fwd for st in group]
    s_n = len(group)
    f0 = fw[0][0]
    c = f0.shape[0]
    ns = [f[3] for f in fw]
    host_n = all(isinstance(n, float) for n in ns)
    sq = torch.stack([f[0] for f in fw] + [f[1] for f in fw])  # [2S, C]: Σx, then Σ(x−μ)²
    nt = None
    if host_n and len(set(ns)) == 1:
        sq.div_(ns[0])
    else:
        nt = torch.stack([torch.full((), n, dtype=f0.dtype, device=f0.device) if isinstance(n, float)
                          else n.to(f0.dtype) for n in ns])
        sq.div_(nt.repeat(2)[:, None])
    mean, var = sq[:s_n], sq[s_n:]  # [S, C]: μ_B, σ_B²
    batch = torch.stack([mean, var, torch.addcmul(var, mean, mean)], 1)  # [S, 3, C]: μ_B, σ_B², ψ_B²
    shadow = _group_shadow(group, batch)
    fresh = [st.fresh for st in group]
    if not any(any(f) for f in fresh):
        ref = shadow
    elif all(all(f) for f in fresh):
        ref = batch  # a shadow starts from its first batch: distance 0
    else:
        ref = shadow.clone()
        for i, f in enumerate(fresh):
            for j in range(3):
                if f[j]:
                    ref[i, j] = batch[i, j]
    if any(f[4] is not None for f in fw):  # BatchNorm's own running μ, σ² before this batch
        own = torch.stack([ref[i, :2] if f[4] is None else _as(f[4], batch.dtype) for i, f in enumerate(fw)])
        ref = torch.cat([own, ref[:, 2:]], 1)
    dists = torch.linalg.vector_norm(batch - ref, dim=2)  # [S, 3]; / C on the host
    # The relative distances' denominators (spec §5): ‖σ‖₂ = √Σ_c σ²_c of the
    # reference variance for rdist_mu, ‖σ²‖₂ and ‖ψ²‖₂ for the other two.
    dens = torch.stack([ref[:, 1].sum(1), torch.linalg.vector_norm(ref[:, 1], dim=1),
                        torch.linalg.vector_norm(ref[:, 2], dim=1)], 1)  # [S, 3]
    sums = sq.sum(1)  # [2S]: Σ_c μ_c, then Σ_c σ_c²
    spread = torch.var(mean, 1, unbiased=False)  # [S]: the spread of the per-feature means
    lohi = torch.stack([t for f in fw for t in f[2]])  # [2S]: min, max per site
    tensors = [dists, sums, spread, lohi, dens] + ([nt] if nt is not None else [])

    def then(vals):
        d, sm, sp, mm, dn = vals[:5]
        nh = vals[5] if nt is not None else ns
        ok = []
        for i, st in enumerate(group):
            row = out[st.row]
            row[P.DIST_MU], row[P.DIST_VAR], row[P.DIST_PSI2] = d[3 * i] / c, d[3 * i + 1] / c, d[3 * i + 2] / c
            row[P.RDIST_MU] = _rel(d[3 * i], _sqrt(dn[3 * i]))
            row[P.RDIST_VAR], row[P.RDIST_PSI2] = _rel(d[3 * i + 1], dn[3 * i + 1]), _rel(d[3 * i + 2], dn[3 * i + 2])
            row[P.IN_MEAN] = sm[i] / c
            # std of every input value: mean per-feature variance plus the spread of the means
            row[P.IN_STD] = _sqrt(sm[s_n + i] / c + sp[i])
            row[P.IN_MAXABS] = _maxabs(mm[2 * i], mm[2 * i + 1])
            n = nh[i]
            # A statistic whose distance is not finite is not folded in; nor
            # is anything of a batch without real rows, nor the variance of
            # a one-row batch (as probes/shadow.go).
            ok.append([math.isfinite(d[3 * i + j]) and n > 0 and (j != 1 or n > 1) for j in range(3)])
        _fold(group, shadow, batch, ok, momentum)

    copy.add(tensors, then)
    _params(group, c, consts, copy, out)


def _group_shadow(group, batch):
    """The group's shadows as one [S, 3, C] tensor, each site's a view of it,
    so that the step reads and updates them with one op each. Made again
    when the group's make-up changes (a layer skipped, a new shape)."""
    g = group[0].shadow_of
    if (g is not None and g.shape == batch.shape and g.device == batch.device and g.dtype == batch.dtype
            and all(st.shadow_of is g and st.shadow_at == i for i, st in enumerate(group))):
        return g
    rows = []
    for st in group:
        old = None if st.shadow_of is None else st.shadow_of[st.shadow_at]
        if old is None or old.shape != batch.shape[1:] or old.device != batch.device or old.dtype != batch.dtype:
            old = torch.full(batch.shape[1:], NAN, dtype=batch.dtype, device=batch.device)
            st.fresh = [True, True, True]
        rows.append(old)
    g = torch.stack(rows)
    for i, st in enumerate(group):
        st.shadow_of, st.shadow_at = g, i
    return g


def _fold(group, shadow, batch, ok, m):
    """The shadows take this batch in (one rate m, spec §5); a fresh one
    becomes the batch itself."""
    fresh = [st.fresh for st in group]
    if all(all(o) for o in ok):
        if not any(any(f) for f in fresh):
            shadow.lerp_(batch, m)
            return
        if all(all(f) for f in fresh):
            shadow.copy_(batch)
            for st in group:
                st.fresh = [False, False, False]
            return
    moved = shadow.lerp(batch, m)
    for i, st in enumerate(group):
        for j in range(3):
            if ok[i][j]:
                shadow[i, j] = batch[i, j] if st.fresh[j] else moved[i, j]
                st.fresh[j] = False


def _params(group, c, consts, copy, out):
    """‖γ−1‖ and ‖β‖ from the parameters as the forward used them."""
    have = [st for st in group if st.fwd[5] is not None]
    by_len = {}
    for st in have:
        by_len.setdefault(st.fwd[5].shape, []).append(st)
    for sub in by_len.values():
        p = torch.stack([st.fwd[5] for st in sub])
        if p.shape[1] == 2 * c:  # [γ, β]: both norms from one subtraction and one norm
            key = ("γβ", c, p.dtype, p.device)
            one = consts.get(key)
            if one is None:  # made once: a tensor made per step is an op (on a GPU, a copy) per step
                one = consts[key] = torch.tensor([[1.0], [0.0]], dtype=p.dtype, device=p.device)
            norms, cols = torch.linalg.vector_norm(p.view(-1, 2, c) - one, dim=2), (P.GAMMA_DRIFT, P.BETA_NORM)
        else:
            norms, cols = torch.linalg.vector_norm(p - 1, dim=1), (P.GAMMA_DRIFT,)

        def then(vals, sub=sub, cols=cols):
            v = vals[0]
            for i, st in enumerate(sub):
                for j, col in enumerate(cols):
                    out[st.row][col] = v[len(cols) * i + j]

        copy.add([norms], then)


def grads(group, consts, copy, out):
    """g_μ, g_σ² (or g_ψ²) and the Theorem-1 moments of dy (and dx) for sites
    whose backward left per-row sums [k, R] (probes.row_grad_sums,
    batchnorm_grad_rows, moment_sums), averaged over the real rows."""
    first = group[0]
    kind = first.site.kind
    _, _, w0, d, has_dx = first.bwd
    v = torch.stack([st.bwd[0] for st in group])  # [S, k, R]
    frozen = first.frozen_now
    blocks, cols, scale = [], [], []
    if frozen:
        k = 0  # a frozen BatchNorm: dy's (and dx's) moments only
    elif kind == BATCHNORM:
        k = 1
        blocks.append(v[:, :1])
        cols.append(P.G_VAR)
        scale.append(1.0)
    else:
        # With inv = 1/√(‖r‖² + d·ε) (r = x−μ, or x for RMSNorm):
        # ‖g_μ,i‖ = |Σĝ|·inv and ‖g_σ²,i‖ = √d·‖r‖·|Σĝr|·inv³ (probes.ln_grad_norms
        # and rms_grad_norms, rearranged; the √d is applied on the host).
        rms = kind == RMSNORM
        k = 2 if rms else 3
        nr = v[:, 0]
        inv = torch.add(nr.square(), _d_eps(group, v, d, consts)).rsqrt_()
        a = v[:, 1:k].abs()  # [S, k−1, R]: |Σĝ| (not RMSNorm), |Σĝr|
        a.mul_(inv[:, None])
        a[:, -1].mul_(inv.square_().mul_(nr))
        blocks.append(a)
        cols += ([P.G_PSI2] if rms else [P.G_MU, P.G_VAR])
        scale += ([d ** 0.5] if rms else [1.0, d ** 0.5])
    j = 2 if has_dx else 1  # dy's (and dx's) Σ at k, k+2 and ‖·‖ at k+1, k+3
    s, nrm = v[:, k:k + 2 * j:2], v[:, k + 1:k + 2 * j:2]
    blocks.append(torch.addcmul(nrm.square(), s, s, value=-1.0 / d).clamp_(min=0))  # d·var per row
    blocks.append(s)  # d·mean per row
    cols += [P.DY_VAR, P.DX_VAR][:j] + [P.DY_MEAN, P.DX_MEAN][:j]
    scale += [1.0 / d] * (2 * j)
    r = torch.cat(blocks, 1)  # [S, m, R]
    if w0 is None:
        tensors = [r.mean(2)]
    else:
        w = torch.stack([st.bwd[2] for st in group]).to(v.dtype)  # [S, R]
        tensors = [torch.bmm(r, w[:, :, None]), w.sum(1)]
    if kind == BATCHNORM and not frozen:  # ‖g_μ‖: one value per layer, not per row
        tensors.append(torch.stack([st.bwd[1] for st in group]))
    m = len(cols)

    def then(vals):
        per = vals[0]
        for i, st in enumerate(group):
            row = out[st.row]
            wsum = None if w0 is None else vals[1][i]
            for q, (col, f) in enumerate(zip(cols, scale)):
                x = per[m * i + q]
                row[col] = f * (x if wsum is None else _div(x, wsum))
            if kind == BATCHNORM and not frozen:
                row[P.G_MU] = vals[-1][i]

    copy.add(tensors, then)


def _d_eps(group, v, d, consts):
    """d·ε of the group's layers: a number when they share ε, else a [S, 1]
    tensor made once."""
    eps = [st.site.eps for st in group]
    if len(set(eps)) == 1:
        return d * eps[0]
    key = ("dε", v.device, v.dtype, d, tuple(eps))
    t = consts.get(key)
    if t is None:
        t = consts[key] = torch.tensor([d * e for e in eps], dtype=v.dtype, device=v.device)[:, None]
    return t
