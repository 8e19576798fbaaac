"""What the hooks keep per watched layer between a due step's forward and
its backward: one _Call per run of the module, one _LayerState per site."""

import warnings

import torch

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
