"""watch(): hooks on a model's normalization layers, and the Run they feed."""

import atexit
import datetime
import math
import os
import time
import uuid

import torch

from . import probes as P
from .sites import BATCHNORM, GROUPNORM, RMSNORM, find_sites
from .stream import PROBES, StreamWriter, num, rfc3339

DEFAULT_MOMENTUM = 0.05  # spec §5: every shadow EMA uses this one rate

# Modules whose output is made by one autograd node whose first input is the
# module's input, so that a hook on that node sees ∂L/∂y and ∂L/∂x.
_NATIVE_MODULES = (torch.nn.LayerNorm, torch.nn.BatchNorm1d, torch.nn.BatchNorm2d, torch.nn.BatchNorm3d,
                   torch.nn.GroupNorm)
_NATIVE_NODES = {"NativeLayerNormBackward0", "NativeBatchNormBackward0", "CudnnBatchNormBackward0",
                 "MiopenBatchNormBackward0", "NativeGroupNormBackward0"}


class _LayerState:
    """What one site of one variant carries between hooks and steps."""

    def __init__(self, site, row):
        self.site, self.row = site, row
        self.shadow = None  # [3, C] EMAs of μ_B, σ_B², ψ_B²; NaN until the first batch
        self.own = None  # BatchNorm's running μ, σ² before this batch ([2, C])
        self.x = self.w_feat = self.w_row = None  # saved by the forward for the backward
        self.fwd = self.bwd = None  # this step's vectors, turned into probes by finish()
        self.native = isinstance(site.module, _NATIVE_MODULES)  # heard through its autograd node
        self.full_hook = None  # the full backward hook while due, for the others


class _Variant:
    """One model of the run: its sites, hooks, probe buffer and pending frame."""

    def __init__(self, run, index, name, model, modules):
        self.run, self.index, self.name, self.model = run, index, name, model
        self.sites = find_sites(model, modules)
        self.states = []
        self.handles = []
        self.due = False
        self.touched = False  # a hook wrote probe values since the last take
        self.consts = {}  # constants made once, not per step: the layers' ε, [1, 0] for γ and β
        self.pending = None
        self.last_step = 0
        self.last_time = None
        self.losses_since_eval = []
        self.mask = None
        self.mask_on = {}  # (device, dtype) → the mask there, made once per set_mask

    def attach(self, layer_index):
        for s in self.sites:
            self.states.append(_LayerState(s, layer_index[s.name]))

    def detach(self):
        self.set_due(False)

    def set_due(self, due):
        """Probes are measured on the next training step or not. The hooks
        exist only for due steps: a module without hooks takes torch's fast
        call path, so a step that is not measured costs nothing. A module
        whose output comes from one autograd node of its own (nn.LayerNorm,
        BatchNorm, GroupNorm) is heard through a hook on that node; any
        other needs a full backward hook (which wraps the module's inputs
        and outputs on every pass)."""
        if due and not self.handles:
            for st in self.states:
                m = st.site.module
                if st.site.has_running:  # only BatchNorm's running stats need a look before the forward
                    self.handles.append(m.register_forward_pre_hook(self._pre_hook(st)))
                self.handles.append(m.register_forward_hook(self._fwd_hook(st)))
        elif not due:
            for h in self.handles:
                h.remove()
            self.handles = []
        self.due = due
        for st in self.states:
            want = due and not st.native
            if want and st.full_hook is None:
                st.full_hook = st.site.module.register_full_backward_hook(self._bwd_hook(st))
            elif not want and st.full_hook is not None:
                st.full_hook.remove()
                st.full_hook = None

    def _active(self, module):
        return self.due and module.training and torch.is_grad_enabled()

    def _weights(self, st, x):
        """Real-row weights for the per-feature view and the normalization
        rows of x, from the mask the user set (None: every row is real)."""
        m = self.mask
        if m is None:
            return None, None
        s = st.site
        key = (x.device, self._acc(x))
        on = self.mask_on.get(key)
        if on is None:  # one copy per device and step, not one per layer (a copy to a GPU waits for it)
            on = self.mask_on[key] = m.reshape(-1).to(device=x.device, dtype=key[1])
        m = on
        feat_rows = s.feature_view(x).shape[0]
        norm_rows = s.row_view(x).shape[0]
        if m.numel() == feat_rows and s.kind != GROUPNORM:
            return m, m
        if x.dim() > 0 and m.numel() == x.shape[0]:  # one flag per sample
            return (m.repeat_interleave(feat_rows // x.shape[0]),
                    m.repeat_interleave(norm_rows // x.shape[0]))
        raise ValueError(f"normtop: layer {s.name}: the mask has {m.numel()} entries but the "
                         f"layer's input has {feat_rows} positions ({x.shape[0]} samples)")

    def _pre_hook(self, st):
        def hook(module, inputs):
            if not self._active(module) or not st.site.has_running:
                return
            # The running statistics before this batch's update (§5).
            s = st.site
            st.own = torch.stack([s.flat("running_mean", module.running_mean),
                                  s.flat("running_var", module.running_var)])
        return hook

    def _fwd_hook(self, st):
        def hook(module, inputs, output):
            if not self._active(module) or not inputs or not isinstance(inputs[0], torch.Tensor):
                return
            x = inputs[0].detach()
            with torch.no_grad():
                self._forward(st, x)
            fn = getattr(output, "grad_fn", None)
            if st.native and fn is not None and type(fn).__name__ in _NATIVE_NODES:
                fn.register_hook(self._node_hook(st, x, st.w_feat, st.w_row))
                st.x = None
            elif st.native:
                # Not one native node after all (a subclass, autocast, ...):
                # from the next due step on, a full backward hook.
                st.native = False
                st.x = None
        return hook

    def _node_hook(self, st, x, w_feat, w_row):
        def hook(grad_inputs, grad_outputs):
            g = grad_outputs[0] if grad_outputs else None
            dx = grad_inputs[0] if grad_inputs else None
            if isinstance(g, torch.Tensor) and g.shape == x.shape and st.fwd is not None:
                st.x, st.w_feat, st.w_row = x, w_feat, w_row
                try:
                    with torch.no_grad():  # no graph is recorded: g and dx need no detach
                        self._backward(st, g, dx if isinstance(dx, torch.Tensor) else None)
                finally:
                    st.x = st.w_feat = st.w_row = None
        return hook

    def _acc(self, x):
        """The dtype statistics are taken in: the run's, or the input's own
        (float32 at least) under precision="input"."""
        if self.run.acc is not None:
            return self.run.acc
        return x.dtype if x.dtype in (torch.float32, torch.float64) else torch.float32

    def _forward(self, st, x):
        # Only the passes over the activation happen here; the per-layer
        # arithmetic on the resulting vectors runs batched over all layers
        # in finish() (a handful of ops per step instead of dozens per layer).
        s = st.site
        acc = self._acc(x)
        w_feat, w_row = self._weights(st, x)
        xf = _as(s.feature_view(x), acc)
        sums, sq, n = P.col_stats(xf, w_feat)
        params = None
        if s.weight is not None:
            params = [s.flat("weight", s.weight)]
            if s.bias is not None:
                params.append(s.flat("bias", s.bias))
            params = _as(torch.cat(params), acc)  # a snapshot: the optimizer changes them in place
        own = st.own
        st.own = None
        st.fwd = (sums, sq, P.min_max(xf, w_feat), n, own, params)
        st.x, st.w_feat, st.w_row = x, w_feat, w_row
        self.touched = True

    def _bwd_hook(self, st):
        def hook(module, grad_input, grad_output):
            if st.x is None:
                return
            try:
                g = grad_output[0] if grad_output else None
                dx = grad_input[0] if grad_input else None
                if isinstance(g, torch.Tensor) and g.shape == st.x.shape:
                    with torch.no_grad():
                        self._backward(st, g.detach(), dx.detach() if isinstance(dx, torch.Tensor) else None)
            finally:
                st.x = st.w_feat = st.w_row = None
        return hook

    def _backward(self, st, g, dx):
        s, x = st.site, st.x
        acc = self._acc(x)
        if s.kind == BATCHNORM:
            xf, gr = _as(s.feature_view(x), acc), _as(s.feature_view(g), acc)
            dxr = None if dx is None else _as(s.feature_view(dx), acc)
            sums, sq, _, n, _, _ = st.fwd
            gmu, rows = P.batchnorm_grad_rows(xf, gr, s.feature_gamma(), st.w_feat, n, sums, sq, s.eps)
            vecs = [rows] + P.moment_sums(gr)
            w = st.w_feat
        else:
            xr, gr = _as(s.row_view(x), acc), _as(s.row_view(g), acc)
            dxr = None if dx is None else _as(s.row_view(dx), acc)
            gam = s.row_gamma(x)
            if gam is not None and gam.dim() > 1:  # GroupNorm: γ per channel, laid out as [groups, d]
                gh = (gr.reshape(-1, *gam.shape) * _as(gam, acc)).reshape(gr.shape)
                vecs = P.row_grad_sums(xr, gh, None, s.kind == RMSNORM)
                vecs[-2:] = P.moment_sums(gr)
            else:
                vecs = P.row_grad_sums(xr, gr, gam, s.kind == RMSNORM)
            gmu, w = None, st.w_row
        if dxr is not None:
            vecs += P.moment_sums(dxr)
        st.bwd = (torch.stack(vecs), gmu, w, gr.shape[1], dxr is not None)
        self.touched = True

    def finish(self):
        """This step's probe values, batched over the layers: on each device a
        list of (layer rows, probe columns, values [rows, columns]); what is
        not listed was not measured."""
        out = {}
        fw = [st for st in self.states if st.fwd is not None]
        bw = [st for st in self.states if st.bwd is not None]
        for group in _groups(fw, lambda st: (st.fwd[0].shape, st.fwd[0].device, st.fwd[0].dtype)):
            self._finish_stats(group, out)
        for group in _groups(bw, lambda st: (st.site.kind == BATCHNORM, st.site.kind == RMSNORM, st.bwd[0].shape,
                                             st.bwd[0].device, st.bwd[2] is None, st.bwd[3], st.bwd[4])):
            self._finish_grads(group, out)
        for st in fw + bw:
            st.fwd = st.bwd = None
        return out

    @staticmethod
    def _scatter(out, group, cols, vals):
        """Notes vals [S, len(cols)] as the values of the group's sites."""
        out.setdefault(vals.device, []).append(([st.row for st in group], cols, vals))

    def _finish_stats(self, group, out):
        m = self.run.momentum
        ns = [st.fwd[3] for st in group]
        if all(isinstance(n, float) for n in ns) and len(set(ns)) == 1:
            n = ns[0]
        else:
            n = torch.stack([torch.full((), x, dtype=group[0].fwd[0].dtype, device=group[0].fwd[0].device)
                             if isinstance(x, float) else x.to(group[0].fwd[0].dtype) for x in ns])[:, None]
        sq = torch.stack([st.fwd[0] for st in group] + [st.fwd[1] for st in group]) / (
            n if isinstance(n, float) else n.repeat(2, 1))
        mean, var = sq[:len(group)], sq[len(group):]  # [S, C]: μ_B, σ_B²
        batch = torch.stack([mean, var, var + mean.square()], 1)  # [S, 3, C]: μ_B, σ_B², ψ_B²
        shadows = []
        for st in group:
            if st.shadow is None or st.shadow.shape != batch.shape[1:] or st.shadow.device != batch.device:
                st.shadow = torch.full(batch.shape[1:], math.nan, dtype=batch.dtype, device=batch.device)
            shadows.append(st.shadow)
        sh = torch.stack(shadows)
        # Before its first batch a shadow is the batch itself (it starts
        # from it): distance 0, as normtop's probes.Collector reports.
        fresh = torch.isnan(sh)
        ref = torch.where(fresh, batch, sh)
        if any(st.fwd[4] is not None for st in group):  # BatchNorm's own running μ, σ²
            own = torch.stack([ref[i, :2] if st.fwd[4] is None else st.fwd[4].to(sh.dtype) for i, st in enumerate(group)])
            ref = torch.cat([own, ref[:, 2:]], 1)
        dists = (batch - ref).norm(dim=2) / batch.shape[2]
        # One rate m for all shadows (§5). A statistic whose distance is not
        # finite is not folded in; nor is anything of a batch without real
        # rows, nor the variance of a one-row batch (as probes/shadow.go).
        ok = torch.isfinite(dists)
        if any(not isinstance(st.fwd[3], float) or st.fwd[3] <= 1 for st in group):
            n = torch.stack([torch.full((), st.fwd[3], dtype=sh.dtype, device=sh.device)
                             if isinstance(st.fwd[3], float) else st.fwd[3].to(sh.dtype) for st in group])
            ok = ok & torch.stack([n > 0, n > 1, n > 0], 1)
        new = torch.where(ok[:, :, None], torch.where(fresh, batch, sh.lerp(batch, m)), sh)
        for st, s in zip(group, new.unbind(0)):
            st.shadow = s
        in_mean = mean.mean(1)
        in_std = (var.mean(1) + (mean - in_mean[:, None]).square().mean(1)).sqrt()
        maxabs = _as(torch.stack([t for st in group for t in st.fwd[2]]).abs().view(-1, 2).amax(1), in_mean.dtype)
        cols = [P.DIST_MU, P.DIST_VAR, P.DIST_PSI2, P.IN_MEAN, P.IN_STD, P.IN_MAXABS]
        vals = torch.cat([dists, torch.stack([in_mean, in_std, maxabs], 1)], 1)
        self._scatter(out, group, cols, vals)
        for sub in _groups([st for st in group if st.fwd[5] is not None], lambda st: st.fwd[5].shape):
            p = torch.stack([st.fwd[5] for st in sub])
            c = mean.shape[1]
            if p.shape[1] == 2 * c:  # [γ, β]: ‖γ−1‖ and ‖β‖ as one subtraction and one norm
                key = ("γβ", c, p.dtype, p.device)
                one = self.consts.get(key)
                if one is None:
                    one = self.consts[key] = torch.tensor([[1.0], [0.0]], dtype=p.dtype, device=p.device)
                vals = (p.view(-1, 2, c) - one).norm(dim=2)
                self._scatter(out, sub, [P.GAMMA_DRIFT, P.BETA_NORM], vals)
            else:
                self._scatter(out, sub, [P.GAMMA_DRIFT], (p - 1).norm(dim=1)[:, None])

    def _finish_grads(self, group, out):
        first = group[0]
        kind, (_, _, w0, d, has_dx) = first.site.kind, first.bwd
        v = torch.stack([st.bwd[0] for st in group])  # [S, k, R]
        # Per-row values [S, ·, R] whose mean over the real rows is a probe,
        # averaged in one op at the end.
        cols, per_row = [], []
        if kind == BATCHNORM:
            cols.append(P.G_VAR)
            per_row.append(v[:, :1])
            k = 1
        else:
            eps = [st.site.eps for st in group]
            if len(set(eps)) == 1:
                eps = eps[0]
            else:  # a tensor made once, not per step (a copy to the device would wait for it)
                key = ("ε", v.device, v.dtype, tuple(eps))
                if key not in self.consts:
                    self.consts[key] = torch.tensor(eps, dtype=v.dtype, device=v.device)[:, None]
                eps = self.consts[key]
            if kind == RMSNORM:
                cols.append(P.G_PSI2)
                per_row.append(P.rms_grad_norms(v[:, 0], v[:, 1], d, eps)[:, None])
                k = 2
            else:
                cols += [P.G_MU, P.G_VAR]
                per_row += [t[:, None] for t in P.ln_grad_norms(v[:, 0], v[:, 1], v[:, 2], d, eps)]
                k = 3
        j = 2 if has_dx else 1  # the moments of dy (and dx): Σ at k, k+2; ‖·‖ at k+1, k+3
        m, var = P.moments(v[:, k:k + 2 * j:2], v[:, k + 1:k + 2 * j:2], d)
        cols += [P.DY_MEAN, P.DX_MEAN][:j] + [P.DY_VAR, P.DX_VAR][:j]
        r = torch.cat(per_row + [m, var], 1)
        if w0 is None:
            vals = r.mean(2)
        else:
            w = torch.stack([st.bwd[2] for st in group]).to(v.dtype)[:, None]  # [S, 1, R]
            vals = (r * w).sum(2) / w.sum(2)
        if kind == BATCHNORM:  # ‖g_μ‖: one value per layer, not per row
            cols.insert(0, P.G_MU)
            vals = torch.cat([torch.stack([st.bwd[1] for st in group]).to(v.dtype)[:, None], vals], 1)
        self._scatter(out, group, cols, vals)

    def take(self, extra=None):
        """The probe values of the step as host floats: one copy per device
        holding a site (one in the usual case). extra: a tensor to bring back
        in the same copy (the train loss)."""
        out = None
        extra_val = None
        if self.touched:
            out = [[math.nan] * P.NUM_PROBES for _ in self.run.layers]
            for dev, pieces in self.finish().items():
                dt = pieces[0][2].dtype
                flat = [_as(v, dt).reshape(-1) for _, _, v in pieces]
                with_extra = extra is not None and extra_val is None and extra.device == dev
                if with_extra:
                    flat.append(_as(extra.detach().reshape(1), dt))
                host = torch.cat(flat).tolist()  # the step's one copy to the host
                if with_extra:
                    extra_val = host.pop()
                k = 0
                for rows, cols, _ in pieces:
                    for r in rows:
                        row = out[r]
                        for c in cols:
                            row[c] = host[k]
                            k += 1
            self.touched = False
        if extra is not None and extra_val is None:
            extra_val = float(extra.detach())
        return out, extra_val


def _as(t, dtype):
    return t if t.dtype == dtype else t.to(dtype)


def _groups(items, key):
    """items grouped by key, in first-seen order."""
    d = {}
    for it in items:
        d.setdefault(key(it), []).append(it)
    return list(d.values())


class Run:
    """A watched training run: hooks on every variant's norm layers and the
    stream they write. Call log() once per training step, close() at the end
    (or use it as a context manager)."""

    def __init__(self, models, path, every=1, modules=None, spectrum_every=100, embedding=None,
                 momentum=DEFAULT_MOMENTUM, precision="input", run_id=None, model_name=None,
                 data="", metric="", config=None, streams=None, rank=None):
        if not isinstance(every, int) or every < 1:
            raise ValueError(f"normtop: every={every!r}: want an integer ≥ 1")
        if not isinstance(spectrum_every, int) or spectrum_every < 0:
            raise ValueError(f"normtop: spectrum_every={spectrum_every!r}: want an integer ≥ 0 (0 = off)")
        if not 0 < momentum <= 1:
            raise ValueError(f"normtop: momentum={momentum!r}: want 0 < m ≤ 1")
        accs = {"float64": torch.float64, "float32": torch.float32, "input": None}
        if precision not in accs:
            raise ValueError(f"normtop: precision={precision!r}; valid: input, float64, float32")
        self.acc, self.every, self.momentum = accs[precision], every, float(momentum)
        self.spectrum_every = spectrum_every
        if isinstance(models, torch.nn.Module):
            models = {type(models).__name__: models}
        if not models:
            raise ValueError("normtop: no model to watch")
        self.variants = [_Variant(self, i, str(k), m, modules) for i, (k, m) in enumerate(models.items())]
        self.layers = []
        for v in self.variants:
            for s in v.sites:
                if s.name not in self.layers:
                    self.layers.append(s.name)
        if not self.layers:
            raise ValueError("normtop: found no normalization module (LayerNorm, BatchNorm, GroupNorm, "
                             "RMSNorm); name yours with modules=[...]")
        self.embeddings = [self._find_embedding(v.model, embedding) for v in self.variants]
        self.start = time.time()
        start = datetime.datetime.now(datetime.timezone.utc)
        cfg = {"source": "pytorch", "torch": torch.__version__, "probe_every": str(every),
               "spectrum_every": str(spectrum_every), "shadow_momentum": repr(self.momentum),
               "precision": precision}
        if rank is not None:
            cfg["rank"] = str(rank)
        for k, v in (config or {}).items():
            cfg[str(k)] = str(v)
        first = self.variants[0].model
        meta = {
            "RunID": run_id or start.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6],
            "Model": model_name or "pytorch:" + type(first).__name__,
            "Data": data,
            "Metric": metric,
            "Variants": [{"Name": v.name, "Spec": v.name} for v in self.variants],
            "Layers": list(self.layers),
            "Start": rfc3339(start),
            "Config": cfg,
        }
        self.meta = meta
        self.writer = StreamWriter(path, meta, streams)
        self.path = path
        index = {n: i for i, n in enumerate(self.layers)}
        for v in self.variants:
            v.attach(index)
            v.set_due(self._due(1))
        self.closed = False
        # A script that ends without close() still writes its last step and
        # an end line (status interrupted: it did not say it finished).
        atexit.register(self._at_exit)

    def _at_exit(self):
        if not self.closed:
            try:
                self.close("interrupted")
            except Exception:  # the interpreter is going away; never mask its own error
                pass

    @staticmethod
    def _find_embedding(model, embedding):
        if embedding is False:
            return None
        if isinstance(embedding, torch.Tensor):
            return embedding
        if isinstance(embedding, torch.nn.Module):
            return embedding.weight
        if isinstance(embedding, str):
            return dict(model.named_modules())[embedding].weight
        for m in model.modules():
            if isinstance(m, torch.nn.Embedding):
                return m.weight
        return None

    def _due(self, step):
        return step % self.every == 0

    def _variant(self, variant):
        if variant is None:
            if len(self.variants) != 1:
                raise ValueError("normtop: this run watches several models; say which with variant=")
            return self.variants[0]
        for v in self.variants:
            if v.name == variant or v.index == variant:
                return v
        raise ValueError(f"normtop: no variant {variant!r}; have {', '.join(v.name for v in self.variants)}")

    def set_mask(self, mask, variant=None):
        """Marks the real rows (True/1) of the next forward passes; padding
        rows are left out of every statistic. The mask has one entry per
        position of the normalization layers' inputs (e.g. [batch, seq] for
        a [batch, seq, d] LayerNorm input) or one per sample. None clears it."""
        vs = self.variants if variant is None else [self._variant(variant)]
        for v in vs:
            v.mask = None if mask is None else mask.detach()
            v.mask_on = {}

    def log(self, step, train_loss=None, val_loss=None, val_metric=None, test_loss=None,
            test_metric=None, epoch=None, variant=None):
        """Records step `step` of a variant: the probes measured since the
        previous log() of that variant and the losses given. Tensors are
        fine (the train loss is brought back in the probes' one copy). A
        second log() with the same step (e.g. the evaluation) adds to it."""
        if self.closed:
            raise RuntimeError("normtop: log() after close()")
        v = self._variant(variant)
        step = int(step)
        layers, tl = v.take(train_loss if isinstance(train_loss, torch.Tensor) else None)
        if train_loss is not None and not isinstance(train_loss, torch.Tensor):
            tl = float(train_loss)
        p = v.pending
        if p is None or p["step"] != step:
            if p is not None:
                self.writer.frame(self._line(v, p))
            now = time.time()
            rate = 0.0
            if v.last_time is not None and step > v.last_step and now > v.last_time:
                rate = (step - v.last_step) / (now - v.last_time)
            v.last_time, v.last_step = now, step
            p = v.pending = {"step": step, "epoch": 0.0, "train_loss": math.nan, "layers": None,
                             "eval": None, "spectrum": None, "elapsed": now - self.start, "rate": rate}
        if epoch is not None:
            p["epoch"] = float(epoch)
        if tl is not None:
            p["train_loss"] = tl
            if math.isfinite(tl):
                v.losses_since_eval.append(tl)
        if layers is not None:
            p["layers"] = layers
        for split, loss, metric in (("val", val_loss, val_metric), ("test", test_loss, test_metric)):
            if loss is None and metric is None:
                continue
            ls = v.losses_since_eval
            ev = {"split": split, "loss": num(_f(loss)), "metric": num(_f(metric)),
                  "train_loss": num(sum(ls) / len(ls)) if ls else None}
            if split == "val":
                v.losses_since_eval = []
            p["eval"] = (p["eval"] or []) + [ev]
        emb = self.embeddings[v.index]
        if emb is not None and self.spectrum_every and step % self.spectrum_every == 0 and p["spectrum"] is None:
            sig, er = P.spectrum(emb)
            p["spectrum"] = {"step": step, "sigma": [num(x) for x in sig.cpu().tolist()], "eff_rank": num(float(er))}
        v.set_due(self._due(step + 1))

    def _line(self, v, p, status="running"):
        o = {"variant": v.name, "variant_index": v.index, "step": p["step"], "epoch": num(p["epoch"]),
             "train_loss": num(p["train_loss"]), "status": status, "elapsed_s": num(p["elapsed"]),
             "steps_per_sec": num(p["rate"])}
        if p["layers"] is not None:
            lay = {}
            for name, row in zip(self.layers, p["layers"]):
                vals = {PROBES[i]: num(x) for i, x in enumerate(row) if not math.isnan(x)}
                if vals:
                    lay[name] = vals
            o["layers"] = lay
        if p["eval"] is not None:
            o["eval"] = p["eval"]
        if p["spectrum"] is not None:
            o["spectrum"] = p["spectrum"]
        return o

    def close(self, status="completed"):
        """Writes each variant's last step (status done, or stopped when
        status is "interrupted"), the end line, and removes the hooks."""
        if self.closed:
            return
        fs = {"completed": "done", "interrupted": "stopped", "diverged": "diverged"}
        if status not in fs:
            raise ValueError(f"normtop: close(status={status!r}); valid: {', '.join(fs)}")
        self.closed = True
        atexit.unregister(self._at_exit)
        diverged = {}
        for v in self.variants:
            v.detach()
            if v.pending is not None:
                self.writer.frame(self._line(v, v.pending, fs[status]))
                if status == "diverged":
                    diverged[v.index] = v.pending["step"]
        self.writer.close(status, diverged)

    def __enter__(self):
        return self

    def __exit__(self, et, ev, tb):
        self.close("completed" if et is None else "interrupted")
        return False


def _f(x):
    if x is None:
        return math.nan
    if isinstance(x, torch.Tensor):
        return float(x.detach())
    return float(x)


class NullRun:
    """What watch() returns on a rank that does not write: log() and close()
    do nothing, so the training loop needs no rank test."""

    path = None
    variants = ()

    def log(self, *a, **k):
        pass

    def set_mask(self, *a, **k):
        pass

    def close(self, *a, **k):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def rank_path(path, rank):
    """runs/x.jsonl → runs/x.rank3.jsonl."""
    root, ext = os.path.splitext(path)
    return f"{root}.rank{rank}{ext}"


def watch(model, path, every=1, modules=None, ranks=0, **kw):
    """Watches the normalization layers of model (or of each model of a
    dict {variant name: model}, shown side by side like normtop's variants)
    and writes the stream of record/STREAM.md to path.

    every: probes are measured at steps every, 2·every, ... (1 = each step).
    modules: extra modules to watch (names or objects, or {name: kind}).
    ranks: under torch.distributed, 0 (default) writes from rank 0 only and
    the other ranks get a NullRun; "all" makes every rank write its own
    stream (path with ".rank<r>" before the extension) and rank 0's stream
    lists them, so `normtop replay path` shows the ranks side by side.
    Other keywords: spectrum_every (100; 0 = off), embedding (module, name,
    tensor or False), momentum (0.05), precision ("input": statistics in the
    input's dtype, float32 at least; "float64": always float64, as NORMS.md §0
    asks of normtop's kernels, several times slower on CPU),
    run_id, model_name, data, metric ("accuracy" | "bpc" | ...), config.
    """
    rank, world = 0, 1
    dist = torch.distributed
    if dist.is_available() and dist.is_initialized():
        rank, world = dist.get_rank(), dist.get_world_size()
    if world == 1:
        return Run(model, path, every, modules, **kw)
    if ranks == "all":
        if rank == 0:
            others = [os.path.basename(rank_path(path, r)) for r in range(1, world)]
            return Run(model, path, every, modules, streams=others, rank=0, **kw)
        return Run(model, rank_path(path, rank), every, modules, rank=rank, **kw)
    if ranks != 0 and ranks != "0":
        raise ValueError(f"normtop: ranks={ranks!r}; valid: 0 (rank 0 only) or \"all\"")
    if rank == 0:
        return Run(model, path, every, modules, rank=0, **kw)
    return NullRun()
