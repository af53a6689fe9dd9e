# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""``gpu_stack_check``: the GPU version matrix (module_utils/_gpu_matrix.py) as a filter, and
``verdict_problems`` (module_utils/gpu_inputs.py).

Thin wrappers: the data and the logic live in the module_utils, used by every GPU role's validate.yml.
Documentation: the sidecars gpu_stack_check.yml and verdict_problems.yml.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    lazy_module_utils,
    require_mapping,
)

_gpu_matrix = lazy_module_utils("_gpu_matrix")
gpu_inputs = lazy_module_utils("gpu_inputs")


def gpu_stack_check(stack, names=None):
    """Problems and resolved versions of a wanted GPU stack (see _gpu_matrix.check_stack)."""
    require_mapping(stack, "gpu_stack_check")
    if names is not None:
        require_mapping(names, "gpu_stack_check", "names must be a dict")
    unknown = sorted(set(stack) - set(_gpu_matrix.DEFAULT_NAMES))
    if unknown:
        raise AnsibleFilterError(
            "gpu_stack_check: unknown key(s) %s; allowed: %s"
            % (", ".join(unknown), ", ".join(sorted(_gpu_matrix.DEFAULT_NAMES)))
        )
    return _gpu_matrix.check_stack(stack, names)


def verdict_problems(verdict):
    """A matrix verdict's problems as one sentence in a list (see gpu_inputs.verdict_problems)."""
    return gpu_inputs.verdict_problems(require_mapping(verdict, "verdict_problems"))


class FilterModule(object):
    """scc.training GPU version matrix and GPU roles' input filters."""

    def filters(self):
        return {
            "gpu_stack_check": gpu_stack_check,
            "verdict_problems": verdict_problems,
        }
