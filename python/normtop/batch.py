"""The step's batch shape, written in each step's line as
"batch": {"rows": R, "width": W, "tokens": T} (docs/python.md): R sequences
or images, W the padded sequence length (1 for images and rows), T the
real tokens (the samples for images), from the mask the user set or the
input a watched layer saw. T is counted on the device and comes back in
the step's one copy (finish.Copy)."""

import math


def batch_of_call(call, copy):
    """The step's batch shape as the reported run's input shows it: a dict
    {"rows", "width", "tokens"} filled once the copy is done. Positions of
    two dims ([batch, seq]) are sequences: rows × width padded tokens, the
    real ones counted by the mask; one dim ([N] rows) or more than two (an
    image's [N, H, W]) are samples, width 1, tokens the real samples."""
    pos = call.positions
    if not pos:
        return None
    rows = int(pos[0])
    seq = len(pos) == 2
    width = int(pos[1]) if seq else 1
    b = {"rows": rows, "width": width, "tokens": rows * width}
    w = call.w_feat
    if w is not None:
        per = 1 if seq else max(1, int(math.prod(pos[1:])))

        def then(vals):
            b["tokens"] = int(round(vals[0][0] / per))
        copy.add([w.sum().double()], then)
    return b


def batch_of_mask(mask, copy):
    """The batch shape from the mask alone (a step whose probes are not
    measured): [batch, seq] or one flag per sample; None for other shapes."""
    if mask.dim() not in (1, 2):
        return None
    b = {"rows": int(mask.shape[0]), "width": int(mask.shape[1]) if mask.dim() == 2 else 1, "tokens": mask.numel()}

    def then(vals):
        b["tokens"] = int(round(vals[0][0]))
    copy.add([mask.sum().double()], then)
    return b
