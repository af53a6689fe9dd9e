# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""``torch_build`` and ``torch_gpu_problems``: python_env's torch build resolver and the judge of
what its GPU hosts report, thin wrappers over plugins/module_utils/torch_build.py.
Documentation: the sidecars torch_build.yml and torch_gpu_problems.yml."""

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


def torch_gpu_problems(probe, torch_cuda="", tolerance=1e-3):
    """What is wrong with torch on a GPU host, from torch_gpu_probe.py's report ([] when nothing)."""
    require_mapping(probe, "torch_gpu_problems", "input (the probe's JSON) must be a dict")
    return filter_call("torch_gpu_problems", _torch_build.torch_gpu_problems, probe, torch_cuda, float(tolerance))


class FilterModule(object):
    """scc.training torch build filters."""

    def filters(self):
        return {"torch_build": torch_build, "torch_gpu_problems": torch_gpu_problems}
