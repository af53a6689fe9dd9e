# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""NCCL filters for scc.training, thin wrappers: ``parse_nccl_log`` over plugins/module_utils/nccl_log.py,
``parse_nccl_tests`` over plugins/module_utils/nccl_tests.py. Their documentation lives in the sidecar
``<filter name>.yml``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    lazy_module_utils,
    require_text,
)

nccl_log = lazy_module_utils("nccl_log")
nccl_tests = lazy_module_utils("nccl_tests")


def parse_nccl_log(text):
    """An NCCL_DEBUG=INFO log -> which transport NCCL used, its devices and channels."""
    return nccl_log.parse_nccl_log(require_text(text, "parse_nccl_log", "the log as a string"))


def parse_nccl_tests(text):
    """nccl-tests output (all_reduce_perf, ...) -> rows, avg_busbw_gbs, out_of_bounds, passed."""
    return nccl_tests.parse_nccl_tests(require_text(text, "parse_nccl_tests", "the output as a string"))


class FilterModule(object):
    """scc.training NCCL filters."""

    def filters(self):
        return {f.__name__: f for f in (parse_nccl_log, parse_nccl_tests)}
