"""cloud_nodes.node_plan: HPC cluster, ERIs, UEFI and the eRDMA MTU per family, read from instance_families.py."""

import jinja2
import pytest
import yaml
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.scc.training.plugins.lookup.hardware import fact_from
from ansible_collections.scc.training.plugins.module_utils import cloud_nodes, instance_families
from tests.refusal_names import ROOT


def plan(instance_type, eri="auto", jumbo=False):
    return cloud_nodes.node_plan(
        {"scc_cloud_instance_type": instance_type, "scc_cloud_eri_count": eri, "scc_cloud_jumbo_frames": jumbo}
    )


@pytest.mark.parametrize(
    "instance_type,eris,uefi",
    [
        ("ecs.ebmgn7ex.32xlarge", 2, True),
        ("ecs.ebmgn8v.48xlarge", 2, True),  # PAI: 2 eRDMA NICs (hardware_facts 4.6)
        ("ecs.ebmgn8is.32xlarge", 2, True),
        ("ecs.ebmgn8ia.64xlarge", 2, True),
        ("ecs.ebmgn9g.64xlarge", 2, True),
        ("ecs.ebmgn9ge.64xlarge", 2, True),
        ("ecs.ebmgn9gc.64xlarge", 2, True),
        ("ecs.gn8is-8x.32xlarge", 1, False),  # a GPU VM: PAI's 1 eRDMA NIC on gn8is.*, no UEFI-only rule
    ],
)
def test_erdma_families_get_their_eris_no_hpc_cluster_and_a_uefi_check(instance_type, eris, uefi):
    result = plan(instance_type)
    family = instance_families.family_of(instance_type)
    assert result["problems"] == []
    assert result["eri_count"] == eris == instance_families.FAMILIES[family]["rdma"]["ports"]
    assert result["hpc_cluster"] is False
    assert result["require_uefi"] is uefi
    assert result["mtu"] == 1400


def test_the_unconfirmed_eri_count_is_said_so():
    assert plan("ecs.ebmgn8ia.64xlarge")["unconfirmed"] == ["rdma.ports"]
    assert plan("ecs.ebmgn8v.48xlarge")["unconfirmed"] == []


def test_jumbo_frames_mean_mtu_8500_on_erdma_only():
    assert plan("ecs.ebmgn8v.48xlarge", jumbo=True)["mtu"] == 8500
    assert plan("ecs.sccgn6.24xlarge", jumbo=True)["mtu"] is None


# Issue 36: the string "false" (an inventory's quoted value) was True here (Python's bool) and false for the ECS
# module's bool option: the plan's MTU said 8500 while the cloud got jumbo frames off.
@pytest.mark.parametrize(
    ("jumbo", "mtu"), [("false", 1400), ("no", 1400), ("False", 1400), ("true", 8500), ("yes", 8500)]
)
def test_jumbo_frames_read_as_ansible_reads_a_boolean(jumbo, mtu):
    assert plan("ecs.ebmgn8v.48xlarge", jumbo=jumbo)["mtu"] == mtu


@pytest.mark.parametrize("jumbo", ["maybe", None, 2, "8500"])
def test_jumbo_frames_that_are_no_boolean_are_refused_by_name(jumbo):
    (problem,) = plan("ecs.ebmgn8v.48xlarge", jumbo=jumbo)["problems"]
    assert problem == "scc_cloud_jumbo_frames must be true or false (got %r)" % (jumbo,)


@pytest.mark.parametrize("instance_type", [8, 8.0, True, ["ecs.ebmgn8v.48xlarge"]])
def test_an_instance_type_that_is_not_a_string_is_refused_by_name(instance_type):
    result = plan(instance_type)
    assert result["problems"][0].startswith("scc_cloud_instance_type (%r) must be a string" % (instance_type,))
    assert result["mtu"] is None and result["eri_count"] == 0


def test_sccgn6_needs_an_hpc_cluster_and_has_no_eri():
    result = plan("ecs.sccgn6.24xlarge")
    assert (result["hpc_cluster"], result["eri_count"], result["require_uefi"]) == (True, 0, False)
    assert result["problems"] == []
    refused = plan("ecs.sccgn6.24xlarge", eri=1)["problems"]
    assert len(refused) == 1 and "scc_cloud_eri_count 1" in refused[0] and "roce_v2" in refused[0]


def test_a_hand_set_count_below_the_limit_is_kept_above_it_refused():
    for given, kept in ((1, 1), ("0", 0), (" 1 ", 1)):
        result = plan("ecs.ebmgn8v.48xlarge", eri=given)
        assert (result["problems"], result["eri_count"], result["eri_limit"]) == ([], kept, 2), given
    refused = plan("ecs.ebmgn8v.48xlarge", eri=3)["problems"]
    assert len(refused) == 1 and "more than the 2 Elastic RDMA Interfaces" in refused[0]


@pytest.mark.parametrize("bad", [-1, "two", 1.5, True, None, "2x", "+1", "01", "1.0"])
def test_a_count_that_is_not_auto_or_a_whole_number_is_refused_by_name(bad):
    problems = plan("ecs.ebmgn8v.48xlarge", eri=bad)["problems"]
    assert any(p.startswith("scc_cloud_eri_count must be 'auto'") for p in problems), problems


def test_a_family_outside_the_table_needs_a_hand_set_count():
    problems = plan("ecs.gn7i-c8g1.2xlarge")["problems"]
    assert len(problems) == 1 and "scc_cloud_eri_count" in problems[0] and "EriQuantity" in problems[0]
    result = plan("ecs.gn7i-c8g1.2xlarge", eri=1)
    assert result["problems"] == [] and result["eri_count"] == 1 and result["hpc_cluster"] is False
    assert result["eri_limit"] is None


def test_the_subscription_settings_are_checked_by_name():
    def problems(**charge):
        settings = {"scc_cloud_instance_type": "ecs.ebmgn8v.48xlarge", "scc_cloud_eri_count": "auto"}
        return cloud_nodes.node_plan(dict(settings, **charge))["problems"]

    assert problems() == [] and problems(scc_cloud_instance_charge_type="PrePaid", scc_cloud_period=12) == []
    assert problems(scc_cloud_instance_charge_type="PrePaid") == [
        "scc_cloud_period is required with scc_cloud_instance_charge_type=PrePaid (1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 24,"
        " 36, 48, 60)"
    ]
    week = problems(scc_cloud_instance_charge_type="PrePaid", scc_cloud_period=6, scc_cloud_period_unit="Week")
    assert week == ["scc_cloud_period 6 is not a valid Week subscription (1, 2, 3, 4)"]
    assert problems(scc_cloud_period=1) == ["scc_cloud_period is for scc_cloud_instance_charge_type=PrePaid only"]


def test_a_gpu_vm_family_without_a_published_eri_count_needs_a_hand_set_one():
    # gn8v: no source gives its ERIs per size; auto is refused by name, a hand-set count is kept unchecked.
    problems = plan("ecs.gn8v-8x.48xlarge")["problems"]
    assert len(problems) == 1 and "scc_cloud_eri_count" in problems[0] and "gn8v" in problems[0]
    result = plan("ecs.gn8v-8x.48xlarge", eri=2)
    assert (result["problems"], result["eri_count"], result["eri_limit"]) == ([], 2, None)
    assert result["unconfirmed"] == ["rdma.ports"] and result["mtu"] == 1400


@pytest.mark.parametrize(
    "declared", [{}, {"scc_jumbo_frames": True}, {"scc_jumbo_frames": "false"}, {"scc_jumbo_frames": "yes"}]
)
@pytest.mark.parametrize("instance_type", ["ecs.ebmgn8v.48xlarge", "ecs.ebmgn7ex.32xlarge", "ecs.sccgn6.24xlarge"])
def test_the_hosts_set_the_mtu_provision_asked_for(declared, instance_type):
    """Issue 35: one switch, scc_jumbo_frames. provision.yml's scc_cloud_jumbo_frames is its default rendered (what it
    asks RunInstances for, and the MTU it reports), the hosts' MTU the lookup scc.training.hardware's (what rdma_stack
    sets): the same value, whatever is declared, also with nothing declared (the two defaults agree)."""
    default = yaml.safe_load((ROOT / "roles/scc_cloud/defaults/main.yml").read_text())["scc_cloud_jumbo_frames"]
    asked = boolean(jinja2.Template(default).render(**declared), strict=True)
    provision = plan(instance_type, jumbo=asked)
    hosts = fact_from(dict(declared, scc_instance_type=instance_type))["rdma_stack"]["netdev_mtu"]
    assert provision["problems"] == []
    assert provision["mtu"] == hosts
    if instance_type != "ecs.sccgn6.24xlarge":
        assert hosts == (8500 if boolean(declared.get("scc_jumbo_frames", False)) else 1400)


@pytest.mark.parametrize(
    "instance_type, most", [("ecs.ebmgn8v.48xlarge", 2), ("ecs.gn8is-2x.8xlarge", 1), ("ecs.sccgn6.24xlarge", 0)]
)
def test_an_eri_count_equal_to_the_types_maximum_is_kept_one_more_refused(instance_type, most):
    for given in (most, str(most)):
        result = plan(instance_type, eri=given)
        assert (result["problems"], result["eri_count"]) == ([], most), given
    refused = plan(instance_type, eri=most + 1)
    assert len(refused["problems"]) == 1, refused["problems"]
    assert refused["problems"][0].startswith(
        "scc_cloud_eri_count %d is more than the %d Elastic RDMA Interfaces instance family " % (most + 1, most)
    )


def test_unset_switches_mean_no_jumbo_frames_and_no_uefi_rule_outside_the_table():
    erdma = cloud_nodes.node_plan({"scc_cloud_instance_type": "ecs.ebmgn8v.48xlarge"})
    assert (erdma["problems"], erdma["mtu"], erdma["eri_count"]) == ([], 1400, 2)
    unknown = cloud_nodes.node_plan({"scc_cloud_instance_type": "ecs.gn7i-c8g1.2xlarge", "scc_cloud_eri_count": 0})
    assert (unknown["problems"], unknown["require_uefi"], unknown["mtu"]) == ([], False, None)


@pytest.mark.parametrize("charge_type", ["PostPaid", "Spot", "prepaid"])
def test_a_period_is_for_prepaid_alone_whatever_else_the_charge_type_says(charge_type):
    assert cloud_nodes.charge_problems(charge_type, None, "Month") == []
    assert cloud_nodes.charge_problems(charge_type, 1, "Month") == ["period is for instance_charge_type=PrePaid only"]
