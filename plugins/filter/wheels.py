# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Wheel filters for scc.training, thin wrappers over plugins/module_utils/wheels.py:
``wheel_platforms`` and ``wheel_hash_lock``. Their documentation lives in the .yml file of each name."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
)

wheels = lazy_module_utils("wheels")


def wheel_platforms(arch, glibc):
    """An architecture and a glibc version -> the manylinux platform tags pip accepts there."""
    return filter_call("wheel_platforms", wheels.wheel_platforms, arch, glibc)


def wheel_hash_lock(digests):
    """{wheel file name: sha256} -> the requirements text of pip's hash-checking mode."""
    return filter_call("wheel_hash_lock", wheels.wheel_hash_lock, digests)


class FilterModule(object):
    """scc.training wheel filters."""

    def filters(self):
        return {f.__name__: f for f in (wheel_platforms, wheel_hash_lock)}
