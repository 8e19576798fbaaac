"""The overhead scripts behind python/README.md's numbers still run: the
floor experiment swaps the hook's internals (_forward, _backward, take) for
cut-down ones, so a change of those internals must break here, not later in
somebody's measurement. Tiny settings: this checks that every mode runs and
reports, not what it costs."""

import os
import re
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


@pytest.mark.parametrize("script,args,modes", [
    ("overhead_floor.py", ["--rounds", "1", "--steps", "2", "--d-model", "16"],
     ["none", "empty", "one-pass", "passes", "full"]),
    ("bench_overhead.py", ["--rounds", "1", "--steps", "2", "--d-model", "16", "--norm", "batchnorm"],
     ["none", "every=1", "every=5", "every=10"]),
])
def test_overhead_script_runs_every_mode(script, args, modes):
    res = subprocess.run([sys.executable, os.path.join(EXAMPLES, script)] + args,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    for m in modes:
        assert re.search(rf"^{re.escape(m)}\s+step\s+[\d.]+ ms", res.stdout, re.M), f"no line for {m}:\n{res.stdout}"
