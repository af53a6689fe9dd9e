# -*- coding: utf-8 -*-
"""plugins/module_utils/nccl_log.py on real NCCL_DEBUG=INFO logs (tests/fixtures/nccl)."""

from __future__ import annotations

from ansible_collections.scc.training.plugins.module_utils.nccl_log import parse_nccl_log
from tests.unit.plugins.source_fixture import source_fixture


def parse(name):
    return parse_nccl_log(source_fixture("nccl", name))


def test_roce_init_two_nodes():
    r = parse("nccl_ib_roce_init_nccl_tests_185.log")
    assert r["transport"] == "IB"
    assert r["network"] == "IB"
    assert r["roce"] is True
    assert r["ib_devices"] == [
        {"name": "mlx5_10", "port": 1, "link_layer": "RoCE"},
        {"name": "mlx5_11", "port": 1, "link_layer": "RoCE"},
    ]
    assert r["bootstrap_interface"] == "enp220s0np0"
    assert r["version"] == "2.19.3+cuda12.3"
    assert r["channels"] == 0
    assert r["ib_no_device"] is False


def test_roce_channels_with_gid_index():
    r = parse("nccl_roce_channels_gid3_mesh_56.log")
    assert r["transport"] == "IB"
    assert r["connections"] == {"NET/IB": 16}
    assert r["channels"] == 16
    assert r["gid_index"] == 3
    assert r["rings_connected"] is True
    assert r["gdr"] is False
    # No "NET/IB : Using" line in this excerpt: whether it was RoCE is unknown, not False.
    assert r["roce"] is None


def test_ib_plugin_channels_and_intra_node_p2p():
    r = parse("nccl_ibext_roce_p2p_1814.log")
    assert r["transport"] == "IB"
    assert r["connections"] == {"P2P": 14, "NET/IB": 12}
    assert r["gid_index"] == 3


def test_socket_fallback_between_nodes():
    r = parse("nccl_socket_fallback_p2p_952.log")
    assert r["transport"] == "Socket"
    assert r["connections"] == {"P2P": 14, "NET/Socket": 2}
    assert r["channels"] == 8
    assert r["roce"] is False


def test_socket_forced_at_init():
    r = parse("nccl_socket_forced_676.log")
    assert r["transport"] == "Socket"
    assert r["network"] == "Socket"
    assert r["socket_interfaces"] == ["enp225s0f1"]
    assert r["bootstrap_interface"] == "enp225s0f1"
    assert r["version"] == "2.11.4+cuda11.4"


def test_no_ib_device_found():
    r = parse("nccl_ib_no_device_aws_226.log")
    assert r["ib_no_device"] is True
    assert r["transport"] == "Socket"
    assert r["socket_interfaces"] == ["ens3"]
    assert r["ib_devices"] == []


def test_old_nccl_infiniband_init_without_using_network_line():
    r = parse("nccl_ib_infiniband_init_peer_memory_56.log")
    assert r["transport"] == "IB"
    assert r["network"] is None
    assert r["ib_devices"] == [{"name": "mlx5_0", "port": 1, "link_layer": "IB"}]
    assert r["roce"] is False
    assert r["version"] == "2.4.7+cuda10.0"


def test_intra_node_only_and_gdr_and_mpirun_prefix():
    log = "\n".join(
        [
            "[1,0]<stdout>:n1:10:20 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read",
            "[1,1]<stdout>:n1:11:21 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via SHM/direct/direct",
        ]
    )
    r = parse_nccl_log(log)
    assert r["transport"] == "P2P/SHM"
    assert r["connections"] == {"P2P": 1, "SHM": 1}
    gdr = parse_nccl_log("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA")
    assert gdr["transport"] == "IB" and gdr["gdr"] is True


def test_no_nccl_lines():
    r = parse_nccl_log("step 10 loss 7.1\nrank 0 done\n")
    assert r["transport"] is None
    assert r["lines"] == 0
    assert parse_nccl_log("")["transport"] is None


def test_warnings_are_collected_once():
    log = "h:1:2 [0] transport/net_ib.cc:839 NCCL WARN NET/IB : Got completion with error 12\n" * 2
    assert parse_nccl_log(log)["warnings"] == ["NET/IB : Got completion with error 12"]
