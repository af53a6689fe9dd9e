# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Verify-stage fabric filters for scc.training: thin wrappers over plugins/module_utils/fabric.py.

``rdma_port_list`` (cluster_report), ``rdma_measurement_port`` and ``bandwidth_shortfalls``
(rdma_bandwidth), ``fabric_samples`` and ``fabric_traffic`` (fabric_monitor).
Their documentation lives in the sidecar ``<filter name>.yml`` files.
"""

from __future__ import annotations

import binascii
from collections.abc import Mapping

from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.module_utils import fabric


def _devices(devices, name):
    if not isinstance(devices, list):
        raise AnsibleFilterError("%s: input must be rdma_info's devices list, got %s" % (name, type(devices).__name__))
    return devices


def rdma_port_list(devices):
    """rdma_info's ``devices`` -> one ``{port, state, link_layer, rate_gbps}`` per port."""
    try:
        return fabric.port_list(_devices(devices, "rdma_port_list"))
    except (KeyError, TypeError) as exc:
        raise AnsibleFilterError("rdma_port_list: malformed device: %s" % exc) from exc


def rdma_measurement_port(devices, device="", gid_index=None):
    """rdma_info's ``devices`` -> the first active port to measure over, or None."""
    if gid_index is not None and (isinstance(gid_index, bool) or not str(gid_index).isdigit()):
        raise AnsibleFilterError(
            "rdma_measurement_port: gid_index must be an integer >= 0 or null, got %r" % (gid_index,)
        )
    try:
        return fabric.measurement_port(
            _devices(devices, "rdma_measurement_port"), device or "", None if gid_index is None else int(gid_index)
        )
    except (KeyError, TypeError) as exc:
        raise AnsibleFilterError("rdma_measurement_port: malformed device: %s" % exc) from exc


def bandwidth_shortfalls(result):
    """A ``bandwidth_matrix`` result -> one line per pair below the threshold, then the pairs not measured."""
    if not isinstance(result, Mapping):
        raise AnsibleFilterError(
            "bandwidth_shortfalls: input must be a bandwidth_matrix result, got %s" % type(result).__name__
        )
    try:
        return fabric.bandwidth_shortfalls(result)
    except (KeyError, TypeError, ValueError) as exc:
        raise AnsibleFilterError("bandwidth_shortfalls: malformed result: %s" % exc) from exc


def fabric_samples(hosts, hostvars, register):
    """Hosts, hostvars and the name of their registered slurp results -> ``{host: [samples]}``.

    Hosts without a slurped file (a failed or unreachable host) are left out.
    """
    if isinstance(hosts, (str, Mapping)) or not hasattr(hosts, "__iter__"):
        raise AnsibleFilterError("fabric_samples: input must be a list of host names, got %s" % type(hosts).__name__)
    if not isinstance(hostvars, Mapping):
        raise AnsibleFilterError(
            "fabric_samples: hostvars must be the hostvars mapping, got %s" % type(hostvars).__name__
        )
    out = {}
    for host in hosts:
        slurped = hostvars[host].get(register) if host in hostvars else None
        if not isinstance(slurped, Mapping) or "content" not in slurped:
            continue
        try:
            out[host] = fabric.decode_samples(slurped["content"])
        except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
            raise AnsibleFilterError("fabric_samples: the samples of %s are not JSON lines: %s" % (host, exc)) from exc
    return out


def fabric_traffic(samples):
    """``{node: [samples]}`` -> the rates over time per node and counter, with peak and mean."""
    if not isinstance(samples, Mapping):
        raise AnsibleFilterError(
            "fabric_traffic: input must map each node to its samples, got %s" % type(samples).__name__
        )
    try:
        return fabric.traffic_rates(dict(samples))
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise AnsibleFilterError("fabric_traffic: malformed sample: %s" % exc) from exc


class FilterModule(object):
    """scc.training fabric filters."""

    def filters(self):
        return {
            "rdma_port_list": rdma_port_list,
            "rdma_measurement_port": rdma_measurement_port,
            "bandwidth_shortfalls": bandwidth_shortfalls,
            "fabric_samples": fabric_samples,
            "fabric_traffic": fabric_traffic,
        }
