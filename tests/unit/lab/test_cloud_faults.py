"""Fault injection in the cloud emulator, seen through the unmodified SDK."""

import time

import pytest
from aliyunsdkcore.acs_exception.exceptions import ClientException, ServerException
from aliyunsdkecs.request.v20140526 import (
    CreateVpcRequest,
    DescribeSecurityGroupsRequest,
    DescribeVpcsRequest,
    RunInstancesRequest,
)

from lab.cloud import FAULT_KINDS, RandomFaults, Timings
from lab.cloud.testing import call, client, network

EMULATOR_TIMINGS = Timings(instance_pending=0.01, instance_starting=0.01)


@pytest.fixture
def run_params(acs):
    net = network(acs, vswitch_cidr="10.0.0.0/20")
    return dict(
        ImageId="img",
        InstanceType="ecs.sccgn6.24xlarge",
        VSwitchId=net["vsw"],
        SecurityGroupId=net["sg"],
        HpcClusterId=net["hpc"],
    )


@pytest.mark.parametrize(
    "kind,status,code",
    [
        ("throttling", 400, "Throttling"),
        ("throttling_user", 400, "Throttling.User"),
        ("unavailable", 503, "ServiceUnavailable"),
        ("internal", 500, "InternalError"),
        ("forbidden", 403, "Forbidden.RAM"),  # permanent: stops a playbook at a chosen step
    ],
)
def test_error_faults_have_the_real_status_and_apply_nothing(acs, emu, kind, status, code):
    emu.inject(kind, action="CreateVpc")
    with pytest.raises(ServerException) as err:
        call(acs, CreateVpcRequest.CreateVpcRequest)
    assert (err.value.get_http_status(), err.value.get_error_code()) == (status, code)
    assert emu.vpcs() == []
    assert emu.faults.injected == {kind: 1}
    call(acs, CreateVpcRequest.CreateVpcRequest)  # the fault was for one request only
    assert len(emu.vpcs()) == 1


def test_the_sdk_retries_a_503_on_describe_by_itself(emu):
    # An ECS Describe* (data/retry_config.json lists ecs/2014-05-26's; the VPC API's are not retried by it).
    emu.inject("unavailable", action="DescribeSecurityGroups")
    assert call(client(emu), DescribeSecurityGroupsRequest.DescribeSecurityGroupsRequest)["TotalCount"] == 0
    assert [(c["action"], c["status"]) for c in emu.calls] == [
        ("DescribeSecurityGroups", 503),
        ("DescribeSecurityGroups", 200),
    ]


def test_a_fault_for_one_action_leaves_others_alone(acs, emu):
    emu.inject("throttling", action="RunInstances", times=2)
    call(acs, DescribeVpcsRequest.DescribeVpcsRequest)
    assert emu.faults_injected == 0 and len(emu.faults.rules) == 1


def test_drop_after_applies_the_create_and_a_token_retry_returns_it(acs, emu, run_params):
    emu.inject("drop_after", action="RunInstances")
    with pytest.raises(ClientException) as err:
        call(acs, RunInstancesRequest.RunInstancesRequest, ClientToken="t-1", **run_params)
    assert err.value.get_error_code() == "SDK.HttpError"
    [created] = emu.instances()  # it took effect although no reply came
    again = call(acs, RunInstancesRequest.RunInstancesRequest, ClientToken="t-1", **run_params)
    assert again["InstanceIdSets"]["InstanceIdSet"] == [created["InstanceId"]]
    assert len(emu.instances()) == 1


def test_drop_before_applies_nothing(acs, emu, run_params):
    emu.inject("drop_before", action="RunInstances")
    with pytest.raises(ClientException):
        call(acs, RunInstancesRequest.RunInstancesRequest, **run_params)
    assert emu.instances() == []
    assert {k: emu.calls[-1][k] for k in ("action", "status", "fault")} == {
        "action": "RunInstances",
        "status": None,
        "fault": "drop_before",
    }


def test_slow_reply_arrives_late_or_times_out_after_applying(emu):
    emu.inject("slow", action="CreateVpc", delay=0.3)
    start = time.monotonic()
    call(client(emu, auto_retry=False), CreateVpcRequest.CreateVpcRequest)
    assert time.monotonic() - start >= 0.3
    emu.inject("slow", action="CreateVpc", delay=0.5)
    with pytest.raises(ClientException) as err:
        call(client(emu, auto_retry=False, timeout=0.2), CreateVpcRequest.CreateVpcRequest)
    assert err.value.get_error_code() == "SDK.HttpError"
    deadline = time.monotonic() + 2
    while len(emu.vpcs()) < 2:  # the late request still creates its VPC
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_random_faults_are_seeded_and_counted():
    def log(seed):
        faults = RandomFaults(seed, rate=0.5)
        return [f and f.kind for f in (faults.draw("RunInstances") for dummy in range(50))]

    assert log(7) == log(7) and log(7) != log(8)
    drawn = [k for k in log(7) if k]
    assert 10 < len(drawn) < 40 and set(drawn) <= set(FAULT_KINDS)
    assert RandomFaults(1, 1.0, actions={"RunInstances"}).draw("DescribeInstances") is None
    assert "forbidden" in FAULT_KINDS and "forbidden" not in {RandomFaults(s, 1.0).draw("X").kind for s in range(200)}


def test_token_retries_under_random_faults_never_duplicate(acs, emu, run_params):
    """A client that retries each create with its own ClientToken ends with exactly one instance per create."""
    emu.set_random_faults(RandomFaults(seed=5, rate=0.4, actions={"RunInstances"}, delay=0.01))
    for n in range(25):
        for _attempt in range(50):
            try:
                call(acs, RunInstancesRequest.RunInstancesRequest, ClientToken=f"run-{n}", **run_params)
                break
            except (ClientException, ServerException):
                continue
    assert len(emu.instances()) == 25
    assert emu.faults.injected["drop_after"] > 0 and emu.faults_injected >= 10
    assert len(emu.faults.log) == emu.faults_injected


def test_the_sdks_own_retry_duplicates_a_dropped_run_instances_without_a_client_token(emu, run_params):
    # aliyunsdkcore retries RunInstances after a connection error but never sets a ClientToken
    # (facts file: the SDK's ClientToken bug), so a reply lost after the create made two.
    emu.inject("drop_after", action="RunInstances")
    reply = call(client(emu), RunInstancesRequest.RunInstancesRequest, **run_params)
    runs = [(c["status"], c["fault"]) for c in emu.calls if c["action"] == "RunInstances"]
    assert runs == [(200, "drop_after"), (200, None)]  # applied twice; the first reply never left
    assert len(emu.instances()) == 2
    assert reply["InstanceIdSets"]["InstanceIdSet"][0] in {i["InstanceId"] for i in emu.instances()}
