import json
import math


def read_stream(path):
    """The stream's header, frame lines and end line (docs/formats.md)."""
    with open(path) as f:
        lines = [json.loads(l) for l in f if l.strip()]
    head, rest = lines[0], lines[1:]
    end = rest[-1] if rest and "end" in rest[-1] else None
    frames = rest[:-1] if end else rest
    return head, frames, end


def close(a, b, rtol, atol=0.0):
    if a is None or b is None:
        return a is None and b is None
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= rtol * max(abs(a), abs(b)) + atol
