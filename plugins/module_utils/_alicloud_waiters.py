# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Waiting for a resource to reach a state (compare amazon.aws waiters.py).

Note that this module util is **PRIVATE** to the collection. It can change without notice.
Do not use it from other collections.
"""

from __future__ import annotations

import json
import os
import tempfile
import time

from ansible_collections.scc.training.plugins.module_utils.job_progress import duration

# The longest default ``wait_timeout`` of the modules (nas_cpfs: a CPFS file system takes 20 to 40 minutes).
LONGEST_WAIT_TIMEOUT = 3600
# The most waits one module run makes, each within ``wait_timeout`` (ecs_instance: the Pending ones before a delete,
# then the set; nas_cpfs absent: its mount targets gone, then itself; nas_cpfs_protocol_service: service, then export).
WAITS_PER_RUN = 2
# The API calls around the waits, each bounded by read_timeout and api_retries: a margin, not a measure.
API_MARGIN_S = 300


def wait_for(
    fetch, done, timeout, interval=0.25, max_interval=15.0, sleep=time.sleep, clock=time.monotonic, on_poll=None
):
    """Poll ``fetch()`` until ``done(value)``; return the last value or raise TimeoutError.

    The interval doubles from ``interval`` up to ``max_interval``: quick for the short waits
    (a VPC), gentle on the API for the long ones (a CPFS file system takes 20 to 40 minutes).
    ``on_poll(value, seconds, ready)``: told every value read, with the seconds since the wait began and whether
    it is what the wait waited for.
    """
    started = clock()
    deadline = started + timeout
    while True:
        value = fetch()
        ready = bool(done(value))
        if on_poll is not None:
            on_poll(value, clock() - started, ready)
        if ready:
            return value
        if clock() >= deadline:
            raise TimeoutError("still not ready after %ss" % timeout)
        sleep(min(interval, max(0.0, deadline - clock())))
        interval = min(max_interval, interval * 2)


def state_of(value):
    """What a poll read, in a word or a few, as the API names it: a resource's ``Status`` (``Starting``), the
    statuses of a list of them with their counts (``Running 2, Starting 1``; ``none`` when empty), ``not listed``
    for None (a resource not there yet, or gone)."""
    if value is None:
        return "not listed"
    if isinstance(value, dict):
        return str(value.get("Status") or value.get("state") or "listed")
    if isinstance(value, (list, tuple)):
        counts = {}
        for item in value:
            state = state_of(item)
            counts[state] = counts.get(state, 0) + 1
        return ", ".join("%s %d" % (state, n) for state, n in sorted(counts.items())) or "none"
    return str(value)


class WaitHistory:
    """The states one wait went through: ``record`` is ``wait_for``'s ``on_poll``; ``view()`` ->
    ``{what, polls, seconds, ready, states: [{state, after_s}]}``, a state kept only where it changed (a 40-minute
    wait on a file system stays a few entries), ``after_s`` the seconds into the wait it was first read, ``ready``
    whether the last poll read what the wait waited for."""

    def __init__(self, what):
        self.what, self.polls, self.seconds, self.ready, self.states = what, 0, 0.0, False, []

    def record(self, value, seconds, ready=False):
        self.polls += 1
        self.seconds = seconds
        self.ready = ready
        state = state_of(value)
        if not self.states or self.states[-1]["state"] != state:
            self.states.append({"state": state, "after_s": round(seconds, 1)})

    def view(self):
        return {
            "what": self.what,
            "polls": self.polls,
            "seconds": round(self.seconds, 1),
            "ready": self.ready,
            "states": list(self.states),
        }


def write_waits(path, views):
    """Replace ``path`` with ``{"waits": views}`` (JSON, mode 0600) in one rename: a reader never sees half of it."""
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, mode=0o700, exist_ok=True)
    handle, partial = tempfile.mkstemp(dir=directory, prefix=".waits-")
    try:
        with os.fdopen(handle, "w") as out:
            json.dump({"waits": views}, out)
        os.replace(partial, path)
    except BaseException:
        os.unlink(partial)
        raise


def job_limit_s(wait_timeout, listing_timeout=60, dependency_timeout=600):
    """The seconds a module run in the background may take before it is ended: its waits, its listing and
    dependency retries and the API calls around them (values as a task gives them; unset: the longest defaults).
    Only a run that hangs reaches it: the module fails on its own ``wait_timeout`` first."""

    def seconds(value, default):
        try:
            return max(0, int(value))
        except (TypeError, ValueError):
            return default

    return (
        WAITS_PER_RUN * seconds(wait_timeout, LONGEST_WAIT_TIMEOUT)
        + seconds(listing_timeout, 60)
        + seconds(dependency_timeout, 600)
        + API_MARGIN_S
    )


def wait_lines(label, views, shown, ended):
    """The progress lines of one poll of a module's waits, as a person reads them while the module runs:
    ``nas_cpfs: CPFS file system cpfs-1: Pending -> Running, ready after 2m10s``.

    ``views``: the waits so far (``WaitHistory.view()`` each, in the order they began); ``shown``: what earlier
    lines showed, ``{index: [states shown, its end shown]}``, updated here; ``ended``: the module ended. A wait is
    over once it read what it waited for, a later wait began, or the module ended. One line per wait with news:
    the states not shown yet (after the last one shown), else its current state while it lasts, and its end once.
    A module that ended before any line was shown gets none: its waits were over before the first poll."""
    if ended and not shown:
        return []
    lines = []
    for index, view in enumerate(views):
        states = [entry.get("state") for entry in view.get("states") or []]
        if not states:
            continue
        count, end_shown = shown.get(index, (0, False))
        if end_shown:
            continue
        over = bool(view.get("ready")) or ended or index < len(views) - 1
        chain = states[max(0, count - 1) :] if count < len(states) else states[-1:]
        elapsed = duration(view.get("seconds") or 0)
        if view.get("ready"):
            tail = "ready after %s" % elapsed
        elif over:
            tail = "stopped waiting after %s" % elapsed
        else:
            tail = "%s elapsed" % elapsed
        lines.append("%s: %s: %s, %s" % (label, view.get("what"), " -> ".join(chain), tail))
        shown[index] = [len(states), over]
    return lines
