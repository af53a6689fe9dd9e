# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Artifact filters for scc.training, a thin wrapper over plugins/module_utils/artifacts.py: ``path_is_shared``.
Its documentation lives in path_is_shared.yml (artifact_fetch's own computations: lookup scc.training.role_plan)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
)

_artifacts = lazy_module_utils("artifacts")


def _call(name, function, *args):
    return filter_call(name, function, *args, errors=(ValueError, TypeError, AttributeError))


def path_is_shared(path, shared_paths):
    """A host path + the cluster's proven-shared directories (scc_shared_paths) -> whether the path lies on one."""
    return _call("path_is_shared", _artifacts.path_is_shared, path, shared_paths)


class FilterModule(object):
    """scc.training artifact filters."""

    def filters(self):
        return {f.__name__: f for f in (path_is_shared,)}
