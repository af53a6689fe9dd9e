"""Option validation of the cloud modules: bad input is refused before any API call."""

import pytest

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
    ],
)
def test_bad_instance_options_name_the_option(change, option):
    errors = ecs_instance.validate(dict(GOOD_INSTANCE, **change))
    assert errors and option in errors[0]


def test_hpc_cluster_only_required_for_scc_types():
    assert ecs_instance.is_scc_type("ecs.sccgn6.24xlarge")
    assert not ecs_instance.is_scc_type("ecs.gn6v-c8g1.16xlarge")
    assert ecs_instance.validate(dict(GOOD_INSTANCE, instance_type="ecs.gn6v-c8g1.16xlarge", hpc_cluster_id=None)) == []


@pytest.mark.parametrize("cidr", ["8.8.8.0/24", "192.168.0.0/28", "192.168.0.1/16", "not-a-cidr", "fd00::/8"])
def test_vpc_cidr_must_be_private_ipv4_8_to_24(cidr):
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
