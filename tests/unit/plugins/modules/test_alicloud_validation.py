"""Option validation of the cloud modules: bad input is refused before any API call."""

import pytest

from ansible_collections.scc.training.plugins.module_utils._alicloud import flatten_params
from ansible_collections.scc.training.plugins.modules import (
    ecs_instance,
    ecs_security_group,
    ecs_vpc,
    ecs_vswitch,
    nas_cpfs,
)

GOOD_INSTANCE = dict(
    name="bert-node",
    count=2,
    state="present",
    instance_type="ecs.sccgn6.24xlarge",
    image_id="m-1",
    vswitch_id="vsw-1",
    security_group_id="sg-1",
    hpc_cluster_id="hpc-1",
    deployment_set_id=None,
    system_disk_size=100,
    tags={"managed-by": "scc.training"},
    instance_ids=None,
    eri_count=0,
    jumbo_frames=None,
    require_uefi_image=False,
    instance_charge_type="PostPaid",
    period=None,
    period_unit="Month",
    auto_renew=False,
    key_pair_name=None,
    system_disk_category="cloud_essd",
)
GOOD_CPFS = dict(
    name="bert-cpfs",
    zone_id="z",
    vpc_id="v",
    vswitch_id="s",
    capacity=3600,
    state="present",
    tags={},
    file_system_id=None,
)


def test_good_instance_options_pass():
    assert ecs_instance.validate(GOOD_INSTANCE) == []
    assert ecs_instance.validate(dict(GOOD_INSTANCE, count=0, instance_type=None, image_id=None)) == []


@pytest.mark.parametrize(
    "change,option",
    [
        ({"count": -1}, "count"),
        ({"instance_type": "sccgn6.24xlarge"}, "instance_type"),
        ({"instance_type": "ecs.SCCGN6"}, "instance_type"),
        ({"hpc_cluster_id": None}, "hpc_cluster_id"),
        ({"image_id": None}, "image_id"),
        ({"system_disk_size": 10}, "system_disk_size"),
        ({"tags": {"aliyun:x": "1"}}, "tags"),
        ({"eri_count": -1}, "eri_count"),
        ({"instance_charge_type": "PrePaid"}, "period is required"),
        ({"instance_charge_type": "PrePaid", "period": 10}, "period 10 is not a valid Month"),
        ({"instance_charge_type": "PrePaid", "period": 5, "period_unit": "Week"}, "period 5 is not a valid Week"),
        ({"period": 1}, "period is for instance_charge_type=PrePaid only"),
    ],
)
def test_bad_instance_options_name_the_option(change, option):
    errors = ecs_instance.validate(dict(GOOD_INSTANCE, **change))
    assert errors and option in errors[0]


def test_hpc_cluster_only_required_for_scc_types():
    assert ecs_instance.is_scc_type("ecs.sccgn6.24xlarge")
    assert not ecs_instance.is_scc_type("ecs.gn6v-c8g1.16xlarge")
    assert ecs_instance.validate(dict(GOOD_INSTANCE, instance_type="ecs.gn6v-c8g1.16xlarge", hpc_cluster_id=None)) == []


@pytest.mark.parametrize(
    "cidr", ["8.8.8.0/24", "192.168.0.0/29", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.1/16", "not-a-cidr", "fd00::/8"]
)
def test_vpc_cidr_must_be_private_ipv4_16_to_28(cidr):
    errors = ecs_vpc.validate(dict(name="bert-vpc", cidr_block=cidr, state="present"))
    assert errors and "cidr_block" in errors[0]


def test_vswitch_and_security_group_and_cpfs_checks():
    assert "cidr_block" in ecs_vswitch.validate(dict(cidr_block="10.0.0.0/30", zone_id="z", state="present"))[0]
    rule = dict(ip_protocol="all", port_range="22/22", source_cidr_ip="10.0.0.0/8", policy="accept", priority=1)
    errors = ecs_security_group.validate(dict(rules=[rule], tags={}))
    assert errors and "rules[1].port_range" in errors[0]
    errors = ecs_security_group.validate(
        dict(rules=[dict(rule, ip_protocol="tcp", source_cidr_ip="10.0.0.1/8")], tags={})
    )
    assert errors and "rules[1].source_cidr_ip" in errors[0]
    errors = nas_cpfs.validate(dict(GOOD_CPFS, name="cpfs", capacity=100))
    assert errors and "capacity" in errors[0]


@pytest.mark.parametrize("empty", ["", "  ", None])
def test_an_empty_purge_description_is_refused_it_would_revoke_every_undescribed_rule(empty):
    rule = dict(ip_protocol="tcp", port_range="22/22", source_cidr_ip="10.0.0.0/8", policy="accept", priority=1)
    good = dict(rules=[rule], tags={}, purge_descriptions=["from-bastion"])
    assert ecs_security_group.validate(good) == []
    errors = ecs_security_group.validate(dict(good, purge_descriptions=["from-bastion", empty]))
    assert len(errors) == 1 and errors[0].startswith("purge_descriptions[2] is empty"), errors


def test_absent_by_a_name_alone_is_refused_naming_the_options_that_would_do():
    errors = ecs_instance.validate(dict(GOOD_INSTANCE, state="absent", tags={}))
    assert len(errors) == 1 and "tags or instance_ids" in errors[0] and "bert-node" in errors[0]
    assert ecs_instance.validate(dict(GOOD_INSTANCE, state="absent")) == []
    assert ecs_instance.validate(dict(GOOD_INSTANCE, state="absent", tags={}, instance_ids=["i-1"])) == []
    assert "instance_ids" in ecs_instance.validate(dict(GOOD_INSTANCE, instance_ids=["i-1"]))[0]

    errors = nas_cpfs.validate(dict(GOOD_CPFS, state="absent"))
    assert len(errors) == 1 and "tags or file_system_id" in errors[0] and "bert-cpfs" in errors[0]
    assert nas_cpfs.validate(dict(GOOD_CPFS, state="absent", tags={"managed-by": "scc.training"})) == []
    assert nas_cpfs.validate(dict(GOOD_CPFS, state="absent", file_system_id="cpfs-1")) == []
    assert "file_system_id" in nas_cpfs.validate(dict(GOOD_CPFS, file_system_id="cpfs-1"))[0]


def test_erdma_nodes_get_their_eris_jumbo_frames_and_no_hpc_cluster_in_the_request():
    p = dict(GOOD_INSTANCE, instance_type="ecs.ebmgn8v.48xlarge", hpc_cluster_id=None, eri_count=2, jumbo_frames=True)
    assert ecs_instance.validate(p) == []
    flat = flatten_params(ecs_instance.run_params(p, 2))
    # the names aliyun-python-sdk-ecs's RunInstancesRequest.set_NetworkInterfaces / set_NetworkOptions send
    for n in (1, 2):
        assert flat["NetworkInterface.%d.NetworkInterfaceTrafficMode" % n] == "HighPerformance"
        assert flat["NetworkInterface.%d.InstanceType" % n] == "Secondary"
        assert flat["NetworkInterface.%d.VSwitchId" % n] == "vsw-1"
        assert flat["NetworkInterface.%d.SecurityGroupId" % n] == "sg-1"
        assert flat["NetworkInterface.%d.NetworkCardIndex" % n] == n - 1
    assert "NetworkInterface.3.InstanceType" not in flat
    assert flat["NetworkOptions.EnableJumboFrame"] == "true"
    assert "HpcClusterId" not in flat and flat["InstanceChargeType"] == "PostPaid" and "Period" not in flat
    plain = flatten_params(ecs_instance.run_params(dict(GOOD_INSTANCE), 1))
    assert not any(k.startswith(("NetworkInterface.", "NetworkOptions.")) for k in plain)


def test_prepaid_sends_its_period():
    p = dict(GOOD_INSTANCE, instance_charge_type="PrePaid", period=3, period_unit="Month", auto_renew=True)
    assert ecs_instance.validate(p) == []
    flat = flatten_params(ecs_instance.run_params(p, 1))
    assert (flat["InstanceChargeType"], flat["Period"], flat["PeriodUnit"], flat["AutoRenew"]) == (
        "PrePaid", 3, "Month", "true",
    )  # fmt: skip


def test_unexpired_subscriptions_are_named_expired_ones_and_pay_as_you_go_are_not():
    now = "2026-12-04T19:30Z"
    instances = [
        {"InstanceId": "i-pre", "InstanceChargeType": "PrePaid", "ExpiredTime": "2027-01-04T19:30Z"},
        {"InstanceId": "i-old", "InstanceChargeType": "PrePaid", "ExpiredTime": "2026-12-01T00:00Z"},
        {"InstanceId": "i-post", "InstanceChargeType": "PostPaid", "ExpiredTime": "2099-12-31T15:59Z"},
    ]
    assert ecs_instance.unexpired_subscriptions(instances, ["i-pre", "i-old", "i-post"], now) == ["i-pre"]
    assert ecs_instance.unexpired_subscriptions(instances, ["i-old", "i-post"], now) == []
    assert ecs_instance.subscription_flag(instances, ["i-old"]) == {"TerminateSubscription": True}
    assert ecs_instance.subscription_flag(instances, ["i-post"]) == {}
