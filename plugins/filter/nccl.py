# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""NCCL filters for scc.training: ``parse_nccl_log``, a thin wrapper over
plugins/module_utils/nccl_log.py. Its documentation lives in ``parse_nccl_log.yml``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible.module_utils.six import string_types

from ansible_collections.scc.training.plugins.module_utils.nccl_log import parse_nccl_log as _parse


def parse_nccl_log(text):
    """An NCCL_DEBUG=INFO log -> which transport NCCL used, its devices and channels."""
    if not isinstance(text, string_types):
        raise AnsibleFilterError("parse_nccl_log: input must be the log as a string, got %s" % type(text).__name__)
    return _parse(text)


class FilterModule(object):
    """scc.training NCCL filters."""

    def filters(self):
        return {"parse_nccl_log": parse_nccl_log}
