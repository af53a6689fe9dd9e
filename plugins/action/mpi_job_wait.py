# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Action plugin of ``scc.training.mpi_job_wait`` (documented in plugins/modules/mpi_job_wait.py).

One task waits for the whole job: at every poll it asks ``async_status`` whether the job ended and runs the
module of the same name on the host to read the ranks' progress files, then shows one line through
Ansible's display (a worker's display reaches the controller's stdout, hence ansible-runner's and AWX's
``verbose`` events). An ``until`` loop would print ``FAILED - RETRYING`` at every poll of a healthy job.
"""

from __future__ import annotations

import collections
import os
import time

from ansible import constants as C
from ansible import context
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.scc.training.plugins.module_utils import job_progress

display = Display()

_ARGUMENT_SPEC = job_progress.WAIT_ARGUMENT_SPEC
# The rate is measured over the last polls: recent enough to follow a change, long enough to be steady.
_RATE_WINDOW = 6
_LINES_KEPT = 50
# What the job's end reports, as async_status returns it (not its command line: the caller has it).
_JOB_KEYS = ("rc", "msg", "stdout", "stderr", "stdout_lines", "stderr_lines", "start", "end", "delta")


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(_ARGUMENT_SPEC)

    def _job_status(self, jid, task_vars):
        """``async_status`` of the job (the module, as ansible.builtin.async_status's own action calls it)."""
        async_dir = self._remote_expand_user(self.get_shell_option("async_dir", default="~/.ansible_async"))
        return self._execute_module(
            module_name="ansible.legacy.async_status",
            module_args={"jid": jid, "mode": "status", "_async_dir": async_dir},
            task_vars=task_vars,
        )

    def _progress_files(self, args, task_vars):
        read = self._execute_module(module_name="scc.training.mpi_job_wait", module_args=args, task_vars=task_vars)
        return read.get("progress_files") or []

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        args = self.validate_argument_spec(argument_spec=_ARGUMENT_SPEC)[1]
        if args["poll_s"] < 1 or args["timeout_s"] < 1:
            result.update(failed=True, msg="mpi_job_wait: poll_s and timeout_s must be at least 1")
            return result
        show = job_progress.display_wanted(
            C.config.get_config_value("DEFAULT_STDOUT_CALLBACK"),
            os.environ.get("ORIGINAL_STDOUT_CALLBACK"),
            one_line=bool(context.CLIARGS.get("one_line")),
            no_log=bool(self._task.no_log),
        )
        started = time.monotonic()
        snapshots = collections.deque(maxlen=_RATE_WINDOW)
        # The last lines only: a day-long job polled every 10 s would put thousands into its result (and events).
        lines, polls, status = collections.deque(maxlen=_LINES_KEPT), 0, {}
        while True:
            polls += 1
            status = self._job_status(args["jid"], task_vars)
            finished = bool(status.get("finished"))
            snap = job_progress.snapshot(self._progress_files(args, task_vars))
            snapshots.append(snap)
            waited = time.monotonic() - started
            line = job_progress.progress_line(
                args["label"], snap, job_progress.rate(list(snapshots)), finished=finished, waited_s=waited
            )
            lines.append(line)
            if show:
                display.display(line)
            if finished or waited + args["poll_s"] > args["timeout_s"]:
                break
            time.sleep(args["poll_s"])
        result.update({key: status[key] for key in _JOB_KEYS if key in status})
        result.update(
            changed=False,
            # A failed job is not a failed wait: the caller judges the job from rc and the ranks' files.
            job_failed=bool(status.get("failed")),
            finished=bool(status.get("finished")),
            polls=polls,
            progress=snap,
            progress_lines=list(lines),
            ansible_job_id=args["jid"],
        )
        return result
