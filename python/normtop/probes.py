"""The passes over a layer's activations that the probes of docs/math.md §5 need.

Everything here runs on the tensors' own device: no value is moved to the
host, so a layer's hook never waits for the device. The hooks make the
passes over the activations (per-feature and per-row sums); the formulas of
§5 then run on those vectors for all layers at once (finish.py). Weights
`w` are 1 for real rows and 0 for padding (None: every row is real); means
divide by n = Σw, so an all-padding batch gives NaN (not measured), never a
made-up number.
"""

import torch

# Column indices of probes/frame.go's Probe enum.
DIST_MU, DIST_VAR, DIST_PSI2, G_MU, G_VAR, G_PSI2 = range(6)
DX_MEAN, DX_VAR, DY_MEAN, DY_VAR, IN_MEAN, IN_STD, IN_MAXABS = range(6, 13)
GAMMA_DRIFT, BETA_NORM = 16, 17
RDIST_MU, RDIST_VAR, RDIST_PSI2, GW_NORM = 18, 19, 20, 21
NUM_PROBES = 22


def col_stats(xf, w):
    """Per-feature sums of xf [rows, C] over the real rows, two passes:
    (S = Σx, Q = Σ(x−μ_B)², n), so μ_B = S/n and σ_B² = Q/n (biased); the
    divisions run batched over the layers."""
    if w is None:
        # sum, not mean(): CPU mean() of float32 copies its input first. The
        # centred copy x − S/n is one op (alpha), squared in place.
        n = float(xf.shape[0])
        s = xf.sum(0)
        return s, torch.sub(xf, s, alpha=1 / n).square_().sum(0), n
    n = w.sum()
    wc = w.to(xf.dtype)
    s = wc @ xf
    return s, wc @ (xf - s / n).square_(), n


def min_max(xf, w):
    """(min x, max x) over the real rows (max |x| is the larger magnitude),
    one pass (aminmax) without a temporary |x|."""
    if w is not None:
        xf = xf * w[:, None].to(xf.dtype)  # padding becomes 0, which changes neither max |x|
    return torch.aminmax(xf)


def norms(r):
    """‖r_i‖ per row: one fused pass (vector_norm over dim 1); the squares
    are taken batched over the layers."""
    return torch.linalg.vector_norm(r, dim=1)


def row_sums(r, ones):
    """Σ_k r_ik per row, as a product with a ones vector: a BLAS matrix-vector
    product reads r once and is 1.5-3× faster than sum(1) (python/README.md)."""
    return torch.mv(r, ones)


def row_grad_sums(xr, gr, gam, rms, ones, mean=None):
    """Per normalization row, with ĝ = g⊙γ: ‖x−μ‖, Σĝ, Σĝ⊙(x−μ) (for
    RMSNorm ‖x‖, Σĝ⊙x), then the Theorem-1 sums of g, Σg and ‖g‖: the
    passes over the data the row family's probes need; the rest is
    arithmetic on these [R] vectors. A sum weighted by γ is a product with
    γ, so ĝ is never made. mean: the rows' μ [R, 1] as the layer saved it
    for its own backward (saves a pass), or None."""
    if rms:
        xc = xr
    elif mean is not None:
        xc = torch.sub(xr, mean)
    else:
        xc = torch.sub(xr, row_sums(xr, ones)[:, None], alpha=1 / xr.shape[1])
    out = [norms(xc)]
    sg = row_sums(gr, ones)
    # g⊙(x−μ) takes the place of x−μ (ours, no longer needed); RMSNorm's x is the user's.
    gxc = gr * xc if rms else xc.mul_(gr)
    if gam is None:
        sgh, sghx = sg, row_sums(gxc, ones)
    else:
        gam = gam.to(gr.dtype)
        sghx = torch.mv(gxc, gam)
        if not rms:  # RMSNorm has no mean term: Σĝ is not needed
            sgh = torch.mv(gr, gam)
    if not rms:
        out.append(sgh)
    return out + [sghx, sg, norms(gr)]


def moment_sums(r, ones):
    """Σ_k r_ik and ‖r_i‖ per row (Theorem-1 moments)."""
    return [row_sums(r, ones), norms(r)]


def batchnorm_grad_rows(xf, gf, gam, w, n, s, q, eps, own_stats=None):
    """BatchNorm (§2): g_μ = −S1/(n·D), g_σ²,i = −x̂_i⊙S2/(n·D) with
    S1 = Σ_R ĝ_i, S2 = Σ_R ĝ_i⊙x̂_i, ĝ = g⊙γ; returns ‖g_μ‖ and ‖g_σ²,i‖ per
    row. γ is per feature, so it comes out of the sums over rows
    (S1 = γ⊙Σ_R g_i), and a mask is a product with w: ĝ is never made.
    own_stats: (μ_B, 1/√(σ_B²+ε)) as the layer saved them, or None."""
    if own_stats is not None:
        mean, a = own_stats
    else:
        mean = s / n
        a = (q / n + eps).rsqrt()
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
