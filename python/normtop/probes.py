"""The probe arithmetic of spec/NORMS.md §5 on torch tensors.

Everything here runs on the tensors' own device: no value is moved to the
host, so a layer's hook never waits for the device. The hooks make the
passes over the activations (per-feature and per-row sums); the formulas of
§5 then run on those vectors for all layers at once (watch.finish). Weights
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


def col_stats(xf, w):
    """Per-feature batch statistics of xf [rows, C] over the real rows, two
    passes: (μ_B, σ_B² biased, n)."""
    if w is None:
        # sum/n, not mean(): CPU mean() of float32 copies its input first;
        # the centred copy is squared in place (one temporary, not two).
        n = float(xf.shape[0])
        mean = xf.sum(0).div_(n)
        return mean, (xf - mean).square_().sum(0).div_(n), n
    n = w.sum()
    wc = w.to(xf.dtype)
    mean = (wc @ xf) / n
    return mean, (wc @ (xf - mean).square_()) / n, n


def min_max(xf, w):
    """(min x, max x) over the real rows (max |x| is the larger magnitude),
    one pass (aminmax) without a temporary |x|."""
    if w is not None:
        xf = xf * w[:, None].to(xf.dtype)  # padding becomes 0, which changes neither max |x|
    return torch.aminmax(xf)


def sq_norms(r):
    """Σ_k r_ik² per row: one fused pass (vector_norm over dim 1), squared."""
    return torch.linalg.vector_norm(r, dim=1).square_()


def row_grad_sums(xr, gr, gam, rms):
    """Per normalization row, with ĝ = g⊙γ: ‖x−μ‖², Σĝ, Σĝ⊙(x−μ) (for
    RMSNorm ‖x‖², Σĝ⊙x), then the Theorem-1 sums of g, Σg and Σg²: the
    passes over the data the row family's probes need; the rest is
    arithmetic on these [R] vectors. A sum weighted by γ is a product with
    γ (Σĝ and Σg in one [R,d]@[d,2] pass), so ĝ is never made."""
    xc = xr if rms else xr - xr.sum(1, keepdim=True).div_(xr.shape[1])
    out = [sq_norms(xc)]
    if gam is None:
        sg = gr.sum(1)
        sgh, sghx = sg, (gr * xc).sum(1)
    else:
        gam = gam.to(gr.dtype)
        both = gr @ torch.stack([gam, torch.ones_like(gam)], 1)
        sgh, sg = both[:, 0], both[:, 1]
        sghx = (gr * xc) @ gam
    if not rms:
        out.append(sgh)
    return out + [sghx, sg, sq_norms(gr)]


def moment_sums(r):
    """Σ_k r_ik and Σ_k r_ik² per row (Theorem-1 moments)."""
    return [r.sum(1), sq_norms(r)]


def moments(s, q2, d):
    """Per-row mean and biased variance from Σr and Σr² (d values a row)."""
    m = s / d
    return m, (q2 / d - m.square()).clamp(min=0)


def ln_grad_norms(q2, sg, sgxc, d, eps):
    """§5 LayerNorm analogue per row (convention P, PyTorch's) from
    q2 = ‖x−μ‖², Σĝ, Σĝ(x−μ): with v = q2/d and D = √(v+ε),
    ‖g_μ,i‖ = |Σĝ|·√d/(d·D) and ‖g_σ²,i‖ = ‖x̂_i‖·|Σĝx̂|/(d·D), where
    ‖x̂_i‖ = √q2/D and Σĝx̂ = Σĝ(x−μ)/D."""
    v = q2 / d
    D = (v + eps).sqrt()
    den = d * D
    return sg.abs() * (d ** 0.5) / den, (q2.sqrt() / D) * (sgxc.abs() / D) / den


def rms_grad_norms(q2, sgx, d, eps):
    """RMSNorm's statistic term: r = √(‖x‖²/d + ε), x̂ = x/r,
    ‖g_ψ²,i‖ = ‖x̂_i‖·|Σĝx̂|/(d·r)."""
    r = (q2 / d + eps).sqrt()
    return (q2.sqrt() / r) * (sgx.abs() / r) / (d * r)


def batchnorm_grad_rows(xf, gf, gam, w, n, mean, var, eps):
    """BatchNorm (§2): g_μ = −S1/(n·D), g_σ²,i = −x̂_i⊙S2/(n·D) with
    S1 = Σ_R ĝ_i, S2 = Σ_R ĝ_i⊙x̂_i, ĝ = g⊙γ; returns ‖g_μ‖ and ‖g_σ²,i‖ per
    row. γ is per feature, so it comes out of the sums over rows
    (S1 = γ⊙Σ_R g_i), and a mask is a product with w: ĝ is never made."""
    a = (var + eps).rsqrt()
    xh = torch.addcmul(-mean * a, xf, a)  # (x−μ)·a in one pass
    gx = gf * xh
    if w is None:
        s1, s2 = gf.sum(0), gx.sum(0)
    else:
        wc = w.to(gf.dtype)
        s1, s2 = wc @ gf, wc @ gx
    if gam is not None:
        gam = gam.to(gf.dtype)
        s1, s2 = s1 * gam, s2 * gam
    return (s1 * a / n).norm(), torch.linalg.vector_norm(xh.mul_(s2 * a / n), dim=1)


def spectrum(weight):
    """The embedding's singular values, descending, over the largest, and
    the effective rank exp(H(p)), p_i = σ_i/Σσ (0·log 0 = 0)."""
    s = torch.linalg.svdvals(weight.detach().to(torch.float64))
    p = s / s.sum()
    h = -(p * torch.where(p > 0, p.log(), torch.zeros_like(p))).sum()
    return s / s[0], h.exp()
