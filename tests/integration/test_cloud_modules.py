"""The Alibaba Cloud modules against the offline emulator (lab/cloud), through the real SDK.

Each module runs in-process the way Ansible runs it (tests/cloud_helpers.run_module). Per module:
create, re-run unchanged, check mode, delete, re-delete; each info module finds what its state
module made. Then the fault injection figure and bad inputs that must fail before any API write.
"""

from __future__ import annotations

import pytest

from lab.cloud.faults import RandomFaults
from lab.cloud.store import Timings
from tests.cloud_helpers import ZONE, cpfs_args, module_emulator, run_module, writes

OURS = {"managed-by": "scc.training", "test": "cloud"}
emu = module_emulator(Timings(vpc=0.05, instance_pending=0.1, instance_starting=0.1, file_system=0.3, mount_target=0.1))


def cycle(emu, name, present, absent, key, info=None):
    """create -> re-run (no change) -> check mode (no change, no write) -> delete -> re-delete.

    ``info``, ``(info module, its args, its result key)``, must list the resource exactly as the
    state module returns it, and nothing once it is deleted.
    """
    first = run_module(emu, name, **present)
    assert first["changed"] is True and not first.get("failed"), first
    assert first[key], first
    again = run_module(emu, name, **present)
    assert again["changed"] is False and again[key] == first[key], again
    if info:
        info_module, info_args, info_key = info
        listed = run_module(emu, info_module, check=True, **info_args)
        assert listed["changed"] is False and listed[info_key] == [again[key]], listed
    mark = len(emu.calls)
    checked = run_module(emu, name, check=True, **present)
    assert checked["changed"] is False and writes(emu, mark) == []
    predicted = run_module(emu, name, check=True, **absent)
    assert predicted["changed"] is True and writes(emu, mark) == []
    gone = run_module(emu, name, **absent)
    assert gone["changed"] is True, gone
    if info:
        assert run_module(emu, info_module, **info_args)[info_key] == []
    assert run_module(emu, name, **absent)["changed"] is False
    assert run_module(emu, name, check=True, **absent)["changed"] is False
    return first


def test_vpc_and_vswitch_cycle(emu):
    vpc_args = dict(name="t-vpc", cidr_block="192.168.0.0/16", description="managed-by=scc.training")
    info = ("ecs_vpc_info", dict(name="t-vpc"), "vpcs")
    created = cycle(emu, "ecs_vpc", vpc_args, dict(name="t-vpc", state="absent"), "vpc", info)
    assert created["vpc"]["status"] == "Available" and created["vpc"]["cidr_block"] == "192.168.0.0/16"
    assert created["diff"]["before"] == {} and created["diff"]["after"]["vpc_id"] == created["vpc"]["vpc_id"]
    assert [v["VpcId"] for v in emu.vpcs() if v["VpcName"] == "t-vpc"] == []

    vpc = run_module(emu, "ecs_vpc", **vpc_args)["vpc"]
    vsw_args = dict(name="t-vsw", vpc_id=vpc["vpc_id"], zone_id=ZONE, cidr_block="192.168.1.0/24")
    absent = dict(name="t-vsw", vpc_id=vpc["vpc_id"], state="absent")
    info = ("ecs_vswitch_info", dict(name="t-vsw", vpc_id=vpc["vpc_id"], zone_id=ZONE), "vswitches")
    vsw = cycle(emu, "ecs_vswitch", vsw_args, absent, "vswitch", info)
    assert vsw["vswitch"]["zone_id"] == ZONE and vsw["vswitch"]["status"] == "Available"
    assert run_module(emu, "ecs_vpc", name="t-vpc", state="absent")["changed"] is True


def test_recreate_after_delete_gets_a_new_resource(emu):
    """A ClientToken keeps naming what it made: a re-create after a delete must still create."""
    args = dict(name="t-again", cidr_block="10.0.0.0/16")
    first = run_module(emu, "ecs_vpc", **args)["vpc"]["vpc_id"]
    run_module(emu, "ecs_vpc", name="t-again", state="absent")
    second = run_module(emu, "ecs_vpc", **args)
    assert second["changed"] is True and second["vpc"]["vpc_id"] != first
    assert [v["VpcId"] for v in emu.vpcs() if v["VpcName"] == "t-again"] == [second["vpc"]["vpc_id"]]
    run_module(emu, "ecs_vpc", name="t-again", state="absent")


def test_two_resources_of_one_name_are_refused_not_guessed(emu):
    from ansible_collections.scc.training.plugins.module_utils._alicloud import AlicloudApi

    api = AlicloudApi(emu.access_key_id, emu.access_key_secret, "cn-shanghai", vpc_endpoint=emu.endpoint)
    twin = {"VpcName": "t-twin", "CidrBlock": "10.3.0.0/16"}
    ids = sorted([api.call("vpc", "CreateVpc", twin)["VpcId"], api.call("vpc", "CreateVpc", twin)["VpcId"]])
    mark = len(emu.calls)
    for state in ("present", "absent"):
        result = run_module(emu, "ecs_vpc", name="t-twin", cidr_block="10.3.0.0/16", state=state)
        assert result["failed"] is True and result["msg"].startswith("name: 2 VPCs match VpcName=t-twin"), result
        assert sorted(result["matches"]) == ids
    assert writes(emu, mark) == []
    assert sorted(v["vpc_id"] for v in run_module(emu, "ecs_vpc_info", name="t-twin")["vpcs"]) == ids
    for vpc_id in ids:
        api.call("vpc", "DeleteVpc", {"VpcId": vpc_id})


@pytest.mark.parametrize(
    "name,args,option",
    [
        ("ecs_vpc", dict(name="t-bad", cidr_block="8.8.8.0/24"), "cidr_block"),
        ("ecs_vswitch", dict(name="t-bad", vpc_id="vpc-x", zone_id=ZONE, cidr_block="10.1.0.0/33"), "cidr_block"),
    ],
)
def test_bad_input_fails_before_any_api_call(emu, name, args, option):
    mark = len(emu.calls)
    result = run_module(emu, name, **args)
    assert result["failed"] is True and option in result["msg"]
    assert emu.calls[mark:] == []


def test_vswitch_outside_the_vpc_fails_before_any_write(emu):
    vpc = run_module(emu, "ecs_vpc", name="t-vpc2", cidr_block="172.16.0.0/16")["vpc"]
    mark = len(emu.calls)
    result = run_module(emu, "ecs_vswitch", name="t-out", vpc_id=vpc["vpc_id"], zone_id=ZONE, cidr_block="10.9.0.0/24")
    assert result["failed"] is True and "cidr_block 10.9.0.0/24 is not inside" in result["msg"]
    assert writes(emu, mark) == []
    run_module(emu, "ecs_vpc", name="t-vpc2", state="absent")


def test_api_error_reports_code_message_and_request_id(emu):
    result = run_module(emu, "ecs_vpc", name="t-vpc", cidr_block="10.0.0.0/16", region="xx-nowhere-1")
    assert result["failed"] is True
    assert result["error"]["code"] == "InvalidRegionId.NotFound"
    assert result["error"]["request_id"] and result["error"]["request_id"] in result["msg"]


def test_wrong_secret_is_a_clear_error_not_a_retry(emu):
    mark = len(emu.calls)
    result = run_module(emu, "ecs_vpc", name="t-vpc", cidr_block="10.0.0.0/16", secret_key="not-the-secret")
    assert result["failed"] is True
    assert result["error"]["code"] in ("SignatureDoesNotMatch", "InvalidAccessKeySecret")
    assert len(emu.calls) - mark == 1


def test_transient_faults_are_retried_for_every_action(emu):
    for kind in ("throttling", "unavailable", "internal", "drop_before", "drop_after"):
        emu.inject(kind, action="CreateVpc")
        result = run_module(emu, "ecs_vpc", name="t-fault", cidr_block="10.2.0.0/16")
        assert result["changed"] is True, (kind, result)
        assert len([v for v in emu.vpcs() if v["VpcName"] == "t-fault"]) == 1, kind
        emu.inject(kind, action="DeleteVpc")
        assert run_module(emu, "ecs_vpc", name="t-fault", state="absent")["changed"] is True, kind
        assert [v for v in emu.vpcs() if v["VpcName"] == "t-fault"] == [], kind


@pytest.fixture(scope="module")
def network(emu):
    """A VPC, a VSwitch, a security group and an HPC cluster for the instance and CPFS tests."""
    vpc = run_module(emu, "ecs_vpc", name="t-net", cidr_block="192.168.0.0/16")["vpc"]
    vsw = run_module(emu, "ecs_vswitch", name="t-net", vpc_id=vpc["vpc_id"], zone_id=ZONE, cidr_block="192.168.8.0/21")[
        "vswitch"
    ]
    sg = run_module(emu, "ecs_security_group", name="t-net", vpc_id=vpc["vpc_id"], tags=OURS)["security_group"]
    hpc = run_module(emu, "ecs_hpc_cluster", name="t-net")["hpc_cluster"]
    return dict(
        vpc_id=vpc["vpc_id"],
        vswitch_id=vsw["vswitch_id"],
        security_group_id=sg["security_group_id"],
        hpc_cluster_id=hpc["hpc_cluster_id"],
    )


def test_security_group_cycle_with_rules(emu, network):
    rules = [
        dict(ip_protocol="tcp", port_range="22/22", source_cidr_ip="192.168.0.0/16"),
        dict(ip_protocol="all", source_cidr_ip="192.168.8.0/21"),
    ]
    args = dict(name="t-sg", vpc_id=network["vpc_id"], tags=OURS, rules=rules)
    absent = dict(name="t-sg", vpc_id=network["vpc_id"], state="absent")
    info = ("ecs_security_group_info", dict(vpc_id=network["vpc_id"], name="t-sg", tags=OURS), "security_groups")
    created = cycle(emu, "ecs_security_group", args, absent, "security_group", info)
    assert created["security_group"]["tags"] == OURS
    assert sorted(r["port_range"] for r in created["security_group"]["rules"]) == ["-1/-1", "22/22"]

    # one more rule, then purge back to one: each a change, each re-run none
    group = run_module(emu, "ecs_security_group", **args)["security_group"]
    more = {**args, "rules": rules + [dict(ip_protocol="udp", port_range="4791/4791", source_cidr_ip="192.168.8.0/21")]}
    assert run_module(emu, "ecs_security_group", check=True, **more)["changed"] is True
    assert run_module(emu, "ecs_security_group", **more)["changed"] is True
    assert run_module(emu, "ecs_security_group", **more)["changed"] is False
    purged = {**args, "rules": rules[:1], "purge_rules": True}
    result = run_module(emu, "ecs_security_group", **purged)
    assert result["changed"] is True and [r["port_range"] for r in result["security_group"]["rules"]] == ["22/22"]
    assert run_module(emu, "ecs_security_group", **purged)["changed"] is False

    # purge_descriptions: of the rules not listed, those with one of these descriptions go; the others stay.
    marked = dict(ip_protocol="tcp", port_range="22/22", source_cidr_ip="192.168.0.7/32", description="from-bastion")
    theirs = dict(ip_protocol="tcp", port_range="8888/8888", source_cidr_ip="10.1.0.0/16", description="mine")
    assert run_module(emu, "ecs_security_group", **{**args, "rules": rules[:1] + [marked, theirs]})["changed"] is True
    swept = {**args, "rules": rules[:1], "purge_descriptions": ["from-bastion"]}
    assert run_module(emu, "ecs_security_group", check=True, **swept)["changed"] is True
    result = run_module(emu, "ecs_security_group", **swept)
    assert result["changed"] is True
    assert sorted(r["source_cidr_ip"] for r in result["security_group"]["rules"]) == ["10.1.0.0/16", "192.168.0.0/16"]
    assert run_module(emu, "ecs_security_group", **swept)["changed"] is False
    assert run_module(emu, "ecs_security_group", name="t-sg", vpc_id=group["vpc_id"], state="absent")["changed"]


def test_hpc_cluster_cycle(emu):
    created = cycle(
        emu,
        "ecs_hpc_cluster",
        dict(name="t-hpc", description="managed-by=scc.training"),
        dict(name="t-hpc", state="absent"),
        "hpc_cluster",
        ("ecs_hpc_cluster_info", dict(name="t-hpc"), "hpc_clusters"),
    )
    assert created["hpc_cluster"]["hpc_cluster_id"].startswith("hpc-")


def instance_args(network, **extra):
    args = dict(
        name="t-node",
        count=2,
        instance_type="ecs.sccgn6.24xlarge",
        image_id="m-scc-centos75",
        vswitch_id=network["vswitch_id"],
        security_group_id=network["security_group_id"],
        hpc_cluster_id=network["hpc_cluster_id"],
        tags=OURS,
    )
    args.update(extra)
    return args


def live(emu, name):
    return [i for i in emu.calls and emu.store.instances.values() if i["InstanceName"] == name]


def test_instance_exact_count_cycle(emu, network):
    args = instance_args(network)
    created = cycle(emu, "ecs_instance", args, dict(name="t-node", tags=OURS, state="absent"), "instances")
    assert len(created["created"]) == 2 and len(created["instances"]) == 2
    for inst in created["instances"]:
        assert inst["status"] == "Running" and inst["gpu_amount"] == 8
        assert inst["private_ip_addresses"] and inst["rdma_ip_addresses"]
        assert inst["hpc_cluster_id"] == network["hpc_cluster_id"] and inst["tags"] == OURS
    assert live(emu, "t-node") == []

    run_module(emu, "ecs_instance", **args)
    up = run_module(emu, "ecs_instance", **{**args, "count": 3})
    assert up["changed"] is True and len(up["created"]) == 1 and len(up["instances"]) == 3
    mark = len(emu.calls)
    predicted = run_module(emu, "ecs_instance", check=True, **{**args, "count": 1})
    assert predicted["changed"] is True and len(predicted["deleted"]) == 2 and writes(emu, mark) == []
    down = run_module(emu, "ecs_instance", **{**args, "count": 1})
    assert down["deleted"] == predicted["deleted"]  # the check run predicted exactly what the real run did
    assert [i["instance_id"] for i in down["instances"]] == [i["instance_id"] for i in predicted["instances"]]
    assert len(live(emu, "t-node")) == 1

    # instance_info: filters by tags, type, VPC and HPC cluster
    info = run_module(
        emu,
        "ecs_instance_info",
        tags=OURS,
        hpc_cluster_id=network["hpc_cluster_id"],
        instance_type="ecs.sccgn6.24xlarge",
        vpc_id=network["vpc_id"],
    )
    assert info["changed"] is False and [i["instance_id"] for i in info["instances"]] == [
        i["instance_id"] for i in down["instances"]
    ]
    assert run_module(emu, "ecs_instance_info", tags={"managed-by": "someone-else"})["instances"] == []
    assert run_module(emu, "ecs_instance", name="t-node", tags=OURS, state="absent")["changed"] is True


def test_erdma_nodes_with_their_eris_on_a_uefi_image_and_a_subscription(emu, network):
    """Today's families (issue 23): ebmgn8v without an HPC cluster, its two Elastic RDMA Interfaces at creation, the
    image's boot mode checked before any instance is made; PrePaid created, and not released before it expires."""
    ebm = instance_args(network, name="t-ebm", count=1, instance_type="ecs.ebmgn8v.48xlarge", hpc_cluster_id=None)
    ebm.update(eri_count=2, jumbo_frames=True, require_uefi_image=True)
    mark = len(emu.calls)
    refused = run_module(emu, "ecs_instance", **ebm)  # m-scc-centos75: a BIOS image
    assert refused["failed"] and "image_id m-scc-centos75 boots BIOS" in refused["msg"], refused
    assert "DescribeImages" in [c["action"] for c in emu.calls[mark:]] and writes(emu, mark) == []

    ebm["image_id"] = "aliyun_3_x64_20G_uefi_alibase_20250101.vhd"
    made = run_module(emu, "ecs_instance", **ebm)
    assert made["changed"] and made["instances"][0]["hpc_cluster_id"] is None, made
    [inst] = live(emu, "t-ebm")
    nics = inst["NetworkInterfaces"]["NetworkInterface"]
    assert [n.get("NetworkInterfaceTrafficMode") for n in nics] == [None, "HighPerformance", "HighPerformance"]
    assert [n.get("NetworkCardIndex") for n in nics[1:]] == [0, 1] and inst["_jumbo_frames"] is True
    assert run_module(emu, "ecs_instance", **ebm)["changed"] is False

    prepaid = {**ebm, "name": "t-sub", "instance_charge_type": "PrePaid", "period": 1, "period_unit": "Week"}
    assert run_module(emu, "ecs_instance", **prepaid)["changed"]
    [sub] = live(emu, "t-sub")
    mark = len(emu.calls)
    kept = run_module(emu, "ecs_instance", name="t-sub", tags=OURS, state="absent")
    assert kept["failed"] and sub["InstanceId"] in kept["msg"] and "PrePaid" in kept["msg"], kept
    assert writes(emu, mark) == [] and len(live(emu, "t-sub")) == 1
    sub["ExpiredTime"] = "2020-01-01T00:00Z"  # once expired, DeleteInstances releases it (TerminateSubscription)
    assert run_module(emu, "ecs_instance", name="t-sub", tags=OURS, state="absent")["changed"] is True
    assert live(emu, "t-sub") == []
    assert run_module(emu, "ecs_instance", name="t-ebm", tags=OURS, state="absent")["changed"] is True


@pytest.mark.parametrize(
    "change,option",
    [
        ({"instance_type": "sccgn6.24xlarge"}, "instance_type"),
        ({"count": -1}, "count"),
        ({"hpc_cluster_id": None}, "hpc_cluster_id"),
        ({"vswitch_id": None}, "vswitch_id"),
    ],
)
def test_bad_instance_input_fails_before_any_api_call(emu, network, change, option):
    mark = len(emu.calls)
    result = run_module(emu, "ecs_instance", **instance_args(network, **change))
    assert result["failed"] is True and option in result["msg"]
    assert emu.calls[mark:] == []


def test_cpfs_and_mount_target_cycle(emu, network):
    args = cpfs_args("t-cpfs", network["vpc_id"], network["vswitch_id"], OURS)
    info = ("nas_cpfs_info", dict(name="t-cpfs", tags=OURS, vpc_id=network["vpc_id"]), "file_systems")
    fs = cycle(emu, "nas_cpfs", args, dict(name="t-cpfs", tags=OURS, state="absent"), "file_system", info)
    assert fs["file_system"]["status"] == "Running" and fs["file_system"]["file_system_id"].startswith("cpfs-")

    fs = run_module(emu, "nas_cpfs", **args)["file_system"]
    target = dict(file_system_id=fs["file_system_id"], vpc_id=network["vpc_id"], vswitch_id=network["vswitch_id"])
    mt = cycle(
        emu,
        "nas_cpfs_mount_target",
        target,
        dict(file_system_id=fs["file_system_id"], vswitch_id=network["vswitch_id"], state="absent"),
        "mount_target",
    )
    assert mt["mount_target"]["status"] == "Active" and mt["mount_target"]["mount_target_domain"]
    assert run_module(emu, "nas_cpfs", name="t-cpfs", tags=OURS, state="absent")["changed"] is True


def test_fault_injection_never_leaves_more_instances_than_asked(emu, network, monkeypatch):
    """100 create runs under random faults (drop after the create took effect included).

    Only one retry per call (api_retries=1), so many runs fail and are run again, as a user
    would: the ClientToken derived from the request must make the later run find, not repeat,
    what the failed run created. The backoff is shortened: the delays are not under test here.
    """
    # the retry loop lives in _alicloud_client and reads backoff_delay there
    from ansible_collections.scc.training.plugins.module_utils import _alicloud_client

    monkeypatch.setattr(_alicloud_client, "backoff_delay", lambda attempt, **kw: 0.01)
    runs, failures, per_name = 100, 0, 2
    before = emu.faults_injected
    emu.set_random_faults(RandomFaults(seed=5, rate=0.35, actions=None, delay=0.02))
    try:
        for n in range(runs):
            name = "fi-%03d" % n
            args = instance_args(network, name=name, count=per_name, api_retries=1, wait=False)
            result = run_module(emu, "ecs_instance", **args)
            while result.get("failed"):
                failures += 1
                result = run_module(emu, "ecs_instance", **args)
            assert len(result["instances"]) == per_name, result
    finally:
        emu.set_random_faults(None)
    injected = emu.faults_injected - before
    counts = {n: len(live(emu, "fi-%03d" % n)) for n in range(runs)}
    duplicates = sum(c - per_name for c in counts.values())
    kinds = sorted({kind for _action, kind in emu.faults.log})
    print(
        "fault injection: runs=%d failed_runs_rerun=%d faults_injected=%d kinds=%s duplicates=%d"
        % (runs, failures, injected, ",".join(kinds), duplicates)
    )
    assert duplicates == 0 and set(counts.values()) == {per_name}
    assert injected >= runs and "drop_after" in kinds and failures > 0
    for n in range(runs):
        run_module(emu, "ecs_instance", name="fi-%03d" % n, tags=OURS, state="absent")
