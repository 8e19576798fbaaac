"""The passes a due step's hooks make over one run of a layer: the forward's
per-feature sums and the backward's per-row sums, left on the device for
finish.py to reduce. A mixin of _Variant (variant.py), which holds the mask,
the run's precision and the constants these read."""

import torch

from . import histogram as HG
from . import probes as P
from .finish import _as
from .layer_state import _Call
from .sites import BATCHNORM, PER_SAMPLE, RMSNORM


class _Measure:
    """The measuring half of _Variant: needs self.run, self.mask,
    self.mask_on, self.consts and sets self.touched."""

    def _weights(self, st, x):
        """Real-row weights (w_feat, w_row) for the per-feature view and the
        normalization rows of x, from the mask the user set (None, None: every
        row is real); None when the mask does not fit this input, and the
        layer is skipped this step with one warning."""
        m = self.mask
        if m is None:
            return None, None
        s = st.site
        lead = s.positions(x)
        per_sample = tuple(m.shape) == tuple(x.shape[:1])
        if tuple(m.shape) != lead and not per_sample and not (len(lead) == 1 and m.numel() == lead[0]):
            st.warn_once(("mask", tuple(m.shape), lead),
                         f"the mask's shape {list(m.shape)} fits neither the input's positions {list(lead)} "
                         f"nor its {x.shape[0]} samples; the layer is skipped this step (a mask left from "
                         "another batch? set_mask() before each forward, with one flag per position or sample)")
            return None
        key = (x.device, self._acc(x))
        on = self.mask_on.get(key)
        if on is None:  # one copy per device and step, not one per layer (a copy to a GPU waits for it)
            on = self.mask_on[key] = m.reshape(-1).to(device=x.device, dtype=key[1])
        m = on
        feat_rows = s.feature_view(x).shape[0]
        norm_rows = s.row_view(x).shape[0]
        if per_sample:  # one flag per sample
            return (m.repeat_interleave(feat_rows // x.shape[0]),
                    m.repeat_interleave(norm_rows // x.shape[0]))
        if s.kind in PER_SAMPLE:  # GroupNorm/InstanceNorm normalize whole samples: a flag per position cannot apply
            st.warn_once("gnmask", f"{s.kind} takes one mask flag per sample; the layer is skipped this step")
            return None
        return m, m

    def _ones(self, d, dtype, device):
        key = ("1", d, dtype, device)
        t = self.consts.get(key)
        if t is None:
            t = self.consts[key] = torch.ones(d, dtype=dtype, device=device)
        return t

    def _acc(self, x):
        """The dtype statistics are taken in: the run's, or the input's own
        (float32 at least) under precision="input"."""
        if self.run.acc is not None:
            return self.run.acc
        return x.dtype if x.dtype in (torch.float32, torch.float64) else torch.float32

    def _forward(self, st, x, node, frozen=False):
        """The forward vectors of one run of the module, as a _Call added to
        this step's runs; None when the layer is skipped this step. frozen:
        a BatchNorm in eval mode inside a training model (its batch
        statistics against the running ones it normalizes with), or a
        normtop_stats_only layer: no batch-statistic gradient probes."""
        # Only the passes over the activation happen here; the per-layer
        # arithmetic on the resulting vectors runs batched over all layers
        # in finish() (a handful of ops per step instead of dozens per layer).
        s = st.site
        acc = self._acc(x)
        weights = self._weights(st, x)
        if weights is None:
            st.own = None
            return None
        w_feat, w_row = weights
        xf = _as(s.feature_view(x), acc)
        own_stats = None
        # Only the native kernel's node is known here to save μ_B and 1/√(σ²+ε)
        # as result1/result2 (cuDNN's and MIOpen's are untested: no GPU); in
        # eval mode they are not the batch's.
        if (s.kind == BATCHNORM and w_feat is None and type(node).__name__ == "NativeBatchNormBackward0"
                and getattr(node, "_saved_training", False)):
            mean, invstd = _saved(node, "_saved_result1", acc), _saved(node, "_saved_result2", acc)
            if mean is not None and invstd is not None and mean.shape == invstd.shape == xf.shape[1:]:
                own_stats = (mean, invstd)
        if own_stats is not None:
            # The batch's μ and 1/√(σ²+ε) as BatchNorm computed them: no pass over x.
            n = float(xf.shape[0])
            sums, sq = mean * n, invstd.pow(-2).sub_(s.eps).mul_(n)
        else:
            sums, sq, n = P.col_stats(xf, w_feat)
        params = None
        if s.weight is not None:
            params = [s.flat("weight", s.weight)]
            if s.bias is not None:
                params.append(s.flat("bias", s.bias))
            params = _as(torch.cat(params), acc)  # a snapshot: the optimizer changes them in place
        own = st.own
        st.own = None
        call = _Call((sums, sq, P.min_max(xf, w_feat), n, own, params, own_stats), None, w_feat, w_row,
                     self.mask is not None, st.backwards, frozen, s.positions(x))
        if self.hist_due:
            call.hist = HG.measure(xf, w_feat, self.run.hist_bins)
        st.add(call)
        if frozen:
            self.touched = True
        return call

    def _backward(self, st, call, x, g, dx, mean=None):
        """The backward vectors of one run (call) of the module, whose input
        was x. mean: the rows' μ the layer saved for its own backward, or None."""
        s = st.site
        acc = self._acc(x)
        if call.frozen:
            # Normalized with its running statistics: no gradient flows
            # through batch statistics (no g_μ, g_σ²); the Theorem-1 moments hold.
            gr = _as(s.feature_view(g), acc)
            dxr = None if dx is None else _as(s.feature_view(dx), acc)
            ones = self._ones(gr.shape[1], acc, gr.device)
            vecs, gmu, w = P.moment_sums(gr, ones), None, call.w_feat
        elif s.kind == BATCHNORM:
            xf, gr = _as(s.feature_view(x), acc), _as(s.feature_view(g), acc)
            dxr = None if dx is None else _as(s.feature_view(dx), acc)
            sums, sq, _, n, _, _, own_stats = call.fwd
            ones = self._ones(gr.shape[1], acc, gr.device)
            gmu, rows = P.batchnorm_grad_rows(xf, gr, s.feature_gamma(), call.w_feat, n, sums, sq, s.eps, own_stats)
            vecs = [rows] + P.moment_sums(gr, ones)
            w = call.w_feat
        else:
            xr, gr = _as(s.row_view(x), acc), _as(s.row_view(g), acc)
            dxr = None if dx is None else _as(s.row_view(dx), acc)
            ones = self._ones(gr.shape[1], acc, gr.device)
            if mean is not None:
                mean = mean.reshape(-1, 1)
                if mean.shape[0] != xr.shape[0]:
                    mean = None
            gam = s.row_gamma(x)
            if gam is not None and gam.dim() > 1:  # GroupNorm: γ per channel, laid out as [groups, d]
                gh = (gr.reshape(-1, *gam.shape) * _as(gam, acc)).reshape(gr.shape)
                vecs = P.row_grad_sums(xr, gh, None, s.kind == RMSNORM, ones, mean)
                vecs[-2:] = P.moment_sums(gr, ones)
            else:
                vecs = P.row_grad_sums(xr, gr, gam, s.kind == RMSNORM, ones, mean)
            gmu, w = None, call.w_row
        if dxr is not None:
            vecs += P.moment_sums(dxr, ones)
        call.bwd = (torch.stack(vecs), gmu, w, gr.shape[1], dxr is not None)
        st.backward_done(call)
        self.touched = True


def _saved(node, name, dtype):
    """A statistic a norm layer's autograd node saved for its own backward
    (its batch or row means, 1/√(σ²+ε)), when it is in the dtype the probes
    are taken in: reading it saves a pass over the activation. None when the
    node has no such tensor (another torch version, freed)."""
    try:
        t = getattr(node, name)
    except (AttributeError, RuntimeError):
        return None
    return t if isinstance(t, torch.Tensor) and t.dtype == dtype else None
