"""normtop for PyTorch: the probes of normtop's docs/math.md §5 as hooks on
your model's normalization layers, streamed to a file that `normtop replay
[--follow]` shows on normtop's dashboard (format: docs/formats.md).

    run = normtop.watch(model, "runs/mine.jsonl")
    ...
    run.log(step, train_loss=loss)
"""

from .sites import KINDS, Site, find_sites, kind_of
from .stream import FORMAT_VERSION, PROBES, StreamWriter
from .watch import NullRun, Run, rank_path, watch

__all__ = ["watch", "Run", "NullRun", "PROBES", "KINDS", "FORMAT_VERSION", "find_sites", "kind_of",
           "rank_path", "Site", "StreamWriter"]
__version__ = "0.1.0"
