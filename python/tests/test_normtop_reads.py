"""normtop itself reads what the hook writes: export and replay of a
finished stream, of one cut by SIGKILL mid-run, and of a distributed run's
per-rank streams shown side by side."""

import csv
import io
import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from helpers import read_stream

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.dirname(HERE)

TRAIN = textwrap.dedent("""
    import sys, time, torch
    sys.path.insert(0, {pkg!r})
    import normtop
    from torch import nn
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.Linear(8, 8), nn.BatchNorm1d(8), nn.Linear(8, 1))
    run = normtop.watch(net, sys.argv[1], spectrum_every=0)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    steps = int(sys.argv[2])
    for step in range(1, steps + 1):
        loss = net(torch.randn(16, 4)).square().mean()
        opt.zero_grad(); loss.backward(); opt.step()
        run.log(step, train_loss=loss)
        if step == 3:
            print("ready", flush=True)
            if len(sys.argv) > 3:
                time.sleep(60)  # killed here
    run.close()
""")


def normtop_cmd(go_tool):
    return go_tool("./cmd/normtop", "normtop")


def test_export_of_a_finished_stream(tmp_path, go_tool):
    path = str(tmp_path / "run.jsonl")
    subprocess.run([sys.executable, "-c", TRAIN.format(pkg=PKG), path, "5"], check=True)
    _, frames, _ = read_stream(path)
    exe = normtop_cmd(go_tool)
    out = subprocess.run([exe, "export", path, "--format", "csv"], capture_output=True, text=True, check=True).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    got = {(r["step"], r["layer"], r["series"]): float(r["value"]) for r in rows if r["value"] != ""}
    n = 0
    for f in frames:
        for layer, vals in f["layers"].items():
            for probe, v in vals.items():
                assert got[(str(f["step"]), layer, probe)] == v
                n += 1
        assert got[(str(f["step"]), "", "train_loss")] == f["train_loss"]
    assert n > 50
    rep = subprocess.run([exe, "replay", "--headless", path], capture_output=True, text=True)
    assert rep.returncode == 0, rep.stderr
    assert "done at step 5" in rep.stdout and rep.stderr == ""


def test_stream_killed_mid_run(tmp_path, go_tool):
    """SIGKILL while training: everything written before is read, the run
    says it has no end record (the writer's lock is gone), exit 0."""
    path = str(tmp_path / "killed.jsonl")
    p = subprocess.Popen([sys.executable, "-c", TRAIN.format(pkg=PKG), path, "50", "hang"], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    exe = normtop_cmd(go_tool)
    # While it runs, the lock tells normtop the run is being written.
    live = subprocess.run([exe, "replay", "--headless", path], capture_output=True, text=True)
    assert live.returncode == 0 and "still being written" in live.stderr, live.stderr
    p.send_signal(signal.SIGKILL)
    p.wait()
    with open(path, "a") as f:  # what a kill inside a write leaves
        f.write('{"variant":"Sequential","step":4,"train_lo')
    rep = subprocess.run([exe, "replay", "--headless", path], capture_output=True, text=True)
    assert rep.returncode == 0
    assert "no end record" in rep.stderr and "damaged" not in rep.stderr, rep.stderr
    assert "step      2" in rep.stdout  # the last complete line (step 3 is held until step 4 is logged)
    out = subprocess.run([exe, "export", path, "--format", "jsonl"], capture_output=True, text=True, check=True).stdout
    assert [json.loads(l)["step"] for l in out.splitlines()] == [1, 2]


DIST = textwrap.dedent("""
    import os, sys, torch
    sys.path.insert(0, {pkg!r})
    import normtop
    import torch.distributed as dist
    from torch import nn
    rank, world = int(sys.argv[2]), int(sys.argv[3])
    dist.init_process_group("gloo", init_method="file://" + sys.argv[4], rank=rank, world_size=world)
    torch.manual_seed(rank)
    net = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.Linear(8, 1))
    run = normtop.watch(net, sys.argv[1], ranks=sys.argv[5] if sys.argv[5] == "all" else 0, spectrum_every=0)
    for step in (1, 2, 3):
        loss = net(torch.randn(8, 4)).square().mean()
        loss.backward()
        for p in net.parameters():
            dist.all_reduce(p.grad)
        run.log(step, train_loss=loss)
    run.close()
    dist.destroy_process_group()
""")


@pytest.mark.parametrize("ranks", ["0", "all"])
def test_distributed_ranks(tmp_path, go_tool, ranks):
    path = str(tmp_path / "d.jsonl")
    init = str(tmp_path / "init")
    procs = [subprocess.Popen([sys.executable, "-c", DIST.format(pkg=PKG), path, str(r), "2", init, ranks])
             for r in range(2)]
    for p in procs:
        assert p.wait(timeout=120) == 0
    files = sorted(os.listdir(tmp_path))
    if ranks == "0":
        assert "d.rank1.jsonl" not in files
        return
    assert "d.rank1.jsonl" in files
    head, _, _ = read_stream(path)
    assert head["streams"] == ["d.rank1.jsonl"]
    exe = normtop_cmd(go_tool)
    out = subprocess.run([exe, "export", path, "--format", "jsonl"], capture_output=True, text=True, check=True).stdout
    seen = sorted((json.loads(l)["variant"], json.loads(l)["step"]) for l in out.splitlines())
    assert seen == [("Sequential@rank0", s) for s in (1, 2, 3)] + [("Sequential@rank1", s) for s in (1, 2, 3)]
    # Each rank's own probes, not rank 0's twice.
    r0 = [json.loads(l) for l in out.splitlines() if "@rank0" in l]
    r1 = [json.loads(l) for l in out.splitlines() if "@rank1" in l]
    assert r0[0]["layers"]["1"]["in_mean"] != r1[0]["layers"]["1"]["in_mean"]


def test_script_without_close(tmp_path):
    """A script that never calls close() still leaves its last step and an
    end line (interrupted) when the interpreter exits."""
    path = str(tmp_path / "noclose.jsonl")
    code = TRAIN.format(pkg=PKG).replace("run.close()", "pass")
    subprocess.run([sys.executable, "-c", code, path, "4"], check=True, capture_output=True)
    _, frames, end = read_stream(path)
    assert [f["step"] for f in frames] == [1, 2, 3, 4]
    assert frames[-1]["status"] == "stopped" and end == {"end": {"status": "interrupted"}}


def test_normtop_derives_alerts_from_the_hooks_values(tmp_path, go_tool):
    """The hook writes no alerts; normtop's reader derives them from the
    values with its trainer's rules (docs/formats.md, header "alerts"): an input
    100× larger after 40 calm steps is an outlier of the layer's in_std,
    reported once, at that step, for that layer only."""
    import torch
    from torch import nn

    import normtop
    torch.manual_seed(0)
    net = nn.Sequential(nn.LayerNorm(8), nn.Linear(8, 8), nn.LayerNorm(8))
    path = str(tmp_path / "run.jsonl")
    run = normtop.watch(net, path, spectrum_every=0)
    for step in range(1, 46):
        x = torch.randn(32, 8) * (100.0 if step == 41 else 1.0)
        net(x).square().mean().backward()
        run.log(step, train_loss=0.0)
    run.close()
    head, frames, _ = read_stream(path)
    assert "alerts" not in head and not any("alerts" in f for f in frames)
    out = subprocess.run([normtop_cmd(go_tool), "export", path, "--format", "jsonl"], capture_output=True,
                         text=True, check=True).stdout
    alerts = [a for line in out.splitlines() if line.strip() for a in json.loads(line).get("alerts", [])]
    spikes = [(a["step"], a["layer"], a["probe"]) for a in alerts if a["probe"] in ("in_std", "in_maxabs")]
    assert (41, "0", "in_std") in spikes and (41, "0", "in_maxabs") in spikes, alerts
    assert all(step == 41 and layer == "0" for step, layer, _ in spikes), spikes
    assert all(a["kind"] == "outlier" for a in alerts), alerts
