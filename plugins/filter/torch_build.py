# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""``torch_build``: python_env's torch build resolver, a thin wrapper over plugins/module_utils/torch_build.py.
Documentation: the sidecar torch_build.yml."""

from __future__ import annotations

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
    require_mapping,
)

_torch_build = lazy_module_utils("torch_build")


def torch_build(request, names=None):
    """The torch build (CUDA, index, pip arguments) python_env installs, and the matrix's refusals."""
    require_mapping(request, "torch_build")
    if names is not None:
        require_mapping(names, "torch_build", "names must be a dict")
    return filter_call("torch_build", _torch_build.resolve_torch_build, request, names)


class FilterModule(object):
    """scc.training torch build filters."""

    def filters(self):
        return {f.__name__: f for f in (torch_build,)}
