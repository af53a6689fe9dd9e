# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Action plugin of ``scc.training.mpi_job_wait`` (documented in plugins/modules/mpi_job_wait.py).

One task waits for the whole job (the loop of plugins/plugin_utils/progress.py): at every poll it asks
``async_status`` whether the job ended and runs the module of the same name on the host to read the ranks' progress
files, then shows one line through Ansible's display (a worker's display reaches the controller's stdout, hence
ansible-runner's and AWX's ``verbose`` events). An ``until`` loop would print ``FAILED - RETRYING`` at every poll of
a healthy job.
"""

from __future__ import annotations

import collections

from ansible_collections.scc.training.plugins.module_utils import job_progress
from ansible_collections.scc.training.plugins.plugin_utils import progress

_ARGUMENT_SPEC = job_progress.WAIT_ARGUMENT_SPEC
# The rate is measured over the last polls: recent enough to follow a change, long enough to be steady.
_RATE_WINDOW = 6


class ActionModule(progress.PollingAction):
    ARGUMENT_SPEC = _ARGUMENT_SPEC
    _VALID_ARGS = frozenset(_ARGUMENT_SPEC)

    def _progress_files(self, args, task_vars):
        read = self._execute_module(module_name="scc.training.mpi_job_wait", module_args=args, task_vars=task_vars)
        return read.get("progress_files") or []

    def poll_run(self, args, task_vars):
        snapshots = collections.deque(maxlen=_RATE_WINDOW)

        def line_of(status, waited):
            snapshots.append(job_progress.snapshot(self._progress_files(args, task_vars)))
            return job_progress.progress_line(
                args["label"],
                snapshots[-1],
                job_progress.rate(list(snapshots)),
                finished=bool(status.get("finished")),
                waited_s=waited,
            )

        status, polls, lines = progress.wait(self, args["jid"], task_vars, args["poll_s"], args["timeout_s"], line_of)
        result = progress.ended(status, polls, lines, args["jid"])
        # A failed job is not a failed wait: the caller judges the job from rc and the ranks' files.
        result.update(job_failed=bool(status.get("failed")), progress=snapshots[-1])
        return result
