# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Ansible's linear strategy, with this collection's plugins imported once in the controller process."""

from __future__ import annotations

DOCUMENTATION = r"""
name: linear
short_description: Ansible's linear strategy, with this collection's plugins imported once on the controller
description:
  - Runs plays exactly as C(ansible.builtin.linear) does (every host in lock-step, task by task).
  - Before the first task it imports this collection's filter, lookup and action plugins (and the module_utils they
    use) in ansible-playbook's own process. Each task of each host runs in a worker process forked from it, and
    Ansible's loader imports every filter file of a collection, compiled from source, to find one of its filters;
    a worker that inherits them skips that work. On a converged C(prepare.yml) run this saves about a third of the
    controller's CPU time (C(make bench-scale)).
  - The collection's C(ansible.cfg) selects it; elsewhere set C(strategy = scc.training.linear) in C(ansible.cfg),
    C(ANSIBLE_STRATEGY=scc.training.linear), or a play's C(strategy) keyword. Nothing else differs from linear.
author:
  - scc.training developers (!UNKNOWN)
version_added: 0.5.0
"""

from ansible.plugins.strategy.linear import StrategyModule as LinearStrategyModule

from ansible_collections.scc.training.plugins.plugin_utils.preload import preload


class StrategyModule(LinearStrategyModule):
    """linear, after importing the collection's controller-side plugins once (workers inherit them)."""

    def __init__(self, tqm):
        super().__init__(tqm)
        # A second play's strategy finds them already in sys.modules: nothing is imported twice.
        preload()
