# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""``gpu_stack_check``: the GPU version matrix (module_utils/_gpu_matrix.py) as a filter.

A thin wrapper: the data and the logic live in the module_util, used by every GPU role's
preflight. Documentation: the sidecar gpu_stack_check.yml.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.module_utils import _gpu_matrix


def gpu_stack_check(stack, names=None):
    """Problems and resolved versions of a wanted GPU stack (see _gpu_matrix.check_stack)."""
    if not isinstance(stack, dict):
        raise AnsibleFilterError("gpu_stack_check: input must be a dict, got %s" % type(stack).__name__)
    if names is not None and not isinstance(names, dict):
        raise AnsibleFilterError("gpu_stack_check: names must be a dict, got %s" % type(names).__name__)
    unknown = sorted(set(stack) - set(_gpu_matrix.DEFAULT_NAMES))
    if unknown:
        raise AnsibleFilterError(
            "gpu_stack_check: unknown key(s) %s; allowed: %s"
            % (", ".join(unknown), ", ".join(sorted(_gpu_matrix.DEFAULT_NAMES)))
        )
    return _gpu_matrix.check_stack(stack, names)


class FilterModule(object):
    """scc.training GPU version matrix filter."""

    def filters(self):
        return {"gpu_stack_check": gpu_stack_check}
