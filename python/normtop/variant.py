"""_Variant: one watched model of a run, its sites, the hooks that exist on
due steps only, and the step's probe values taken from them."""

import math

import torch

from . import finish as F
from . import histogram as HG
from . import probes as P
from .batch import batch_of_call, batch_of_mask
from .feeds import Feeds
from .layer_state import _NATIVE_NODES, _LayerState
from .measure import _Measure, _saved
from .sites import BATCHNORM, RMSNORM, find_sites


class _Variant(_Measure):
    """One model of the run: its sites, hooks, probe buffer and pending frame."""

    def __init__(self, run, index, name, model, modules, kinds=None):
        self.run, self.index, self.name, self.model = run, index, name, model
        self.sites = find_sites(model, modules, kinds)
        # BatchNorms frozen at watch() (eval mode in a model in training
        # mode): the header marks them; one frozen later is warned of once.
        self.frozen_at_watch = {s.name for s in self.sites
                                if s.has_running and not s.module.training and model.training}
        self.feeds = Feeds(model, self.sites)
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
        self.batch = None  # this step's batch shape ({"rows", "width", "tokens"}), set by take()
        self.hist_due = False  # the next due step takes the layers' input histograms
        self.hists = None  # row → this step's "hist" entry, set by take()

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
            self.feeds.attach()
        elif not due:
            for h in self.handles:
                h.remove()
            self.handles = []
            self.feeds.detach()
        self.due = due
        for st in self.states:
            want = due and not st.native
            if want and st.full_hook is None:
                st.full_hook = st.site.module.register_full_backward_hook(self._bwd_hook(st))
            elif not want and st.full_hook is not None:
                st.full_hook.remove()
                st.full_hook = None

    def _mode(self, st, module):
        """How this forward of st's module is measured: "train" (a training
        forward with gradients on), "frozen" (a BatchNorm in eval mode, with
        running statistics, inside a model in training mode: fine-tuning's
        frozen BN) or None (not measured: not due, an evaluation pass)."""
        if not self.due or not torch.is_grad_enabled():
            return None
        if module.training:
            return "train"
        if st.site.has_running and self.model.training:
            return "frozen"
        return None

    def _pre_hook(self, st):
        def hook(module, inputs):
            if self._mode(st, module) is None or not st.site.has_running:
                return
            # The running statistics before this batch's update (§5).
            s = st.site
            st.own = torch.stack([s.flat("running_mean", module.running_mean),
                                  s.flat("running_var", module.running_var)])
        return hook

    def _fwd_hook(self, st):
        def hook(module, inputs, output):
            mode = self._mode(st, module)
            if mode is None or not inputs or not isinstance(inputs[0], torch.Tensor):
                return
            s = st.site
            if s.unmeasurable():  # named in watch()'s one warning
                return
            x = s.batched(inputs[0].detach())
            if s.layout_of(x, output) is None:
                st.warn_once("layout",
                             f"cannot tell which axis of its input {list(x.shape)} it normalizes (normalized_shape "
                             f"{list(s.norm_shape or ())}); it is not measured for inputs whose layout cannot be "
                             "known (this warning is not repeated). Give the module a data_format attribute, "
                             "\"channels_first\" or \"channels_last\"")
                return
            fn = getattr(output, "grad_fn", None)
            node = fn if st.native and fn is not None and type(fn).__name__ in _NATIVE_NODES else None
            # A frozen BatchNorm, or a layer that says its backward is not
            # BatchNorm's (PowerNorm: normtop_stats_only), is measured on its
            # forward statistics and Theorem-1 moments only.
            if mode == "frozen" and s.name not in self.frozen_at_watch:
                st.warn_once("frozen", "runs frozen (eval mode in a model in training mode) but was not at watch(), "
                                       "so the stream's header does not mark it; freeze it before watch()")
            stats_only = mode == "frozen" or getattr(module, "normtop_stats_only", False) is True
            with torch.no_grad():
                call = self._forward(st, x, node, stats_only)
            if call is None:  # the layer is skipped this step (a mask that does not fit)
                return
            self.feeds.output(st, output)
            if node is not None:
                mean = None if s.kind == BATCHNORM else _saved(node, "_saved_result1", self._acc(x))
                node.register_hook(self._node_hook(st, call, x, mean))
            elif st.native:
                # Not one native node after all (autocast, a torch that
                # wraps it, ...): this run is heard through its output's
                # gradient (no dx), and from the next due step on through a
                # full backward hook.
                if isinstance(output, torch.Tensor) and output.requires_grad:
                    st.native = False
                    output.register_hook(self._out_hook(st, call, x))
            else:
                call.x = x  # the full backward hook reads it
        return hook

    def _out_hook(self, st, call, x):
        def hook(g):
            if g.shape == x.shape:
                with torch.no_grad():
                    self._backward(st, call, x, g.detach(), None)
        return hook

    def _node_hook(self, st, call, x, mean):
        def hook(grad_inputs, grad_outputs):
            g = grad_outputs[0] if grad_outputs else None
            dx = grad_inputs[0] if grad_inputs else None
            if isinstance(g, torch.Tensor) and g.shape == x.shape:
                with torch.no_grad():  # no graph is recorded: g and dx need no detach
                    self._backward(st, call, x, g, dx if isinstance(dx, torch.Tensor) else None, mean)
        return hook

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

    def finish(self, copy, out):
        """Adds this step's probe values to copy: batched over the layers of
        one kind and shape (finish.py), written into out's rows once the
        copy has reached the host. What is not measured stays NaN."""
        for st in self.states:
            call = st.reported()
            st.fwd, st.bwd = (call.fwd, call.bwd) if call is not None else (None, None)
            st.frozen_now = call is not None and call.frozen
            if call is not None:
                self._gw(st, copy, out)
                if call.hist is not None:
                    self._hist(st, call.hist, copy)
                if self.batch is None and (self.mask is None or self.mask.dim() > 2):  # else: the mask's shape
                    self.batch = batch_of_call(call, copy)
            if call is not None and self.mask_used and not call.masked:
                st.warn_once("nomask", "a step without a mask after steps with one: set_mask() holds for one "
                                       "step (log() clears it); call it before each step's forward")
        fw = [st for st in self.states if st.fwd is not None]
        bw = [st for st in self.states if st.bwd is not None]
        for group in _groups(fw, lambda st: (st.fwd[0].shape, st.fwd[0].device, st.fwd[0].dtype)):
            F.stats(group, self.run.momentum, self.consts, copy, out)
        for group in _groups(bw, lambda st: (st.site.kind == BATCHNORM, st.site.kind == RMSNORM, st.frozen_now,
                                             st.bwd[0].shape, st.bwd[0].device, st.bwd[2] is None, st.bwd[3],
                                             st.bwd[4])):
            F.grads(group, self.consts, copy, out)
        for st in fw + bw:
            st.fwd = st.bwd = None
        self.feeds.end_step(self.states)

    def _gw(self, st, copy, out):
        """gw_norm of st's reported run: √Σ of its fed weights' squared
        gradient norms (feeds.py), in the step's copy."""
        sq = self.feeds.take(st)
        if sq is None:
            return
        by_dev = {}
        for t in sq:
            by_dev.setdefault(t.device, []).append(t)
        parts = [torch.stack([_f64(t) for t in ts]).sum() for ts in by_dev.values()]

        def then(vals):
            out[st.row][P.GW_NORM] = math.sqrt(sum(v[0] for v in vals))
        copy.add(parts, then)

    def _hist(self, st, h, copy):
        """st's input histogram, in the step's copy."""
        bins = self.run.hist_bins

        def then(vals):
            self.hists[st.row] = HG.entry(vals[0], bins)
        copy.add([h], then)

    def take(self, extra=None):
        """The probe values of the step as host floats: one copy per device
        holding a site (one in the usual case). extra: a tensor to bring back
        in the same copy (the train loss)."""
        out = None
        copy = F.Copy()
        self.batch = None
        self.hists = {}
        if self.touched:  # some run of a layer had its backward: a training step was measured
            out = [[math.nan] * P.NUM_PROBES for _ in self.run.layers]
            self.finish(copy, out)
            self.touched = False
        else:
            for st in self.states:  # forwards without a backward: not a training step
                st.calls, st.forwards, st.shared = [], 0, 0
        if self.batch is None and self.mask is not None:
            self.batch = batch_of_mask(self.mask, copy)
        return out, copy.run(extra)


def _groups(items, key):
    """items grouped by key, in first-seen order."""
    d = {}
    for it in items:
        d.setdefault(key(it), []).append(it)
    return list(d.values())


def _f64(t):
    return t if t.dtype == torch.float64 else t.double()

