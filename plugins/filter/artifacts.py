# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Artifact filters for scc.training, thin wrappers over plugins/module_utils/artifacts.py:
``artifact_mirror_files``, ``artifact_mirror_manifest_sha256``, ``artifact_plan`` and ``artifacts_to_copy``.
Their documentation lives in the .yml file of each name."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
)

_artifacts = lazy_module_utils("artifacts")


def _call(name, function, *args):
    return filter_call(name, function, *args, errors=(ValueError, TypeError, AttributeError))


def artifact_mirror_files(manifest, prefixes, mirror):
    """A mirror's manifest.json + file-name prefixes -> [{name, sha256, url}], exactly one per prefix."""
    return _call("artifact_mirror_files", _artifacts.mirror_files, manifest, prefixes, mirror)


def artifact_mirror_manifest_sha256(pins, mirror):
    """artifact_fetch_mirror_manifests + a mirror -> the sha256 its manifest.json must have."""
    return _call("artifact_mirror_manifest_sha256", _artifacts.mirror_manifest_sha256, pins, mirror)


def artifact_plan(files, files_dir, wheelhouse, dest, layout="flat"):
    """Fetched files and wheelhouse -> {artifacts: [{name, src, dest}], dirs, wheelhouse}."""
    return _call("artifact_plan", _artifacts.artifact_plan, files, files_dir, wheelhouse, dest, layout)


def artifacts_to_copy(items, controller_files, host_files, pinned=None):
    """Plan artifacts + sha256 find results on the controller and a host -> the artifacts that host still needs."""
    return _call("artifacts_to_copy", _artifacts.artifacts_to_copy, items, controller_files, host_files, pinned)


def path_is_shared(path, shared_paths):
    """A host path + the cluster's proven-shared directories (scc_shared_paths) -> whether the path lies on one."""
    return _call("path_is_shared", _artifacts.path_is_shared, path, shared_paths)


class FilterModule(object):
    """scc.training artifact filters."""

    def filters(self):
        return {
            "artifact_mirror_files": artifact_mirror_files,
            "artifact_mirror_manifest_sha256": artifact_mirror_manifest_sha256,
            "artifact_plan": artifact_plan,
            "artifacts_to_copy": artifacts_to_copy,
            "path_is_shared": path_is_shared,
        }
