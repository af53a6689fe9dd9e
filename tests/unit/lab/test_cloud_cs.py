"""The emulator's CS (ACK) ROA API, driven by the unmodified SDK: aliyunsdkcore 2.16.1's ROA signing
and aliyun-python-sdk-cs 4.8.1's request classes (paths and methods as the SDK declares them)."""

import json
import time

import pytest
from aliyunsdkcore.acs_exception.exceptions import ServerException
from aliyunsdkcore.auth.algorithm import sha_hmac1
from aliyunsdkcore.auth.composer import roa_signature_composer as composer
from aliyunsdkcore.auth.credentials import StsTokenCredential
from aliyunsdkcore.client import AcsClient
from aliyunsdkcore.request import CommonRequest
from aliyunsdkcs.request.v20151215 import (
    DeleteClusterRequest,
    DescribeClusterDetailRequest,
    DescribeClusterNodesRequest,
    DescribeClustersV1Request,
)

from lab.cloud import CloudEmulator, Timings, cs, wire
from lab.cloud.testing import network

EMULATOR_TIMINGS = Timings(instance_pending=0.0, instance_starting=0.0, cluster=0.3, cluster_delete=0.2, node=0.1)

# ---- the signature ------------------------------------------------------------------------------
HEADERS = {
    "Accept": "application/json",
    "Content-MD5": "1B2M2Y8AsgTpgAmY7PhCfg==",
    "Content-Type": "application/json",
    "Date": "Thu, 03 Dec 2026 12:00:00 GMT",
    "x-acs-signature-method": "HMAC-SHA1",
    "x-acs-signature-version": "1.0",
    "x-acs-version": "2015-12-15",
    "x-acs-region-id": "cn-shanghai",
    "X-Acs-Security-Token": "tok+en/=",
    "x-sdk-invoke-type": "common",  # not an x-acs- header: not signed
    "User-Agent": "AlibabaCloud",
}
CASES = [
    ("GET", "/clusters/c1", {"RegionId": "cn-shanghai"}),
    ("POST", "/clusters/c1/attach", {}),
    ("GET", "/api/v1/clusters", {"name": "a b&c", "page_size": "50", "page_number": "1", "RegionId": "cn-shanghai"}),
    ("DELETE", "/clusters/c1", {"retain_all_resources": "false", "RegionId": "cn-shanghai"}),
]


@pytest.mark.parametrize("method,path,query", CASES)
def test_roa_string_to_sign_and_signature_are_the_sdks(method, path, query):
    sdk_text = composer.compose_string_to_sign(method, dict(query), path, dict(HEADERS), None)
    assert wire.roa_string_to_sign(method, path, query, HEADERS) == sdk_text
    assert wire.roa_sign(method, path, query, HEADERS, "s3cret") == sha_hmac1.get_sign_string(sdk_text, "s3cret")


def test_roa_signature_known_vector():
    # Computed once with aliyunsdkcore 2.16.1 (compose_string_to_sign + sha_hmac1.get_sign_string) for
    # CASES[0], the headers above and the secret "s3cret"; pinned so a change of either side shows.
    text = composer.compose_string_to_sign("GET", {"RegionId": "cn-shanghai"}, "/clusters/c1", dict(HEADERS), None)
    assert text == (
        "GET\napplication/json\n1B2M2Y8AsgTpgAmY7PhCfg==\napplication/json\nThu, 03 Dec 2026 12:00:00 GMT\n"
        "x-acs-region-id:cn-shanghai\nx-acs-security-token:tok+en/=\nx-acs-signature-method:HMAC-SHA1\n"
        "x-acs-signature-version:1.0\nx-acs-version:2015-12-15\n/clusters/c1?RegionId=cn-shanghai"
    )
    assert sha_hmac1.get_sign_string(text, "s3cret") == "erimOatQB931CLEq2r0SSdpeSMs="
    assert wire.roa_sign("GET", "/clusters/c1", {"RegionId": "cn-shanghai"}, HEADERS, "s3cret") == (
        "erimOatQB931CLEq2r0SSdpeSMs="
    )


def test_authorization_header_parsing():
    assert wire.roa_authorization({"Authorization": "acs LTAI1:abc=="}) == ("LTAI1", "abc==")
    assert wire.roa_authorization({"authorization": "acs LTAI1:a:b"}) == ("LTAI1:a", "b")
    assert wire.roa_authorization({"Authorization": "Bearer x"}) == ("", "")
    assert wire.roa_authorization({}) == ("", "")


def test_routes_are_the_sdk_request_classes():
    for cls in (DescribeClusterDetailRequest.DescribeClusterDetailRequest, DeleteClusterRequest.DeleteClusterRequest,
                DescribeClusterNodesRequest.DescribeClusterNodesRequest,
                DescribeClustersV1Request.DescribeClustersV1Request):  # fmt: skip
        request = cls()
        path = request.get_uri_pattern().replace("[ClusterId]", "c1")
        assert cs.route(request.get_method(), path)[0] == request.get_action_name()
    assert cs.route("PUT", "/clusters/c1") is None and cs.route("GET", "/clusters/c1/x") is None


# ---- the server ---------------------------------------------------------------------------------
def sdk(emu, secret=None, key_id=None, token=None):
    if token:
        return AcsClient(region_id="cn-shanghai", credential=StsTokenCredential(emu.access_key_id, emu.access_key_secret, token), auto_retry=False)  # fmt: skip
    return AcsClient(key_id or emu.access_key_id, secret or emu.access_key_secret, "cn-shanghai", auto_retry=False)


def send(client, emu, request):
    request.set_endpoint(emu.endpoint) if not isinstance(request, CommonRequest) else request.set_domain(emu.endpoint)
    return json.loads(client.do_action_with_exception(request) or b"{}")


def roa(method, path, body=None, action="X"):
    request = CommonRequest(version="2015-12-15", action_name=action, uri_pattern=path, product="CS")
    request.set_method(method)
    request.set_accept_format("json")
    if body is not None:
        request.set_content_type("application/json")
        request.set_content(json.dumps(body).encode())
    return request


def detail(cluster_id):
    request = DescribeClusterDetailRequest.DescribeClusterDetailRequest()
    request.set_ClusterId(cluster_id)
    return request


def sdk_error(call):
    with pytest.raises(ServerException) as err:
        call()
    return err.value


def cs_error(exc):
    """The CS service's error body (aliyunsdkcore leaves it in the message, unparsed)."""
    assert exc.get_error_code() == "SDK.UnknownServerError"
    return json.loads(exc.get_error_msg().split("ServerResponseBody: ", 1)[1])


def test_wrong_secret_is_signature_does_not_match_with_the_pop_body(emu):
    exc = sdk_error(lambda: send(sdk(emu, secret="wrong"), emu, detail("c1")))
    assert exc.get_http_status() == 400 and exc.get_error_code() == "SignatureDoesNotMatch"
    assert "server string to sign is:GET\n" in exc.get_error_msg()
    assert emu.calls[-1]["code"] == "SignatureDoesNotMatch"
    unknown = sdk_error(lambda: send(sdk(emu, key_id="LTAI-nobody"), emu, detail("c1")))
    assert (unknown.get_http_status(), unknown.get_error_code()) == (404, "InvalidAccessKeyId.NotFound")


def test_security_token_checked_when_the_credentials_are_sts():
    with CloudEmulator(access_key_id="LTAI-k", access_key_secret="s", security_token="tok") as emu:
        found = sdk_error(lambda: send(sdk(emu, token="tok"), emu, detail("c1")))
        assert found.get_http_status() == 404  # signed and authenticated: the cluster is what is missing
        wrong = sdk_error(lambda: send(sdk(emu, token="other"), emu, detail("c1")))
        assert wrong.get_error_code() == "InvalidParameter" and "SecurityToken" in wrong.get_error_msg()
        none = sdk_error(lambda: send(sdk(emu), emu, detail("c1")))
        assert none.get_error_code() == "MissingSecurityToken"


def test_unknown_cluster_is_error_cluster_not_found(emu):
    exc = sdk_error(lambda: send(sdk(emu), emu, detail("cnothere")))
    body = cs_error(exc)
    assert exc.get_http_status() == 404 and body["code"] == "ErrorClusterNotFound" and body["requestId"]


def test_unknown_route_is_invalid_action(emu, contract_findings):
    exc = sdk_error(lambda: send(sdk(emu), emu, roa("PUT", "/clusters/c1")))
    assert (exc.get_http_status(), exc.get_error_code()) == (404, "InvalidAction.NotFound")
    assert contract_findings() == ["2015-12-15 PUT /clusters/c1: no such action in the model"]


FLANNEL = {"addons": [{"name": "flannel", "config": ""}], "container_cidr": "172.20.0.0/16"}


def create(emu, client, ids, **extra):
    body = {"name": "t", "region_id": "cn-shanghai", "cluster_type": "ManagedKubernetes", "vpcid": ids["vpc"],
            "vswitch_ids": [ids["vsw"]], "tags": [{"key": "k", "value": "v"}], **FLANNEL, **extra}  # fmt: skip
    return send(
        client, emu, roa("POST", "/clusters", {k: v for k, v in body.items() if v is not None}, "CreateCluster")
    )


@pytest.mark.parametrize(
    "extra,field",
    [
        ({"addons": None}, "addons"),  # no network component at all
        ({"addons": [{"name": "csi-plugin", "config": ""}]}, "addons"),
        ({"addons": [{"name": "flannel"}, {"name": "terway-eniip"}]}, "addons"),  # two
        ({"container_cidr": None}, "container_cidr"),  # flannel without its pod CIDR
    ],
)
def test_create_needs_one_network_component_and_flannels_pod_cidr(emu, acs, extra, field):
    exc = sdk_error(lambda: create(emu, sdk(emu), network(acs, cluster=False), **extra))
    assert exc.get_http_status() == 400 and cs_error(exc)["code"] == "InvalidParameter"
    assert field in cs_error(exc)["message"]


def test_terway_needs_no_pod_cidr_and_a_client_token_returns_the_first_create(emu, acs):
    client, ids = sdk(emu), network(acs, cluster=False)
    terway = {"addons": [{"name": "terway-eniip", "config": ""}], "container_cidr": None}
    first = create(emu, client, ids, client_token="scc-t1", **terway)
    assert create(emu, client, ids, client_token="scc-t1", **terway)["cluster_id"] == first["cluster_id"]
    assert [c["cluster_id"] for c in emu.clusters()].count(first["cluster_id"]) == 1
    reused = sdk_error(lambda: create(emu, client, ids, client_token="scc-t1", name="other", **terway))
    assert cs_error(reused)["code"] == "IdempotentParameterMismatch"


def test_cluster_state_machine_initial_running_deleting_gone(emu, acs):
    client = sdk(emu)
    ids = network(acs, cluster=False)
    cluster_id = create(emu, client, ids)["cluster_id"]
    first = send(client, emu, detail(cluster_id))
    assert (
        first["state"] == "initial" and first["vpc_id"] == ids["vpc"] and first["tags"] == [{"key": "k", "value": "v"}]
    )
    time.sleep(0.35)
    assert send(client, emu, detail(cluster_id))["state"] == "running"
    listed = DescribeClustersV1Request.DescribeClustersV1Request()
    listed.add_query_param("name", "t")  # the model's wire name (the 4.8.1 class's set_Name sends "Name")
    reply = send(client, emu, listed)
    assert [c["cluster_id"] for c in reply["clusters"]] == [cluster_id] and reply["page_info"]["total_count"] == 1

    delete = DeleteClusterRequest.DeleteClusterRequest()
    delete.set_ClusterId(cluster_id)
    assert send(client, emu, delete)["cluster_id"] == cluster_id
    assert emu.calls[-1]["status"] == 202
    assert send(client, emu, detail(cluster_id))["state"] == "deleting"
    time.sleep(0.25)
    assert cs_error(sdk_error(lambda: send(client, emu, detail(cluster_id))))["code"] == "ErrorClusterNotFound"
    assert send(client, emu, listed)["clusters"] == []


def test_create_refuses_a_vswitch_of_another_vpc(emu, acs):
    ids = network(acs, cluster=False)
    other = network(acs, vswitch_cidr="10.0.2.0/24", cluster=False)
    exc = sdk_error(lambda: create(emu, sdk(emu), dict(ids, vsw=other["vsw"])))
    assert exc.get_http_status() == 400 and cs_error(exc)["code"] == "InvalidParameter"
    assert "vswitch_ids" in cs_error(exc)["message"]


def run_instance(acs, ids):
    from aliyunsdkecs.request.v20140526 import CreateSecurityGroupRequest, RunInstancesRequest

    from lab.cloud.testing import call

    sg = call(acs, CreateSecurityGroupRequest.CreateSecurityGroupRequest, VpcId=ids["vpc"])["SecurityGroupId"]
    return call(acs, RunInstancesRequest.RunInstancesRequest, InstanceType="ecs.g6.large",
                ImageId="m-1", VSwitchId=ids["vsw"], SecurityGroupId=sg)["InstanceIdSets"]["InstanceIdSet"][0]  # fmt: skip


def test_nodes_attach_list_and_remove(emu, acs):
    client = sdk(emu)
    ids = network(acs, cluster=False)
    cluster_id = create(emu, client, ids)["cluster_id"]
    instance = run_instance(acs, ids)
    attach = roa("POST", "/clusters/%s/attach" % cluster_id, {"instances": [instance], "password": "Hello1234"})
    early = sdk_error(lambda: send(client, emu, attach))
    assert early.get_http_status() == 400 and cs_error(early)["code"] == "ErrorClusterState"
    time.sleep(0.35)
    reply = send(client, emu, roa("POST", "/clusters/%s/attach" % cluster_id,
                                  {"instances": [instance], "password": "Hello1234"}))  # fmt: skip
    assert reply["list"] == [{"code": "200", "instanceId": instance, "message": "successful"}]
    nodes = DescribeClusterNodesRequest.DescribeClusterNodesRequest()
    nodes.set_ClusterId(cluster_id)
    listed = send(client, emu, nodes)["nodes"]
    assert [n["instance_id"] for n in listed] == [instance] and listed[0]["node_name"].startswith("cn-shanghai.10.0.1.")
    again = sdk_error(lambda: send(client, emu, roa("POST", "/clusters/%s/attach" % cluster_id,
                                                    {"instances": [instance], "password": "Hello1234"})))  # fmt: skip
    assert "already a node" in cs_error(again)["message"]
    body = {"nodes": [listed[0]["node_name"]], "release_node": False}
    send(client, emu, roa("POST", "/clusters/%s/nodes" % cluster_id, body))
    assert send(client, emu, nodes)["nodes"] == [] and instance in emu.store.instances


def test_attach_refuses_an_instance_of_another_vpc(emu, acs):
    client = sdk(emu)
    ids = network(acs, cluster=False)
    other = network(acs, vswitch_cidr="10.0.1.0/24", cluster=False)
    cluster_id = create(emu, client, ids)["cluster_id"]
    stranger = run_instance(acs, other)
    time.sleep(0.35)
    exc = sdk_error(lambda: send(client, emu, roa("POST", "/clusters/%s/attach" % cluster_id,
                                                  {"instances": [stranger], "password": "Hello1234"})))  # fmt: skip
    assert cs_error(exc)["code"] == "InvalidParameter" and "not in the VPC of the cluster" in cs_error(exc)["message"]


def test_a_cluster_holds_its_vswitch_until_deleted(emu, acs):
    from aliyunsdkecs.request.v20140526 import DeleteVSwitchRequest

    from lab.cloud.testing import call

    client = sdk(emu)
    ids = network(acs, cluster=False)
    cluster_id = create(emu, client, ids)["cluster_id"]
    with pytest.raises(ServerException) as held:
        call(acs, DeleteVSwitchRequest.DeleteVSwitchRequest, VSwitchId=ids["vsw"])
    assert held.value.get_error_code() == "DependencyViolation"
    delete = DeleteClusterRequest.DeleteClusterRequest()
    delete.set_ClusterId(cluster_id)
    send(client, emu, delete)
    time.sleep(0.25)
    call(acs, DeleteVSwitchRequest.DeleteVSwitchRequest, VSwitchId=ids["vsw"])
    assert emu.vswitches() == []
