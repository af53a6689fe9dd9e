# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""RDMA filters for scc.training: thin wrappers over plugins/module_utils/rdma.py.

``rdma_port_problems`` and ``rdma_cluster_differences``
(ib_check), ``rdma_stack_problems`` and ``rdma_netdev_mtu_plan`` (rdma_stack) and ``nccl_ib_env``
(bert_launch). Their documentation lives in the sidecar ``<filter name>.yml`` files.
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


def rdma_port_problems(devices, expected_links=None, link_layer=None, rate_gbps=None, state="PORT_ACTIVE"):
    """rdma_info's ``devices`` -> list of readable problems (empty when all is as expected)."""
    return rdma.port_problems(_devices(devices, "rdma_port_problems"), expected_links, link_layer, rate_gbps, state)


def rdma_stack_problems(result, mtu=None, netdev_mtu=None, erdma_mode=None):
    """rdma_info's result -> what the RDMA userspace does not show as it should (empty when all is well)."""
    if not isinstance(result, dict) or not isinstance(result.get("devices", []), list):
        raise AnsibleFilterError(
            "rdma_stack_problems: input must be rdma_info's result (a dict with devices), got %s"
            % type(result).__name__
        )
    return rdma.stack_problems(result, mtu, netdev_mtu, erdma_mode)


def rdma_cluster_differences(results):
    """{node: rdma_info result} -> one line per node whose active ports or GID indexes differ from the first's."""
    if not isinstance(results, dict):
        raise AnsibleFilterError(
            "rdma_cluster_differences: input must map each node to its rdma_info result, got %s"
            % type(results).__name__
        )
    return rdma.cluster_differences(results)


def rdma_netdev_mtu_plan(result, netdev_mtu=None, sysfs_path="/sys/class/infiniband"):
    """rdma_info's result -> the RDMA ports' interfaces, each with its MTU now and its systemd.link file."""
    if not isinstance(result, dict):
        raise AnsibleFilterError(
            "rdma_netdev_mtu_plan: input must be rdma_info's result (a dict with devices), got %s"
            % type(result).__name__
        )
    return filter_call("rdma_netdev_mtu_plan", rdma.netdev_mtu_plan, result, netdev_mtu, sysfs_path)


def nccl_ib_env(devices, socket_interface, debug="INFO"):
    """rdma_info's ``devices`` -> NCCL environment for RDMA (NCCL_IB_HCA, NCCL_IB_GID_INDEX, ...)."""
    return filter_call("nccl_ib_env", rdma.nccl_ib_env, _devices(devices, "nccl_ib_env"), socket_interface, debug)


class FilterModule(object):
    """scc.training RDMA filters."""

    def filters(self):
        return {
            "rdma_port_problems": rdma_port_problems,
            "rdma_cluster_differences": rdma_cluster_differences,
            "rdma_stack_problems": rdma_stack_problems,
            "rdma_netdev_mtu_plan": rdma_netdev_mtu_plan,
            "nccl_ib_env": nccl_ib_env,
        }
