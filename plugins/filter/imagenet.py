# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""ImageNet filters for scc.training, thin wrappers over plugins/module_utils/imagenet.py:
``imagenet_content_problems``, ``imagenet_shard_plan`` and
``imagenet_local_paths``.
Their documentation lives in the sidecar ``<filter name>.yml``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
    require_settings,
)

imagenet = lazy_module_utils("imagenet")


def imagenet_content_problems(found, archives):
    """imagenet_archive_info's result and imagenet_prep_archives -> one line per problem in the archives."""
    return filter_call(
        "imagenet_content_problems",
        imagenet.imagenet_content_problems,
        require_settings(archives, "imagenet_content_problems"),
        require_settings(found, "imagenet_content_problems"),
    )


def imagenet_local_paths(archives, cache_dir):
    """imagenet_prep_archives and the controller's download cache -> {key: the archive's controller path}."""
    return filter_call(
        "imagenet_local_paths",
        imagenet.local_paths,
        require_settings(archives, "imagenet_local_paths"),
        str(cache_dir),
        errors=(KeyError, TypeError),
    )


def imagenet_shard_plan(counts):
    """The image counts, shard counts and nodes -> which node converts which shards."""
    return filter_call("imagenet_shard_plan", imagenet.plan_summary, require_settings(counts, "imagenet_shard_plan"))


class FilterModule(object):
    """scc.training ImageNet filters."""

    def filters(self):
        return {
            "imagenet_content_problems": imagenet_content_problems,
            "imagenet_shard_plan": imagenet_shard_plan,
            "imagenet_local_paths": imagenet_local_paths,
        }
