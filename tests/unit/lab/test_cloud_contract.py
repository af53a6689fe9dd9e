"""The contract check (lab/cloud/contract.py): requests and replies held against the Tea SDK's API models."""

import pytest
from aliyunsdkecs.request.v20140526 import DescribeSecurityGroupsRequest

from lab.cloud import contract
from lab.cloud.testing import call

ECS, VPC, NAS, CS = "2014-05-26", "2016-04-28", "2017-06-26", "2015-12-15"


def rpc(version, action, **params):
    return contract.check_rpc({"Version": version, "Action": action, "RegionId": "cn-shanghai", **params})


def test_a_conforming_request_has_no_finding():
    assert rpc(VPC, "CreateVSwitch", VpcId="vpc-1", ZoneId="cn-shanghai-b", CidrBlock="10.0.1.0/24") == []
    assert rpc(ECS, "DeleteInstances", **{"InstanceId.1": "i-1", "InstanceId.2": "i-2", "Force": "true"}) == []
    assert rpc(ECS, "RunInstances", **{"Tag.1.Key": "k", "Tag.1.Value": "v", "SystemDisk.Category": "cloud_essd"}) == []


def test_an_unknown_action_is_a_finding():
    assert rpc(ECS, "MakeCoffee") == ["2014-05-26 MakeCoffee: no such action in the model"]
    assert rpc("2099-01-01", "CreateVpc") == ["2099-01-01 CreateVpc: no API model for version '2099-01-01'"]


def test_an_unknown_key_is_a_finding():
    found = rpc(VPC, "DeleteVpc", VpcId="vpc-1", Colour="blue")
    assert found == ["2016-04-28 DeleteVpc: unknown parameter 'Colour' (not in DeleteVpcRequest)"]
    # the wrong flattening: a list sent as one value, a nested key that its item model lacks
    assert rpc(ECS, "DeleteInstances", InstanceId="i-1") == [
        "2014-05-26 DeleteInstances: InstanceId is a list in the model, sent as one value"
    ]
    assert rpc(ECS, "RunInstances", **{"Tag.1.Colour": "blue"}) == [
        "2014-05-26 RunInstances Tag.1: unknown parameter 'Colour' (not in RunInstancesRequestTag)"
    ]


def test_a_missing_required_parameter_is_a_finding():
    assert rpc(VPC, "CreateVSwitch", VpcId="vpc-1", CidrBlock="10.0.1.0/24") == [
        "2016-04-28 CreateVSwitch: required parameter ZoneId missing"
    ]
    assert rpc(ECS, "StopInstances") == ["2014-05-26 StopInstances: required parameter InstanceId missing"]


def test_an_enum_value_outside_the_models_list_is_a_finding():
    found = rpc(ECS, "CreateSecurityGroup", SecurityGroupType="premium")
    assert found == [
        "2014-05-26 CreateSecurityGroup: SecurityGroupType='premium' is not one of the model's values"
        " ['normal', 'enterprise']"
    ]
    assert rpc(ECS, "CreateSecurityGroup", SecurityGroupType="normal") == []
    # the SDK's "True" for a boolean; a value the model says is not case-sensitive
    assert rpc(ECS, "DeleteInstances", **{"InstanceId.1": "i-1", "DryRun": "True"}) == []
    revoke = {"SecurityGroupId": "sg-1", "Permissions.1.IpProtocol": "tcp", "Permissions.1.PortRange": "22/22"}
    assert rpc(ECS, "RevokeSecurityGroup", **revoke) == []


def test_a_deprecated_parameter_is_a_finding():
    found = rpc(ECS, "AuthorizeSecurityGroup", SecurityGroupId="sg-1", IpProtocol="tcp", PortRange="22/22")
    assert sorted(found) == [
        "2014-05-26 AuthorizeSecurityGroup: parameter IpProtocol is deprecated in the model",
        "2014-05-26 AuthorizeSecurityGroup: parameter PortRange is deprecated in the model",
    ]


def test_an_action_the_vpc_api_replaced_is_a_finding():
    assert rpc(ECS, "CreateVpc", CidrBlock="10.0.0.0/16") == [
        "2014-05-26 CreateVpc: deprecated action: use the VPC API (2016-04-28) CreateVpc"
    ]


def test_roa_requests_route_body_and_required_fields():
    assert contract.check_roa(CS, "GET", "/clusters/c1", {}, {}) == []
    assert contract.check_roa(CS, "PUT", "/no/such/route", {}, {}) == [
        "2015-12-15 PUT /no/such/route: no such action in the model"
    ]
    found = contract.check_roa(CS, "POST", "/clusters", {}, {"name": "t", "cluster_type": "ManagedKubernetes"})
    assert found == ["2015-12-15 CreateCluster: required parameter region_id missing"]
    found = contract.check_roa(CS, "GET", "/api/v1/clusters", {"Name": "t"}, {})
    assert found == ["2015-12-15 DescribeClustersV1: unknown parameter 'Name' (not in DescribeClustersV1Request)"]


def test_a_reply_field_outside_the_response_model_is_a_finding():
    reply = {"RequestId": "r", "TotalCount": 0, "Vpcs": {"Vpc": [{"VpcId": "vpc-1", "Colour": "blue"}]}}
    assert contract.check_reply(VPC, "DescribeVpcs", reply) == [
        "2016-04-28 DescribeVpcs reply: field Vpcs.Vpc.Colour is not in DescribeVpcsResponseBodyVpcsVpc"
    ]
    del reply["Vpcs"]["Vpc"][0]["Colour"]
    assert contract.check_reply(VPC, "DescribeVpcs", reply) == []


@pytest.mark.parametrize("version", [ECS, VPC, NAS, CS])
def test_every_action_the_emulator_serves_is_in_the_model(version):
    from lab.cloud import cs, server

    served = [r[2] for r in cs.ROUTES] if version == CS else list(server.SERVICES[version].ACTIONS)
    assert sorted(set(served) - set(contract.actions(version))) == []


def test_the_emulator_records_a_finding_for_the_test_that_sent_it(acs, emu, contract_findings):
    call(acs, DescribeSecurityGroupsRequest.DescribeSecurityGroupsRequest, SecurityGroupType="premium")
    expected = [
        "2014-05-26 DescribeSecurityGroups: SecurityGroupType='premium' is not one of the model's values"
        " ['normal', 'enterprise']"
    ]
    assert emu.contract_findings == expected
    assert contract_findings() == expected
