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
    """What one site of one variant carries between hooks and log()."""

    def __init__(self, site, row):
        self.site, self.row = site, row
        self.shadow = None  # (group key, [L, 3, C] EMAs of μ_B, σ_B², ψ_B², index): NaN until the first batch
        self.own_next = None  # BatchNorm's running μ, σ² before the coming forward ([2, C])
        self.clear()
        self.native = isinstance(site.module, _NATIVE_MODULES)  # heard through its autograd node
        self.full_hook = None  # the full backward hook while due, for the others

    def clear(self):
        # This step's references, kept from the hooks until log(): the input
        # (which autograd holds until the backward anyway), the gradients
        # that reach and leave the layer (held until log(): one activation
        # each, on due steps only), each with its version counter, so that
        # a tensor changed in place after it was heard is left out.
        self.x = self.g = self.dx = None
        self.xver = self.gver = self.dxver = 0
        self.w_feat = self.w_row = None
        self.own = None  # BatchNorm's running μ, σ² before this batch ([2, C])
        self.params = None  # (snapshot tensor, offset) of γ (then β) at the forward

    def heard(self):
        """The input, unchanged since the forward (else None)."""
        x = self.x
        return x if x is not None and x._version == self.xver else None

    def grads(self):
        """(∂L/∂y, ∂L/∂x or None), unchanged since the backward, or None."""
        g = self.g
        if g is None or g._version != self.gver:
            return None
        dx = self.dx
        return g, (dx if dx is not None and dx._version == self.dxver else None)


class _Variant:
    """One model of the run: its sites, hooks and pending frame."""

    def __init__(self, run, index, name, model, modules):
        self.run, self.index, self.name, self.model = run, index, name, model
        self.sites = find_sites(model, modules)
        self.states = []
        self.handles = []
        self.due = False
        self.touched = False  # a hook kept references since the last take
        self.consts = {}  # constants made once, not per step: ε vectors, gather indices, γ/β masks
        self.shadows = {}  # group key → [L, 3, C] shadow EMAs of the group's layers
        self.scratch = {}  # (role, shape, dtype) → log()'s work buffer on CPU (see _scratch)
        self.snap = None  # this step's copy of every watched γ, β: {(device, dtype): tensor}
        self.snapped = set()  # rows whose forward used the current snapshot
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
        are registered only for due steps: a module without hooks takes
        torch's fast call path, so a step that is not measured costs
        nothing. A module whose output comes from one autograd node of its
        own (nn.LayerNorm, BatchNorm, GroupNorm) is heard through a hook on
        that node; any other needs a full backward hook."""
        if due == self.due:
            return
        self.due = due
        for h in self.handles:
            h.remove()
        self.handles = []
        for st in self.states:
            if st.full_hook is not None:
                st.full_hook.remove()
                st.full_hook = None
        if not due:
            return
        for st in self.states:
            m = st.site.module
            if st.site.has_running:  # only BatchNorm's running stats need a look before the forward
                self.handles.append(m.register_forward_pre_hook(self._pre_hook(st)))
            self.handles.append(m.register_forward_hook(self._fwd_hook(st)))
            if not st.native:
                st.full_hook = m.register_full_backward_hook(self._bwd_hook(st))

    @staticmethod
    def _active(module):
        return module.training and torch.is_grad_enabled()

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
            if not self._active(module):
                return
            # The running statistics before this batch's update (§5).
            s = st.site
            st.own_next = torch.stack([s.flat("running_mean", module.running_mean),
                                       s.flat("running_var", module.running_var)])
        return hook

    def _snapshot(self, st):
        """(tensor, offset) of st's γ (then β) in this step's copy of all
        watched parameters: one copy per step for all layers (the optimizer
        changes them in place before log()). A second forward of a layer in
        the same step takes a new copy (the parameters may have changed)."""
        if self.snap is None or st.row in self.snapped:
            groups, where = {}, {}
            for o in self.states:
                s = o.site
                if s.weight is None:
                    continue
                ps = [s.flat("weight", s.weight)] + ([s.flat("bias", s.bias)] if s.bias is not None else [])
                key = (ps[0].device, ps[0].dtype)
                g = groups.setdefault(key, [])
                where[o.row] = (key, sum(p.numel() for p in g))
                g.extend(ps)
            self.snap = ({k: torch.cat(v) for k, v in groups.items()}, where)
            self.snapped = set()
        self.snapped.add(st.row)
        key, off = self.snap[1][st.row]
        return self.snap[0][key], off

    def _fwd_hook(self, st):
        def hook(module, inputs, output):
            if not self._active(module) or not inputs or not isinstance(inputs[0], torch.Tensor):
                return
            x = inputs[0]
            st.clear()
            st.w_feat, st.w_row = self._weights(st, x)
            st.x, st.xver = x, x._version
            st.own, st.own_next = st.own_next, None
            if st.site.weight is not None:
                st.params = self._snapshot(st)
            self.touched = True
            fn = getattr(output, "grad_fn", None)
            if st.native and fn is not None and type(fn).__name__ in _NATIVE_NODES:
                fn.register_hook(self._node_hook(st, x))
            elif st.native:
                # Not one native node after all (a subclass, autocast, ...):
                # from the next forward on, a full backward hook.
                st.native = False
                st.full_hook = module.register_full_backward_hook(self._bwd_hook(st))
        return hook

    @staticmethod
    def _keep_grads(st, x, g, dx):
        if st.x is x and isinstance(g, torch.Tensor) and g.shape == x.shape:
            st.g, st.gver = g, g._version
            if isinstance(dx, torch.Tensor) and dx.shape == x.shape:
                st.dx, st.dxver = dx, dx._version

    def _node_hook(self, st, x):
        def hook(grad_inputs, grad_outputs):
            self._keep_grads(st, x, grad_outputs[0] if grad_outputs else None,
                             grad_inputs[0] if grad_inputs else None)
        return hook

    def _bwd_hook(self, st):
        def hook(module, grad_input, grad_output):
            if st.x is not None:
                self._keep_grads(st, st.x, grad_output[0] if grad_output else None,
                                 grad_input[0] if grad_input else None)
        return hook

    def _acc(self, x):
        """The dtype statistics are taken in: the run's, or the input's own
        (float32 at least) under precision="input"."""
        if self.run.acc is not None:
            return self.run.acc
        return x.dtype if x.dtype in (torch.float32, torch.float64) else torch.float32

    def _const(self, key, make):
        c = self.consts.get(key)
        if c is None:
            c = self.consts[key] = make()
        return c

    def finish(self):
        """This step's probe values: on each device a list of (cells, values)
        with cells [(layer row, probe column)] in the order of the flattened
        values; what is not listed was not measured. The layers of one kind,
        input shape and dtype are stacked and measured with one set of ops."""
        out = {}
        with torch.no_grad():
            heard = [st for st in self.states if st.heard() is not None]
            for group in _groups(heard, self._group_key):
                self._measure(group, out)
            self._param_norms([st for st in heard if st.params is not None], out)
        for st in self.states:
            st.clear()
        self.snap = None
        return out

    def _group_key(self, st):
        x, s, gr = st.x, st.site, st.grads()
        return (s.kind, getattr(s, "norm_shape", None), tuple(x.shape), x.dtype, x.device, s.groups, st.w_feat is None, st.own is None,
                st.params is None, gr is None, gr is None or gr[1] is None)

    @staticmethod
    def _scatter(out, group, cols, vals):
        """Notes vals [S, len(cols)] as the values of the group's sites."""
        out.setdefault(vals.device, []).append(([(st.row, c) for st in group for c in cols], vals))

    def _eps(self, group, like):
        eps = [st.site.eps for st in group]
        if len(set(eps)) == 1:
            return eps[0]
        # a tensor made once, not per step (a copy to the device would wait for it)
        return self._const(("ε", like.device, like.dtype, tuple(eps)),
                           lambda: torch.tensor(eps, dtype=like.dtype, device=like.device)[:, None])

    def _gammas(self, group, dtype):
        """γ of each layer at its forward, [L, C] (from the step's snapshot)."""
        snaps = {id(st.params[0]) for st in group}
        c = group[0].site.weight.numel()
        if len(snaps) == 1:
            snap = group[0].params[0]
            offs = tuple(st.params[1] for st in group)
            idx = self._const(("γ", snap.device, offs, c), lambda: (
                torch.tensor(offs, device=snap.device)[:, None] + torch.arange(c, device=snap.device)).reshape(-1))
            gam = snap.index_select(0, idx).view(len(group), c)
        else:
            gam = torch.stack([st.params[0].narrow(0, st.params[1], c) for st in group])
        return _as(gam, dtype)

    def _scratch(self, name, like, shape=None):
        """A work buffer of log() for a big temporary (None: let torch make
        one). On CPU a fresh tensor of this size is new memory from the
        system, whose pages cost more to touch than the arithmetic on them,
        so the buffers are kept between steps: at most four per group shape
        (inputs, ∂L/∂y and ∂L/∂x stacked, one temporary), each the size of
        the group's inputs. On a GPU torch's caching allocator does this."""
        if like.device.type != "cpu":
            return None
        shape = tuple(like.shape) if shape is None else shape
        key = (name, shape, like.dtype)
        b = self.scratch.get(key)
        if b is None:
            b = self.scratch[key] = torch.empty(shape, dtype=like.dtype, device=like.device)
        return b

    def _stack(self, name, ts, acc):
        """The tensors ts stacked [L, ...] in dtype acc, into a kept buffer."""
        t0 = ts[0]
        if t0.dtype != acc or t0.device.type != "cpu":
            return _as(torch.stack(ts), acc)
        return torch.stack(ts, out=self._scratch(name, t0, (len(ts),) + tuple(t0.shape)))

    def _measure(self, group, out):
        first = group[0]
        s = first.site
        acc = self._acc(first.x)
        L = len(group)
        X = self._stack("x", [st.x for st in group], acc)
        xf = s.feature_view(X, 1)  # [L, rows, C]
        wf = None if first.w_feat is None else torch.stack([st.w_feat for st in group])
        sums, sq, n = P.col_stats(xf, wf, self._scratch("t", xf))
        self._finish_stats(group, out, sums, sq, n, P.max_abs(xf, wf))
        grads = [st.grads() for st in group]
        if grads[0] is None:
            return
        G = self._stack("g", [g for g, _ in grads], acc)
        DX = None if grads[0][1] is None else self._stack("dx", [dx for _, dx in grads], acc)
        gam = None if first.params is None else self._gammas(group, acc)
        cols, per_row = [], []
        if s.kind == BATCHNORM:
            gf = s.feature_view(G, 1)
            gmu, rows = P.batchnorm_grad_rows(xf, gf, gam, wf, n, sums, sq, self._eps(group, xf),
                                               self._scratch("t", xf))
            cols.append(P.G_VAR)
            per_row.append(rows)
            sums_dy = P.moment_sums(gf)
            sums_dx = None if DX is None else P.moment_sums(s.feature_view(DX, 1))
            w, d = wf, gf.shape[2]
        else:
            xr, gr = s.row_view(X, 1), s.row_view(G, 1)
            d = gr.shape[2]
            gh = None
            if gam is not None and s.kind == GROUPNORM:
                # γ per channel: a row of group k holds its C/groups channels
                # one after the other, each spanning d/(C/groups) values.
                cg = gam.shape[1] // s.groups
                full = gam.view(L, s.groups, cg, 1).expand(L, s.groups, cg, d // cg).reshape(L, 1, s.groups, d)
                gh = (gr.view(L, -1, s.groups, d) * full).view(gr.shape)
            rms = s.kind == RMSNORM
            v = P.row_grad_sums(xr, gr, gam, gh, rms, self._scratch("t", xr))
            eps = self._eps(group, xr)
            if rms:
                cols.append(P.G_PSI2)
                per_row.append(P.rms_grad_norms(v[0], v[1], d, eps))
            else:
                cols += [P.G_MU, P.G_VAR]
                per_row += list(P.ln_grad_norms(v[0], v[1], v[2], d, eps))
            sums_dy = v[-2:]
            sums_dx = None if DX is None else P.moment_sums(s.row_view(DX, 1))
            gmu, w = None, None if first.w_row is None else torch.stack([st.w_row for st in group])
        # Theorem-1 moments of dy (and dx): per-row mean and variance.
        if sums_dx is None:
            m, var = P.moments(sums_dy[0], sums_dy[1], d)
            per_row += [m, var]
            cols += [P.DY_MEAN, P.DY_VAR]
        else:
            m, var = P.moments(torch.stack([sums_dy[0], sums_dx[0]], 1), torch.stack([sums_dy[1], sums_dx[1]], 1), d)
            per_row += [m, var]
            cols += [P.DY_MEAN, P.DX_MEAN, P.DY_VAR, P.DX_VAR]
        r = torch.cat([t if t.dim() == 3 else t.unsqueeze(1) for t in per_row], 1)  # [L, k, rows]
        if w is None:
            vals = r.mean(2)
        else:
            w = w.unsqueeze(1)
            vals = (r * w).sum(2) / w.sum(2)
        if gmu is not None:  # BatchNorm's ‖g_μ‖: one value per layer, not per row
            cols.insert(0, P.G_MU)
            vals = torch.cat([gmu.unsqueeze(1), vals], 1)
        self._scatter(out, group, cols, vals)

    def _finish_stats(self, group, out, sums, sq, n, maxabs):
        m = self.run.momentum
        mean, var = sums / n, sq / n  # [S, C]: μ_B, σ_B²
        batch = torch.stack([mean, var, var + mean.square()], 1)  # [S, 3, C]: μ_B, σ_B², ψ_B²
        key = tuple(st.row for st in group)
        sh = self.shadows.get(key)
        if sh is None or sh.shape != batch.shape or sh.device != batch.device or sh.dtype != batch.dtype or any(
                st.shadow is None or st.shadow[0] != key for st in group):
            rows = []
            for st in group:
                if st.shadow is not None:
                    k, t, i = st.shadow
                    t = self.shadows.get(k)
                    old = None if t is None else t[i]
                    if old is not None and old.shape == batch.shape[1:] and old.device == batch.device:
                        rows.append(_as(old, batch.dtype))
                        continue
                rows.append(torch.full(batch.shape[1:], math.nan, dtype=batch.dtype, device=batch.device))
            sh = torch.stack(rows)
        # Before its first batch a shadow is the batch itself (it starts
        # from it): distance 0, as normtop's probes.Collector reports.
        fresh = torch.isnan(sh)
        ref = torch.where(fresh, batch, sh)
        if group[0].own is not None:  # BatchNorm's own running μ, σ²
            own = _as(torch.stack([st.own for st in group]), sh.dtype)
            ref = torch.cat([own, ref[:, 2:]], 1)
        dists = torch.linalg.vector_norm(batch - ref, dim=2) / batch.shape[2]
        # One rate m for all shadows (§5). A statistic whose distance is not
        # finite is not folded in; nor is anything of a batch without real
        # rows, nor the variance of a one-row batch (as probes/shadow.go).
        ok = torch.isfinite(dists)
        if not isinstance(n, float) or n <= 1:
            nn_ = torch.full((len(group), 1), n, dtype=sh.dtype, device=sh.device) if isinstance(n, float) else n
            ok = ok & torch.cat([nn_ > 0, nn_ > 1, nn_ > 0], 1)
        new = torch.where(ok[:, :, None], torch.where(fresh, batch, sh.lerp(batch, m)), sh)
        for old_key in {st.shadow[0] for st in group if st.shadow is not None} - {key}:
            if not any(o.shadow is not None and o.shadow[0] == old_key and o not in group for o in self.states):
                self.shadows.pop(old_key, None)
        self.shadows[key] = new
        for i, st in enumerate(group):
            st.shadow = (key, None, i)
        in_mean = mean.mean(1)
        in_std = (var.mean(1) + (mean - in_mean[:, None]).square().mean(1)).sqrt()
        cols = [P.DIST_MU, P.DIST_VAR, P.DIST_PSI2, P.IN_MEAN, P.IN_STD, P.IN_MAXABS]
        vals = torch.cat([dists, torch.stack([in_mean, in_std, _as(maxabs, in_mean.dtype)], 1)], 1)
        self._scatter(out, group, cols, vals)

    def _param_norms(self, states, out):
        """‖γ−1‖ and ‖β‖ of every layer heard, from the step's snapshot: per
        snapshot one subtraction, one square and one segment sum, whatever
        the number of layers and their widths."""
        by_snap = {}
        for st in states:
            by_snap.setdefault(id(st.params[0]), []).append(st)
        for group in by_snap.values():
            snap = group[0].params[0]
            acc = self._acc(group[0].x)
            layout, cells = [], []
            for st in group:
                s = st.site
                c = s.weight.numel()
                layout.append((st.params[1], c, s.bias is not None))
                cells.append((st.row, P.GAMMA_DRIFT))
                if s.bias is not None:
                    cells.append((st.row, P.BETA_NORM))
            layout = tuple(layout)

            def make(layout=layout, snap=snap):
                # idx: the snapshot's entries in segment order; one: 1 under γ, 0 under β;
                # seg: each entry's segment (one per γ and per β).
                idx, one, seg, nseg = [], [], [], [0]
                for off, c, has_b in layout:
                    for j, v in enumerate((1.0, 0.0)[:1 + has_b]):
                        idx.extend(range(off + j * c, off + (j + 1) * c))
                        one.extend([v] * c)
                        seg.extend([nseg[0]] * c)
                        nseg[0] += 1
                dev = snap.device
                contiguous = idx == list(range(idx[0], idx[0] + len(idx)))
                return (None if contiguous else torch.tensor(idx, device=dev), idx[0], len(idx),
                        torch.tensor(one, dtype=acc, device=dev), torch.tensor(seg, device=dev),
                        torch.zeros(len(cells), dtype=acc, device=dev))
            idx, start, count, one, seg, zeros = self._const(("γβ", snap.device, acc, layout), make)
            p = snap.narrow(0, start, count) if idx is None else snap.index_select(0, idx)
            sq = (_as(p, acc) - one).square_()
            vals = zeros.index_add(0, seg, sq).sqrt_()
            out.setdefault(vals.device, []).append((cells, vals))

    def take(self, extra=None):
        """The probe values of the step as host floats: one copy per device
        holding a site (one in the usual case). extra: a tensor to bring back
        in the same copy (the train loss)."""
        out = None
        extra_val = None
        if self.touched:
            out = [[math.nan] * P.NUM_PROBES for _ in self.run.layers]
            for dev, pieces in self.finish().items():
                dt = pieces[0][1].dtype
                flat = [_as(v, dt).reshape(-1) for _, v in pieces]
                with_extra = extra is not None and extra_val is None and extra.device == dev
                if with_extra:
                    flat.append(_as(extra.detach().reshape(1), dt))
                host = torch.cat(flat).tolist()  # the step's one copy to the host
                if with_extra:
                    extra_val = host.pop()
                k = 0
                for cells, _ in pieces:
                    for r, c in cells:
                        out[r][c] = host[k]
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
