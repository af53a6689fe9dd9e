# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The action of the cloud modules that wait minutes (ecs_instance, ecs_nat_gateway, nas_cpfs, nas_cpfs_mount_target,
nas_cpfs_protocol_service, cs_cluster, cs_cluster_nodes: plugins/action/<module>.py each names this class): one
progress line per poll while the module waits for a resource to reach a state the API reports, instead of minutes
of silence.

The module runs in the background (``async``) with ``progress_file`` set: at every poll of its waits it rewrites that
file with the states read so far (plugins/module_utils/_alicloud.py, ``wait_history``). At every poll of the job (the
loop of plugins/plugin_utils/progress.py, after 1, 2, 4... seconds up to ``poll``: the task keyword) the action
reads the file
(``slurp``) and shows the waits' news (``_alicloud_waiters.wait_lines``); once the module ended, its result's own
``waits``. The result is the module's, with ``polls`` and ``progress_lines`` added.

Where the module cannot wait, it runs as a plain task does (no background job, no file, no line): check mode,
``wait: false``, and a task with its own ``async`` (the executor then polls it, as for any module).
"""

from __future__ import annotations

import base64
import json
import uuid

from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase
from ansible.plugins.action.normal import ActionModule as NormalAction

from ansible_collections.scc.training.plugins.module_utils import _alicloud_waiters
from ansible_collections.scc.training.plugins.plugin_utils import progress

# A module that ends within this (a converged run, a quick wait) shows no line.
FIRST_POLL_S = 1


def read_waits(action, path, task_vars):
    """The waits the module wrote to ``path`` so far ([] while it has written none)."""
    read = action._execute_module(module_name="ansible.legacy.slurp", module_args={"src": path}, task_vars=task_vars)
    if read.get("failed") or "content" not in read:
        return []
    try:
        return json.loads(base64.b64decode(read["content"])).get("waits") or []
    except (ValueError, TypeError, AttributeError):
        return []


class CloudWaitAction(NormalAction):
    """A cloud module that waits, run in the background with one line per poll of its waits."""

    def run(self, tmp=None, task_vars=None):
        args = self._task.args
        if self._task.async_val or self._task.check_mode or not boolean(args.get("wait", True), strict=False):
            return super().run(tmp, task_vars)
        result = self._run_action_base(tmp, task_vars)
        label = self._task.action.rsplit(".", 1)[-1]
        path = "%s/scc_training_waits.%s.json" % (progress.async_dir(self), uuid.uuid4().hex)
        limit_s = _alicloud_waiters.job_limit_s(
            args.get("wait_timeout"), args.get("listing_timeout", 60), args.get("dependency_timeout", 600)
        )
        started = progress.start(self, self._task.action, dict(args, progress_file=path), task_vars, limit_s)
        if started.get("failed") or "ansible_job_id" not in started:
            result.update(started)
            return result
        shown = {}

        def lines_of(status, _waited):
            ended = bool(status.get("finished"))
            views = (status.get("waits") or []) if ended else read_waits(self, path, task_vars)
            return _alicloud_waiters.wait_lines(label, views, shown, ended)

        poll_s = max(1, self._task.poll or 1)
        status, polls, lines = progress.wait(
            self,
            started["ansible_job_id"],
            task_vars,
            poll_s,
            limit_s + poll_s,
            lines_of,
            cleanup=True,
            first_poll_s=FIRST_POLL_S,
            backoff=True,
        )
        if not status.get("finished"):
            # The module removes its progress file as it exits (exit_json, fail_json): not one ended by the limit.
            self._execute_module(
                module_name="ansible.legacy.file", module_args={"path": path, "state": "absent"}, task_vars=task_vars
            )
        result.update({k: v for k, v in status.items() if k not in progress.ASYNC_KEYS})
        if not status.get("finished"):
            result.update(failed=True, msg="%s did not end within %d s (its waits and API calls)" % (label, limit_s))
        result.update(polls=polls, progress_lines=lines)
        return result

    def _run_action_base(self, tmp, task_vars):
        # ActionBase.run (the task's checks and facts), not NormalAction.run (which would run the module).
        return ActionBase.run(self, tmp, task_vars)
