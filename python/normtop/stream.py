"""The normtop stream (docs/formats.md): JSON Lines, append-only, crash-safe.

Line 1 is the header (format tag and RunMeta), then one line per step and
variant in the schema of `normtop export --format jsonl`, then one end line.
Every line goes to the kernel in one write(2) on an O_APPEND descriptor, so a
crash leaves at most one torn last line, which normtop's reader ignores. The
writer holds a POSIX write lock on the file while it is open; the kernel
drops it when the process dies, which is how normtop tells a run still being
written from one that crashed.
"""

import datetime
import fcntl
import json
import math
import os
import socket

FORMAT_TAG = "normtop_stream"
FORMAT_VERSION = 1

# Probe names in the order of probes/frame.go (docs/math.md §5).
PROBES = (
    "dist_mu", "dist_var", "dist_psi2", "g_mu", "g_var", "g_psi2",
    "dx_mean", "dx_var", "dy_mean", "dy_var",
    "in_mean", "in_std", "in_maxabs", "ada_frac", "pn_gamma", "pn_nu",
    "gamma_drift", "beta_norm", "rdist_mu", "rdist_var", "rdist_psi2", "gw_norm",
)


def num(v):
    """A float as the stream writes it: NaN → null, ±Inf → "+Inf"/"-Inf"."""
    if v is None:
        return None
    v = float(v)
    if math.isnan(v):
        return None
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    return v


def rfc3339(t):
    return t.astimezone(datetime.timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


IF_EXISTS = ("error", "suffix")
MAX_SUFFIX = 9999


def _create(path, if_exists):
    """Creates the stream file, never appending to or replacing another
    run's (O_EXCL). An existing path is an error, or with if_exists="suffix"
    the first free path.<k> before the extension (runs/a.jsonl → runs/a.1.jsonl)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND
    root, ext = os.path.splitext(path)
    for k in range(MAX_SUFFIX + 1):
        p = path if k == 0 else f"{root}.{k}{ext}"
        try:
            return os.open(p, flags, 0o644), p
        except FileExistsError:
            if if_exists == "error":
                raise FileExistsError(f"normtop: stream {path} already exists; pass a new path, or "
                                      "if_exists=\"suffix\" to write the next free one") from None
    raise FileExistsError(f"normtop: stream {path} and {MAX_SUFFIX} suffixed paths already exist")


class StreamWriter:
    """Writes one stream file. Not thread-safe; one writer per file."""

    def __init__(self, path, meta, streams=None, if_exists="error"):
        if if_exists not in IF_EXISTS:
            raise ValueError(f"normtop: if_exists={if_exists!r}; valid: {', '.join(IF_EXISTS)}")
        d = os.path.dirname(path)
        if d:
            os.makedirs(d, exist_ok=True)
        self._fd, path = _create(path, if_exists)
        try:
            fcntl.lockf(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            pass  # no POSIX locks here: readers fall back to the file's age
        self.path = path
        head = {
            FORMAT_TAG: FORMAT_VERSION,
            "meta": meta,
            "created": rfc3339(datetime.datetime.now(datetime.timezone.utc)),
            "writer_pid": os.getpid(),
            "writer_host": socket.gethostname(),
        }
        if streams:
            head["streams"] = list(streams)
        self._line(head)

    def _line(self, obj):
        b = (json.dumps(obj, separators=(",", ":"), allow_nan=False, ensure_ascii=False) + "\n").encode()
        # One write per line; a short write (disk full, signal) is finished
        # so that a line is never left torn while the process lives.
        while b:
            n = os.write(self._fd, b)
            b = b[n:]

    def frame(self, obj):
        self._line(obj)

    def close(self, status="completed", diverged=None):
        if self._fd < 0:
            return
        end = {"status": status}
        if diverged:
            end["diverged"] = {str(k): int(v) for k, v in diverged.items()}
        self._line({"end": end})
        try:
            os.fsync(self._fd)
        except OSError:
            pass
        os.close(self._fd)
        self._fd = -1
