"""The probe arithmetic of spec/NORMS.md §5 on torch tensors.

Everything here runs on the tensors' own device: no value is moved to the
host. The hooks only keep references to each layer's input and gradients;
at log() the layers of one kind and shape are stacked ([L, rows, d]) and
every function here runs once for all of them (watch.finish), so the number
of torch ops per step does not grow with the number of layers. Weights
`w` are 1 for real rows and 0 for padding (None: every row is real); means
divide by n = Σw, so an all-padding batch gives NaN (not measured), never a
made-up number.
"""

import torch

# Column indices of probes/frame.go's Probe enum.
DIST_MU, DIST_VAR, DIST_PSI2, G_MU, G_VAR, G_PSI2 = range(6)
DX_MEAN, DX_VAR, DY_MEAN, DY_VAR, IN_MEAN, IN_STD, IN_MAXABS = range(6, 13)
GAMMA_DRIFT, BETA_NORM = 16, 17
NUM_PROBES = 18


def col_stats(xf, w, tmp=None):
    """Per-feature sums of xf [L, rows, C] (L layers stacked) over the real
    rows, two passes: (S = Σx, Q = Σ(x−μ_B)², n), so μ_B = S/n and
    σ_B² = Q/n (biased); S, Q are [L, C], n a float or [L, 1]. tmp: a
    buffer like xf for the centred copy (None: a new one)."""
    if w is None:
        # sum, not mean(): CPU mean() of float32 copies its input first. The
        # centred copy x − S/n is one op (alpha), squared in place.
        n = float(xf.shape[1])
        s = xf.sum(1, keepdim=True)
        return s.squeeze(1), torch.sub(xf, s, alpha=1 / n, out=tmp).square_().sum(1), n
    n = w.sum(1, keepdim=True)
    wr = w.unsqueeze(1)  # [L, 1, rows]: the weighted sums are one batched product each
    s = torch.bmm(wr, xf)
    return s.squeeze(1), torch.bmm(wr, (xf - s / n.unsqueeze(2)).square_()).squeeze(1), n


def max_abs(xf, w):
    """max |x| over the real rows of each layer of xf [L, rows, C], without a
    temporary |x|: max(max x, −min x) (amax and amin of a flat view are
    each one fast pass; aminmax over a dim is several times slower on CPU)."""
    if w is not None:
        xf = xf * w.unsqueeze(2)  # padding becomes 0, which changes no max |x|
    flat = xf.reshape(xf.shape[0], -1)
    return torch.maximum(flat.amax(1), flat.amin(1).neg())


def norms(r):
    """‖r_i‖ per row of r [L, rows, d]: one fused pass."""
    return torch.linalg.vector_norm(r, dim=2)


def row_grad_sums(xr, gr, gam, gh, rms, tmp=None):
    """Per normalization row of xr, gr [L, rows, d], with ĝ = g⊙γ: ‖x−μ‖,
    Σĝ, Σĝ⊙(x−μ) (for RMSNorm ‖x‖, Σĝ⊙x), then the Theorem-1 sums of g, Σg
    and ‖g‖, each [L, rows]: the passes over the data the row family's
    probes need; the rest is arithmetic on these. γ is [L, d] (None without
    γ); gh, when given, is ĝ made by the caller (GroupNorm, whose γ differs
    between the rows of one layer), else the sums weighted by γ are one
    batched product each and ĝ is never made. tmp: a buffer like xr for
    x−μ (None: a new one)."""
    d = xr.shape[2]
    xc = xr if rms else torch.sub(xr, xr.sum(2, keepdim=True), alpha=1 / d, out=tmp)
    out = [norms(xc)]
    if gh is not None:
        sg, sgh = gr.sum(2), gh.sum(2)
        sghx = (gh * xc).sum(2)
    elif gam is None:
        sg = sgh = gr.sum(2)
        sghx = (gr * xc).sum(2)
    else:
        g1 = gam.unsqueeze(2)
        sg, sgh = gr.sum(2), torch.bmm(gr, g1).squeeze(2)
        gxc = gr * xc if rms else xc.mul_(gr)  # xc is ours: g⊙(x−μ) takes its place
        sghx = torch.bmm(gxc, g1).squeeze(2)
    if not rms:
        out.append(sgh)
    return out + [sghx, sg, norms(gr)]


def moment_sums(r):
    """Σ_k r_ik and ‖r_i‖ per row of r [L, rows, d] (Theorem-1 moments)."""
    return [r.sum(2), norms(r)]


def moments(s, nrm, d):
    """Per-row mean and biased variance from Σr and ‖r‖ (d values a row)."""
    m = s / d
    return m, (nrm.square() / d - m.square()).clamp(min=0)


def ln_grad_norms(nc, sg, sgxc, d, eps):
    """§5 LayerNorm analogue per row (convention P, PyTorch's) from
    nc = ‖x−μ‖, Σĝ, Σĝ(x−μ): with v = nc²/d and D = √(v+ε),
    ‖g_μ,i‖ = |Σĝ|·√d/(d·D) and ‖g_σ²,i‖ = ‖x̂_i‖·|Σĝx̂|/(d·D), where
    ‖x̂_i‖ = nc/D and Σĝx̂ = Σĝ(x−μ)/D."""
    v = nc.square() / d
    D = (v + eps).sqrt()
    den = d * D
    return sg.abs() * (d ** 0.5) / den, (nc / D) * (sgxc.abs() / D) / den


def rms_grad_norms(nx, sgx, d, eps):
    """RMSNorm's statistic term from nx = ‖x‖: r = √(‖x‖²/d + ε), x̂ = x/r,
    ‖g_ψ²,i‖ = ‖x̂_i‖·|Σĝx̂|/(d·r)."""
    r = (nx.square() / d + eps).sqrt()
    return (nx / r) * (sgx.abs() / r) / (d * r)


def batchnorm_grad_rows(xf, gf, gam, w, n, s, q, eps, tmp=None):
    """BatchNorm (§2) for L layers stacked (xf, gf [L, rows, C]; γ [L, C];
    S, Q [L, C] of col_stats): g_μ = −S1/(n·D), g_σ²,i = −x̂_i⊙S2/(n·D) with
    S1 = Σ_R ĝ_i, S2 = Σ_R ĝ_i⊙x̂_i, ĝ = g⊙γ; returns ‖g_μ‖ [L] and ‖g_σ²,i‖
    per row [L, rows]. γ is per feature, so it comes out of the sums over
    rows (S1 = γ⊙Σ_R g_i), and a mask is a product with w: ĝ is never made."""
    mean = s / n
    a = (q / n + eps).rsqrt()
    xh = torch.addcmul((-mean * a).unsqueeze(1), xf, a.unsqueeze(1), out=tmp)  # (x−μ)·a in one pass
    gx = gf * xh
    if w is None:
        s1, s2 = gf.sum(1), gx.sum(1)
    else:
        wr = w.unsqueeze(1)
        s1, s2 = torch.bmm(wr, gf).squeeze(1), torch.bmm(wr, gx).squeeze(1)
    if gam is not None:
        s1, s2 = s1 * gam, s2 * gam
    return (torch.linalg.vector_norm(s1 * a / n, dim=1),
            torch.linalg.vector_norm(xh.mul_((s2 * a / n).unsqueeze(1)), dim=2))


def spectrum(weight):
    """The embedding's singular values, descending, over the largest, and
    the effective rank exp(H(p)), p_i = σ_i/Σσ (0·log 0 = 0)."""
    s = torch.linalg.svdvals(weight.detach().to(torch.float64))
    p = s / s.sum()
    h = -(p * torch.where(p > 0, p.log(), torch.zeros_like(p))).sum()
    return s / s[0], h.exp()
