# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""How far a running mpi_job has got, as one line a person reads while waiting (pure functions).

The ranks rewrite ``progress-rank<k>.json`` after every step (runtime/scc_training_runtime/mpi_job_rank.py:
``{rank, host, step, steps, loss, status, error, updated_at}`` and, where the program says so,
``samples_per_step`` and ``unit``). The controller polls them (the ``scc.training.mpi_job_wait`` action)
and shows one line per poll instead of Ansible's ``FAILED - RETRYING`` of an ``until`` loop:

- ``snapshot``: the progress files read in one poll -> the job's position: the slowest rank's step (what
  every rank has done), the total, rank 0's loss (else the lowest rank's), the samples per step;
- ``rate``: the snapshots of the last polls -> steps per second (the slowest rank's steps over its own
  ``updated_at`` clock, so the poll's own delay does not count), None until two after the first step differ;
- ``progress_line``: a snapshot and a rate -> ``bert run 20260101: step 40/200 (20%), loss 7.1234,
  12.5 sequences/s, about 2m08s left (2 rank(s) read)``;
- ``display_wanted``: whether to show the lines at all: not under machine-readable stdout callbacks
  (``json``, ``jsonl``, ``oneline`` of ``ansible -o``, ``minimal``), whose output a program reads.

Pure Python, no Ansible imports: plugins/action/mpi_job_wait.py wraps these.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math

# The options of scc.training.mpi_job_wait: its action (the controller's loop) and its module (one poll's read).
WAIT_ARGUMENT_SPEC = {
    "jid": {"type": "str", "required": True},
    "run_dir": {"type": "path", "required": True},
    "label": {"type": "str", "default": "job"},
    "poll_s": {"type": "int", "default": 10},
    "timeout_s": {"type": "int", "required": True},
}
# Stdout callbacks whose output a program parses: a progress line there would corrupt it.
MACHINE_CALLBACKS = frozenset(("json", "jsonl", "oneline", "minimal"))


def _number(value):
    """A finite int/float, else None (bools, strings and NaN are not numbers here)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if math.isfinite(value) else None


def snapshot(records):
    """The progress files of one poll (dicts; others skipped) -> ``{step, steps, loss, loss_rank, updated_at,
    samples_per_step, unit, ranks, failed, finished}``; ``ranks`` 0 when no file was readable yet.

    ``step`` is the slowest rank's (every rank got that far), ``updated_at`` when that rank wrote it; ``loss``
    is rank 0's when it is among them, else the lowest rank's; ``failed`` the ranks that recorded a failure."""
    ranks = sorted(
        (r for r in records or [] if isinstance(r, dict) and isinstance(r.get("rank"), int)), key=lambda r: r["rank"]
    )
    if not ranks:
        return {
            "step": 0,
            "steps": None,
            "loss": None,
            "loss_rank": None,
            "updated_at": None,
            "samples_per_step": None,
            "unit": None,
            "ranks": 0,
            "failed": [],
            "finished": False,
        }
    slowest = min(ranks, key=lambda r: (_number(r.get("step")) or 0, r["rank"]))
    totals = [t for t in (_number(r.get("steps")) for r in ranks) if t]
    samples = [s for s in (_number(r.get("samples_per_step")) for r in ranks) if s]
    return {
        "step": int(_number(slowest.get("step")) or 0),
        "steps": int(max(totals)) if totals else None,
        "loss": _number(ranks[0].get("loss")),
        "loss_rank": ranks[0]["rank"],
        "updated_at": _number(slowest.get("updated_at")),
        "samples_per_step": samples[0] if samples else None,
        "unit": next((str(r["unit"]) for r in ranks if r.get("unit")), None),
        "ranks": len(ranks),
        "failed": [r["rank"] for r in ranks if r.get("status") == "failed"],
        "finished": all(r.get("status") not in (None, "running") for r in ranks),
    }


def rate(snapshots):
    """Steps per second from the oldest to the newest snapshot (by the ranks' own clock), or None. Snapshots
    before the first step are left out: their time stamp is the rank's start, before its data and model."""
    timed = [s for s in snapshots if s.get("updated_at") is not None and s.get("ranks") and s.get("step")]
    if len(timed) < 2:
        return None
    first, last = timed[0], timed[-1]
    steps, seconds = last["step"] - first["step"], last["updated_at"] - first["updated_at"]
    if steps <= 0 or seconds <= 0:
        return None
    return steps / seconds


def duration(seconds):
    """``seconds`` as ``45s``, ``2m08s`` or ``3h05m``."""
    seconds = int(max(0, seconds) + 0.5)
    if seconds < 60:
        return "%ds" % seconds
    if seconds < 3600:
        return "%dm%02ds" % (seconds // 60, seconds % 60)
    return "%dh%02dm" % (seconds // 3600, seconds % 3600 // 60)


def progress_line(label, snap, steps_per_s=None, finished=False, waited_s=None):
    """One line for a person: where the job is, its loss, its speed and the time left (see the module's doc)."""
    if not snap.get("ranks"):
        waiting = " (%s)" % duration(waited_s) if waited_s is not None else ""
        return "%s: %s, no rank has written its progress yet%s" % (
            label,
            "ended" if finished else "starting",
            waiting,
        )
    parts = []
    steps = snap.get("steps")
    if steps:
        parts.append("step %d/%d (%d%%)" % (snap["step"], steps, 100 * snap["step"] // steps))
    else:
        parts.append("step %d" % snap["step"])
    loss = snap.get("loss")
    parts.append("loss %.4f" % loss if loss is not None else "no loss yet")
    if steps_per_s:
        if snap.get("samples_per_step"):
            parts.append("%.1f %s/s" % (steps_per_s * snap["samples_per_step"], snap.get("unit") or "samples"))
        else:
            parts.append("%.2f steps/s" % steps_per_s)
        if steps and not finished and snap["step"] < steps:
            parts.append("about %s left" % duration((steps - snap["step"]) / steps_per_s))
    if snap.get("failed"):
        parts.append("FAILED rank(s) %s" % ", ".join(map(str, snap["failed"])))
    elif finished:
        parts.append("ended")
    return "%s: %s (%d rank(s) read)" % (label, ", ".join(parts), snap["ranks"])


def display_wanted(stdout_callback, wrapped_callback=None, one_line=False, no_log=False):
    """Whether progress lines may be printed: not for ``ansible -o``, a machine-readable stdout callback
    (short or fully qualified name, e.g. ``ansible.posix.json``) or a ``no_log`` task.

    ansible-runner (hence AWX) replaces the stdout callback with its ``awx_display``, which wraps the one the
    user chose and names it in ``$ORIGINAL_STDOUT_CALLBACK`` (``wrapped_callback`` here)."""
    if one_line or no_log:
        return False
    name = str(stdout_callback or "default").rsplit(".", 1)[-1]
    if name == "awx_display":
        name = str(wrapped_callback or "default").rsplit(".", 1)[-1]
    return name not in MACHINE_CALLBACKS
