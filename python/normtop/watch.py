"""watch(): hooks on a model's normalization layers, and the Run they feed."""

import atexit
import datetime
import math
import os
import time
import uuid
import warnings

import torch

from . import finish as F
from . import probes as P
from .sites import BATCHNORM, PER_SAMPLE, RMSNORM, find_sites
from .stream import PROBES, StreamWriter, num, rfc3339

DEFAULT_MOMENTUM = 0.05  # spec §5: every shadow EMA uses this one rate

# Modules whose output is made by one autograd node whose first input is the
# module's input, so that a hook on that node sees ∂L/∂y and ∂L/∂x.
_NATIVE_MODULES = (torch.nn.LayerNorm, torch.nn.BatchNorm1d, torch.nn.BatchNorm2d, torch.nn.BatchNorm3d,
                   torch.nn.GroupNorm)
_NATIVE_NODES = {"NativeLayerNormBackward0", "NativeBatchNormBackward0", "CudnnBatchNormBackward0",
                 "MiopenBatchNormBackward0", "NativeGroupNormBackward0"}


class _Call:
    """One training forward of a watched module in a due step and the
    backward that belongs to it. A module may run several times in one step
    (weight sharing, ALBERT-style reuse, a siamese BatchNorm); each run keeps
    its own forward vectors, so a backward is never combined with another
    run's statistics."""

    __slots__ = ("fwd", "bwd", "x", "w_feat", "w_row", "masked")

    def __init__(self, fwd, x, w_feat, w_row, masked):
        self.fwd, self.bwd, self.masked = fwd, None, masked
        self.x, self.w_feat, self.w_row = x, w_feat, w_row  # kept for a full backward hook only


class _LayerState:
    """What one site of one variant carries between hooks and steps."""

    def __init__(self, site, row):
        self.site, self.row = site, row
        # The EMAs of μ_B, σ_B², ψ_B² ([3, C]): row shadow_at of the [S, 3, C]
        # tensor its group shares (finish.py); fresh: not yet started, per statistic.
        self.shadow_of, self.shadow_at, self.fresh = None, 0, [True, True, True]
        self.own = None  # BatchNorm's running μ, σ² before this batch ([2, C])
        self.calls = []  # this step's runs of the module (_Call), in forward order
        self.fwd = self.bwd = None  # the reported run's vectors, turned into probes by finish()
        self.native = isinstance(site.module, _NATIVE_MODULES)  # heard through its autograd node
        self.full_hook = None  # the full backward hook while due, for the others
        self.warned = set()  # the warnings already given for this layer (once each)

    def warn_once(self, key, msg):
        if key not in self.warned:
            self.warned.add(key)
            warnings.warn(f"normtop: layer {self.site.name}: {msg}", RuntimeWarning, stacklevel=3)

    def reported(self):
        """The run of this step the frame reports: the last forward that
        also had its backward (for a module run once, that run). A forward
        without a backward (an evaluation pass in train mode with gradients
        on) is never reported and never moves a shadow."""
        done = [c for c in self.calls if c.bwd is not None]
        if len(done) > 1:
            self.warn_once("calls", f"ran {len(done)} times in one step (a shared module); its probes "
                                    "are those of the last run, paired with that run's own backward")
        self.calls = []
        return done[-1] if done else None


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
        self.mask_used = False  # a mask was set in an earlier step (log() clears it)
        self.last_given = self.last_recorded = self.step_offset = 0  # steps as given and as recorded
        self.step_warned = False

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
            x = st.site.batched(inputs[0].detach())
            fn = getattr(output, "grad_fn", None)
            node = fn if st.native and fn is not None and type(fn).__name__ in _NATIVE_NODES else None
            with torch.no_grad():
                call = self._forward(st, x, node)
            if call is None:  # the layer is skipped this step (a mask that does not fit)
                return
            if node is not None:
                mean = None if st.site.kind == BATCHNORM else _saved(node, "_saved_result1", self._acc(x))
                node.register_hook(self._node_hook(st, call, x, mean))
            elif st.native:
                # Not one native node after all (a subclass, autocast, ...):
                # from the next due step on, a full backward hook.
                st.native = False
                st.calls.remove(call)
            else:
                call.x = x  # the full backward hook reads it
        return hook

    def _node_hook(self, st, call, x, mean):
        def hook(grad_inputs, grad_outputs):
            g = grad_outputs[0] if grad_outputs else None
            dx = grad_inputs[0] if grad_inputs else None
            if isinstance(g, torch.Tensor) and g.shape == x.shape:
                with torch.no_grad():  # no graph is recorded: g and dx need no detach
                    self._backward(st, call, x, g, dx if isinstance(dx, torch.Tensor) else None, mean)
        return hook

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

    def _forward(self, st, x, node):
        """The forward vectors of one run of the module, as a _Call added to
        this step's runs; None when the layer is skipped this step."""
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
                     self.mask is not None)
        st.calls.append(call)
        return call

    def _bwd_hook(self, st):
        def hook(module, grad_input, grad_output):
            # A full backward hook does not say which run of the module it
            # belongs to. Autograd runs a module's backwards in the reverse
            # order of its forwards (later nodes first), so it is the last
            # run still waiting for one; the shape check guards the pairing.
            call = next((c for c in reversed(st.calls) if c.bwd is None and c.x is not None), None)
            if call is None:
                return
            x, call.x = call.x, None
            g = grad_output[0] if grad_output else None
            dx = grad_input[0] if grad_input else None
            if isinstance(g, torch.Tensor):
                g = st.site.batched(g)
            if isinstance(dx, torch.Tensor):
                dx = st.site.batched(dx)
            if isinstance(g, torch.Tensor) and g.shape == x.shape:
                with torch.no_grad():
                    self._backward(st, call, x, g.detach(), dx.detach() if isinstance(dx, torch.Tensor) else None)
        return hook

    def _backward(self, st, call, x, g, dx, mean=None):
        """The backward vectors of one run (call) of the module, whose input
        was x. mean: the rows' μ the layer saved for its own backward, or None."""
        s = st.site
        acc = self._acc(x)
        if s.kind == BATCHNORM:
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
        self.touched = True

    def finish(self, copy, out):
        """Adds this step's probe values to copy: batched over the layers of
        one kind and shape (finish.py), written into out's rows once the
        copy has reached the host. What is not measured stays NaN."""
        for st in self.states:
            call = st.reported()
            st.fwd, st.bwd = (call.fwd, call.bwd) if call is not None else (None, None)
            if call is not None and self.mask_used and not call.masked:
                st.warn_once("nomask", "a step without a mask after steps with one: set_mask() holds for one "
                                       "step (log() clears it); call it before each step's forward")
        fw = [st for st in self.states if st.fwd is not None]
        bw = [st for st in self.states if st.bwd is not None]
        for group in _groups(fw, lambda st: (st.fwd[0].shape, st.fwd[0].device, st.fwd[0].dtype)):
            F.stats(group, self.run.momentum, self.consts, copy, out)
        for group in _groups(bw, lambda st: (st.site.kind == BATCHNORM, st.site.kind == RMSNORM, st.bwd[0].shape,
                                             st.bwd[0].device, st.bwd[2] is None, st.bwd[3], st.bwd[4])):
            F.grads(group, self.consts, copy, out)
        for st in fw + bw:
            st.fwd = st.bwd = None

    def take(self, extra=None):
        """The probe values of the step as host floats: one copy per device
        holding a site (one in the usual case). extra: a tensor to bring back
        in the same copy (the train loss)."""
        out = None
        copy = F.Copy()
        if self.touched:  # some run of a layer had its backward: a training step was measured
            out = [[math.nan] * P.NUM_PROBES for _ in self.run.layers]
            self.finish(copy, out)
            self.touched = False
        else:
            for st in self.states:  # forwards without a backward: not a training step
                st.calls = []
        return out, copy.run(extra)


def _as(t, dtype):
    return t if t.dtype == dtype else t.to(dtype)


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
                 data="", metric="", config=None, streams=None, rank=None, if_exists="error", system=False):
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
        for m in models.values():
            if isinstance(m, torch.jit.ScriptModule):
                raise ValueError("normtop: the model is a TorchScript module (torch.jit.script or trace), which "
                                 "takes no Python hooks; watch the eager model (call watch() before scripting, "
                                 "or train the eager copy)")
        self.variants = [_Variant(self, i, str(k), m, modules) for i, (k, m) in enumerate(models.items())]
        self.layers = []
        for v in self.variants:
            for s in v.sites:
                if s.name not in self.layers:
                    self.layers.append(s.name)
        if not self.layers:
            raise ValueError("normtop: found no normalization module (LayerNorm, BatchNorm, GroupNorm, "
                             "InstanceNorm, RMSNorm); name yours with modules=[...]")
        self.embeddings = [self._find_embedding(v.model, embedding) for v in self.variants]
        self.start = time.time()
        start = datetime.datetime.now(datetime.timezone.utc)
        cfg = {"source": "pytorch", "torch": torch.__version__, "probe_every": str(every),
               "spectrum_every": str(spectrum_every), "shadow_momentum": repr(self.momentum),
               "precision": precision}
        if rank is not None:
            cfg["rank"] = str(rank)
        cfg.update(self._layer_facts())
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
        self.writer = StreamWriter(path, meta, streams, if_exists)
        self.path = self.writer.path
        self.system = bool(system)
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

    def _layer_facts(self):
        """What the header says of each layer, so that a reader knows which
        layers keep running statistics and at what rate (report's start-up
        window), without guessing from the variant's name: layer.<name>.kind,
        .d (features normalized or channels), .momentum (BatchNorm's own
        rate; "cumulative" for momentum=None), .eps; embedding_d and
        embedding_rows for the spectrum."""
        out = {}
        for v in self.variants:
            for s in v.sites:
                key = f"layer.{s.name}."
                if key + "kind" in out:
                    continue
                out[key + "kind"] = s.kind
                d = s.features()
                if d:
                    out[key + "d"] = str(d)
                out[key + "eps"] = repr(s.eps)
                if s.has_running:
                    m = getattr(s.module, "momentum", None)
                    out[key + "momentum"] = "cumulative" if m is None else repr(float(m))
        emb = next((e for e in self.embeddings if e is not None), None)
        if emb is not None and emb.dim() == 2:
            out["embedding_rows"], out["embedding_d"] = str(emb.shape[0]), str(emb.shape[1])
        return out

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
        """Marks the real rows (True/1) of this step's forward passes;
        padding rows are left out of every statistic. The mask's shape is the
        positions of the normalization layers' inputs (e.g. [batch, seq] for
        a [batch, seq, d] LayerNorm input, [batch, H, W] for BatchNorm2d; any
        layout with the same number of entries where the layer's input is
        flattened to [rows, d]) or one flag per sample ([batch]). A layer
        whose input it does not fit is skipped for the step with one
        warning. log() clears it: set it before each step's forward. None
        clears it now."""
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
        step = self._recorded_step(v, int(step))
        layers, tl = v.take(train_loss if isinstance(train_loss, torch.Tensor) else None)
        if train_loss is not None and not isinstance(train_loss, torch.Tensor):
            tl = float(train_loss)
        p = v.pending
        if p is None or p["step"] != step:
            if p is not None:
                self.writer.frame(self._line(v, p))
            now = time.time()
            rate, wall = 0.0, math.nan
            if v.last_time is not None and step > v.last_step and now > v.last_time:
                wall = (now - v.last_time) / (step - v.last_step)
                rate = 1 / wall
            v.last_time, v.last_step = now, step
            p = v.pending = {"step": step, "epoch": 0.0, "train_loss": math.nan, "layers": None,
                             "eval": None, "spectrum": None, "elapsed": now - self.start, "rate": rate}
            if self.system:
                p["wall"] = wall
                p["system"] = self._system(v, p)
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
        if v.mask is not None:  # a mask holds for one step: never for another batch
            v.mask, v.mask_on, v.mask_used = None, {}, True
        v.set_due(self._due(step + 1))

    def _recorded_step(self, v, step):
        """The step the stream records for the step the script gives. Steps
        must grow (the same step again adds to its line); a step below the
        last one (a counter that restarts each epoch: 1,2,3,1,2,3) is
        numbered on from the last recorded step, with one warning, so that no
        step is written twice or backwards."""
        if step < v.last_given:
            if not v.step_warned:
                v.step_warned = True
                warnings.warn(f"normtop: variant {v.name}: step {step} after step {v.last_given}: steps must "
                              f"grow (a counter that restarts each epoch?); normtop numbers them on from "
                              f"{v.last_recorded}: pass a global step to silence this", RuntimeWarning, stacklevel=3)
            v.step_offset = v.last_recorded
        v.last_given = step
        v.last_recorded = max(v.last_recorded, step + v.step_offset)
        return step + v.step_offset

    def _system(self, v, p):
        """The process's resources at this step (watch(system=True)): wall
        seconds since the previous step's log, resident memory, and the
        peak CUDA memory where CUDA is in use."""
        out = {"wall_s": num(p["wall"])}
        try:
            with open("/proc/self/statm") as f:
                out["rss_bytes"] = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            pass
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            out["cuda_max_bytes"] = int(torch.cuda.max_memory_allocated())
        return out

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
        if p.get("system") is not None:
            o["system"] = p["system"]
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
    and writes the stream of docs/formats.md to path.

    every: probes are measured at steps every, 2·every, ... (1 = each step).
    modules: extra modules to watch (names or objects, or {name: kind}).
    ranks: under torch.distributed, 0 (default) writes from rank 0 only and
    the other ranks get a NullRun; "all" makes every rank write its own
    stream (path with ".rank<r>" before the extension) and rank 0's stream
    lists them, so `normtop replay path` shows the ranks side by side.
    Other keywords: spectrum_every (100; 0 = off), embedding (module, name,
    tensor or False), momentum (0.05), precision ("input": statistics in the
    input's dtype, float32 at least; "float64": always float64, as docs/math.md §0
    asks of normtop's kernels, several times slower on CPU),
    run_id, model_name, data, metric ("accuracy" | "bpc" | ...), config,
    if_exists ("error": an existing path is refused; "suffix": the first
    free path.<k>, see run.path), system (False; True: each step's line
    carries the process's wall time per step, resident memory and peak
    CUDA memory, shown on the dashboard's config panel).
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
