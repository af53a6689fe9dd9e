# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Verify-stage fabric filters for scc.training: thin wrappers over plugins/module_utils/fabric.py.

``rdma_port_list`` (cluster_report), ``rdma_measurement_ports`` and ``bandwidth_shortfalls``
(rdma_bandwidth), ``fabric_samples`` and ``fabric_traffic`` (fabric_monitor).
Their documentation lives in the sidecar ``<filter name>.yml`` files.
"""

from __future__ import annotations

import binascii
from collections.abc import Mapping

from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
    require_list,
    require_mapping,
)

fabric = lazy_module_utils("fabric")

_MALFORMED = (KeyError, TypeError, ValueError, IndexError)
_DEVICES = "input must be rdma_info's devices list"


def rdma_port_list(devices):
    """rdma_info's ``devices`` -> one ``{port, state, link_layer, rate_gbps}`` per port."""
    devices = require_list(devices, "rdma_port_list", _DEVICES)
    return filter_call("rdma_port_list: malformed device", fabric.port_list, devices, errors=_MALFORMED)


def rdma_measurement_ports(devices, device="", gid_index=None):
    """rdma_info's ``devices`` -> every active port to measure over (the rails), empty without one."""
    devices = require_list(devices, "rdma_measurement_ports", _DEVICES)
    if gid_index is not None and (isinstance(gid_index, bool) or not str(gid_index).isdigit()):
        raise AnsibleFilterError(
            "rdma_measurement_ports: gid_index must be an integer >= 0 or null, got %r" % (gid_index,)
        )
    gid_index = None if gid_index is None else int(gid_index)
    return filter_call(
        "rdma_measurement_ports: malformed device",
        fabric.measurement_ports,
        devices,
        device or "",
        gid_index,
        errors=_MALFORMED,
    )


def bandwidth_shortfalls(result):
    """A ``bandwidth_matrix`` result -> one line per pair below the threshold, then the pairs not measured."""
    result = require_mapping(result, "bandwidth_shortfalls", "input must be a bandwidth_matrix result")
    return filter_call("bandwidth_shortfalls: malformed result", fabric.bandwidth_shortfalls, result, errors=_MALFORMED)


def fabric_samples(hosts, hostvars, register):
    """Hosts, hostvars and the name of their registered slurp results -> ``{host: [samples]}``.

    Hosts without a slurped file (a failed or unreachable host) are left out.
    """
    hosts = require_list(hosts, "fabric_samples", "input must be a list of host names")
    require_mapping(hostvars, "fabric_samples", "hostvars must be the hostvars mapping")
    out = {}
    for host in hosts:
        slurped = hostvars[host].get(register) if host in hostvars else None
        if isinstance(slurped, Mapping) and "content" in slurped:
            out[host] = filter_call(
                "fabric_samples: the samples of %s are not JSON lines" % host,
                fabric.decode_samples,
                slurped["content"],
                errors=(binascii.Error, UnicodeDecodeError, ValueError),
            )
    return out


def fabric_traffic(samples):
    """``{node: [samples]}`` -> the rates over time per node and counter, with peak and mean."""
    samples = require_mapping(samples, "fabric_traffic", "input must map each node to its samples")
    return filter_call("fabric_traffic: malformed sample", fabric.traffic_rates, dict(samples), errors=_MALFORMED)


class FilterModule(object):
    """scc.training fabric filters."""

    def filters(self):
        by_role = {
            "cluster_report": (rdma_port_list,),
            "rdma_bandwidth": (rdma_measurement_ports, bandwidth_shortfalls),
            "fabric_monitor": (fabric_samples, fabric_traffic),
        }
        return {f.__name__: f for filters in by_role.values() for f in filters}
