# -*- coding: utf-8 -*-
"""plugins/module_utils/perftest.py and its filters on real perftest / iperf3 outputs (tests/fixtures/perftest),
and the all-pairs round schedule of rdma_bandwidth."""

from __future__ import annotations

import itertools
import sys

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.module_utils import perftest
from ansible_collections.scc.training.plugins.plugin_utils import role_plans
from tests.unit.plugins.source_fixture import source_fixture


def fixture(name, strip_header=False):
    text = source_fixture("perftest", name)
    if strip_header:
        text = "".join(line for line in text.splitlines(True) if not line.startswith("# "))
    return text


def header(result, *more):
    """The device, link type, GID index and `more` of a parsed run."""
    return tuple(result[key] for key in ("device", "link_type", "gid_index", *more))


def test_ib_write_bw_roce_size_sweep_in_gbits():
    result = perftest.parse_perftest(fixture("ib_write_bw_roce_sweep_gbits.txt"))
    assert result["test"] == "RDMA_Write BW Test"
    assert header(result, "connection_type", "unit") == ("mlx5_0", "Ethernet", 5, "RC", "Gb/sec")
    rows = result["rows"]
    assert [r["bytes"] for r in rows] == [2**k for k in range(1, 24)]
    assert all(r["iterations"] == 5000 for r in rows)
    assert rows[0] == {
        "bytes": 2,
        "iterations": 5000,
        "bw_peak_gbps": 0.11,
        "bw_avg_gbps": 0.11,
        "msg_rate_mpps": 6.897101,
    }
    assert rows[-1]["bytes"] == 8388608 and rows[-1]["bw_avg_gbps"] == 92.39
    assert max(r["bw_peak_gbps"] for r in rows) == 92.46


def test_ib_write_bw_duration_run_without_peak():
    result = perftest.parse_perftest(fixture("ib_write_bw_roce_postlist_duration.txt"))
    assert result["test"] == "RDMA_Write Post List BW Test"
    # Tab-separated header fields (two per line) are read too.
    assert header(result) == ("ib0", "Ethernet", 2)
    assert result["rows"] == [
        {"bytes": 8, "iterations": 224958464, "bw_peak_gbps": 0.0, "bw_avg_gbps": 0.48, "msg_rate_mpps": 7.498617}
    ]


def test_mb_per_sec_is_converted_to_gbps():
    result = perftest.parse_perftest(fixture("ib_atomic_bw_pib_mbytes.txt"))
    assert result["test"] == "Atomic CMP_AND_SWAP BW Test"
    assert header(result, "unit") == ("pib_1", "IB", None, "MB/sec")
    (row,) = result["rows"]
    # perftest's MB/sec is bytes/s / 2^20: 1.67 MB/s = 1.67 * 8 * 1048576 / 1e9 Gb/s.
    assert row["bw_avg_gbps"] == pytest.approx(1.67 * 8 * 1048576 / 1e9, rel=1e-6)
    assert row["bw_peak_gbps"] == pytest.approx(1.70 * 8 * 1048576 / 1e9, rel=1e-6)


SERVER = "ib_write_bw_server_header_mb_figures_gbits.txt"


def test_server_header_in_mb_over_figures_in_gbits():
    """A server without --report_gbits prints the client's Gb/s report under its own MB/sec header."""
    result = perftest.parse_perftest(fixture(SERVER))
    assert header(result, "header_unit", "unit") == ("mlx5_1", "Ethernet", 3, "MB/sec", "Gb/sec")
    (row,) = result["rows"]
    # 0.044098 Mpps x 65536 B x 8 = 23.12 Gb/s: the printed figure, not 23.12 MiB/s (0.19 Gb/s).
    assert row == {
        "bytes": 65536,
        "iterations": 441000,
        "bw_peak_gbps": 0.0,
        "bw_avg_gbps": 23.12,
        "msg_rate_mpps": 0.044098,
    }


@pytest.mark.parametrize(
    ("label", "average", "header_unit", "unit"),
    [
        # perftest >= 24.07 labels its 2^20-byte unit MiB/sec: the same mismatch.
        ("MiB/sec", "23.12", "MiB/sec", "Gb/sec"),
        # Figures really in MiB/s under that label: 23.12 Gb/s = 2756.07 MiB/s.
        ("MiB/sec", "2756.07", "MiB/sec", "MiB/sec"),
        # A Gb/sec header over MiB/s figures (the client without --report_gbits, the server with it).
        ("Gb/sec", "2756.07", "Gb/sec", "MiB/sec"),
    ],
)
def test_the_message_rate_tells_the_unit_of_the_figures(label, average, header_unit, unit):
    text = fixture(SERVER).replace("[MB/sec]", "[%s]" % label).replace(" 23.12 ", " %s " % average)
    result = perftest.parse_perftest(text)
    assert (result["header_unit"], result["unit"]) == (header_unit, unit)
    assert result["rows"][0]["bw_avg_gbps"] == pytest.approx(23.12, abs=0.01)


def test_without_a_message_rate_the_header_stands():
    # Neither a zero figure nor a missing rate can tell the unit.
    for row in (
        " 65536      441000           0.00               0.00  \t\t   0.000000\n",
        " 65536      441000   0.00   23.12\n",
    ):
        text = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n" + row
        assert perftest.parse_perftest(text)["unit"] == "MB/sec"
    assert perftest.figures_unit("Gb/sec", []) == "Gb/sec"


# Output a parser refuses, and the words of its error.
REFUSALS = [
    ("parse_perftest", "", "no perftest bandwidth table"),
    (
        "parse_perftest",
        "Couldn't connect to 127.0.11.12:18515\nUnable to init the socket connection\n",
        "no perftest bandwidth table",
    ),
    # The table header printed, then the client died: no rows.
    (
        "parse_perftest",
        " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n",
        "no result rows",
    ),
    ("parse_iperf3", "not json", "not JSON"),
    (
        "parse_iperf3",
        '{"start": {}, "intervals": [], "end": {}, "error": "unable to connect to server: Connection refused"}',
        "unable to connect to server",
    ),
    ("parse_iperf3", '{"start": {}, "intervals": [], "end": {}}', "no end.sum_sent"),
]


@pytest.mark.parametrize("name, output, message", REFUSALS)
def test_parsers_refuse_output_without_results(name, output, message):
    with pytest.raises(perftest.PerftestParseError, match=message):
        getattr(perftest, name)(output)


def test_parse_perftest_rejects_non_text():
    with pytest.raises(perftest.PerftestParseError, match="must be a string"):
        perftest.parse_perftest({"stdout": ""})


def test_iperf3_json_client_output():
    result = perftest.parse_iperf3(fixture("iperf3_tcp_gcp_to_ibm_syd.txt", strip_header=True))
    assert (result["version"], result["protocol"], result["streams"], result["duration_s"]) == (
        "iperf 3.9",
        "TCP",
        1,
        10,
    )
    assert (result["local_host"], result["remote_host"]) == ("10.56.0.12", "168.1.194.92")
    assert result["sent_gbps"] == pytest.approx(0.048235, abs=1e-6)
    assert result["received_gbps"] == pytest.approx(0.047758, abs=1e-6)
    assert result["bytes_received"] == 61444992
    assert result["retransmits"] == 356
    # 3 omitted warm-up intervals, then the 10 measured ones.
    assert [i["omitted"] for i in result["intervals"]] == [True] * 3 + [False] * 10
    assert result["intervals"][3]["gbps"] == pytest.approx(0.0629, abs=1e-4)


@pytest.mark.parametrize("n", range(0, 13))
def test_all_pairs_rounds_every_pair_once_no_node_twice_in_a_round(n):
    nodes = ["node%d" % i for i in range(1, n + 1)]
    rounds = perftest.all_pairs_rounds(nodes)
    expected_rounds = 0 if n < 2 else (n - 1 if n % 2 == 0 else n)
    assert len(rounds) == expected_rounds
    seen = [frozenset(p) for r in rounds for p in r]
    assert sorted(map(sorted, seen)) == sorted(map(sorted, (frozenset(p) for p in itertools.combinations(nodes, 2))))
    assert len(seen) == len(set(seen)), "a pair was scheduled twice"
    for r in rounds:
        in_round = [node for pair in r for node in pair]
        assert len(in_round) == len(set(in_round)), "a node is twice in round %s" % r
        # Every round is as full as it can be: all nodes busy (even N) or exactly one bye (odd N).
        assert len(in_round) == (n if n % 2 == 0 else n - 1)
    if n % 2 == 1 and n > 1:
        byes = [next(x for x in nodes if x not in {y for p in r for y in p}) for r in rounds]
        assert sorted(byes) == sorted(nodes), "for odd N every node sits out exactly once"


def test_all_pairs_rounds_rejects_duplicates_and_strings():
    with pytest.raises(ValueError, match="unique"):
        perftest.all_pairs_rounds(["a", "b", "a"])
    with pytest.raises(ValueError, match="list of node names"):
        perftest.all_pairs_rounds("node1,node2")


@pytest.mark.parametrize("n", [2, 3, 4, 7])
@pytest.mark.parametrize("rails", [1, 2])
def test_bandwidth_rounds_every_ordered_pair_once_per_rail(n, rails):
    nodes = ["node%d" % i for i in range(1, n + 1)]
    rounds = role_plans.bandwidth_rounds(nodes, rails)
    # O(N) rounds per rail: the round-robin schedule twice (once each way).
    assert len(rounds) == rails * 2 * (n - 1 if n % 2 == 0 else n)
    for rail in range(1, rails + 1):
        measured = [tuple(p) for r in rounds if r["rail"] == rail for p in r["pairs"]]
        assert sorted(measured) == sorted(itertools.permutations(nodes, 2)), "every direction of every pair, once"
    for r in rounds:
        in_round = [node for pair in r["pairs"] for node in pair]
        assert len(in_round) == len(set(in_round)), "a node is twice in round %s" % r


def test_bandwidth_rounds_refuses_no_rail():
    with pytest.raises(AnsibleFilterError, match=r"^bandwidth_rounds: rails must be >= 1"):
        role_plans.bandwidth_rounds(["a", "b"], 0)
    with pytest.raises(AnsibleFilterError, match=r"^bandwidth_rounds: input must be a list of node names"):
        role_plans.bandwidth_rounds("a,b")


@pytest.mark.parametrize("n", range(2, 12))
@pytest.mark.parametrize("rails", [1, 2])
def test_bandwidth_round_side_is_each_nodes_view_of_bandwidth_rounds(n, rails):
    nodes = ["node%d" % i for i in range(n)]
    rounds = perftest.bandwidth_rounds(nodes, rails)
    assert role_plans.bandwidth_round_count(n, rails) == len(rounds)
    for index, plan in enumerate(rounds):
        clients = dict(plan["pairs"])
        servers = {b: a for a, b in plan["pairs"]}
        for i, node in enumerate(nodes):
            side = role_plans.bandwidth_round_side(i, n, index)
            assert side["rail"] == plan["rail"]
            if node in clients:
                assert side == {"rail": plan["rail"], "side": "client", "peer": nodes.index(clients[node])}
            elif node in servers:
                assert side == {"rail": plan["rail"], "side": "server", "peer": nodes.index(servers[node])}
            else:
                assert side == {"rail": plan["rail"], "side": "none", "peer": None}


def test_bandwidth_round_side_refuses_what_is_no_node_or_round():
    with pytest.raises(AnsibleFilterError, match=r"^bandwidth_round_side: node index 3 is not one of 0..2"):
        role_plans.bandwidth_round_side(3, 3, 0)
    with pytest.raises(AnsibleFilterError, match=r"^bandwidth_round_side: a bandwidth schedule needs at least 2 nodes"):
        role_plans.bandwidth_round_side(0, 1, 0)
    with pytest.raises(AnsibleFilterError, match=r"^bandwidth_round_count: rails must be >= 1"):
        role_plans.bandwidth_round_count(4, 0)
    # One node: no pair, no round (as bandwidth_rounds).
    assert role_plans.bandwidth_round_count(1, 2) == len(perftest.bandwidth_rounds(["a"], 2)) == 0


def _lines_per_side(n, calls=200):
    """Python lines executed (sys.settrace's line events) per node side of a round, over ``calls`` (node, round)
    spread across a cluster of n: a count of work, not a wall-clock time, so other load on the machine cannot
    change it."""
    total = perftest.bandwidth_round_count(n, 2)
    work = [(k * 7919 % n, k * 104729 % total) for k in range(calls)]
    lines = 0

    def tracer(frame, event, arg):
        nonlocal lines
        if event == "line":
            lines += 1
        return tracer

    previous = sys.gettrace()  # a coverage tracer, if any, comes back afterwards
    sys.settrace(tracer)
    try:
        for node, round_index in work:
            perftest.bandwidth_round_side(node, n, round_index)
    finally:
        sys.settrace(previous)
    return lines / calls


def test_bandwidth_round_planning_per_node_and_round_stays_flat_from_100_to_1000_nodes():
    # A node's side of a round does the same work at N=1000 as at N=100 (O(1)); walking the round's pairs for
    # it, as the role once did, would do 10x more (O(N)).
    small, large = _lines_per_side(100), _lines_per_side(1000)
    assert 0 < large <= small * 1.05


@pytest.mark.parametrize(
    ("rc", "output", "retry"),
    [
        (1, '{"error": "unable to connect to server: Connection refused"}', True),
        # iperf3 -J may exit 0 and still report the failure in its JSON.
        (0, '{"error": "unable to connect to server - server may have stopped running: Connection refused"}', True),
        (1, "Couldn't connect to 10.0.0.2:18515\nUnable to open file descriptor for socket connection", True),
        (1, '{"error": "the server is busy running a test. try again later"}', False),
        (1, "Failed to modify QP 12345 to RTR", False),
        (0, "", False),
    ],
)
def test_bandwidth_attempt_retry_only_while_the_server_is_not_listening(rc, output, retry):
    assert perftest.bandwidth_attempt_retry(rc, output) is retry


def m(client, server, gbps, rail=1, rates=(25.0, 25.0)):
    """A measurement as rdma_bandwidth's round.yml records it."""
    return {
        "client": client,
        "server": server,
        "rail": rail,
        "gbps": gbps,
        "client_port": "mlx5_%d:1" % (rail - 1),
        "server_port": "mlx5_%d:1" % (rail - 1),
        "client_rate_gbps": rates[0],
        "server_rate_gbps": rates[1],
    }


def test_bandwidth_matrix_directional_per_rail_and_each_pair_against_its_slower_end():
    nodes = ["n1", "n2", "n3"]
    # n3's ports run at 10 Gb/s: its pairs are judged against 0.8 x 10 = 8, the others against 0.8 x 25 = 20.
    slow = {"n3"}

    def rates(a, b):
        return tuple(10.0 if x in slow else 25.0 for x in (a, b))

    measurements = [
        m(a, b, 23.0 if not slow & {a, b} else 9.0, rail, rates(a, b))
        for rail in (1, 2)
        for a, b in itertools.permutations(nodes, 2)
    ]
    # One direction of one rail is slow: n2 sends to n1 at 12 Gb/s on rail 2.
    next(x for x in measurements if (x["client"], x["server"], x["rail"]) == ("n2", "n1", 2))["gbps"] = 12.0
    result = role_plans.bandwidth_matrix(measurements, nodes, 0.8, None, 2)
    assert [(p["client"], p["server"], p["rail"], p["min_gbps"]) for p in result["below_threshold"]] == [
        ("n2", "n1", 2, 20.0)
    ]
    assert {(p["link_rate_gbps"], p["min_gbps"]) for p in result["pairs"] if "n3" in (p["client"], p["server"])} == {
        (10.0, 8.0)
    }
    # Rows send, columns receive; the top-level matrix keeps each direction's slowest rail.
    assert result["rails"][1]["matrix_gbps"][1][0] == 12.0 and result["rails"][1]["matrix_gbps"][0][1] == 23.0
    assert result["matrix_gbps"] == [[None, 23.0, 9.0], [12.0, None, 9.0], [9.0, 9.0, None]]
    assert result["rails"][0]["ports"] == {"n1": "mlx5_0:1", "n2": "mlx5_0:1", "n3": "mlx5_0:1"}
    assert (result["link_rate_gbps"], result["min_gbps"]) == (10.0, 8.0)
    assert result["missing"] == [] and result["summary"]["pairs"] == 12 and result["ok"] is False


def test_bandwidth_matrix_declared_rate_missing_measurements_and_errors():
    measurements = [m("n1", "n2", 23.5), m("n2", "n1", 23.0, rates=(None, None))]
    # A declared rate wins over the ports' (and stands in for unknown ones).
    result = role_plans.bandwidth_matrix(measurements, ["n1", "n2", "n3"], 0.5, 2, 1)
    assert {p["min_gbps"] for p in result["pairs"]} == {1.0} and result["below_threshold"] == []
    assert result["missing"] == [
        ["n1", "n3", "rail 1"],
        ["n2", "n3", "rail 1"],
        ["n3", "n1", "rail 1"],
        ["n3", "n2", "rail 1"],
    ]
    assert result["ok"] is False
    assert result["summary"] == {"pairs": 2, "min": 23.0, "max": 23.5, "mean": 23.25}
    with pytest.raises(AnsibleFilterError, match=r"link rate of n2 -> n1 is unknown.*rdma_bandwidth_link_rate_gbps"):
        role_plans.bandwidth_matrix(measurements, ["n1", "n2"], 0.8)
    with pytest.raises(AnsibleFilterError, match="not in"):
        role_plans.bandwidth_matrix([{"client": "x", "server": "n1", "gbps": 1}], ["n1"], 0.8, 25)
    with pytest.raises(AnsibleFilterError, match=r"rail 3, not one of 1\.\.2"):
        role_plans.bandwidth_matrix([m("n1", "n2", 20, rail=3)], ["n1", "n2"], 0.8, None, 2)
    # No measurement at all (one node): nothing to judge, a declared rate still gives the threshold.
    alone = role_plans.bandwidth_matrix([], ["n1"], 0.8, 25)
    assert (alone["ok"], alone["min_gbps"], alone["summary"]["pairs"]) == (True, 20.0, 0)


def test_heatmap_draws_one_panel_per_rail(tmp_path):
    from ansible_collections.scc.training.plugins.plugin_utils import plots

    nodes = ["n1", "n2"]
    measurements = [m(a, b, 21.0, rail) for rail in (1, 2) for a, b in itertools.permutations(nodes, 2)]
    measurements[0]["gbps"] = 3.0
    result = dict(perftest.bandwidth_matrix(nodes, measurements, 0.8, None, 2), tool="ib_write_bw", min_fraction=0.8)
    plots.bandwidth_heatmap(result, str(tmp_path / "h.png"))
    image = (tmp_path / "h.png").read_bytes()
    assert image[:8] == b"\x89PNG\r\n\x1a\n"
    # Two panels side by side: wider than tall.
    width, height = int.from_bytes(image[16:20], "big"), int.from_bytes(image[20:24], "big")
    assert width > 1.5 * height
