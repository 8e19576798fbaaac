"""Warnings that point at the user's line, not at normtop's or torch's.

A warning is raised deep inside a hook: under the user's `model(x)` or
`loss.backward()`, several torch frames down. A fixed stacklevel cannot
name the user's line from every such place, so the level is counted from
the stack itself: the first frame that is neither normtop's nor torch's.
A backward run on another thread (CUDA's autograd worker) has no user
frame at all; its warnings wait and are given at the next log(), whose
caller is the user's training loop."""

import os
import sys
import warnings

import torch

_OWN = (os.path.dirname(os.path.abspath(__file__)) + os.sep,
        os.path.dirname(os.path.abspath(torch.__file__)) + os.sep)
_waiting = []  # (message, category) given where no user frame was on the stack


def _user_level():
    """The stacklevel of the first frame outside normtop and torch, counted
    as warnings.warn counts from its caller's caller (warn below); None
    when every frame is normtop's or torch's."""
    f = sys._getframe(2)  # the caller of warn()
    level = 2
    while f is not None:
        name = f.f_code.co_filename
        if not name.startswith("<frozen") and not os.path.abspath(name).startswith(_OWN):
            return level
        f = f.f_back
        level += 1
    return None


def warn(msg, category=RuntimeWarning):
    """Warns at the user's line; without one on this thread's stack, at the
    next log() (flush)."""
    level = _user_level()
    if level is None:
        _waiting.append((msg, category))
        return
    warnings.warn(msg, category, stacklevel=level)


def flush():
    """Gives the warnings that waited for a user frame; called by log()."""
    while _waiting:
        msg, category = _waiting.pop(0)
        warn(msg, category)
