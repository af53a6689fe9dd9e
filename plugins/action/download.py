# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Action plugin of ``scc.training.download`` (documented in plugins/modules/download.py): ``ansible.builtin.get_url``
with a progress line per poll while a file downloads.

A file not there yet is fetched by get_url run asynchronously, its ``tmp_dest`` a directory of its own beside
``dest``; at every poll (the loop of plugins/plugin_utils/progress.py) the module of the same name reports the
partial file's size (and once, the size the server announces), and one line shows the bytes of the total, the rate
and the time left. get_url itself checks the checksum and moves the file into place, so the result, the failures
(a checksum that does not match) and idempotence are get_url's. A file already at ``dest`` (get_url only checks it,
or fetches it again when its checksum differs) and check mode run get_url as a plain task does.
"""

from __future__ import annotations

import os

from ansible_collections.scc.training.plugins.module_utils import transfer_progress
from ansible_collections.scc.training.plugins.module_utils.redact import redact_data
from ansible_collections.scc.training.plugins.plugin_utils import progress

_ARGUMENT_SPEC = transfer_progress.DOWNLOAD_ARGUMENT_SPEC
# A download that ends within this shows no line (a small file, or one the server sends at once).
_FIRST_POLL_S = 1


class ActionModule(progress.PollingAction):
    ARGUMENT_SPEC = _ARGUMENT_SPEC
    _VALID_ARGS = frozenset(_ARGUMENT_SPEC)

    def _module(self, name, args, task_vars):
        return self._execute_module(module_name=name, module_args=args, task_vars=task_vars)

    def poll_run(self, args, task_vars):
        # A mirror's URL may carry its credentials (https://user:token@host/...): get_url uses them, but its result
        # (url, msg, the invocation's module_args) and this action's messages show them masked as pip does.
        return redact_data(self._download(args, task_vars))

    def _download(self, args, task_vars):
        get_url_args = {k: args[k] for k in transfer_progress.GET_URL_OPTIONS if args[k] is not None}
        there = self._module("ansible.legacy.stat", {"path": args["dest"], "get_checksum": False}, task_vars)
        if self._task.check_mode or (there.get("stat", {}).get("exists") and not args["force"]):
            return dict(self._module("ansible.legacy.get_url", get_url_args, task_vars), progress_lines=[])
        partial = transfer_progress.partial_dir(args["dest"])
        # A partial file left by an interrupted run is never resumed: get_url starts over.
        self._module("ansible.legacy.file", {"path": partial, "state": "absent"}, task_vars)
        made = self._module("ansible.legacy.file", {"path": partial, "state": "directory", "mode": "0700"}, task_vars)
        if made.get("failed"):
            return {"failed": True, "msg": "download: cannot create %s: %s" % (partial, made.get("msg"))}
        try:
            started = progress.start(
                self, "ansible.legacy.get_url", dict(get_url_args, tmp_dest=partial), task_vars, args["timeout_s"]
            )
            if started.get("failed") or "ansible_job_id" not in started:
                return started
            status, polls, lines = self._wait(args, started["ansible_job_id"], task_vars)
        finally:
            self._module("ansible.legacy.file", {"path": partial, "state": "absent"}, task_vars)
        result = {k: v for k, v in status.items() if k not in progress.ASYNC_KEYS}
        if not status.get("finished"):
            result.update(
                failed=True, msg="download: %s did not end within %d s (timeout_s)" % (args["url"], args["timeout_s"])
            )
        result.update(polls=polls, progress_lines=lines)
        return result

    def _wait(self, args, jid, task_vars):
        label = args["label"] or os.path.basename(args["dest"])
        poll_args = dict(args)
        samples, shown = [], []

        def line_of(status, waited):
            if status.get("finished"):
                # The end is worth a line only after lines of the download itself.
                return (
                    transfer_progress.download_line(label, None, None, None, waited, finished=True) if shown else None
                )
            shown.append(waited)
            read = self._module("scc.training.download", poll_args, task_vars)
            # The server is asked for the size once: 0 from then on when it did not say.
            poll_args["total_bytes"] = read.get("total_bytes") or 0
            got = read.get("partial_bytes")
            if got is not None:
                samples.append((waited, got))
            return transfer_progress.download_line(
                label, got, poll_args["total_bytes"] or None, transfer_progress.download_rate(samples[-6:]), waited
            )

        return progress.wait(
            self, jid, task_vars, args["poll_s"], args["timeout_s"], line_of, cleanup=True, first_poll_s=_FIRST_POLL_S
        )
