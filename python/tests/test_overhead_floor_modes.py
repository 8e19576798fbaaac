"""Each mode of overhead_floor.py times what its docstring says, forward and
backward: the hook calls the mode's _forward and, for each run it returned
(not None, which means "skip this layer"), the mode's _backward with the
shipped arguments. A stand-in that broke that contract made the hook skip
every backward while the mode still printed a step time (the README's
floor numbers understated the cut-down hooks' cost); this catches it."""

import importlib
import os
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


@pytest.fixture(scope="module")
def floor():
    sys.path.insert(0, EXAMPLES)
    try:
        mod = importlib.import_module("overhead_floor")
    finally:
        sys.path.remove(EXAMPLES)
    yield mod
    mod.use("full")  # the shipped hook back for the tests that follow


@pytest.mark.parametrize("mode", ["empty", "one-pass", "passes", "full"])
def test_every_mode_runs_forward_and_backward_per_layer(floor, mode, tmp_path):
    import normtop
    model, step = floor.bench_step("layernorm", 16)
    sites = sum(isinstance(m, floor.torch.nn.LayerNorm) for m in model.modules())
    calls = {"_forward": 0, "_backward": 0}
    floor.use(mode)
    V = floor.W._Variant

    def counted(name):
        fn = getattr(V, name)

        def wrapper(*args, **kw):
            calls[name] += 1
            return fn(*args, **kw)
        return wrapper
    for name in calls:
        setattr(V, name, counted(name))
    run = normtop.watch(model, str(tmp_path / "floor.jsonl"), spectrum_every=0)
    try:
        for i in (1, 2):
            step(run, i)
    finally:
        run.close()
        floor.use("full")
    assert sites == 5
    assert calls == {"_forward": 2 * sites, "_backward": 2 * sites}, f"{mode}: {calls}"
