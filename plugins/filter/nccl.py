# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""NCCL filters for scc.training, thin wrappers: ``parse_nccl_log`` over
plugins/module_utils/nccl_log.py and ``parse_nccl_tests`` over plugins/module_utils/nccl_tests.py.
Their documentation lives in ``parse_nccl_log.yml`` and ``parse_nccl_tests.yml``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible.module_utils.six import string_types

from ansible_collections.scc.training.plugins.module_utils.nccl_log import parse_nccl_log as _parse
from ansible_collections.scc.training.plugins.module_utils.nccl_tests import parse_nccl_tests as _parse_tests


def parse_nccl_log(text):
    """An NCCL_DEBUG=INFO log -> which transport NCCL used, its devices and channels."""
    if not isinstance(text, string_types):
        raise AnsibleFilterError("parse_nccl_log: input must be the log as a string, got %s" % type(text).__name__)
    return _parse(text)


def parse_nccl_tests(text):
    """nccl-tests output (all_reduce_perf, ...) -> rows, avg_busbw_gbs, out_of_bounds, passed."""
    if not isinstance(text, string_types):
        raise AnsibleFilterError("parse_nccl_tests: input must be the output as a string, got %s" % type(text).__name__)
    return _parse_tests(text)


class FilterModule(object):
    """scc.training NCCL filters."""

    def filters(self):
        return {"parse_nccl_log": parse_nccl_log, "parse_nccl_tests": parse_nccl_tests}
