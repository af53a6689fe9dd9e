# -*- coding: utf-8 -*-
"""plugins/filter/rdma.py and plugins/filter/nccl.py: the filters wrap module_utils and reject
input of the wrong type with a message naming the filter."""

from __future__ import annotations

import pathlib

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.filter import nccl, rdma
from ansible_collections.scc.training.plugins.module_utils import rdma as rdma_parsers
from ansible_collections.scc.training.plugins.plugin_utils import role_plans

FIXTURES = pathlib.Path(__file__).resolve().parents[3] / "fixtures"


def test_registered_names():
    assert rdma.FilterModule().filters() == {"nccl_ib_env": rdma.nccl_ib_env}
    for name in (
        "rdma_port_problems",
        "rdma_cluster_differences",
        "rdma_stack_problems",
        "rdma_netdev_mtu_plan",
        "nccl_run_verdict",
        "nccl_node_report",
        "nccl_cluster_verdict",
        "nccl_check_resolve",
        "nccl_tests_build",
    ):
        assert role_plans.plan(name) is getattr(role_plans, name)
    assert nccl.FilterModule().filters() == {
        "parse_nccl_log": nccl.parse_nccl_log,
        "parse_nccl_tests": nccl.parse_nccl_tests,
    }


def test_filters_on_fixtures():
    devices = rdma_parsers.parse_ibv_devinfo((FIXTURES / "rdma" / "ibv_devinfo_mlx5_roce_azure.txt").read_text())
    assert devices[0]["ports"][0]["link_layer"] == "Ethernet"
    cas = rdma_parsers.parse_ibstat((FIXTURES / "rdma" / "ibstat_roce_active_ib_down.txt").read_text())
    assert cas["mlx5_1"]["ports"][1]["state"] == "Down"
    log = nccl.parse_nccl_log((FIXTURES / "nccl" / "nccl_socket_fallback_p2p_952.log").read_text())
    assert log["transport"] == "Socket"
    # The Azure device at 1024 MTU is active but no rate is known from ibv_devinfo alone.
    assert role_plans.rdma_port_problems(devices, 1, "Ethernet", 25) == [
        "rdmaP23800p0s2 port 1: rate None Gb/s, expected 25 Gb/s"
    ]


@pytest.mark.parametrize(
    "func, arg, name",
    [
        (role_plans.rdma_port_problems, {"devices": []}, "rdma_port_problems"),
        (role_plans.rdma_cluster_differences, [{"devices": []}], "rdma_cluster_differences"),
        (role_plans.rdma_stack_problems, [{"devices": []}], "rdma_stack_problems"),
        (role_plans.rdma_stack_problems, {"devices": "mlx5_0"}, "rdma_stack_problems"),
        (nccl.parse_nccl_log, 42, "parse_nccl_log"),
        (nccl.parse_nccl_tests, b"# Avg bus bandwidth : 1", "parse_nccl_tests"),
        (role_plans.nccl_tests_build, ["MPI_HOME=/usr"], "nccl_tests_build"),
    ],
)
def test_wrong_input_type(func, arg, name):
    with pytest.raises(AnsibleFilterError, match=name):
        func(arg)


def test_nccl_ib_env_without_active_port_is_a_filter_error():
    with pytest.raises(AnsibleFilterError, match="nccl_ib_env: no active RDMA port"):
        rdma.nccl_ib_env([{"name": "mlx5_0", "ports": [{"port": 1, "state": "PORT_DOWN"}]}], "eth0")
    with pytest.raises(AnsibleFilterError, match="nccl_ib_env"):
        rdma.nccl_ib_env("mlx5_0", "eth0")


def test_nccl_check_resolve_wraps_the_resolver_and_names_bad_input():

    from ansible_collections.scc.training.plugins.module_utils import hardware_defaults

    resolved = hardware_defaults.resolve("ebmgn8is")
    assert role_plans.nccl_check_resolve(resolved, {}, 2)["thresholds"] == {
        "single_node_gbps": 11.02,
        "multi_node_gbps": 14.0,
    }
    with pytest.raises(AnsibleFilterError, match=r"^nccl_check_resolve: input must be a dict of the role's variables"):
        role_plans.nccl_check_resolve(resolved, ["nccl_check_gpus"])
    with pytest.raises(AnsibleFilterError, match=r"nccl_check_link_rate_gbps: "):
        role_plans.nccl_check_resolve(hardware_defaults.resolve(None, {"a": {"gpus": [{"name": "NVIDIA L20"}]}}), {}, 2)


def test_nccl_tests_build_names_the_variable_without_a_value():
    with pytest.raises(AnsibleFilterError, match=r"^nccl_tests_build: nccl_check_nvcc_gencode"):
        role_plans.nccl_tests_build({"MPI_HOME": "/m", "CUDA_HOME": "/c", "NCCL_HOME": "/n", "NVCC_GENCODE": None})
