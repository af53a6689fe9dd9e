# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""NCCL filters for scc.training, thin wrappers: ``parse_nccl_log`` over
plugins/module_utils/nccl_log.py and ``parse_nccl_tests`` over plugins/module_utils/nccl_tests.py.
Their documentation lives in ``parse_nccl_log.yml`` and ``parse_nccl_tests.yml``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.module_utils.nccl_log import parse_nccl_log as _parse
from ansible_collections.scc.training.plugins.module_utils.nccl_tests import parse_nccl_tests as _parse_tests
from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import require_text


def parse_nccl_log(text):
    """An NCCL_DEBUG=INFO log -> which transport NCCL used, its devices and channels."""
    return _parse(require_text(text, "parse_nccl_log", "the log as a string"))


def parse_nccl_tests(text):
    """nccl-tests output (all_reduce_perf, ...) -> rows, avg_busbw_gbs, out_of_bounds, passed."""
    return _parse_tests(require_text(text, "parse_nccl_tests", "the output as a string"))


class FilterModule(object):
    """scc.training NCCL filters."""

    def filters(self):
        return {"parse_nccl_log": parse_nccl_log, "parse_nccl_tests": parse_nccl_tests}
