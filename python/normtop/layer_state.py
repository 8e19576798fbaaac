"""What the hooks keep per watched layer between a due step's forward and
its backward: one _Call per run of the module, one _LayerState per site."""

import torch

from .warn import warn

# Modules whose output is made by one autograd node whose first input is the
# module's input, so that a hook on that node sees ∂L/∂y and ∂L/∂x.
_NATIVE_MODULES = (torch.nn.LayerNorm, torch.nn.BatchNorm1d, torch.nn.BatchNorm2d, torch.nn.BatchNorm3d,
                   torch.nn.GroupNorm)
_NATIVE_NODES = {"NativeLayerNormBackward0", "NativeBatchNormBackward0", "CudnnBatchNormBackward0",
                 "MiopenBatchNormBackward0", "NativeGroupNormBackward0"}


# The runs of one layer kept between two log() calls: the last one that
# had its backward, and the ones still waiting for theirs (a module shared
# n times in one forward waits n times). A training loop that never calls
# log() thus holds a bounded number of them, never one per step.
MAX_WAITING = 64
# Due forwards of one layer between two log() calls past which a loop is
# told, once, that it is measuring steps it never records.
LONG_WITHOUT_LOG = 256


def native(module):
    """The module's output is made by torch's own node for it: one of the
    native classes whose forward is not overridden (a LayerNorm2d subclass
    permutes around F.layer_norm, so its output's node is a permute)."""
    return any(isinstance(module, c) and type(module).forward is c.forward for c in _NATIVE_MODULES)


class _Call:
    """One training forward of a watched module in a due step and the
    backward that belongs to it. A module may run several times in one step
    (weight sharing, ALBERT-style reuse, a siamese BatchNorm); each run keeps
    its own forward vectors, so a backward is never combined with another
    run's statistics."""

    __slots__ = ("fwd", "bwd", "x", "w_feat", "w_row", "masked", "epoch", "frozen", "positions", "hist")

    def __init__(self, fwd, x, w_feat, w_row, masked, epoch, frozen, positions):
        self.fwd, self.bwd, self.masked = fwd, None, masked
        self.x, self.w_feat, self.w_row = x, w_feat, w_row  # x: kept for a full backward hook only
        # epoch: the layer's backwards before this forward. Two runs with
        # their backwards and the same epoch ran in one forward (a shared
        # module); accumulation's micro-batches each have their own.
        self.epoch, self.frozen, self.positions = epoch, frozen, positions
        self.hist = None  # the input's histogram on a histogram step (histogram.measure)

    def done(self):
        """Complete: its backward ran, or it is measured on its forward only
        (frozen: a frozen BatchNorm's, whose backbone may have no backward,
        or a normtop_stats_only layer's), its backward adding moments if it comes."""
        return self.bwd is not None or self.frozen


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
        self.native = native(site.module)  # heard through its autograd node
        self.full_hook = None  # the full backward hook while due, for the others
        self.warned = set()  # the warnings already given for this layer (once each)
        self.backwards = 0  # backwards of this layer so far (the _Call epochs)
        self.forwards = 0  # due forwards since the last log()
        self.shared = 0  # the most runs seen in one forward this step (> 1: a shared module)
        self.feeds = {}  # id → the weights its output fed this step (feeds.py: gw_norm)
        self.frozen_now = False  # the reported run is a frozen BatchNorm's

    def warn_once(self, key, msg):
        if key not in self.warned:
            self.warned.add(key)
            warn(f"normtop: layer {self.site.name}: {msg}")

    def add(self, call):
        """Keeps call, dropping the runs that can no longer be reported: a
        completed run before the last completed one, and past MAX_WAITING
        waiting runs, the oldest waiting (its backward, should it come,
        finds no run and is ignored)."""
        last = next((i for i in range(len(self.calls) - 1, -1, -1) if self.calls[i].done()), None)
        if last is not None:
            self.calls = [c for i, c in enumerate(self.calls) if i == last or not c.done()]
        waiting = [c for c in self.calls if not c.done()]
        if len(waiting) >= MAX_WAITING:
            self.calls.remove(waiting[0])
        self.calls.append(call)
        self.forwards += 1
        if self.forwards == LONG_WITHOUT_LOG:
            self.warn_once("nolog", f"{LONG_WITHOUT_LOG} training forwards since the last log(): each step "
                                    "measured and never logged is work thrown away (normtop keeps only the "
                                    "last); call run.log(step) after each optimizer step, with every=N to "
                                    "measure fewer steps")

    def backward_done(self, call):
        """Counts call's backward and whether another run of the same
        forward also had one (a shared module)."""
        self.backwards += 1
        same = 1 + sum(1 for c in self.calls if c is not call and c.bwd is not None and c.epoch == call.epoch)
        self.shared = max(self.shared, same)

    def reported(self):
        """The run of this step the frame reports: the last forward that
        also had its backward (for a module run once, that run). A forward
        without a backward (an evaluation pass in train mode with gradients
        on) is never reported and never moves a shadow."""
        done = [c for c in self.calls if c.done()]
        if self.shared > 1:
            self.warn_once("calls", f"ran {self.shared} times in one forward (a shared module); its probes "
                                    "are those of the last run, paired with that run's own backward")
        self.calls, self.shared, self.forwards = [], 0, 0
        return done[-1] if done else None
