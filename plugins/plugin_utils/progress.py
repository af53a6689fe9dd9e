# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""What the collection's waiting actions share (mpi_job_wait, pip_install_wait, download, the cloud modules'
cloud_wait.py): one loop that polls an
``async`` job on the host and shows one line per poll through Ansible's display, instead of an ``until`` loop's
``FAILED - RETRYING`` or the executor's bare ``ASYNC POLL`` lines.

A worker's display reaches the controller's stdout, hence ansible-runner's and AWX's ``verbose`` events. The lines
are left out under machine-readable stdout callbacks and for ``no_log`` tasks
(``job_progress.display_wanted``); the result keeps the last ones either way.
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

# What the job's end reports, as async_status returns it (not its command line: the caller has it).
JOB_KEYS = ("rc", "msg", "stdout", "stderr", "stdout_lines", "stderr_lines", "start", "end", "delta")
# async_status's own keys, not the job's result.
ASYNC_KEYS = ("ansible_job_id", "started", "finished", "results_file")
# The last lines only: a day-long job polled every 10 s would put thousands into its result (and events).
LINES_KEPT = 50


def display_wanted(task):
    """Whether this task's progress lines may be printed (see ``job_progress.display_wanted``)."""
    return job_progress.display_wanted(
        C.config.get_config_value("DEFAULT_STDOUT_CALLBACK"),
        os.environ.get("ORIGINAL_STDOUT_CALLBACK"),
        one_line=bool(context.CLIARGS.get("one_line")),
        no_log=bool(task.no_log),
    )


def async_dir(action):
    """The directory of the host's async job files (the shell's ``async_dir``), expanded."""
    return action._remote_expand_user(action.get_shell_option("async_dir", default="~/.ansible_async"))


def async_status(action, jid, task_vars, mode="status"):
    """``async_status`` of a job (the module, as ansible.builtin.async_status's own action calls it)."""
    return action._execute_module(
        module_name="ansible.legacy.async_status",
        module_args={"jid": jid, "mode": mode, "_async_dir": async_dir(action)},
        task_vars=task_vars,
    )


def backoff_interval(polls, poll_s, first_poll_s):
    """The seconds after poll number ``polls`` (1, 2, ...) of a backed-off wait: ``first_poll_s`` (at least 1),
    doubled at every poll, at most ``poll_s``."""
    return min(poll_s, max(1, first_poll_s) * 2 ** min(polls - 1, 16))


def start(action, module_name, module_args, task_vars, limit_s):
    """``module_name`` started in the background on the host, ended by the async wrapper after ``limit_s`` (a task's
    own ``async`` is that limit, hence set for the start only). -> the start's result (``ansible_job_id``)."""
    kept = action._task.async_val
    action._task.async_val = limit_s
    try:
        return action._execute_module(
            module_name=module_name, module_args=module_args, task_vars=task_vars, wrap_async=True
        )
    finally:
        action._task.async_val = kept


def wait(action, jid, task_vars, poll_s, timeout_s, line_of, cleanup=False, first_poll_s=0, backoff=False):
    """Poll job ``jid`` every ``poll_s`` seconds until it ends or ``timeout_s`` passes; at every poll
    ``line_of(status, waited_s)`` (status: async_status's result) returns the line to show (None: no line; a list:
    several).

    -> ``(status, polls, lines)``: the last poll's status, the number of polls, the last ``LINES_KEPT`` lines.
    ``cleanup``: remove the job's status file once it ended (what a task's own ``poll`` does). ``first_poll_s``:
    the wait before the first poll (work that ends sooner shows no line at all). ``backoff``: the interval starts at
    ``first_poll_s`` (at least 1 s) and doubles up to ``poll_s``, so work of a few seconds costs no full ``poll_s``
    (the cloud modules: most runs wait for nothing)."""
    show = display_wanted(action._task)
    started = time.monotonic()
    lines, polls = collections.deque(maxlen=LINES_KEPT), 0
    time.sleep(first_poll_s)
    while True:
        polls += 1
        status = async_status(action, jid, task_vars)
        waited = time.monotonic() - started
        shown = line_of(status, waited)
        for line in [shown] if isinstance(shown, str) else shown or []:
            lines.append(line)
            if show:
                display.display(line)
        interval = backoff_interval(polls, poll_s, first_poll_s) if backoff else poll_s
        if status.get("finished") or waited + interval > timeout_s:
            break
        time.sleep(interval)
    if cleanup and status.get("finished"):
        async_status(action, jid, task_vars, mode="cleanup")
    return status, polls, list(lines)


class PollingAction(ActionBase):
    """An action that polls work on the host: its options (``ARGUMENT_SPEC``, with ``poll_s`` and ``timeout_s``) are
    checked, then ``poll_run(args, task_vars)`` returns the result."""

    TRANSFERS_FILES = False
    ARGUMENT_SPEC = {}

    def poll_run(self, args, task_vars):
        raise NotImplementedError

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        args = self.validate_argument_spec(argument_spec=self.ARGUMENT_SPEC)[1]
        if args["poll_s"] < 1 or args["timeout_s"] < 1:
            name = self._task.action.rsplit(".", 1)[-1]
            result.update(failed=True, msg="%s: poll_s and timeout_s must be at least 1" % name)
            return result
        result.update(self.poll_run(args, task_vars))
        return result


def ended(status, polls, lines, jid):
    """A wait's result: the job's own (its exit status, output, times: ``JOB_KEYS``), whether it ended, the polls
    and the lines. Waiting changes nothing (the task that started the job says what it changes)."""
    result = {key: status[key] for key in JOB_KEYS if key in status}
    result.update(
        changed=False, finished=bool(status.get("finished")), polls=polls, progress_lines=lines, ansible_job_id=jid
    )
    return result
