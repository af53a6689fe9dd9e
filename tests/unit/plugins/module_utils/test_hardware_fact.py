# -*- coding: utf-8 -*-
"""plugins/module_utils/hardware_fact.py: the fact scc_hardware (declared, from the nodes, or the default family),
the keys the roles' defaults read, and the contradictions refused before anything changes, each naming both
variables."""

from __future__ import annotations

import pytest

from ansible_collections.scc.training.plugins.filter.instances import cluster_hardware, hardware_contradictions
from ansible_collections.scc.training.plugins.module_utils import hardware_fact as hf
from ansible_collections.scc.training.plugins.module_utils import instance_families


def test_declared_erdma_family_gives_every_key_the_roles_read():
    fact = hf.cluster_fact("ecs.ebmgn8v.48xlarge", jumbo_frames=True)
    assert (fact["source"], fact["declared"], fact["family"]) == ("scc_instance_type", True, "ebmgn8v")
    assert fact["compute_capability"] == "9.0"
    assert fact["rdma_stack"] == {"source": "erdma", "erdma_mode": "ofed", "netdev_mtu": 8500}
    # 8 queue pairs per ib_write_bw run on an ERI (UNCONFIRMED for perftest: PAI's NCCL QPs per connection).
    assert fact["rdma_bandwidth"] == {"link_rate_gbps": 80, "qp_count": 8}
    # PAI's preset values (instance_families' ali-pai-erdma) reach the launchers.
    assert fact["nccl_env"]["NCCL_IB_QPS_PER_CONNECTION"] == "8"
    assert fact["nccl_env"]["NCCL_IB_HCA"] == "erdma"
    assert hf.cluster_fact("ebmgn8v", jumbo_frames="false")["rdma_stack"]["netdev_mtu"] == 1400


@pytest.mark.parametrize(
    "family, cc", [(family, facts["compute_capability"]) for family, facts in instance_families.FAMILIES.items()]
)
def test_every_family_gives_its_own_compute_capability(family, cc):
    fact = hf.cluster_fact(family)
    assert fact["compute_capability"] == cc
    assert fact["rdma_stack"]["source"] == ("erdma" if fact["rdma"]["kind"] == "erdma" else "distro")


def test_roce_family_keeps_distro_and_no_mtu():
    fact = hf.cluster_fact("sccgn6")
    assert fact["rdma_stack"] == {"source": "distro", "erdma_mode": None, "netdev_mtu": None}
    assert fact["rdma_bandwidth"]["link_rate_gbps"] == 25
    # mlx5 RoCE: no family count; rdma_bandwidth runs one queue pair per physical link of the port.
    assert fact["rdma_bandwidth"]["qp_count"] is None


def test_nothing_declared_nor_reported_is_the_default_family_and_says_so():
    fact = hf.cluster_fact(None)
    assert (fact["source"], fact["declared"], fact["compute_capability"]) == ("default", False, "7.0")
    assert any("sccgn6" in note for note in fact["notes"])
    # Not declared: rdma_bandwidth reads the ports' rate itself.
    assert fact["rdma_bandwidth"] == {"link_rate_gbps": None, "qp_count": None}
    assert hf.cluster_fact("  ")["source"] == "default"


@pytest.mark.parametrize("family", sorted(instance_families.FAMILIES))
def test_every_erdma_family_and_only_those_get_the_erdma_qp_count(family):
    fact = hf.cluster_fact(family)
    expected = hf.ERDMA_QP_COUNT if fact["rdma"]["kind"] == "erdma" else None
    assert fact["rdma_bandwidth"]["qp_count"] == expected


def test_nodes_decide_without_a_declaration():
    nodes = {
        "n1": {"gpus": [{"name": "NVIDIA L20"}] * 8, "rdma_devices": []},
        "n2": {"gpus": [{"name": "NVIDIA L20"}] * 8, "rdma_devices": []},
    }
    fact = hf.cluster_fact("", nodes=nodes)
    assert (fact["source"], fact["compute_capability"], fact["gpu_count"]) == ("nodes", "8.9", 8)


def test_nodes_without_a_known_gpu_are_refused_not_taken_for_the_default():
    with pytest.raises(ValueError, match="scc_instance_type is not set and the nodes report no known GPU"):
        hf.cluster_fact(None, nodes={"n1": {"gpus": [], "rdma_devices": []}})


def test_unknown_type_names_the_variable():
    with pytest.raises(ValueError, match="scc_instance_type"):
        hf.cluster_fact("ecs.gn99.xlarge")
    for bad, kind in ((8.0, "number"), (True, "boolean")):
        with pytest.raises(ValueError, match=r"scc_instance_type \(%r\) must be a string.*not a %s" % (bad, kind)):
            hf.cluster_fact(bad)
    with pytest.raises(ValueError, match="scc_jumbo_frames"):
        hf.cluster_fact("sccgn6", jumbo_frames="maybe")


def test_value_reads_dotted_keys_and_names_a_missing_one():
    fact = hf.cluster_fact("ebmgn8is")
    assert hf.value(fact, "rdma_stack.source") == "erdma"
    assert hf.value(fact, "compute_capability") == "8.9"
    with pytest.raises(KeyError, match=r"rdma_stack\.nope"):
        hf.value(fact, "rdma_stack.nope")


def test_every_role_default_key_exists_in_the_fact():
    for family in ("sccgn6", "ebmgn8v"):
        fact = hf.cluster_fact(family)
        for variable, key in hf.ROLE_DEFAULTS.items():
            hf.value(fact, key)  # raises on a key the fact lacks
            assert variable.count("_") >= 2


@pytest.mark.parametrize(
    "instance_type, settings, names",
    [
        ("sccgn6", {"rdma_stack_source": "erdma"}, ["rdma_stack_source", "scc_instance_type"]),
        ("ebmgn8v", {"rdma_stack_source": "doca"}, ["rdma_stack_source", "scc_instance_type"]),
        ("ecs.ebmgn8v.48xlarge", {"scc_gpu_compute_capability": "7.0"}, ["scc_gpu_compute_capability", "ebmgn8v"]),
        ("ebmgn8v", {"bert_launch_gpu_compute_capability": "sm_80"}, ["bert_launch_gpu_compute_capability"]),
        ("ebmgn8v", {"gpu_health_expected_gpus": 9}, ["gpu_health_expected_gpus", "8 GPUs"]),
        ("ebmgn8ia", {"nccl_check_gpus": "8"}, ["nccl_check_gpus", "4 GPUs"]),
        ("ebmgn8v", {"scc_gpu_count": 16}, ["scc_gpu_count"]),
        ("sccgn6", {"ib_check_expected_links": 4}, ["ib_check_expected_links", "2 RDMA ports"]),
        ("ebmgn8v", {"rdma_stack_netdev_mtu": 9000}, ["rdma_stack_netdev_mtu", "8500"]),
    ],
)
def test_contradictions_name_both_variables(instance_type, settings, names):
    problems = hf.contradictions(hf.cluster_fact(instance_type), settings)
    assert len(problems) == 1, problems
    for name in names + ["scc_instance_type"]:
        assert name in problems[0]


def test_mtu_against_jumbo_frames():
    fact = hf.cluster_fact("ebmgn8v", jumbo_frames=False)
    (problem,) = hf.contradictions(fact, {"rdma_stack_netdev_mtu": 8500})
    assert "scc_jumbo_frames" in problem and "rdma_stack_netdev_mtu" in problem
    assert hf.contradictions(hf.cluster_fact("ebmgn8v", jumbo_frames=True), {"rdma_stack_netdev_mtu": 8500}) == []


@pytest.mark.parametrize(
    "instance_type, settings",
    [
        ("ebmgn8v", {"scc_gpu_compute_capability": "9.0", "rdma_stack_source": "erdma", "gpu_health_expected_gpus": 8}),
        ("sccgn6", {"rdma_stack_source": "doca", "scc_gpu_compute_capability": "7.0", "scc_gpu_count": 0}),
        ("ebmgn8v", {"nccl_check_gpus": None, "rdma_stack_source": "", "gpu_health_declared_gpus": 0}),
        ("ebmgn8v", {"rdma_stack_source": "distro", "nccl_check_gpus": 4}),
    ],
)
def test_agreeing_or_unset_settings_pass(instance_type, settings):
    assert hf.contradictions(hf.cluster_fact(instance_type), settings) == []


def test_nothing_declared_nothing_contradicted():
    assert (
        hf.contradictions(hf.cluster_fact(None), {"rdma_stack_source": "erdma", "scc_gpu_compute_capability": "9.0"})
        == []
    )


def test_filters_wrap_the_functions_and_refuse_bad_input():
    from ansible.errors import AnsibleFilterError

    assert cluster_hardware("ebmgn8v")["family"] == "ebmgn8v"
    with pytest.raises(AnsibleFilterError):
        cluster_hardware(True)
    with pytest.raises(AnsibleFilterError, match="scc_instance_type"):
        cluster_hardware("ecs.gn99.xlarge")
    assert hardware_contradictions(cluster_hardware("sccgn6"), {"rdma_stack_source": "erdma"})
    with pytest.raises(AnsibleFilterError):
        hardware_contradictions("sccgn6", {})


def test_hand_set_compute_capability_wins_and_the_resolved_list_stays():
    fact = hf.cluster_fact(None, compute_capability="sm_90")
    assert (fact["compute_capability"], fact["compute_capabilities"]) == ("9.0", ["7.0"])
    assert hf.cluster_fact("ebmgn8v", compute_capability="")["compute_capability"] == "9.0"
    # Kept as written: the version matrix refuses it by name.
    assert hf.cluster_fact(None, compute_capability="volta")["compute_capability"] == "volta"


def test_a_removed_roles_instance_type_still_set_is_refused_by_name():
    """0.4.0 removed the roles' own copies (one route in): an inventory that still sets one is told, not ignored."""
    fact = hf.cluster_fact("ecs.ebmgn8v.48xlarge")
    (problem,) = hf.contradictions(fact, {"gpu_health_instance_type": "sccgn6"})
    assert problem.startswith("gpu_health_instance_type=sccgn6 is no longer read (removed in 0.4.0)"), problem
    assert "scc_instance_type=ecs.ebmgn8v.48xlarge decides" in problem
    # Even when it agrees: it is read nowhere, so it must go.
    assert len(hf.contradictions(fact, {"nccl_check_instance_type": "ebmgn8v", "rdma_stack_instance_type": ""})) == 1
    (problem,) = hf.contradictions(hf.cluster_fact(None), {"ib_check_instance_type": "ebmgn8is"})
    assert "ib_check_instance_type=ebmgn8is" in problem and "set scc_instance_type=ebmgn8is instead" in problem
    assert set(hf.REMOVED_INSTANCE_TYPES) <= set(hf.CONTRADICTION_SETTINGS)


def test_a_roles_own_default_is_not_judged_a_second_time():
    """Inside a role its defaults are variables too: the compute capability its default reads from the fact (the
    hand-set scc_gpu_compute_capability) and gpu_health_declared_gpus following scc_gpu_count are named once, under
    the variable the user set."""
    fact = hf.cluster_fact("ecs.ebmgn8v.48xlarge", compute_capability="7.0")
    settings = {
        "scc_gpu_compute_capability": "7.0",
        "nvidia_driver_gpu_compute_capability": "7.0",
        "bert_launch_gpu_compute_capability": "7.0",
        "rdma_stack_source": "erdma",
        "scc_gpu_count": 9,
        "gpu_health_declared_gpus": "9",
    }
    problems = hf.contradictions(fact, settings)
    assert [p.split("=")[0] for p in problems] == ["scc_gpu_compute_capability", "scc_gpu_count"], problems
    # Set by hand to another value than the default: judged under its own name.
    (problem,) = hf.contradictions(hf.cluster_fact("ebmgn8v"), {"bert_launch_gpu_compute_capability": "8.0"})
    assert problem.startswith("bert_launch_gpu_compute_capability=8.0 contradicts scc_instance_type=ebmgn8v"), problem
    (problem,) = hf.contradictions(hf.cluster_fact("ebmgn8v"), {"gpu_health_declared_gpus": 9, "scc_gpu_count": 0})
    assert problem.startswith("gpu_health_declared_gpus=9 contradicts"), problem


# --- make mutation's survivors of hardware_fact (issue 36.8) ---


@pytest.mark.parametrize("first, second", [("NVIDIA L20", "NVIDIA H20"), ("NVIDIA H20", "NVIDIA L20")])
def test_a_mixed_cluster_builds_for_its_lowest_compute_capability(first, second):
    """L20 (8.9) beside H20 (9.0): code built for 9.0 cannot run on the L20s, whichever node reports first."""
    nodes = {"n1": {"gpus": [{"name": first}] * 8, "rdma_devices": []}, "n2": {"gpus": [{"name": second}] * 8}}
    nodes["n2"]["rdma_devices"] = []
    fact = hf.cluster_fact("", nodes=nodes)
    assert (fact["compute_capabilities"], fact["compute_capability"]) == (["8.9", "9.0"], "8.9")


@pytest.mark.parametrize(
    "instance_type, jumbo, settings",
    [
        # At the limits: as many links as ports; fewer; each MTU eRDMA runs at, matching scc_jumbo_frames.
        ("sccgn6", False, {"ib_check_expected_links": 2}),
        ("sccgn6", False, {"ib_check_expected_links": 1}),
        ("ebmgn8v", False, {"rdma_stack_netdev_mtu": 1400}),
        ("ebmgn8v", True, {"rdma_stack_netdev_mtu": "8500"}),
        # An MTU on a RoCE family is not eRDMA's to judge; OFED and distro agree with RoCE.
        ("sccgn6", False, {"rdma_stack_netdev_mtu": 9000}),
        ("sccgn6", False, {"rdma_stack_source": "mlnx_ofed"}),
        ("sccgn6", False, {"rdma_stack_source": "distro"}),
        # A family whose port count no source gives (gn8v): the links are not judged.
        ("gn8v", False, {"ib_check_expected_links": 2}),
        # Values that read as no number are not judged here (the roles' own checks name them).
        ("ebmgn8v", False, {"nccl_check_gpus": "many", "gpu_health_expected_gpus": [8]}),
    ],
)
def test_settings_at_a_rules_edge_pass(instance_type, jumbo, settings):
    assert hf.contradictions(hf.cluster_fact(instance_type, jumbo_frames=jumbo), settings) == []


def test_an_mtu_below_the_one_jumbo_frames_gives_is_a_contradiction():
    (problem,) = hf.contradictions(hf.cluster_fact("ebmgn8v", jumbo_frames=True), {"rdma_stack_netdev_mtu": 1400})
    assert problem.startswith("rdma_stack_netdev_mtu=1400 contradicts scc_jumbo_frames=True"), problem


def test_a_default_skipped_does_not_stop_the_judging_of_what_follows():
    settings = {"rdma_stack_source": "erdma", "scc_gpu_count": 9, "gpu_health_declared_gpus": "10"}
    problems = hf.contradictions(hf.cluster_fact("ebmgn8v"), settings)
    # gpu_health_declared_gpus 10 does not follow scc_gpu_count 9: both are judged (as strings "10" < "9").
    assert [p.split("=")[0] for p in problems] == ["gpu_health_declared_gpus", "scc_gpu_count"], problems


def test_no_fact_or_a_partial_one_contradicts_nothing_and_does_not_fail():
    assert hf.contradictions(None, {"rdma_stack_source": "erdma", "bert_launch_nccl_env": {}}) == []
    assert hf.contradictions({"declared": False}, {"rdma_stack_source": "erdma"}) == []
