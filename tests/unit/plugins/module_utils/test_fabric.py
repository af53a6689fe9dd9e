# -*- coding: utf-8 -*-
"""plugins/module_utils/fabric.py: RDMA port lists, the measurement port, bandwidth shortfalls, traffic samples.
(The rate arithmetic of traffic_rates is covered in tests/unit/roles/fabric_monitor/test_fabric_traffic.py.)"""

from __future__ import annotations

import base64
import json

import pytest

from ansible_collections.scc.training.plugins.module_utils import fabric


def port(number, state="PORT_ACTIVE", gid=3, rate=25.0):
    return {"port": number, "state": state, "link_layer": "Ethernet", "rate_gbps": rate, "roce_v2_gid_index": gid}


DEVICES = [
    {"name": "mlx5_0", "ports": [port(1, state="PORT_DOWN", rate=None)]},
    {"name": "mlx5_1", "ports": [port(1, gid=5), port(2, gid=7)]},
    {"name": "mlx5_2", "ports": []},
]


def test_port_list_flattens_every_port_of_every_device():
    assert fabric.port_list(DEVICES) == [
        {"port": "mlx5_0:1", "state": "PORT_DOWN", "link_layer": "Ethernet", "rate_gbps": None},
        {"port": "mlx5_1:1", "state": "PORT_ACTIVE", "link_layer": "Ethernet", "rate_gbps": 25.0},
        {"port": "mlx5_1:2", "state": "PORT_ACTIVE", "link_layer": "Ethernet", "rate_gbps": 25.0},
    ]
    assert fabric.port_list([]) == []


@pytest.mark.parametrize(
    ("device", "gid_index", "expected"),
    [
        # Every active port (both rails), in rdma_info's order, each with its RoCE v2 GID index.
        ("", None, [("mlx5_1:1", 5), ("mlx5_1:2", 7)]),
        # A named device; a declared GID index wins over the detected one.
        ("mlx5_1", 0, [("mlx5_1:1", 0), ("mlx5_1:2", 0)]),
        ("mlx5_0", None, []),
        ("mlx5_9", None, []),
    ],
)
def test_measurement_ports(device, gid_index, expected):
    got = fabric.measurement_ports(DEVICES, device, gid_index)
    assert [(p["name"], p["gid_index"]) for p in got] == expected
    for p in got:
        assert (p["device"], p["link_layer"], p["rate_gbps"], p["links"]) == ("mlx5_1", "Ethernet", 25.0, 1)


def test_measurement_ports_on_infiniband_have_no_gid_and_a_bond_has_its_links():
    ib = [{"name": "mlx5_0", "ports": [dict(port(1), link_layer="InfiniBand", roce_v2_gid_index=None)]}]
    assert fabric.measurement_ports(ib)[0]["gid_index"] is None
    bond = [{"name": "mlx5_bond_0", "ports": [dict(port(1), bond_slaves=["eth0", "eth1"])]}]
    assert [(p["name"], p["links"]) for p in fabric.measurement_ports(bond)] == [("mlx5_bond_0:1", 2)]


def test_bandwidth_shortfalls():
    result = {
        "below_threshold": [
            {
                "client": "n1",
                "server": "n3",
                "gbps": 7.456,
                "min_gbps": 20,
                "client_port": "mlx5_0:1",
                "server_port": "mlx5_1:1",
            },
            {"client": "n2", "server": "n4", "gbps": "1", "min_gbps": 1.0, "client_port": None, "server_port": None},
        ],
        "missing": [["n1", "n2", "rail 1"], ["n4", "n3", "rail 2"]],
    }
    assert fabric.bandwidth_shortfalls(result) == [
        "n1 mlx5_0:1 -> n3 mlx5_1:1 7.46 (threshold 20.00)",
        "n2 -> n4 1.00 (threshold 1.00)",
        "not measured: n1 -> n2 (rail 1), n4 -> n3 (rail 2)",
    ]
    assert fabric.bandwidth_shortfalls({"below_threshold": [], "missing": []}) == []


def test_decode_samples_skips_blank_lines():
    lines = [{"t": 1.0, "ib": {}, "net": {"lo": [1, 2]}}, {"t": 2.0, "ib": {}, "net": {"lo": [3, 4]}}]
    text = "\n".join(json.dumps(s) for s in lines) + "\n\n"
    assert fabric.decode_samples(base64.b64encode(text.encode()).decode()) == lines
    assert fabric.decode_samples("") == []


def test_erdma_ports_keep_their_own_gid_index_and_nccl_is_not_given_one():
    """Alibaba's eRDMA runbook (AliyunContainerService/alibabacloud-erdma-controller docs/erdma-benchmark/README.md):
    two eRDMA NICs' RoCEv2-IPv4 GID indexes differ (erdma_0=2, erdma_1=1), so a single NCCL_IB_GID_INDEX is wrong.
    rdma_bandwidth measures each rail with its own -x; nccl_ib_env leaves the index to NCCL (>= 2.21 picks it)."""
    from ansible_collections.scc.training.plugins.module_utils import rdma

    devices = [
        {"name": "erdma_0", "transport": "eRDMA (0)", "ports": [dict(port(1), roce_v2_gid_index=2, rate_gbps=None)]},
        {"name": "erdma_1", "transport": "eRDMA (0)", "ports": [dict(port(1), roce_v2_gid_index=1, rate_gbps=None)]},
    ]
    assert [(p["name"], p["gid_index"]) for p in fabric.measurement_ports(devices)] == [
        ("erdma_0:1", 2),
        ("erdma_1:1", 1),
    ]
    env = rdma.nccl_ib_env(devices, "eth0")
    assert env["NCCL_IB_HCA"] == "=erdma_0:1,erdma_1:1" and "NCCL_IB_GID_INDEX" not in env
