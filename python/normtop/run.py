"""Run: a watched training run, the hooks of every variant and the stream
they write; log() records a step, close() ends the stream."""

import atexit
import datetime
import math
import time

import torch

from . import frame
from . import histogram as HG
from . import header as H
from . import probes as P
from . import sites as S
from .stream import StreamWriter, num
from .variant import _Variant
from .warn import flush, warn

DEFAULT_MOMENTUM = 0.05  # spec §5: every shadow EMA uses this one rate


class Run:
    """A watched training run: hooks on every variant's norm layers and the
    stream they write. Call log() once per training step, close() at the end
    (or use it as a context manager)."""

    def __init__(self, models, path, every=1, modules=None, spectrum_every=100, embedding=None,
                 momentum=DEFAULT_MOMENTUM, precision="input", run_id=None, model_name=None,
                 data="", metric="", config=None, streams=None, rank=None, if_exists="error", system=False,
                 kinds=None, histogram=False):
        self.acc = H.check_options(every, spectrum_every, momentum, precision)
        self.hist_bins = HG.check(histogram, spectrum_every)
        self.every, self.momentum = every, float(momentum)
        self.spectrum_every = spectrum_every
        models = H.check_models(models)
        kinds = S.class_kinds(kinds, models.values())
        self.variants = [_Variant(self, i, str(k), m, modules, kinds) for i, (k, m) in enumerate(models.items())]
        self.layers = H.layer_names(self.variants)
        H.warn_unwatched(self.variants)
        self.embeddings = [H.find_embedding(v.model, embedding) for v in self.variants]
        self.start = time.time()
        start = datetime.datetime.now(datetime.timezone.utc)
        self.meta = H.header(self, start, precision, rank, config, run_id, model_name, data, metric)
        self.writer = StreamWriter(path, self.meta, streams, if_exists)
        self.path = self.writer.path
        self.system = bool(system)
        index = {n: i for i, n in enumerate(self.layers)}
        for v in self.variants:
            v.attach(index)
            v.hist_due = HG.due(1, self.hist_bins, spectrum_every)
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

    def _due(self, step):
        """Probes are measured at step: an every-th step, or a histogram's."""
        return step % self.every == 0 or HG.due(step, self.hist_bins, self.spectrum_every)

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
                self.writer.frame(frame.line(self.layers, v, p))
            p = v.pending = frame.pending(v, step, self.start, self.system)
        if epoch is not None:
            p["epoch"] = float(epoch)
        if tl is not None:
            p["train_loss"] = tl
            if math.isfinite(tl):
                v.losses_since_eval.append(tl)
        if layers is not None:
            p["layers"] = layers
        if v.batch is not None:
            p["batch"] = v.batch
        if v.hists:
            p["hist"] = {self.layers[row]: h for row, h in sorted(v.hists.items())}
        frame.add_evals(v, p, val_loss, val_metric, test_loss, test_metric)
        emb = self.embeddings[v.index]
        if emb is not None and self.spectrum_every and step % self.spectrum_every == 0 and p["spectrum"] is None:
            sig, er = P.spectrum(emb)
            p["spectrum"] = {"step": step, "sigma": [num(x) for x in sig.cpu().tolist()], "eff_rank": num(float(er))}
        if v.mask is not None:  # a mask holds for one step: never for another batch
            v.mask, v.mask_on, v.mask_used = None, {}, True
        v.hist_due = HG.due(step + 1, self.hist_bins, self.spectrum_every)
        v.set_due(self._due(step + 1))
        flush()

    def _recorded_step(self, v, step):
        """The step the stream records for the step the script gives. Steps
        must grow (the same step again adds to its line); a step below the
        last one (a counter that restarts each epoch: 1,2,3,1,2,3) is
        numbered on from the last recorded step, with one warning, so that no
        step is written twice or backwards."""
        if step < v.last_given:
            if not v.step_warned:
                v.step_warned = True
                warn(f"normtop: variant {v.name}: step {step} after step {v.last_given}: steps must "
                     f"grow (a counter that restarts each epoch?); normtop numbers them on from "
                     f"{v.last_recorded}: pass a global step to silence this")
            v.step_offset = v.last_recorded
        v.last_given = step
        v.last_recorded = max(v.last_recorded, step + v.step_offset)
        return step + v.step_offset

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
                self.writer.frame(frame.line(self.layers, v, v.pending, fs[status]))
                if status == "diverged":
                    diverged[v.index] = v.pending["step"]
        self.writer.close(status, diverged)

    def __enter__(self):
        return self

    def __exit__(self, et, ev, tb):
        self.close("completed" if et is None else "interrupted")
        return False
