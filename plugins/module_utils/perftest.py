# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Bandwidth test parsers and the all-pairs schedule, shared by the filters and the roles.

- ``parse_perftest``: perftest BW output (``ib_write_bw``, ``ib_read_bw``, ``ib_send_bw``,
  ``ib_atomic_bw``) -> ``{test, device, link_type, gid_index, header_unit, unit, rows}``, bandwidth in
  Gb/s whatever unit the figures are in (``--report_gbits``, MB/sec or MiB/sec), which
  ``figures_unit`` tells from the message rate when the header names another one.
- ``parse_iperf3``: ``iperf3 -J`` client output -> sent/received Gb/s, retransmits, intervals.
- ``all_pairs_rounds``: the round-robin tournament schedule: every pair of nodes exactly once,
  in N-1 rounds (N rounds for odd N, each node sitting out once), no node twice in a round.
- ``bandwidth_rounds``: that schedule in both directions, once per rail (RDMA port).
- ``bandwidth_round_count`` and ``bandwidth_round_side``: the same schedule as seen by one node in one
  round, in O(1) (closed form), so that each node of a 1000-node cluster takes its side of a round
  without anyone walking the round's pairs.
- ``bandwidth_attempt_retry``: whether a client's failed attempt only met a server not yet listening.
- ``bandwidth_matrix``: the measurements folded into per-rail directional matrices, each pair
  judged against its own threshold (the lower of its two ports' link rates).

Pure Python, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

_UNITS = r"(Gb/sec|MB/sec|MiB/sec)"
_HEADER = re.compile(r"^\s*#bytes\s+#?iterations\s+BW peak\[%s\]\s+BW average\[%s\]" % (_UNITS, _UNITS))
_ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+([0-9]+(?:\.[0-9]+)?)\s+([0-9]+(?:\.[0-9]+)?)(?:\s+([0-9]+(?:\.[0-9]+)?))?\s*$")
_TEST = re.compile(r"^\s*(\S.*\b(?:BW|Bidirectional BW) Test)\s*$")
_FIELD = re.compile(r"([A-Za-z][A-Za-z0-9_.* ]*?)\s*:\s*(\S+)")
# perftest divides bytes/s by 0x100000 for MB/sec and bits/s by 1e9 for Gb/sec
# (format_factor in src/perftest_parameters.c), so its "MB" is a MiB; the label says MiB/sec since
# perftest commit 1d202bb (2024-03-19, tag 24.07.0-0.44).
_TO_GBPS = {"Gb/sec": 1.0, "MB/sec": 8.0 * 0x100000 / 1e9, "MiB/sec": 8.0 * 0x100000 / 1e9}
# The printed average agrees with the message rate within this fraction (both are rounded).
_RATE_TOLERANCE = 0.03


class PerftestParseError(ValueError):
    """The text is not perftest bandwidth output."""


def _fields(line):
    """' Link type       : Ethernet' -> {'Link type': 'Ethernet'}; two per line when tab-separated."""
    return {k.strip(): v for k, v in _FIELD.findall(line)}


def figures_unit(header_unit, rows):
    """The unit perftest's figures are really in, which its column header does not always say.

    A half-duplex server prints the header in its own unit, then the client's report in the
    client's unit (``xchg_bw_reports``): a server without ``--report_gbits`` facing a client with it
    labels Gb/s figures ``MB/sec`` (perftest before commit 5453511, 2025-12-01, which refuses such a
    mismatch). The message rate does not depend on the unit: MsgRate[Mpps] x bytes x 8 / 1e3 is the
    bandwidth in Gb/s. The row with the largest average decides (the least rounded); the header's
    unit stands unless it disagrees with the message rate and another unit agrees.
    ``rows``: ``(bytes, printed_average, msg_rate_mpps)``.
    """
    measured = [(avg, size, rate) for size, avg, rate in rows if rate and avg > 0]
    if not measured:
        return header_unit
    avg, size, rate = max(measured)
    rate_gbps = rate * size * 8 / 1e3

    def agrees(unit):
        return abs(avg * _TO_GBPS[unit] - rate_gbps) <= _RATE_TOLERANCE * rate_gbps

    if agrees(header_unit):
        return header_unit
    return next((unit for unit in ("Gb/sec", "MiB/sec") if agrees(unit)), header_unit)


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
        "header_unit": None,
        "unit": None,
        "rows": [],
    }
    raw = []
    for line in text.splitlines():
        match = _TEST.match(line)
        if match and result["test"] is None:
            result["test"] = match.group(1)
            continue
        if result["header_unit"] is None:
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
            result["header_unit"] = header.group(2)
            continue
        row = _ROW.match(line) if result["header_unit"] else None
        if row:
            raw.append(
                (
                    int(row.group(1)),
                    int(row.group(2)),
                    float(row.group(3)),
                    float(row.group(4)),
                    float(row.group(5)) if row.group(5) is not None else None,
                )
            )
    if result["header_unit"] is None:
        raise PerftestParseError(
            "no perftest bandwidth table (no '#bytes #iterations BW peak[...]' header) in the output"
        )
    if not raw:
        raise PerftestParseError("the perftest bandwidth table has no result rows (the test did not finish?)")
    unit = figures_unit(
        result["header_unit"], [(size, avg, rate) for size, dummy_iterations, dummy_peak, avg, rate in raw]
    )
    result["unit"] = unit
    factor = _TO_GBPS[unit]
    result["rows"] = [
        {
            "bytes": size,
            "iterations": iterations,
            # 0.00 peak means "not measured" (duration runs); kept as perftest printed it.
            "bw_peak_gbps": peak * factor,
            "bw_avg_gbps": avg * factor,
            "msg_rate_mpps": rate,
        }
        for size, iterations, peak, avg, rate in raw
    ]
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
    if isinstance(nodes, (str, bytes, dict)):
        raise ValueError("nodes must be a list of node names, got %s" % type(nodes).__name__)
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


def bandwidth_rounds(nodes, rails=1):
    """Every ordered pair (client -> server) of ``nodes`` once per rail: for each rail the
    ``all_pairs_rounds`` schedule, then the same rounds with client and server swapped.

    A round is ``{rail, pairs: [[client, server], ...]}`` (``rail`` from 1); no node is twice in a
    round, so its pairs run at the same time. 2(N-1) rounds per rail (2N for odd N): O(N), not N^2.
    """
    rails = int(rails)
    if rails < 1:
        raise ValueError("rails must be >= 1, got %s" % rails)
    forward = all_pairs_rounds(nodes)
    rounds = []
    for rail in range(1, rails + 1):
        for swap in (False, True):
            for pairs in forward:
                rounds.append({"rail": rail, "pairs": [[b, a] if swap else [a, b] for a, b in pairs]})
    return rounds


def _ring_size(node_count):
    """The circle method's ring: the nodes, plus an idle slot when their number is odd."""
    node_count = int(node_count)
    if node_count < 2:
        raise ValueError("a bandwidth schedule needs at least 2 nodes, got %s" % node_count)
    return node_count + node_count % 2


def bandwidth_round_count(node_count, rails=1):
    """How many rounds ``bandwidth_rounds`` has for ``node_count`` nodes: 2(N-1) per rail (2N for odd N), none below 2."""
    rails = int(rails)
    if rails < 1:
        raise ValueError("rails must be >= 1, got %s" % rails)
    if int(node_count) < 2:
        return 0
    return 2 * (_ring_size(node_count) - 1) * rails


def _ring_node(position, round_index, ring):
    """The node at ``position`` of the ring in ``round_index``: slot 0 stays, the others turn by one a round."""
    return 0 if position == 0 else (position - 1 - round_index) % (ring - 1) + 1


def bandwidth_round_side(node_index, node_count, round_index):
    """Node ``node_index``'s side of round ``round_index`` of ``bandwidth_rounds(nodes, rails)``, in O(1).

    -> ``{rail, side, peer}``: ``side`` ``client`` (it sends to node ``peer``), ``server`` (``peer`` sends
    to it) or ``none`` (it sits out: odd N), ``peer`` an index into the node list or None. The same
    rounds as ``bandwidth_rounds``, computed from the circle method's positions instead of by
    building every round (which is O(N^2) for the cluster).
    """
    node_index, round_index = int(node_index), int(round_index)
    ring = _ring_size(node_count)
    if not 0 <= node_index < int(node_count):
        raise ValueError("node index %s is not one of 0..%s" % (node_index, int(node_count) - 1))
    if round_index < 0:
        raise ValueError("round %s is negative" % round_index)
    per_way = ring - 1
    rail, rest = divmod(round_index, 2 * per_way)
    swap, turn = divmod(rest, per_way)
    position = 0 if node_index == 0 else (node_index - 1 + turn) % per_way + 1
    peer = _ring_node(ring - 1 - position, turn, ring)
    if peer >= int(node_count):
        return {"rail": rail + 1, "side": "none", "peer": None}
    first = position < ring // 2
    return {"rail": rail + 1, "side": "client" if first != bool(swap) else "server", "peer": peer}


# A client that ran before its server listened: iperf3 (its -J "error") and perftest's connection setup.
_NOT_LISTENING = re.compile(r"unable to connect to server|Couldn't connect to|Unable to init the socket connection")


def bandwidth_attempt_retry(rc, output):
    """True when a client's attempt failed only because its server did not listen yet (retry it).

    Whatever ``rc`` says: ``iperf3 -J`` can exit 0 with its failure in the JSON's ``error``.
    """
    return (rc != 0 or '"error"' in (output or "")) and bool(_NOT_LISTENING.search(output or ""))


def bandwidth_gbps(tool, output):
    """The client's output -> ``(gbps, parsed)``: iperf3's received rate (tcp) or ib_write_bw's last average."""
    if tool == "tcp":
        parsed = parse_iperf3(output)
        return parsed["received_gbps"], parsed
    parsed = parse_perftest(output)
    return parsed["rows"][-1]["bw_avg_gbps"], parsed


def _pair_link_rate(measurement, link_rate_gbps):
    """The declared rate, else the lower of the two ports' rates (a pair is as fast as its slower end)."""
    if link_rate_gbps is not None:
        return float(link_rate_gbps)
    rates = [
        float(r) for r in (measurement.get("client_rate_gbps"), measurement.get("server_rate_gbps")) if r is not None
    ]
    if not rates:
        raise ValueError(
            "the link rate of %s -> %s is unknown (neither port reports one): declare rdma_bandwidth_link_rate_gbps"
            % (measurement["client"], measurement["server"])
        )
    return min(rates)


def bandwidth_matrix(nodes, measurements, min_fraction, link_rate_gbps=None, rails=1):
    """Fold the measurements into node x node matrices and a pass/fail verdict.

    ``measurements``: ``{client, server, gbps}`` with ``rail`` (from 1, default 1), ``client_port`` and
    ``server_port`` (names, or null for TCP) and ``client_rate_gbps``/``server_rate_gbps``. The client
    sends to the server: row = sender, column = receiver. Each measurement passes at ``min_fraction`` of
    its pair's link rate: ``link_rate_gbps`` when declared, else the lower of its two ports' rates.
    ``rails`` lists one directional matrix per rail (with the port of each node on it); ``matrix_gbps``
    holds, per direction, the slowest rail; ``missing`` names each ``[client, server, 'rail N']`` not
    measured. ``min_gbps`` and ``link_rate_gbps`` are the lowest threshold and pair rate (a summary:
    each pair carries its own).
    """
    nodes = list(nodes)
    index = {n: i for i, n in enumerate(nodes)}
    fraction = float(min_fraction)
    per_rail = {r: [[None] * len(nodes) for dummy_node in nodes] for r in range(1, int(rails) + 1)}
    ports = {r: {} for r in per_rail}
    pairs, slow = [], []
    for m in measurements:
        a, b, rail = m["client"], m["server"], int(m.get("rail", 1))
        if a not in index or b not in index:
            raise ValueError("pair %s -> %s names a node not in %s" % (a, b, nodes))
        if rail not in per_rail:
            raise ValueError("pair %s -> %s is on rail %s, not one of 1..%s" % (a, b, rail, len(per_rail)))
        gbps = float(m["gbps"])
        rate = _pair_link_rate(m, link_rate_gbps)
        per_rail[rail][index[a]][index[b]] = gbps
        ports[rail].update({a: m.get("client_port"), b: m.get("server_port")})
        entry = dict(m, rail=rail, gbps=gbps, link_rate_gbps=rate, min_gbps=rate * fraction, ok=gbps >= rate * fraction)
        pairs.append(entry)
        if not entry["ok"]:
            slow.append(entry)
    matrix = [
        [None if i == j else _lowest(per_rail[r][i][j] for r in per_rail) for j in range(len(nodes))]
        for i in range(len(nodes))
    ]
    missing = [
        [a, b, "rail %d" % r]
        for r in per_rail
        for a in nodes
        for b in nodes
        if a != b and per_rail[r][index[a]][index[b]] is None
    ]
    values = [p["gbps"] for p in pairs]
    rates = [p["link_rate_gbps"] for p in pairs] or ([float(link_rate_gbps)] if link_rate_gbps is not None else [])
    return {
        "nodes": nodes,
        "matrix_gbps": matrix,
        "rails": [{"rail": r, "ports": ports[r], "matrix_gbps": per_rail[r]} for r in per_rail],
        "pairs": pairs,
        "link_rate_gbps": min(rates) if rates else None,
        "min_gbps": min(rates) * fraction if rates else None,
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


def _lowest(values):
    """The lowest measured value (None when a rail was not measured, so a gap is never hidden)."""
    values = list(values)
    return None if any(v is None for v in values) else min(values)
