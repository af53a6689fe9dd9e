# -*- coding: utf-8 -*-
"""The plans of plugins/plugin_utils/role_plans.py over module_utils/fabric.py (filters until 0.4.0): thin wrappers
that reject bad input naming the plan."""

from __future__ import annotations

import base64

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.plugin_utils import role_plans

DEVICES = [{"name": "mlx5_0", "ports": [{"port": 1, "state": "PORT_ACTIVE", "roce_v2_gid_index": 3}]}]


def b64(text):
    return base64.b64encode(text.encode()).decode()


def test_registered_names():
    for name in (
        "rdma_port_list",
        "rdma_measurement_ports",
        "bandwidth_shortfalls",
        "fabric_samples",
        "fabric_traffic",
    ):
        assert role_plans.plan(name) is getattr(role_plans, name)
    assert "fabric_samples" in role_plans.READS_HOSTVARS


def test_measurement_ports_take_a_gid_index_as_inventories_give_it():
    assert role_plans.rdma_measurement_ports(DEVICES, "", "5")[0]["gid_index"] == 5
    assert role_plans.rdma_measurement_ports(DEVICES, None, None)[0]["gid_index"] == 3


def test_samples_of_the_hosts_that_have_them():
    hostvars = {
        "n1": {"raw": {"content": b64('{"t": 1}\n{"t": 2}\n')}},
        "n2": {"raw": {"failed": True, "msg": "file not found"}},
        "n3": {},
    }
    assert role_plans.fabric_samples(["n1", "n2", "n3", "n4"], hostvars, "raw") == {"n1": [{"t": 1}, {"t": 2}]}


def test_traffic_of_samples():
    samples = {"n1": [{"t": 0, "net": {"lo": [0, 0]}}, {"t": 1, "net": {"lo": [125_000_000, 0]}}]}
    assert role_plans.fabric_traffic(samples)["nodes"]["n1"]["counters"]["net:lo"]["peak_gbps"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: role_plans.rdma_port_list({"devices": []}), r"^rdma_port_list: input must be rdma_info's devices"),
        (lambda: role_plans.rdma_port_list([{"ports": [{}]}]), r"^rdma_port_list: malformed device"),
        (lambda: role_plans.rdma_measurement_ports("mlx5_0"), r"^rdma_measurement_ports: input must be"),
        (
            lambda: role_plans.rdma_measurement_ports(DEVICES, "", "three"),
            r"^rdma_measurement_ports: gid_index must be",
        ),
        (lambda: role_plans.rdma_measurement_ports(DEVICES, "", True), r"^rdma_measurement_ports: gid_index must be"),
        (lambda: role_plans.bandwidth_shortfalls([]), r"^bandwidth_shortfalls: input must be"),
        (lambda: role_plans.bandwidth_shortfalls({"below_threshold": [{}]}), r"^bandwidth_shortfalls: malformed"),
        (lambda: role_plans.fabric_samples("n1", {}, "raw"), r"^fabric_samples: input must be a list"),
        (lambda: role_plans.fabric_samples(["n1"], [], "raw"), r"^fabric_samples: hostvars must be"),
        (
            lambda: role_plans.fabric_samples(["n1"], {"n1": {"raw": {"content": b64("not json\n")}}}, "raw"),
            r"^fabric_samples: the samples of n1 are not JSON lines",
        ),
        (lambda: role_plans.fabric_traffic([]), r"^fabric_traffic: input must map"),
        (lambda: role_plans.fabric_traffic({"n1": [{"net": {}}]}), r"^fabric_traffic: malformed sample"),
    ],
)
def test_bad_input_is_refused_naming_the_filter(call, message):
    with pytest.raises(AnsibleFilterError, match=message):
        call()
