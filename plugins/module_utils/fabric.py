# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The verify stage's fabric helpers, shared by the filters and the roles.

- ``port_list``: every RDMA port of rdma_info's devices as one flat list (cluster_report).
- ``measurement_ports``: the RDMA ports bandwidth measurements run over, every active one (rdma_bandwidth).
- ``bandwidth_shortfalls``: what a bandwidth matrix failed on, one line per pair (rdma_bandwidth).
- ``rdma_bandwidth_input_problems``, ``fabric_monitor_input_problems``: those roles' rules across their
  variables (their validate.yml).
- ``decode_samples`` and ``traffic_rates``: the counter samples fabric_monitor's sampler wrote on each
  node, and the tx/rx rates over time per node and counter computed from them.

Pure Python, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import json

from ansible_collections.scc.training.plugins.module_utils.cluster import is_address_or_name
from ansible_collections.scc.training.plugins.module_utils.input_checks import (
    fraction,
    group_problems,
    is_port,
    minimum,
    number,
    pattern,
    positive,
    rule_problems,
)

_BANDWIDTH_RULES = (
    ("rdma_bandwidth_min_fraction", fraction, "in (0, 1]"),
    ("rdma_bandwidth_tcp_min_fraction", fraction, "in (0, 1]"),
    ("rdma_bandwidth_duration_s", minimum(1), ">= 1"),
    ("rdma_bandwidth_message_bytes", minimum(1), ">= 1"),
    ("rdma_bandwidth_tcp_port", is_port, "a port in 1..65535"),
    ("rdma_bandwidth_rdma_port", is_port, "a port in 1..65535"),
    ("rdma_bandwidth_device", pattern(r"^[A-Za-z0-9_.\-]*$"), "a device name or empty"),
    ("rdma_bandwidth_gid_index", lambda value: value is None or minimum(0)(value), ">= 0 or null"),
    # perftest -q: queue pairs per run (null: the hardware fact's count, or one per link of the port).
    ("rdma_bandwidth_qp_count", lambda value: value is None or minimum(1)(value), ">= 1 or null"),
    # Every peer's address reaches its partner's iperf3 and ib_write_bw command lines.
    (
        "rdma_bandwidth_address",
        is_address_or_name,
        "a host name or IP address (RFC 1123: letters, digits and inner hyphens; never starting with '-')",
    ),
    ("rdma_bandwidth_results_dir", pattern(r"^."), "set"),
)


def port_list(devices):
    """rdma_info ``devices`` -> ``[{port: '<device>:<port>', state, link_layer, rate_gbps}]``."""
    return [
        {
            "port": "%s:%s" % (device["name"], port["port"]),
            "state": port.get("state"),
            "link_layer": port.get("link_layer"),
            "rate_gbps": port.get("rate_gbps"),
        }
        for device in devices
        for port in device.get("ports", [])
    ]


def measurement_ports(devices, device="", gid_index=None):
    """Every PORT_ACTIVE port (of ``device`` when named), in rdma_info's order: the rails a bandwidth
    test measures one by one. Each ``{device, port, name, link_layer, rate_gbps, gid_index, links}``:
    ``name`` is ``<device>:<port>``, ``gid_index`` the one given, else the port's RoCE v2 GID index,
    ``links`` the physical links behind the port (a bonded port's slaves), which is also the number of
    queue pairs that spread a test over all of them."""
    ports = []
    for dev in devices:
        if device and dev["name"] != device:
            continue
        for port in dev.get("ports", []):
            if port.get("state") == "PORT_ACTIVE":
                ports.append(
                    {
                        "device": dev["name"],
                        "port": port["port"],
                        "name": "%s:%s" % (dev["name"], port["port"]),
                        "link_layer": port.get("link_layer"),
                        "rate_gbps": port.get("rate_gbps"),
                        "gid_index": gid_index if gid_index is not None else port.get("roce_v2_gid_index"),
                        "links": len(port.get("bond_slaves") or []) or 1,
                    }
                )
    return ports


def _end(node, port):
    return "%s %s" % (node, port) if port else node


def bandwidth_shortfalls(result):
    """A bandwidth matrix result -> ``'<client> [<port>] -> <server> [<port>] <Gb/s> (threshold <Gb/s>)'`` per
    measurement below its threshold, then one ``'not measured: a -> b (rail 1), ...'`` line when some are missing."""
    lines = [
        "%s -> %s %.2f (threshold %.2f)"
        % (
            _end(p["client"], p.get("client_port")),
            _end(p["server"], p.get("server_port")),
            float(p["gbps"]),
            float(p["min_gbps"]),
        )
        for p in result.get("below_threshold", [])
    ]
    if result.get("missing"):
        lines.append(
            "not measured: "
            + ", ".join("%s -> %s (%s)" % (client, server, rail) for client, server, rail in result["missing"])
        )
    return lines


def rdma_bandwidth_input_problems(settings):
    """rdma_bandwidth's variables -> one sentence per problem, naming the variable and its value ([] when all is well).

    ``settings``: the ``rdma_bandwidth_*`` variables and ``group_hosts`` (the hosts of rdma_bandwidth_group).
    """
    problems = group_problems(settings, "rdma_bandwidth_group")
    rate, mode = settings["rdma_bandwidth_link_rate_gbps"], settings["rdma_bandwidth_mode"]
    if mode not in ("rdma", "tcp", "both"):
        # A null mode passes the spec's choices (null is "unset" to it): refused here, naming the mode.
        problems.append("rdma_bandwidth_mode (%s) must be rdma, tcp or both." % json.dumps(mode))
    elif (rate is not None and not positive(rate)) or (rate is None and mode != "rdma"):
        problems.append(
            "rdma_bandwidth_link_rate_gbps (%s) must be > 0 in Gb/s, or null to detect it from the RDMA ports (mode rdma "
            "only: TCP has none to detect, declare it for mode %s)." % (json.dumps(rate), mode)
        )
    problems.extend(rule_problems(settings, _BANDWIDTH_RULES))
    tcp_port = number(settings["rdma_bandwidth_tcp_port"])
    if tcp_port is not None and tcp_port == number(settings["rdma_bandwidth_rdma_port"]):
        problems.append(
            "rdma_bandwidth_tcp_port and rdma_bandwidth_rdma_port must be two different ports (both %s)." % tcp_port
        )
    return problems


_MONITOR_RULES = (
    ("fabric_monitor_interval_s", minimum(0.1, float), ">= 0.1"),
    ("fabric_monitor_max_duration_s", minimum(1), ">= 1"),
    (
        "fabric_monitor_interfaces",
        lambda names: isinstance(names, list) and all(pattern(r"^[A-Za-z0-9_.:@\-]+$")(name) for name in names),
        "interface names",
    ),
    ("fabric_monitor_node_dir", pattern(r"^/\S+$"), "absolute"),
    ("fabric_monitor_results_dir", pattern(r"^."), "set"),
    ("fabric_monitor_results_name", pattern(r"^[A-Za-z0-9_.-]+$"), "letters, digits, . _ -"),
)


def fabric_monitor_input_problems(settings):
    """fabric_monitor's variables -> one sentence per problem, naming the variable and its value ([] when all is well).

    ``settings``: the ``fabric_monitor_*`` variables and ``group_hosts`` (the hosts of fabric_monitor_group).
    """
    return group_problems(settings, "fabric_monitor_group") + rule_problems(settings, _MONITOR_RULES)


def decode_samples(content):
    """The base64 text of a sampler's JSON-lines file (as slurp returns it) -> the list of samples."""
    text = base64.b64decode(content).decode("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def traffic_rates(samples_by_node):
    """``{node: [samples]}`` -> ``{t0, nodes: {node: {samples, counters: {name: {series, peak_gbps, mean_gbps}}}}}``.

    A sample is ``{t, ib: {<dev>:<port>: [tx_bytes, rx_bytes]}, net: {<if>: [tx_bytes, rx_bytes]}}``;
    counters are named ``ib:<dev>:<port>`` and ``net:<if>``, and ``t`` in a series counts seconds from
    the first sample of the cluster. An interval in which a counter went backwards (reset or wrapped)
    is left out of that counter's series.
    """
    t0 = min((s[0]["t"] for s in samples_by_node.values() if s), default=0.0)
    nodes = {}
    for node, samples in sorted(samples_by_node.items()):
        counters = {}
        for prev, cur in zip(samples, samples[1:]):
            dt = cur["t"] - prev["t"]
            if dt <= 0:
                continue
            for kind in ("ib", "net"):
                for name, (tx, rx) in cur.get(kind, {}).items():
                    if name not in prev.get(kind, {}):
                        continue
                    ptx, prx = prev[kind][name]
                    if tx < ptx or rx < prx:
                        continue
                    series = counters.setdefault("%s:%s" % (kind, name), {"series": []})["series"]
                    series.append(
                        {
                            "t": round(cur["t"] - t0, 3),
                            "tx_gbps": (tx - ptx) * 8 / dt / 1e9,
                            "rx_gbps": (rx - prx) * 8 / dt / 1e9,
                        }
                    )
        for counter in counters.values():
            totals = [p["tx_gbps"] + p["rx_gbps"] for p in counter["series"]]
            counter["peak_gbps"] = max(totals) if totals else 0.0
            counter["mean_gbps"] = sum(totals) / len(totals) if totals else 0.0
        nodes[node] = {"samples": len(samples), "counters": counters}
    return {"t0": t0, "nodes": nodes}
