# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Waiting for a resource to reach a state (compare amazon.aws waiters.py).

Note that this module util is **PRIVATE** to the collection. It can change without notice.
Do not use it from other collections.
"""

from __future__ import annotations

import time


def wait_for(
    fetch, done, timeout, interval=0.25, max_interval=15.0, sleep=time.sleep, clock=time.monotonic, on_poll=None
):
    """Poll ``fetch()`` until ``done(value)``; return the last value or raise TimeoutError.

    The interval doubles from ``interval`` up to ``max_interval``: quick for the short waits
    (a VPC), gentle on the API for the long ones (a CPFS file system takes 20 to 40 minutes).
    ``on_poll(value, seconds)``: told every value read, with the seconds since the wait began.
    """
    started = clock()
    deadline = started + timeout
    while True:
        value = fetch()
        if on_poll is not None:
            on_poll(value, clock() - started)
        if done(value):
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
    ``{what, polls, seconds, states: [{state, after_s}]}``, a state kept only where it changed (a 40-minute wait on
    a file system stays a few entries), ``after_s`` the seconds into the wait it was first read."""

    def __init__(self, what):
        self.what, self.polls, self.seconds, self.states = what, 0, 0.0, []

    def record(self, value, seconds):
        self.polls += 1
        self.seconds = seconds
        state = state_of(value)
        if not self.states or self.states[-1]["state"] != state:
            self.states.append({"state": state, "after_s": round(seconds, 1)})

    def view(self):
        return {"what": self.what, "polls": self.polls, "seconds": round(self.seconds, 1), "states": list(self.states)}
