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
CHANNELS_LAST, CHANNELS_FIRST = "channels_last", "channels_first"
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


def _own_forward(module):
    """The layout a module's class is known to normalize in: channels last
    for torch's own LayerNorm (and RMSNorm), whose forward is
    F.layer_norm over the last dims; None for a subclass that overrides
    forward (timm's and torchvision's LayerNorm2d permute NCHW inside it)
    and for any other class."""
    for cls in (nn.LayerNorm, getattr(nn, "RMSNorm", None)):
        if cls is not None and isinstance(module, cls) and type(module).forward is cls.forward:
            return CHANNELS_LAST
    return None


def declared_layout(module):
    """The layout a module says it normalizes in (ConvNeXt's LayerNorm:
    data_format="channels_first" | "channels_last"), else its class's own
    (_own_forward), else None: to be read from the input."""
    f = getattr(module, "data_format", None)
    if isinstance(f, str) and f.lower() in (CHANNELS_LAST, CHANNELS_FIRST):
        return f.lower()
    return _own_forward(module)


def class_kinds(kinds, models):
    """watch(kinds=) checked: {class: kind}; ValueError naming an entry
    that is not a class, a kind that does not exist, or a class no module
    of any watched model is an instance of."""
    if not kinds:
        return {}
    if not isinstance(kinds, dict):
        raise ValueError(f"normtop: kinds={kinds!r}: want a dict {{class: kind}}, e.g. {{LlamaRMSNorm: 'rmsnorm'}}")
    mods = [m for model in models for m in model.modules()]
    for cls, kind in kinds.items():
        if not isinstance(cls, type):
            raise ValueError(f"normtop: kinds= key {cls!r} is not a class; give the class itself, e.g. "
                             f"{{{type(cls).__name__}: {kind!r}}}")
        if kind not in KINDS:
            raise ValueError(f"normtop: kinds={{{cls.__name__}: {kind!r}}}: no kind {kind!r}; "
                             f"valid: {', '.join(KINDS)}")
        if not any(isinstance(m, cls) for m in mods):
            raise ValueError(f"normtop: kinds= names class {cls.__name__}, of which the model has no module")
    return dict(kinds)


def _class_kind(module, kinds):
    """The kind kinds= gives module's class (the most derived class named)."""
    for cls in type(module).__mro__:
        if cls in kinds:
            return kinds[cls]
    return None


# Normalizations of another family: named ...Norm, but no layer of the kinds.
_NOT_NORMS = tuple(c for c in (getattr(nn, "LocalResponseNorm", None), getattr(nn, "CrossMapLRN2d", None)) if c)


def norm_like(module):
    """A module that looks like a normalization layer: no submodules, and a
    class named ...Norm, or an ε and a one-dimensional weight (nanoGPT's
    LayerNorm, LlamaRMSNorm, T5LayerNorm)."""
    if isinstance(module, _NOT_NORMS) or next(module.children(), None) is not None:
        return False
    if type(module).__name__.lower().endswith("norm"):
        return True
    w = getattr(module, "weight", None)
    return (isinstance(_attr(module, ("eps", "variance_epsilon", "epsilon")), float)
            and isinstance(w, torch.Tensor) and w.dim() == 1)


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
        # LayerNorm/RMSNorm: the layout it normalizes in, declared or from
        # its class; else read from each new input shape (layout_of).
        self.layout = declared_layout(module) if kind in (LAYERNORM, RMSNORM) else CHANNELS_LAST
        self._layouts = {}  # input shape → layout (None: cannot be known)
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

    def unmeasurable(self):
        """Why the module cannot be measured whatever its input, or None: a
        LayerNorm/RMSNorm that says neither its width (no normalized_shape,
        no weight) nor its layout."""
        if self.kind in (LAYERNORM, RMSNORM) and self.norm_shape is None and self.layout is None:
            return "it says neither its width (normalized_shape or a weight) nor its layout (data_format)"
        return None

    def layout_of(self, x, y):
        """The layout of x that the module normalizes (CHANNELS_LAST: the
        last dims are normalized_shape; CHANNELS_FIRST: dim 1 is the one
        normalized dim of an [N, C, ...] input), or None when it cannot be
        known. A module that does not declare it (a subclass that permutes
        inside forward) is read from x: the one layout whose dims fit; where
        both fit (an NCHW input with W = C), from its output y, once per
        shape: the layout along which (y−β)/γ has rows of mean 0 (LayerNorm)
        and mean square 1."""
        if self.kind not in (LAYERNORM, RMSNORM):
            return CHANNELS_LAST
        key = tuple(x.shape)
        if key in self._layouts:
            return self._layouts[key]
        ns = self.norm_shape
        if ns is None:
            fits = {CHANNELS_LAST: True, CHANNELS_FIRST: x.dim() >= 3}
        else:
            fits = {CHANNELS_LAST: x.dim() >= len(ns) and tuple(x.shape[-len(ns):]) == ns,
                    CHANNELS_FIRST: len(ns) == 1 and x.dim() >= 3 and x.shape[1] == ns[0]}
        if self.layout is not None:
            lay = self.layout if fits[self.layout] else None
        elif fits[CHANNELS_LAST] != fits[CHANNELS_FIRST]:
            lay = CHANNELS_LAST if fits[CHANNELS_LAST] else CHANNELS_FIRST
        elif fits[CHANNELS_LAST] and isinstance(y, torch.Tensor) and y.shape == x.shape:
            err = {k: self._normalized_error(y, k) for k in fits}
            good = [k for k, e in err.items() if e < 0.05]
            lay = good[0] if len(good) == 1 else None
        else:
            lay = None
        # Never cleared: a run's backward reads its forward's entry (first),
        # and a model meets few shapes (token budgets: rows × length, some
        # thousands at most, a hundred bytes each).
        self._layouts[key] = lay
        return lay

    def _normalized_error(self, y, layout):
        """How far (y−β)/γ laid out in layout is from normalized rows: the
        largest of |mean| (LayerNorm) and |mean square − 1| over the rows."""
        c = y.shape[1] if layout == CHANNELS_FIRST else y.shape[-1]
        r = (y.detach().movedim(1, -1) if layout == CHANNELS_FIRST else y.detach()).reshape(-1, c).double()
        if self.bias is not None and self.bias.numel() == c:
            r = r - self.bias.detach().reshape(-1).double()
        if self.weight is not None and self.weight.numel() == c:
            w = self.weight.detach().reshape(-1).double()
            keep = w != 0
            r = r[:, keep] / w[keep]
        if r.numel() == 0:
            return float("inf")
        ms = (r.square().mean(1) - 1).abs().max()
        if self.kind == LAYERNORM:
            ms = torch.maximum(ms, r.mean(1).abs().max())
        return float(ms)

    def first(self, x):
        """x is laid out channels first (its layout was read by layout_of)."""
        if self.layout == CHANNELS_LAST:  # nn.LayerNorm, every kind but LayerNorm/RMSNorm: no look-up
            return False
        return self.kind in (LAYERNORM, RMSNORM) and self._layouts.get(tuple(x.shape)) == CHANNELS_FIRST

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
            if self.first(x):
                return x.shape[1]
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
        if self.first(x):
            return (x.shape[0],) + tuple(x.shape[2:])
        if self.kind in (LAYERNORM, RMSNORM):
            k = len(self.norm_shape) if self.norm_shape is not None else 1
            return tuple(x.shape[:x.dim() - k])
        if self.kind in PER_SAMPLE or x.dim() < 2:
            return tuple(x.shape[:1])
        return (x.shape[0],) + tuple(x.shape[2:])

    def feature_view(self, x):
        """The input as [positions, features]: channels last for BatchNorm,
        GroupNorm and InstanceNorm, the normalized dims flattened for
        LayerNorm/RMSNorm (its channels last, when it normalizes dim 1)."""
        if self.kind in (LAYERNORM, RMSNORM) and not self.first(x):
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


def find_sites(model, modules=None, kinds=None):
    """The watched sites of model, in module order.

    kinds: {class: kind} (checked by class_kinds): every module of the class
    (or of a subclass) is a site of that kind.

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
        kind = by_obj.get(id(mod)) or _class_kind(mod, kinds or {}) or kind_of(mod)
        if kind is not None:
            sites.append(Site(name or type(mod).__name__, mod, kind))
    return sites


def unwatched(model, sites):
    """{class name: [module names]} of model's norm-like modules (norm_like)
    that are not sites."""
    seen = {id(s.module) for s in sites}
    out = {}
    for name, mod in model.named_modules():
        if id(mod) not in seen and norm_like(mod):
            out.setdefault(type(mod).__name__, []).append(name or type(mod).__name__)
    return out
