# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""CPFS filters for scc.training: ``cpfs_mount_input_problems``, a thin wrapper over
plugins/module_utils/cpfs.py. Its documentation lives in the sidecar ``cpfs_mount_input_problems.yml``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import input_problems_filter, lazy_module_utils

cpfs = lazy_module_utils("cpfs")

cpfs_mount_input_problems = input_problems_filter(cpfs, "cpfs_mount_input_problems")


class FilterModule(object):
    """scc.training CPFS filters."""

    def filters(self):
        return {"cpfs_mount_input_problems": cpfs_mount_input_problems}
