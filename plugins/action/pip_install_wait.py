# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Action plugin of ``scc.training.pip_install_wait`` (documented in plugins/modules/pip_install_wait.py).

One task waits for an ``async`` pip install (the loop of plugins/plugin_utils/progress.py): at every poll it asks
``async_status`` whether pip ended and runs the module of the same name on the host to list the venv's finished
dist-info directories, then shows how many of the wheels pip's dry run named are in, instead of a task's bare
``ASYNC POLL`` lines. It returns pip's own result (rc, stdout, stderr), as the install task returned it.

The wheels' sizes do not change while pip installs them: the module weighs them at the first poll only (the report
with their paths); later polls pass it a report without wheels, so it only lists the dist-info directories.
"""

from __future__ import annotations

from ansible_collections.scc.training.plugins.module_utils import transfer_progress
from ansible_collections.scc.training.plugins.plugin_utils import progress

_ARGUMENT_SPEC = transfer_progress.PIP_WAIT_ARGUMENT_SPEC


class ActionModule(progress.PollingAction):
    ARGUMENT_SPEC = _ARGUMENT_SPEC
    _VALID_ARGS = frozenset(_ARGUMENT_SPEC)

    def poll_run(self, args, task_vars):
        wanted = transfer_progress.wanted_wheels(args["report"])
        # The module reads names, versions and wheel paths: not the packages' descriptions of the full report.
        first_args = dict(args, report=transfer_progress.slim_report(args["report"]))
        later_args = dict(args, report={"install": []})
        snaps, wheel_bytes = [], {}

        def line_of(status, waited):
            read = self._execute_module(
                module_name="scc.training.pip_install_wait",
                module_args=later_args if snaps else first_args,
                task_vars=task_vars,
            )
            if not snaps:
                wheel_bytes.update(read.get("wheel_bytes") or {})
            snaps.append(transfer_progress.install_snapshot(wanted, read.get("installed"), wheel_bytes))
            return transfer_progress.install_line(
                args["label"], snaps[-1], waited, finished=bool(status.get("finished"))
            )

        status, polls, lines = progress.wait(
            self, args["jid"], task_vars, args["poll_s"], args["timeout_s"], line_of, cleanup=True
        )
        result = dict(progress.ended(status, polls, lines, args["jid"]), progress=snaps[-1])
        if not status.get("finished"):
            result["msg"] = "pip did not end within %d s (timeout_s)" % args["timeout_s"]
        return result
