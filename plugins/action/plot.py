# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Action plugin of ``scc.training.plot`` (documented in plugins/modules/plot.py): draws a results PNG
on the controller, in the controller's own Python (where matplotlib is installed), never on a host."""

from __future__ import annotations

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.scc.training.plugins.plugin_utils import plots

_ARGUMENT_SPEC = {
    "kind": {"type": "str", "required": True, "choices": sorted(plots.PLOTS)},
    "data": {"type": "dict", "required": True},
    "dest": {"type": "path", "required": True},
}


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _VALID_ARGS = frozenset(_ARGUMENT_SPEC)

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        args = self.validate_argument_spec(argument_spec=_ARGUMENT_SPEC)[1]
        result.update(changed=True, dest=args["dest"])
        # A plot is this run's output: check mode says it would draw one and writes nothing.
        if self._task.check_mode:
            return result
        try:
            plots.PLOTS[args["kind"]](args["data"], args["dest"])
        except (KeyError, TypeError, ValueError, OSError) as exc:
            raise AnsibleActionFail("plot: cannot draw %s into %s: %s" % (args["kind"], args["dest"], exc)) from exc
        return result
