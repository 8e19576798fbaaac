import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
# Tests run against the package in this checkout, installed or not.
sys.path.insert(0, os.path.join(REPO, "python"))


def _go():
    for cand in (shutil.which("go"), "/usr/local/go/bin/go"):
        if cand and os.path.exists(cand):
            return cand
    return None


@pytest.fixture(scope="session")
def go_tool(tmp_path_factory):
    """Builds a Go program of this repository; skips when Go is missing."""
    go = _go()
    if go is None:
        pytest.skip("skipped: the Go toolchain is not installed (needed to compare with normtop's kernels)")
    out = tmp_path_factory.mktemp("gobin")

    def build(pkg, name):
        exe = str(out / name)
        if not os.path.exists(exe):
            subprocess.run([go, "build", "-o", exe, pkg], cwd=REPO, check=True)
        return exe
    return build
