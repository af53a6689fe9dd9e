# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Action plugin of ``scc.training.ecs_nat_gateway``: a progress line per poll while it waits for the gateway, its
EIP and its SNAT entry (plugins/plugin_utils/cloud_wait.py)."""

from __future__ import annotations

from ansible_collections.scc.training.plugins.plugin_utils.cloud_wait import CloudWaitAction as ActionModule

__all__ = ["ActionModule"]
