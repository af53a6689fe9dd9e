"""Counts the task executions of an ansible-playbook run per host, for bench/bringup_scale.py.

A loop item counts as one execution (its task's overall result is not counted again); a skipped
task or item counts apart. The executions are also counted per role (``-`` for a playbook's own tasks), to
show where a run's cost goes, and the skips per role. The counts go as JSON to the file named by SCC_BENCH_COUNTS at the end.
"""

from __future__ import annotations

import json
import os
from collections import Counter

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
name: scale_count
type: aggregate
short_description: task executions per host, for the bring-up benchmark
description: Writes the executions and the skips per host, and the executions and skips per role, as JSON to the file named by
  SCC_BENCH_COUNTS.
"""


class CallbackModule(CallbackBase):
    """Counts results per host; writes them when the run ends."""

    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "scale_count"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.ran = Counter()
        self.skipped = Counter()
        self.roles = Counter()
        self.skipped_roles = Counter()

    @staticmethod
    def _role(result) -> str:
        role = getattr(getattr(result, "_task", None), "_role", None)
        return role.get_name() if role else "-"

    def _count(self, result):
        self.ran[result._host.get_name()] += 1
        self.roles[self._role(result)] += 1

    def _count_skip(self, result):
        self.skipped[result._host.get_name()] += 1
        self.skipped_roles[self._role(result)] += 1

    def _ran(self, result, *_args, **_kwargs):
        # A loop's overall result repeats its items.
        if "results" not in result._result:
            self._count(result)

    def _ran_item(self, result, *_args, **_kwargs):
        self._count(result)

    def _skipped(self, result, *_args, **_kwargs):
        if "results" not in result._result:
            self._count_skip(result)

    def _skipped_item(self, result, *_args, **_kwargs):
        self._count_skip(result)

    v2_runner_on_ok = v2_runner_on_failed = v2_runner_on_unreachable = _ran
    v2_runner_item_on_ok = v2_runner_item_on_failed = _ran_item
    v2_runner_on_skipped = _skipped
    v2_runner_item_on_skipped = _skipped_item

    def v2_playbook_on_stats(self, stats):
        with open(os.environ["SCC_BENCH_COUNTS"], "w", encoding="utf-8") as counts:
            json.dump(
                {"ran": self.ran, "skipped": self.skipped, "roles": self.roles, "skipped_roles": self.skipped_roles},
                counts,
            )
