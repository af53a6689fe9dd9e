# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Bandwidth test parsers and the all-pairs schedule, shared by the filters and the roles.

- ``parse_perftest``: perftest BW output (``ib_write_bw``, ``ib_read_bw``, ``ib_send_bw``,
  ``ib_atomic_bw``) -> ``{test, device, link_type, gid_index, unit, rows}``, bandwidth in Gb/s
  whatever unit the tool printed (``--report_gbits`` or MB/sec).
- ``parse_iperf3``: ``iperf3 -J`` client output -> sent/received Gb/s, retransmits, intervals.
- ``all_pairs_rounds``: the round-robin tournament schedule: every pair of nodes exactly once,
  in N-1 rounds (N rounds for odd N, each node sitting out once), no node twice in a round.

Pure Python, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

_HEADER = re.compile(r"^\s*#bytes\s+#?iterations\s+BW peak\[(Gb/sec|MB/sec)\]\s+BW average\[(Gb/sec|MB/sec)\]")
_ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+([0-9]+(?:\.[0-9]+)?)\s+([0-9]+(?:\.[0-9]+)?)(?:\s+([0-9]+(?:\.[0-9]+)?))?\s*$")
_TEST = re.compile(r"^\s*(\S.*\b(?:BW|Bidirectional BW) Test)\s*$")
_FIELD = re.compile(r"([A-Za-z][A-Za-z0-9_.* ]*?)\s*:\s*(\S+)")
# perftest divides bytes/s by 0x100000 for MB/sec and bits/s by 1e9 for Gb/sec
# (format_factor in src/perftest_parameters.c), so its "MB" is a MiB.
_TO_GBPS = {"Gb/sec": 1.0, "MB/sec": 8.0 * 0x100000 / 1e9}


class PerftestParseError(ValueError):
    """The text is not perftest bandwidth output."""


def _fields(line):
    """' Link type       : Ethernet' -> {'Link type': 'Ethernet'}; two per line when tab-separated."""
    return {k.strip(): v for k, v in _FIELD.findall(line)}


def parse_perftest(text):
    """Parse the output of a perftest bandwidth test (client or server side)."""
    if not isinstance(text, str):
        raise PerftestParseError("perftest output must be a string, got %s" % type(text).__name__)
    result = {
        "test": None,
        "device": None,
        "link_type": None,
        "gid_index": None,
        "connection_type": None,
        "unit": None,
        "rows": [],
    }
    unit = None
    for line in text.splitlines():
        match = _TEST.match(line)
        if match and result["test"] is None:
            result["test"] = match.group(1)
            continue
        if unit is None:
            fields = _fields(line)
            if "Device" in fields and result["device"] is None:
                result["device"] = fields["Device"]
            if "Link type" in fields:
                result["link_type"] = fields["Link type"]
            if "GID index" in fields:
                result["gid_index"] = int(fields["GID index"]) if fields["GID index"].isdigit() else None
            if "Connection type" in fields:
                result["connection_type"] = fields["Connection type"]
        header = _HEADER.match(line)
        if header:
            unit = header.group(2)
            result["unit"] = unit
            continue
        if unit is None:
            continue
        row = _ROW.match(line)
        if row:
            factor = _TO_GBPS[unit]
            result["rows"].append(
                {
                    "bytes": int(row.group(1)),
                    "iterations": int(row.group(2)),
                    # 0.00 peak means "not measured" (duration runs); kept as perftest printed it.
                    "bw_peak_gbps": float(row.group(3)) * factor,
                    "bw_avg_gbps": float(row.group(4)) * factor,
                    "msg_rate_mpps": float(row.group(5)) if row.group(5) is not None else None,
                }
            )
    if unit is None:
        raise PerftestParseError(
            "no perftest bandwidth table (no '#bytes #iterations BW peak[...]' header) in the output"
        )
    if not result["rows"]:
        raise PerftestParseError("the perftest bandwidth table has no result rows (the test did not finish?)")
    return result


def parse_iperf3(text):
    """Parse ``iperf3 -J`` client output (text or an already decoded dict)."""
    if isinstance(text, dict):
        data = text
    else:
        try:
            data = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise PerftestParseError("iperf3 output is not JSON (run iperf3 with -J): %s" % exc) from exc
    if not isinstance(data, dict):
        raise PerftestParseError("iperf3 JSON must be an object, got %s" % type(data).__name__)
    if data.get("error"):
        raise PerftestParseError("iperf3 reported an error: %s" % data["error"])
    end = data.get("end") or {}
    sent, received = end.get("sum_sent"), end.get("sum_received")
    if not sent or not received:
        raise PerftestParseError("iperf3 JSON has no end.sum_sent/end.sum_received (a UDP test or an unfinished run?)")
    start = data.get("start") or {}
    test_start = start.get("test_start") or {}
    connected = (start.get("connected") or [{}])[0]
    intervals = []
    for interval in data.get("intervals") or []:
        total = interval.get("sum") or {}
        intervals.append(
            {
                "start": total.get("start"),
                "end": total.get("end"),
                "gbps": round(total.get("bits_per_second", 0.0) / 1e9, 6),
                "omitted": bool(total.get("omitted", False)),
            }
        )
    return {
        "version": start.get("version"),
        "protocol": test_start.get("protocol"),
        "streams": test_start.get("num_streams"),
        "duration_s": test_start.get("duration"),
        "local_host": connected.get("local_host"),
        "remote_host": connected.get("remote_host"),
        "sent_gbps": round(sent["bits_per_second"] / 1e9, 6),
        "received_gbps": round(received["bits_per_second"] / 1e9, 6),
        "bytes_received": received.get("bytes"),
        "retransmits": sent.get("retransmits"),
        "intervals": intervals,
    }


def all_pairs_rounds(nodes):
    """Round-robin tournament (circle method): list of rounds, each a list of [a, b] pairs.

    N-1 rounds for even N, N for odd N (a bye: one node idle per round). Every unordered pair
    appears exactly once; within a round every node appears at most once, so a round's tests
    run in parallel without sharing a node.
    """
    nodes = list(nodes)
    if len(set(nodes)) != len(nodes):
        raise ValueError("node names must be unique, got %s" % nodes)
    if len(nodes) < 2:
        return []
    ring = nodes + [None] if len(nodes) % 2 else list(nodes)
    n = len(ring)
    rounds = []
    for _round in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if a is not None and b is not None:
                pairs.append([a, b])
        rounds.append(pairs)
        # Keep the first element fixed, rotate the others by one.
        ring = [ring[0], ring[-1]] + ring[1:-1]
    return rounds


def bandwidth_matrix(nodes, measurements, min_gbps):
    """Fold one measurement per pair into a node x node matrix and a pass/fail verdict.

    ``measurements``: list of ``{client, server, gbps}`` (one direction per pair: the client
    sends to the server). The matrix is symmetric (the pair's value in both cells), ``None``
    on the diagonal and where a pair was not measured; ``missing`` names such pairs.
    """
    nodes = list(nodes)
    index = {n: i for i, n in enumerate(nodes)}
    matrix = [[None] * len(nodes) for dummy_node in nodes]
    pairs, slow = [], []
    for m in measurements:
        a, b, gbps = m["client"], m["server"], float(m["gbps"])
        if a not in index or b not in index:
            raise ValueError("pair %s -> %s names a node not in %s" % (a, b, nodes))
        matrix[index[a]][index[b]] = matrix[index[b]][index[a]] = gbps
        entry = dict(m, gbps=gbps, ok=gbps >= min_gbps)
        pairs.append(entry)
        if not entry["ok"]:
            slow.append(entry)
    missing = [[a, b] for i, a in enumerate(nodes) for b in nodes[i + 1 :] if matrix[index[a]][index[b]] is None]
    values = [p["gbps"] for p in pairs]
    return {
        "nodes": nodes,
        "matrix_gbps": matrix,
        "pairs": pairs,
        "min_gbps": min_gbps,
        "below_threshold": slow,
        "missing": missing,
        "summary": {
            "pairs": len(pairs),
            "min": min(values) if values else None,
            "max": max(values) if values else None,
            "mean": (sum(values) / len(values)) if values else None,
        },
        "ok": not slow and not missing,
    }
