"""gw_norm (docs/math.md §5): ‖∂L/∂W‖_F of the weight matrices a norm
layer's output feeds, the number Xiong et al. compare between Pre-LN and
Post-LN.

A PyTorch model does not say which weights multiply a layer's output, so
it is seen in a due step's forward: a Linear, a Conv or a
MultiheadAttention whose input is the norm layer's output (a pre-LN
block's q, k, v projections or FFN's first matrix; the output layer after
the final norm) is fed by it. "Its output" is the tensor itself or one
that shares its memory and size: a view (reshape, transpose) or the
result of an in-place op (a ReLU(inplace=True)). An op that makes a new
tensor (a ReLU not in place, a dropout in training) hides the link, and
such a layer gets no gw_norm. Each fed weight's gradient is heard by a hook on the
parameter, which sees the gradient of one backward before it is added to
.grad: with gradient accumulation, the last micro-batch's (as every other
probe, docs/python.md), and for a tied weight the whole gradient of that
backward, both uses."""

import weakref

import torch
from torch import nn

_FED = (nn.Linear, nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.Bilinear, nn.MultiheadAttention)
# Outputs remembered in one step past which dead ones are swept out.
_SWEEP = 256


def _weights(module):
    """The weight matrices of a fed module that multiply its input."""
    if isinstance(module, nn.MultiheadAttention):
        ws = [module.in_proj_weight] if module.in_proj_weight is not None else [
            module.q_proj_weight, module.k_proj_weight, module.v_proj_weight]
    else:
        ws = [module.weight]
    return [w for w in ws if isinstance(w, torch.Tensor) and w.requires_grad]


def _key(t):
    """What a tensor shares with the views of it and its in-place results."""
    return (t.data_ptr(), t.numel(), t.dtype, t.device)


class Feeds:
    """One variant's map from its sites to the weights their outputs feed,
    found again on each due step, and the squared norms of those weights'
    gradients in the last backward."""

    def __init__(self, model, sites):
        own = {id(s.module) for s in sites}
        self.fed = [m for m in model.modules() if isinstance(m, _FED) and id(m) not in own]
        self.outputs = {}  # _key(output) → (weakref to it, layer state)
        self.sq = {}  # id(weight) → Σ ∂L/∂W² of its last backward, on its device
        self.handles, self.param_hooks = [], {}

    def attach(self):
        if not self.handles:
            self.handles = [m.register_forward_pre_hook(self._pre_hook(m)) for m in self.fed]

    def detach(self):
        for h in self.handles + list(self.param_hooks.values()):
            h.remove()
        self.handles, self.param_hooks = [], {}
        self.outputs, self.sq = {}, {}

    def output(self, st, y):
        """A watched layer's output in a due forward."""
        if not self.fed or not isinstance(y, torch.Tensor):
            return
        if len(self.outputs) >= _SWEEP:
            self.outputs = {k: v for k, v in self.outputs.items() if v[0]() is not None}
        self.outputs[_key(y)] = (weakref.ref(y), st)

    def _pre_hook(self, module):
        def hook(mod, inputs):
            if not self.outputs or not inputs:
                return
            x = inputs[0]
            if not isinstance(x, torch.Tensor):
                return
            hit = self.outputs.get(_key(x))
            if hit is None or hit[0]() is None:  # a dead output's memory may hold another tensor now
                return
            st = hit[1]
            for w in _weights(mod):
                st.feeds[id(w)] = w
                if id(w) not in self.param_hooks:
                    self.param_hooks[id(w)] = w.register_hook(self._grad_hook(w))
        return hook

    def _grad_hook(self, w):
        key = id(w)

        def hook(g):
            acc = torch.float64 if g.dtype == torch.float64 else torch.float32
            self.sq[key] = torch.linalg.vector_norm(g.detach(), dtype=acc).square()
        return hook

    def take(self, st):
        """The squared gradient norms of st's fed weights ([k] tensors, one
        per device), or None when it feeds none or none had a gradient."""
        out = [self.sq[k] for k in st.feeds if k in self.sq]
        return out or None

    def end_step(self, states):
        self.outputs, self.sq = {}, {}
        for st in states:
            st.feeds = {}
