"""ECS resources in the cloud emulator, through the unmodified SDK request classes."""

import dataclasses
import json
import threading
import time

import pytest
from aliyunsdkcore.acs_exception.exceptions import ServerException
from aliyunsdkecs.request.v20140526 import (
    AuthorizeSecurityGroupRequest,
    CreateVpcRequest,
    CreateVSwitchRequest,
    DeleteHpcClusterRequest,
    DeleteInstanceRequest,
    DeleteInstancesRequest,
    DeleteSecurityGroupRequest,
    DeleteVpcRequest,
    DeleteVSwitchRequest,
    DescribeHpcClustersRequest,
    DescribeImagesRequest,
    DescribeInstancesRequest,
    DescribeInstanceTypesRequest,
    DescribeSecurityGroupAttributeRequest,
    DescribeSecurityGroupsRequest,
    DescribeVpcsRequest,
    DescribeVSwitchesRequest,
    ListTagResourcesRequest,
    RevokeSecurityGroupRequest,
    RunInstancesRequest,
    StartInstanceRequest,
    StopInstanceRequest,
    StopInstancesRequest,
    TagResourcesRequest,
    UntagResourcesRequest,
)

from lab.cloud import CloudEmulator, Timings, ecs, vpc
from lab.cloud.testing import call, client, network

SCC = "ecs.sccgn6.24xlarge"
EMULATOR_TIMINGS = Timings(instance_pending=0.05, instance_starting=0.05, instance_stopping=0.05)


@pytest.fixture
def net(acs):
    """A VPC, a vSwitch, a security group and an HPC cluster."""
    return network(acs, tags={"owner": "scc.training"})


def run(acs, net, **extra):
    params = dict(
        ImageId="centos_7_5_scc",
        InstanceType=SCC,
        VSwitchId=net["vsw"],
        SecurityGroupId=net["sg"],
        HpcClusterId=net["hpc"],
        InstanceName="node",
        Amount=1,
    )
    params.update(extra)
    params = {name: value for name, value in params.items() if value is not None}  # None: the parameter is left out
    return call(acs, RunInstancesRequest.RunInstancesRequest, **params)["InstanceIdSets"]["InstanceIdSet"]


def error(fn, *args, **kwargs) -> ServerException:
    with pytest.raises(ServerException) as err:
        fn(*args, **kwargs)
    return err.value


def test_vpc_and_vswitch_create_describe_delete(acs, emu, net):
    vswitches = call(acs, DescribeVSwitchesRequest.DescribeVSwitchesRequest, VpcId=net["vpc"])["VSwitches"]["VSwitch"]
    assert [(v["VSwitchId"], v["CidrBlock"], v["ZoneId"], v["Status"]) for v in vswitches] == [
        (net["vsw"], "10.0.1.0/24", "cn-shanghai-b", "Available")
    ]
    vpc = call(acs, DescribeVpcsRequest.DescribeVpcsRequest, VpcId=net["vpc"])["Vpcs"]["Vpc"][0]
    assert vpc["VSwitchIds"]["VSwitchId"] == [net["vsw"]]
    # A VPC with a vSwitch cannot go; the vSwitch first, the security group, then the VPC.
    assert (
        error(call, acs, DeleteVpcRequest.DeleteVpcRequest, VpcId=net["vpc"])
        .get_error_code()
        .startswith("DependencyViolation")
    )
    call(acs, DeleteVSwitchRequest.DeleteVSwitchRequest, VSwitchId=net["vsw"])
    call(acs, DeleteSecurityGroupRequest.DeleteSecurityGroupRequest, SecurityGroupId=net["sg"])
    call(acs, DeleteVpcRequest.DeleteVpcRequest, VpcId=net["vpc"])
    assert emu.vpcs() == [] and emu.vswitches() == []
    gone = error(call, acs, DeleteVpcRequest.DeleteVpcRequest, VpcId=net["vpc"])
    assert (gone.get_http_status(), gone.get_error_code()) == (404, "InvalidVpcId.NotFound")


@pytest.mark.parametrize("cidr", ["10.1.0.0/24", "10.0.0.0/8", "not-a-cidr"])
def test_vswitch_cidr_must_lie_inside_the_vpc(acs, emu, net, cidr):
    err = error(
        call, acs, CreateVSwitchRequest.CreateVSwitchRequest, VpcId=net["vpc"], ZoneId="cn-shanghai-b", CidrBlock=cidr
    )
    assert (err.get_http_status(), err.get_error_code()) == (400, "InvalidCidrBlock.Malformed")
    assert len(emu.vswitches()) == 1


def test_vswitch_overlap_and_public_vpc_cidr_refused(acs, net):
    err = error(
        call,
        acs,
        CreateVSwitchRequest.CreateVSwitchRequest,
        VpcId=net["vpc"],
        ZoneId="cn-shanghai-b",
        CidrBlock="10.0.1.128/25",
    )
    assert err.get_error_code() == "InvalidCIDRBlock.Overlapped"
    assert (
        error(call, acs, CreateVpcRequest.CreateVpcRequest, CidrBlock="8.8.0.0/16").get_error_code()
        == "InvalidCidrBlock.Malformed"
    )


def test_security_group_rules_authorize_idempotent_and_revoke(acs, emu, net):
    # The current form, Permissions.N.* (the top-level rule fields are [Deprecated] in the ECS model).
    rule = dict(
        SecurityGroupId=net["sg"], Permissions=[dict(IpProtocol="tcp", PortRange="22/22", SourceCidrIp="10.0.0.0/16")]
    )
    call(acs, AuthorizeSecurityGroupRequest.AuthorizeSecurityGroupRequest, **rule)
    call(acs, AuthorizeSecurityGroupRequest.AuthorizeSecurityGroupRequest, **rule)  # same rule: not added twice
    call(
        acs,
        AuthorizeSecurityGroupRequest.AuthorizeSecurityGroupRequest,
        SecurityGroupId=net["sg"],
        Permissions=[dict(IpProtocol="all", PortRange="-1/-1", SourceGroupId=net["sg"])],
    )
    attr = call(
        acs, DescribeSecurityGroupAttributeRequest.DescribeSecurityGroupAttributeRequest, SecurityGroupId=net["sg"]
    )
    rules = attr["Permissions"]["Permission"]
    assert [(r["IpProtocol"], r["PortRange"], r["SourceCidrIp"], r["SourceGroupId"], r["Policy"]) for r in rules] == [
        ("TCP", "22/22", "10.0.0.0/16", "", "Accept"),
        ("ALL", "-1/-1", "", net["sg"], "Accept"),
    ]
    call(acs, RevokeSecurityGroupRequest.RevokeSecurityGroupRequest, **rule)
    assert len(emu.security_groups()[0]["Permissions"]["Permission"]) == 1
    bad = error(
        call,
        acs,
        AuthorizeSecurityGroupRequest.AuthorizeSecurityGroupRequest,
        SecurityGroupId=net["sg"],
        Permissions=[dict(IpProtocol="tcp", PortRange="0/70000", SourceCidrIp="0.0.0.0/0")],
    )
    assert bad.get_error_code() == "InvalidPortRange.Malformed"
    tagged = call(
        acs,
        DescribeSecurityGroupsRequest.DescribeSecurityGroupsRequest,
        Tags=[{"Key": "owner", "Value": "scc.training"}],
    )["SecurityGroups"]["SecurityGroup"]
    assert [g["SecurityGroupId"] for g in tagged] == [net["sg"]]
    assert tagged[0]["Tags"]["Tag"] == [{"TagKey": "owner", "TagValue": "scc.training"}]


def test_hpc_cluster_create_describe_delete(acs, emu, net):
    listed = call(acs, DescribeHpcClustersRequest.DescribeHpcClustersRequest, HpcClusterIds=json.dumps([net["hpc"]]))
    assert [(h["HpcClusterId"], h["Name"]) for h in listed["HpcClusters"]["HpcCluster"]] == [(net["hpc"], "scc")]
    call(acs, DeleteHpcClusterRequest.DeleteHpcClusterRequest, HpcClusterId=net["hpc"])
    assert emu.hpc_clusters() == []
    err = error(call, acs, DeleteHpcClusterRequest.DeleteHpcClusterRequest, HpcClusterId=net["hpc"])
    assert (err.get_http_status(), err.get_error_code()) == (404, "InvalidHpcClusterId.NotFound")


def test_instances_state_machine_and_attributes(acs, emu, net):
    [iid] = run(acs, net, Tags=[{"Key": "scc-cluster", "Value": "bert"}])
    assert emu.instances()[0]["Status"] == "Pending"
    deadline = time.monotonic() + 5
    seen = []
    while time.monotonic() < deadline:
        status = call(acs, DescribeInstancesRequest.DescribeInstancesRequest, InstanceIds=json.dumps([iid]))[
            "Instances"
        ]["Instance"][0]["Status"]
        if not seen or seen[-1] != status:
            seen.append(status)
        if status == "Running":
            break
        time.sleep(0.01)
    assert seen[-1] == "Running" and set(seen) <= {"Pending", "Starting", "Running"}
    inst = emu.instances()[0]
    assert (inst["InstanceType"], inst["InstanceTypeFamily"], inst["GPUAmount"], inst["GPUSpec"]) == (
        SCC,
        "ecs.sccgn6",
        8,
        "NVIDIA V100",
    )
    assert inst["HpcClusterId"] == net["hpc"] and inst["ZoneId"] == "cn-shanghai-b"
    private = inst["VpcAttributes"]["PrivateIpAddress"]["IpAddress"]
    assert len(private) == 1 and private[0].startswith("10.0.1.")
    assert len(inst["RdmaIpAddress"]["IpAddress"]) == 1
    assert inst["Tags"]["Tag"] == [{"TagKey": "scc-cluster", "TagValue": "bert"}]
    # Running needs Force to delete; stopped it goes without.
    assert (
        error(call, acs, DeleteInstanceRequest.DeleteInstanceRequest, InstanceId=iid).get_error_code()
        == "IncorrectInstanceStatus"
    )
    call(acs, StopInstanceRequest.StopInstanceRequest, InstanceId=iid)
    assert emu.instances()[0]["Status"] == "Stopping"
    time.sleep(0.08)
    assert emu.instances()[0]["Status"] == "Stopped"
    call(acs, StartInstanceRequest.StartInstanceRequest, InstanceId=iid)
    assert emu.instances()[0]["Status"] == "Starting"
    time.sleep(0.08)
    call(acs, DeleteInstanceRequest.DeleteInstanceRequest, InstanceId=iid, Force=True)
    assert emu.instances() == []
    assert error(call, acs, DeleteInstanceRequest.DeleteInstanceRequest, InstanceId=iid).get_http_status() == 404


def test_a_pending_instance_cannot_be_deleted(acs, net):
    [iid] = run(acs, net)
    err = error(call, acs, DeleteInstanceRequest.DeleteInstanceRequest, InstanceId=iid, Force=True)
    assert (err.get_http_status(), err.get_error_code()) == (403, "IncorrectInstanceStatus.Initializing")


@pytest.mark.parametrize(
    "extra,status,code",
    [
        ({"HpcClusterId": None}, 400, "InvalidHpcClusterId.Necessary"),
        ({"HpcClusterId": "hpc-doesnotexist"}, 404, "InvalidHpcClusterId.NotFound"),
        ({"InstanceType": "ecs.g6.large"}, 400, "InvalidHpcClusterId.Unnecessary"),
        ({"InstanceType": "ecs.nosuch.large"}, 400, "InvalidInstanceType.ValueNotSupported"),
        ({"Amount": 101}, 400, "InvalidParameter"),
        ({"ZoneId": "cn-shanghai-c"}, 400, "InvalidParameter.Mismatch"),
        ({"SecurityGroupId": "sg-doesnotexist"}, 404, "InvalidSecurityGroupId.NotFound"),
    ],
)
def test_run_instances_checks_before_creating(acs, emu, net, extra, status, code):
    params = {k: v for k, v in extra.items() if v is not None}
    if extra.get("HpcClusterId", "") is None:
        params["HpcClusterId"] = ""
    err = error(run, acs, net, **params)
    assert (err.get_http_status(), err.get_error_code()) == (status, code)
    assert emu.instances() == []


def test_amount_pagination_and_filters(acs, emu, net):
    ids = run(acs, net, Amount=12, UniqueSuffix=True, Tags=[{"Key": "scc-cluster", "Value": "bert"}])
    run(acs, net, InstanceName="other")
    assert len(ids) == 12 and len(set(ids)) == 12
    seen = []
    for number in (1, 2, 3):
        reply = call(
            acs,
            DescribeInstancesRequest.DescribeInstancesRequest,
            PageNumber=number,
            PageSize=5,
            Tags=[{"Key": "scc-cluster", "Value": "bert"}],
        )
        assert (reply["TotalCount"], reply["PageNumber"], reply["PageSize"]) == (12, number, 5)
        seen += [i["InstanceId"] for i in reply["Instances"]["Instance"]]
    assert seen == ids
    names = [i["InstanceName"] for i in emu.instances()]
    assert names[:2] == ["node001", "node002"] and names[-1] == "other"
    by_name = call(acs, DescribeInstancesRequest.DescribeInstancesRequest, InstanceName="node0*", PageSize=100)
    assert by_name["TotalCount"] == 12
    # NextToken/MaxResults paging walks the same set.
    token, walked = None, []
    while True:
        params = {"MaxResults": 7, "HpcClusterId": net["hpc"]}
        if token:
            params["NextToken"] = token
        reply = call(acs, DescribeInstancesRequest.DescribeInstancesRequest, **params)
        walked += [i["InstanceId"] for i in reply["Instances"]["Instance"]]
        token = reply["NextToken"]
        if not token:
            break
    assert len(walked) == 13 and len(set(walked)) == 13
    assert (
        error(call, acs, DescribeInstancesRequest.DescribeInstancesRequest, PageSize=101).get_error_code()
        == "InvalidParameter"
    )


def test_dry_run_checks_and_changes_nothing(acs, emu, net):
    err = error(run, acs, net, DryRun=True)
    assert (err.get_http_status(), err.get_error_code()) == (400, "DryRunOperation")
    assert emu.instances() == []
    # A failing check reports the real error, not DryRunOperation.
    assert error(run, acs, net, DryRun=True, HpcClusterId="hpc-nope").get_error_code() == "InvalidHpcClusterId.NotFound"
    [iid] = run(acs, net)
    time.sleep(0.12)
    err = error(call, acs, DeleteInstancesRequest.DeleteInstancesRequest, InstanceIds=[iid], Force=True, DryRun=True)
    assert err.get_error_code() == "DRYRUN.SUCCESS"
    assert len(emu.instances()) == 1


def test_client_token_replays_the_first_reply_and_refuses_other_parameters(acs, emu, net):
    first = run(acs, net, Amount=2, ClientToken="provision-0001")
    again = run(acs, net, Amount=2, ClientToken="provision-0001")
    assert again == first and len(emu.instances()) == 2
    err = error(run, acs, net, Amount=3, ClientToken="provision-0001")
    assert (err.get_http_status(), err.get_error_code()) == (403, "IdempotentParameterMismatch")
    assert len(emu.instances()) == 2
    run(acs, net, ClientToken="provision-0002")
    assert len(emu.instances()) == 3


def test_tags_added_listed_and_filtered(acs, emu, net):
    [a, b] = run(acs, net, Amount=2)
    call(
        acs,
        TagResourcesRequest.TagResourcesRequest,
        ResourceType="instance",
        ResourceIds=[a],
        Tags=[{"Key": "role", "Value": "head"}],
    )
    listed = call(acs, ListTagResourcesRequest.ListTagResourcesRequest, ResourceType="instance", ResourceIds=[a, b])
    assert listed["TagResources"]["TagResource"] == [
        {"ResourceType": "instance", "ResourceId": a, "TagKey": "role", "TagValue": "head"}
    ]
    only = call(acs, DescribeInstancesRequest.DescribeInstancesRequest, Tags=[{"Key": "role"}])
    assert [i["InstanceId"] for i in only["Instances"]["Instance"]] == [a]


def test_no_stock_creates_nothing_unless_min_amount_allows(acs, emu, net):
    emu.set_stock(SCC, 3)
    err = error(run, acs, net, Amount=4)
    assert (err.get_http_status(), err.get_error_code()) == (403, "OperationDenied.NoStock")
    assert emu.instances() == []
    assert len(run(acs, net, Amount=4, MinAmount=2)) == 3


def test_instances_backed_by_lab_hosts():
    hosts = ["127.0.14.11", "127.0.14.12"]
    with CloudEmulator(access_key_id="k", access_key_secret="s", timings=EMULATOR_TIMINGS, host_addresses=hosts) as emu:
        acs = client(emu, auto_retry=False)
        net = network(acs)
        # Only as many instances as there are lab hosts.
        assert error(run, acs, net, Amount=3).get_error_code() == "OperationDenied.NoStock"
        ids = run(acs, net, Amount=2)
        addresses = {i["InstanceId"]: i["VpcAttributes"]["PrivateIpAddress"]["IpAddress"] for i in emu.instances()}
        assert sorted(a for [a] in addresses.values()) == hosts
        assert emu.backing() == {addresses[i][0]: i for i in ids}
        time.sleep(0.12)
        call(acs, DeleteInstanceRequest.DeleteInstanceRequest, InstanceId=ids[0], Force=True)
        assert list(emu.backing().values()).count(None) == 1
        [again] = run(acs, net)
        assert emu.backing()[addresses[ids[0]][0]] == again


def test_a_general_purpose_data_prep_instance_beside_the_scc_nodes(acs, emu, net):
    """provision.yml's data-prep ECS: a g7 in the nodes' vSwitch and security group, without the HPC cluster."""
    [node] = run(acs, net)
    g7 = dict(InstanceType="ecs.g7.8xlarge", InstanceName="prep", HpcClusterId=None, SystemDiskSize=500)
    [prep] = run(acs, net, **g7)
    found = {i["InstanceId"]: i for i in emu.instances()}
    assert (found[prep]["Cpu"], found[prep]["Memory"], found[prep]["GPUAmount"]) == (32, 128 * 1024, 0)
    assert found[prep]["RdmaIpAddress"]["IpAddress"] == [] and found[prep]["HpcClusterId"] == ""
    assert found[prep]["VpcAttributes"]["VSwitchId"] == found[node]["VpcAttributes"]["VSwitchId"]
    # Not an SCC type: an HPC cluster is refused, as RunInstances documents.
    in_the_hpc_cluster = {**g7, "HpcClusterId": net["hpc"]}
    refused = error(run, acs, net, **in_the_hpc_cluster)
    assert refused.get_error_code() == "InvalidHpcClusterId.Unnecessary"


def test_describe_instance_types_reports_the_scc_gpus(acs):
    reply = call(acs, DescribeInstanceTypesRequest.DescribeInstanceTypesRequest, InstanceTypess=[SCC])
    [row] = reply["InstanceTypes"]["InstanceType"]
    assert (row["InstanceTypeFamily"], row["CpuCoreCount"], row["GPUAmount"], row["GPUSpec"]) == (
        "ecs.sccgn6",
        96,
        8,
        "NVIDIA V100",
    )


def test_a_vswitch_in_use_cannot_be_deleted(acs, emu, net):
    run(acs, net)
    err = error(call, acs, DeleteVSwitchRequest.DeleteVSwitchRequest, VSwitchId=net["vsw"])
    assert (err.get_http_status(), err.get_error_code()) == (403, "DependencyViolation")
    assert len(emu.vswitches()) == 1


def test_an_emulator_bug_is_a_500_with_its_traceback_kept(acs, emu, monkeypatch):
    def broken(*args):
        raise KeyError("bug")

    monkeypatch.setitem(vpc.ACTIONS, "DescribeVpcs", broken)  # the VPC API's, which call() sends
    err = error(call, acs, DescribeVpcsRequest.DescribeVpcsRequest)
    assert (err.get_http_status(), err.get_error_code()) == (500, "InternalError")
    assert "KeyError: 'bug'" in emu.internal_errors[0]


def test_a_full_vswitch_refuses_the_whole_call(acs, emu, net):
    small = call(
        acs,
        CreateVSwitchRequest.CreateVSwitchRequest,
        VpcId=net["vpc"],
        ZoneId="cn-shanghai-b",
        CidrBlock="10.0.2.0/29",
    )["VSwitchId"]  # 8 addresses, 4 reserved: 2 SCC instances fit
    err = error(run, acs, {**net, "vsw": small}, Amount=3)
    assert (err.get_http_status(), err.get_error_code()) == (403, "InvalidVSwitchId.IpNotEnough")
    assert emu.instances() == []
    assert len(run(acs, {**net, "vsw": small}, Amount=2)) == 2
    free = [v["AvailableIpAddressCount"] for v in emu.vswitches() if v["VSwitchId"] == small]
    assert free == [0]


def test_untag_and_batch_stop(acs, emu, net):
    # b must still be Stopping at the batch stop, on a loaded machine too (this emulator only: a copy of its timings).
    emu.store.timings = dataclasses.replace(emu.store.timings, instance_stopping=1.0)
    [a, b] = run(acs, net, Amount=2, Tags=[{"Key": "role", "Value": "worker"}, {"Key": "keep", "Value": "1"}])
    call(acs, UntagResourcesRequest.UntagResourcesRequest, ResourceType="instance", ResourceIds=[a], TagKeys=["role"])
    tags = {i["InstanceId"]: i["Tags"]["Tag"] for i in emu.instances()}
    assert tags[a] == [{"TagKey": "keep", "TagValue": "1"}] and len(tags[b]) == 2
    time.sleep(0.12)
    call(acs, StopInstanceRequest.StopInstanceRequest, InstanceId=b)
    reply = call(acs, StopInstancesRequest.StopInstancesRequest, InstanceIds=[a, b])
    rows = {r["InstanceId"]: (r["Code"], r["PreviousStatus"]) for r in reply["InstanceResponses"]["InstanceResponse"]}
    assert rows == {a: ("200", "Running"), b: ("IncorrectInstanceStatus", "Stopping")}


def test_concurrent_retries_with_one_token_create_once(emu, net):
    replies = []

    def create():
        replies.append(run(client(emu, auto_retry=False), net, Amount=2, ClientToken="same-token"))

    threads = [threading.Thread(target=create) for dummy in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(emu.instances()) == 2
    assert len(replies) == 8 and all(r == replies[0] for r in replies)


def test_a_deleted_instance_holds_its_group_switch_and_cluster_for_the_release_lag():
    timings = Timings(
        instance_pending=0, instance_starting=0, release_lag=1.0
    )  # long enough for three calls on a loaded machine
    with CloudEmulator(access_key_id="k", access_key_secret="s", timings=timings) as emu:
        acs = client(emu, auto_retry=False)
        net = network(acs)
        [instance] = run(acs, net)
        call(acs, DeleteInstanceRequest.DeleteInstanceRequest, InstanceId=instance, Force=True)
        assert emu.instances() == []
        # Released asynchronously: its security group, vSwitch and HPC cluster are still in use.
        for request, key, param in (
            (DeleteSecurityGroupRequest.DeleteSecurityGroupRequest, "sg", "SecurityGroupId"),
            (DeleteVSwitchRequest.DeleteVSwitchRequest, "vsw", "VSwitchId"),
            (DeleteHpcClusterRequest.DeleteHpcClusterRequest, "hpc", "HpcClusterId"),
        ):
            assert error(call, acs, request, **{param: net[key]}).get_error_code() == "DependencyViolation"
        time.sleep(1.05)
        call(acs, DeleteSecurityGroupRequest.DeleteSecurityGroupRequest, SecurityGroupId=net["sg"])
        call(acs, DeleteVSwitchRequest.DeleteVSwitchRequest, VSwitchId=net["vsw"])
        call(acs, DeleteHpcClusterRequest.DeleteHpcClusterRequest, HpcClusterId=net["hpc"])
        # ... and the VPC is held by the vSwitch and the group just deleted, for the lag again.
        assert (
            error(call, acs, DeleteVpcRequest.DeleteVpcRequest, VpcId=net["vpc"])
            .get_error_code()
            .startswith("DependencyViolation")
        )
        time.sleep(1.05)
        call(acs, DeleteVpcRequest.DeleteVpcRequest, VpcId=net["vpc"])
        assert emu.vpcs() == []


# --- today's eRDMA families: ERIs, jumbo frames, UEFI images, subscription (issue 23) -------------------------

EBM = "ecs.ebmgn8v.48xlarge"


def eris(net, count, **extra):
    """RunInstances' NetworkInterface list (the SDK's set_NetworkInterfaces): ``count`` ERIs."""
    nic = dict(InstanceType="Secondary", VSwitchId=net["vsw"], SecurityGroupId=net["sg"])
    nic.update({"NetworkInterfaceTrafficMode": "HighPerformance", **extra})
    return [dict(nic, NetworkCardIndex=i) for i in range(count)]


def ebm(acs, net, **extra):
    return run(acs, net, InstanceType=EBM, HpcClusterId=None, ImageId="aliyun_3_x64_20G_uefi_alibase_1.vhd", **extra)


def test_erdma_instances_get_their_elastic_rdma_interfaces(acs, emu, net):
    [iid] = ebm(acs, net, NetworkInterfaces=eris(net, 2), NetworkOptions={"EnableJumboFrame": True})
    [inst] = emu.instances()
    nics = inst["NetworkInterfaces"]["NetworkInterface"]
    assert [n["Type"] for n in nics] == ["Primary", "Secondary", "Secondary"]
    assert [n.get("NetworkInterfaceTrafficMode") for n in nics[1:]] == ["HighPerformance"] * 2
    assert [n["NetworkCardIndex"] for n in nics[1:]] == [0, 1]
    assert inst["HpcClusterId"] == "" and inst["InstanceId"] == iid
    # Each ERI holds an address of the vSwitch; all are freed on release.
    assert len({n["PrimaryIpAddress"] for n in nics}) == 3


def test_more_erdma_interfaces_than_the_type_takes_are_refused(acs, emu, net, contract_findings):
    err = error(ebm, acs, net, NetworkInterfaces=eris(net, 3))
    assert (err.get_http_status(), err.get_error_code()) == (400, "InvalidParameter")
    assert "exceeds the limit of the instance family (2)" in err.get_error_msg()
    err = error(run, acs, net, NetworkInterfaces=eris(net, 1))  # sccgn6: RoCE, no ERI
    assert err.get_error_code() == "InvalidParameter" and emu.instances() == []
    bad_mode = error(ebm, acs, net, NetworkInterfaces=eris(net, 1, NetworkInterfaceTrafficMode="Fast"))
    assert bad_mode.get_error_code() == "InvalidParameter" and emu.instances() == []
    # Sent on purpose: the contract check names the value the model does not list.
    assert contract_findings() == [
        "2014-05-26 RunInstances NetworkInterface.1: NetworkInterfaceTrafficMode='Fast' is not one of the model's"
        " values ['Standard', 'HighPerformance']"
    ]


def test_describe_instance_types_reports_eri_quantity(acs):
    reply = call(acs, DescribeInstanceTypesRequest.DescribeInstanceTypesRequest, InstanceTypess=[EBM, SCC])
    assert {r["InstanceTypeId"]: r["EriQuantity"] for r in reply["InstanceTypes"]["InstanceType"]} == {EBM: 2, SCC: 0}


@pytest.mark.parametrize(
    "image,mode",
    [("aliyun_3_x64_20G_uefi_alibase_20250101.vhd", "UEFI"), ("aliyun_3_x64_20G_alibase_20250101.vhd", "BIOS")],
)
def test_describe_images_reports_the_boot_mode(acs, emu, image, mode):
    reply = call(acs, DescribeImagesRequest.DescribeImagesRequest, ImageId=image)
    assert [(i["ImageId"], i["BootMode"]) for i in reply["Images"]["Image"]] == [(image, mode)]
    emu.store.images["m-custom"] = "UEFI-Preferred"
    reply = call(acs, DescribeImagesRequest.DescribeImagesRequest, ImageId="m-custom")
    assert reply["Images"]["Image"][0]["BootMode"] == "UEFI-Preferred"


def test_subscription_needs_a_valid_period_and_is_not_released_before_it_expires(acs, emu, net):
    assert error(ebm, acs, net, InstanceChargeType="PrePaid").get_error_code() == "MissingParameter"
    bad = error(ebm, acs, net, InstanceChargeType="PrePaid", Period=10, PeriodUnit="Month")
    assert bad.get_error_code() == "InvalidParameter" and emu.instances() == []
    [iid] = ebm(acs, net, InstanceChargeType="PrePaid", Period=1, PeriodUnit="Week", AutoRenew=False)
    [inst] = emu.instances()
    assert inst["InstanceChargeType"] == "PrePaid" and inst["ExpiredTime"] > ecs.now_iso()
    for terminate in (False, True):
        err = error(
            call, acs, DeleteInstancesRequest.DeleteInstancesRequest, InstanceIds=[iid], Force=True,
            TerminateSubscription=terminate,
        )  # fmt: skip
        assert err.get_error_code() == "InvalidInstanceChargeType.NotSupport"
    emu.store.instances[iid]["ExpiredTime"] = "2020-01-01T00:00Z"  # expired: released with TerminateSubscription
    time.sleep(0.15)  # past Pending
    call(acs, DeleteInstancesRequest.DeleteInstancesRequest, InstanceIds=[iid], Force=True, TerminateSubscription=True)
    assert emu.instances() == []
