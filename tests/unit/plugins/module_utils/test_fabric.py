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
        # The first active port, with its RoCE v2 GID index.
        ("", None, ("mlx5_1", 1, 5)),
        # A named device; a declared GID index wins over the detected one.
        ("mlx5_1", 0, ("mlx5_1", 1, 0)),
        ("mlx5_0", None, None),
        ("mlx5_9", None, None),
    ],
)
def test_measurement_port(device, gid_index, expected):
    got = fabric.measurement_port(DEVICES, device, gid_index)
    assert (got and (got["device"], got["port"], got["gid_index"])) == expected
    if got:
        assert (got["link_layer"], got["rate_gbps"]) == ("Ethernet", 25.0)


def test_measurement_port_on_infiniband_has_no_gid():
    ib = [{"name": "mlx5_0", "ports": [dict(port(1), link_layer="InfiniBand", roce_v2_gid_index=None)]}]
    assert fabric.measurement_port(ib)["gid_index"] is None


def test_bandwidth_shortfalls():
    result = {
        "below_threshold": [
            {"client": "n1", "server": "n3", "gbps": 7.456},
            {"client": "n2", "server": "n4", "gbps": "1"},
        ],
        "missing": [["n1", "n2"], ["n3", "n4"]],
    }
    assert fabric.bandwidth_shortfalls(result) == ["n1 -> n3 7.46", "n2 -> n4 1.00", "not measured: n1-n2, n3-n4"]
    assert fabric.bandwidth_shortfalls({"below_threshold": [], "missing": []}) == []


def test_decode_samples_skips_blank_lines():
    lines = [{"t": 1.0, "ib": {}, "net": {"lo": [1, 2]}}, {"t": 2.0, "ib": {}, "net": {"lo": [3, 4]}}]
    text = "\n".join(json.dumps(s) for s in lines) + "\n\n"
    assert fabric.decode_samples(base64.b64encode(text.encode()).decode()) == lines
    assert fabric.decode_samples("") == []
