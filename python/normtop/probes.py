"""The probe arithmetic of spec/NORMS.md §5 on torch tensors.

Everything here runs on the tensors' own device and returns 0-dim tensors:
no value is moved to the host, so a layer's hook never waits for the
device. Statistics are taken in `acc` (float64 by default, as the spec asks,
even for float32 models). Weights `w` are 1 for real rows and 0 for padding
(None: every row is real); means divide by n = Σw, so an all-padding batch
gives NaN (not measured), never a made-up number.
"""

import torch

# Column indices of probes/frame.go's Probe enum.
DIST_MU, DIST_VAR, DIST_PSI2, G_MU, G_VAR, G_PSI2 = range(6)
DX_MEAN, DX_VAR, DY_MEAN, DY_VAR, IN_MEAN, IN_STD, IN_MAXABS = range(6, 13)
GAMMA_DRIFT, BETA_NORM = 16, 17
NUM_PROBES = 18


def col_stats(xf, w):
    """Per-feature batch statistics of xf [rows, C] over the real rows:
    (μ_B, σ_B² biased, ψ_B², n), and the input's mean/std/max|x|."""
    if w is None:
        n = float(xf.shape[0])
        var, mean = torch.var_mean(xf, 0, unbiased=False)
        maxabs = xf.abs().amax()
    else:
        n = w.sum()
        wc = w[:, None]
        mean = (xf * wc).sum(0) / n
        var = ((xf - mean) * wc).square().sum(0) / n
        maxabs = (xf.abs() * wc).amax()
    psi2 = var + mean.square()
    # The input's overall moments follow from the per-feature ones (every
    # feature has the same n): Σ(x−m)² = Σ_k [Σ_i(x_ik−μ_k)² + n(μ_k−m)²].
    in_mean = mean.mean()
    in_std = (var.mean() + (mean - in_mean).square().mean()).sqrt()
    return mean, var, psi2, n, in_mean, in_std, maxabs


def dist_rows(batch, ref):
    """spec §5's dist(a, b) = ‖a − b‖₂/d for each of the rows of [k, d]."""
    return (batch - ref).norm(dim=1) / batch.shape[1]


def row_moments(r, w, n):
    """Theorem 1: per-row mean and (biased) variance of r [rows, d],
    averaged over the real rows."""
    v, m = torch.var_mean(r, 1, unbiased=False)
    if w is None:
        return m.mean(), v.mean()
    return (m * w).sum() / n, (v * w).sum() / n


def wmean(v, w, n):
    return v.mean() if w is None else (v * w).sum() / n


def layernorm_grad(xr, gh, w, n, eps):
    """§5 LayerNorm analogue per row (convention P, the one PyTorch uses):
    ‖g_μ,i‖ = |Σ_k ĝ_ik|·√d/(d·D_i), ‖g_σ²,i‖ = ‖x̂_i‖·|Σ_k ĝ_ik x̂_ik|/(d·D_i),
    averaged over real rows. gh is ĝ = γ⊙g."""
    d = xr.shape[1]
    var, mu = torch.var_mean(xr, 1, unbiased=False)
    D = (var + eps).sqrt()
    xh = (xr - mu[:, None]) / D[:, None]
    sg = gh.sum(1)
    sgx = (gh * xh).sum(1)
    den = d * D
    gmu = sg.abs() * (d ** 0.5) / den
    gvar = xh.square().sum(1).sqrt() * sgx.abs() / den
    return wmean(gmu, w, n), wmean(gvar, w, n)


def rmsnorm_grad(xr, gh, w, n, eps):
    """RMSNorm's only statistic term: ‖g_ψ²,i‖ = ‖x̂_i‖·|Σ_k ĝ_ik x̂_ik|/(d·r_i)."""
    d = xr.shape[1]
    r = (xr.square().mean(1) + eps).sqrt()
    xh = xr / r[:, None]
    sgx = (gh * xh).sum(1)
    gpsi = xh.square().sum(1).sqrt() * sgx.abs() / (d * r)
    return wmean(gpsi, w, n)


def batchnorm_grad(xf, gh, w, n, mean, var, eps):
    """BatchNorm (§2): g_μ = −S1/(n·D), g_σ²,i = −x̂_i⊙S2/(n·D) with
    S1 = Σ_R ĝ_i, S2 = Σ_R ĝ_i⊙x̂_i; returns ‖g_μ‖ and (1/n)Σ_R‖g_σ²,i‖."""
    D = (var + eps).sqrt()
    xh = (xf - mean) / D
    if w is not None:
        gh = gh * w[:, None]
    s1 = gh.sum(0)
    s2 = (gh * xh).sum(0)
    gmu = (s1 / (n * D)).norm()
    cvar = s2 / (n * D)
    rows = (xh * cvar).norm(dim=1)
    return gmu, wmean(rows, w, n)


def spectrum(weight):
    """The embedding's singular values, descending, over the largest, and
    the effective rank exp(H(p)), p_i = σ_i/Σσ (0·log 0 = 0)."""
    s = torch.linalg.svdvals(weight.detach().to(torch.float64))
    p = s / s.sum()
    h = -(p * torch.where(p > 0, p.log(), torch.zeros_like(p))).sum()
    return s / s[0], h.exp()
