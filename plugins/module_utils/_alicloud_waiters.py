# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Waiting for a resource to reach a state (compare amazon.aws waiters.py).

Note that this module util is **PRIVATE** to the collection. It can change without notice.
Do not use it from other collections.
"""

from __future__ import annotations

import time


def wait_for(fetch, done, timeout, interval=0.25, max_interval=15.0, sleep=time.sleep, clock=time.monotonic):
    """Poll ``fetch()`` until ``done(value)``; return the last value or raise TimeoutError.

    The interval doubles from ``interval`` up to ``max_interval``: quick for the short waits
    (a VPC), gentle on the API for the long ones (a CPFS file system takes 20 to 40 minutes).
    """
    deadline = clock() + timeout
    while True:
        value = fetch()
        if done(value):
            return value
        if clock() >= deadline:
            raise TimeoutError("still not ready after %ss" % timeout)
        sleep(min(interval, max(0.0, deadline - clock())))
        interval = min(max_interval, interval * 2)
