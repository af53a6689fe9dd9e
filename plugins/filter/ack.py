# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""``ack_input_problems``: provision.yml's ACK variables, a thin wrapper over plugins/module_utils/ack.py
(documented in its sidecar ack_input_problems.yml)."""

from __future__ import annotations

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import input_problems_filter, lazy_module_utils

ack = lazy_module_utils("ack")

ack_input_problems = input_problems_filter(ack, "ack_input_problems")


class FilterModule(object):
    """scc.training filters of provision.yml's ACK checks."""

    def filters(self):
        return {"ack_input_problems": ack_input_problems}
