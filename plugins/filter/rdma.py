# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""RDMA filters for scc.training: a thin wrapper over plugins/module_utils/rdma.py, ``nccl_ib_env`` (bert_launch).
Its documentation lives in the sidecar ``nccl_ib_env.yml``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
)

rdma = lazy_module_utils("rdma")


def _devices(devices, filter_name):
    if not isinstance(devices, list):
        raise AnsibleFilterError(
            "%s: input must be rdma_info's devices list, got %s" % (filter_name, type(devices).__name__)
        )
    return devices


def nccl_ib_env(devices, socket_interface, debug="INFO"):
    """rdma_info's ``devices`` -> NCCL environment for RDMA (NCCL_IB_HCA, NCCL_IB_GID_INDEX, ...)."""
    return filter_call("nccl_ib_env", rdma.nccl_ib_env, _devices(devices, "nccl_ib_env"), socket_interface, debug)


class FilterModule(object):
    """scc.training RDMA filters."""

    def filters(self):
        return {f.__name__: f for f in (nccl_ib_env,)}
