"""Finding the normalization modules of a model and reading their geometry.

A site knows how to lay a module's input out as the two matrices of
docs/math.md: the per-feature view (one row per token or spatial position,
one column per feature/channel), on which batch statistics and shadows are
taken, and the normalization rows (one row per set of values normalized
together), on which the row family's gradient probes and the Theorem-1
moments are taken. For BatchNorm both are the per-feature view.
"""

import math

import torch
from torch import nn

LAYERNORM, RMSNORM, BATCHNORM, GROUPNORM = "layernorm", "rmsnorm", "batchnorm", "groupnorm"
INSTANCENORM = "instancenorm"
KINDS = (LAYERNORM, RMSNORM, BATCHNORM, GROUPNORM, INSTANCENORM)
# The kinds whose normalization rows are (sample, group of channels) over
# all the sample's positions: InstanceNorm is GroupNorm with one group per
# channel (docs/math.md §8).
PER_SAMPLE = (GROUPNORM, INSTANCENORM)


def kind_of(module):
    """The site kind of a module, or None when it is not a normalization layer."""
    if isinstance(module, nn.LayerNorm):
        return LAYERNORM
    if isinstance(module, nn.modules.batchnorm._BatchNorm):  # BatchNorm1d/2d/3d, SyncBatchNorm
        return BATCHNORM
    if isinstance(module, nn.GroupNorm):
        return GROUPNORM
    if isinstance(module, nn.modules.instancenorm._InstanceNorm):  # InstanceNorm1d/2d/3d
        return INSTANCENORM
    if type(module).__name__ == "RMSNorm":  # torch ≥ 2.4's nn.RMSNorm, and most hand-written ones
        return RMSNORM
    return None


def _attr(module, names, default=None):
    for n in names:
        v = getattr(module, n, None)
        if v is not None:
            return v
    return default


class Site:
    """One watched module: its name, kind and how to read its input."""

    def __init__(self, name, module, kind):
        if kind not in KINDS:
            raise ValueError(f"normtop: module {name}: kind {kind!r}; valid: {', '.join(KINDS)}")
        self.name, self.module, self.kind = name, module, kind
        eps = _attr(module, ("eps", "variance_epsilon", "epsilon"), 1e-5)
        self.eps = float(eps)
        self.weight = _attr(module, ("weight", "scale", "gamma"))
        self.bias = _attr(module, ("bias", "beta"))
        if not isinstance(self.weight, torch.Tensor):
            self.weight = None
        if not isinstance(self.bias, torch.Tensor):
            self.bias = None
        if kind in (LAYERNORM, RMSNORM):
            ns = getattr(module, "normalized_shape", None)
            if ns is None:
                ns = (self.weight.numel(),) if self.weight is not None else None
            elif isinstance(ns, int):
                ns = (ns,)
            self.norm_shape = tuple(ns) if ns is not None else None
        self.groups = int(getattr(module, "num_groups", 1)) if kind == GROUPNORM else 1
        # InstanceNorm{1,2,3}d: the dims of one sample ([C, L] is 2); a
        # module declared "instancenorm" by hand is taken as batched.
        nb = getattr(module, "_get_no_batch_dim", None)
        self.instance_dims = nb() if kind == INSTANCENORM and callable(nb) else -1
        # BatchNorm's own running statistics (spec §5: distances use them).
        self.has_running = kind == BATCHNORM and isinstance(getattr(module, "running_mean", None), torch.Tensor)
        self._flat = {}

    def flat(self, key, t):
        """A detached, flattened view of the module's tensor t (key names it:
        "weight", "running_mean", ...), made once: it shares t's storage, so
        it sees the optimizer's in-place updates, and a hook needs no
        detach/reshape per call. It is made again when t's storage changes
        (module.to(), param.data = ...; the cached view keeps the old storage
        alive, so a new one never has the same address). A non-contiguous t
        has no flat view: it is copied on each call, never cached."""
        ptr = t.data_ptr()
        v = self._flat.get(key)
        if v is not None and v[0] == ptr and v[1].numel() == t.numel():
            return v[1]
        f = t.detach().reshape(-1)
        if f.data_ptr() == ptr and t.is_contiguous():
            self._flat[key] = (ptr, f)
        return f

    def batched(self, x):
        """x with its batch dimension: InstanceNorm also takes one sample
        without it ([C, L] for InstanceNorm1d), which is a batch of one."""
        if self.kind == INSTANCENORM and x.dim() == self.instance_dims:
            return x.unsqueeze(0)
        return x

    def row_groups(self, x):
        """Normalization rows per sample: GroupNorm's groups, InstanceNorm's
        channels."""
        return x.shape[1] if self.kind == INSTANCENORM else self.groups

    def width(self, x):
        """d of the normalization rows (features normalized together)."""
        if self.kind in (LAYERNORM, RMSNORM):
            if self.norm_shape is None:
                return x.shape[-1]
            return math.prod(self.norm_shape)
        if self.kind in PER_SAMPLE:
            return x[0].numel() // self.row_groups(x)
        return x.shape[1] if x.dim() > 1 else 1

    def features(self):
        """The layer's width from the module alone (no input seen yet):
        features normalized together for LayerNorm/RMSNorm, channels for
        BatchNorm, GroupNorm and InstanceNorm; 0 when the module does not say."""
        m = self.module
        if self.kind in (LAYERNORM, RMSNORM):
            return math.prod(self.norm_shape) if self.norm_shape is not None else 0
        for attr in ("num_features", "num_channels"):
            v = getattr(m, attr, None)
            if isinstance(v, int):
                return v
        return self.weight.numel() if self.weight is not None else 0

    def positions(self, x):
        """The shape of the input's positions, the leading dims a mask
        marks: x's dims before the normalized ones for LayerNorm/RMSNorm,
        (N, *spatial) for BatchNorm, (N,) for GroupNorm and InstanceNorm."""
        if self.kind in (LAYERNORM, RMSNORM):
            k = len(self.norm_shape) if self.norm_shape is not None else 1
            return tuple(x.shape[:x.dim() - k])
        if self.kind in PER_SAMPLE or x.dim() < 2:
            return tuple(x.shape[:1])
        return (x.shape[0],) + tuple(x.shape[2:])

    def feature_view(self, x):
        """The input as [positions, features]: channels last for BatchNorm,
        GroupNorm and InstanceNorm, the normalized dims flattened for
        LayerNorm/RMSNorm."""
        if self.kind in (LAYERNORM, RMSNORM):
            d = self.width(x)
            return x if x.dim() == 2 and x.shape[1] == d else x.reshape(-1, d)
        if x.dim() == 2:
            return x
        if x.dim() < 2:
            return x.reshape(x.shape[0], -1)
        c = x.shape[1]
        return x.movedim(1, -1).reshape(-1, c)

    def row_view(self, x):
        """The input as normalization rows [rows, d]."""
        if self.kind in PER_SAMPLE:
            return x.reshape(x.shape[0] * self.row_groups(x), -1)
        return self.feature_view(x)

    def row_gamma(self, x):
        """γ laid out like one normalization row (None without γ)."""
        w = self.weight
        if w is None:
            return None
        if self.kind in PER_SAMPLE:
            c = x.shape[1]
            spatial = x[0, 0].numel()
            return self.flat("weight", w).reshape(c, 1).expand(c, spatial).reshape(self.row_groups(x), -1)
        return self.flat("weight", w)

    def feature_gamma(self):
        w = self.weight
        return None if w is None else self.flat("weight", w)


def find_sites(model, modules=None):
    """The watched sites of model, in module order.

    modules, when given, adds modules the automatic search does not know:
    a list of module names (qualified, as model.named_modules() gives them)
    or module objects, or a dict from either to a kind ("layernorm",
    "rmsnorm", "batchnorm", "groupnorm", "instancenorm"); a name or object alone takes the
    kind from its class (kind_of) and must then be a known class.
    """
    by_obj = {}
    if modules:
        items = modules.items() if isinstance(modules, dict) else ((m, None) for m in modules)
        named = dict(model.named_modules())
        ids = {id(m): n for n, m in named.items()}
        for key, kind in items:
            if isinstance(key, str):
                if key not in named:
                    raise ValueError(f"normtop: the model has no module named {key!r}")
                mod = named[key]
            else:
                if id(key) not in ids:
                    raise ValueError(f"normtop: module {type(key).__name__} is not part of the model")
                mod = key
            kind = kind or kind_of(mod)
            if kind is None:
                raise ValueError(
                    f"normtop: module {ids[id(mod)] or type(mod).__name__} ({type(mod).__name__}): "
                    f"say its kind, e.g. modules={{name: 'rmsnorm'}}")
            by_obj[id(mod)] = kind
    sites = []
    for name, mod in model.named_modules():
        kind = by_obj.get(id(mod)) or kind_of(mod)
        if kind is not None:
            sites.append(Site(name or type(mod).__name__, mod, kind))
    return sites
