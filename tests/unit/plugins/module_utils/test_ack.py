"""The ACK modules' pure decisions (plugins/module_utils/ack.py) and the ROA side of the client
factory (_alicloud.py: the CS routes, request building, error bodies, retries), without a server."""

import json

import pytest
from aliyunsdkcore.acs_exception.exceptions import ServerException
from aliyunsdkcore.http import protocol_type
from aliyunsdkcs.request.v20151215 import (
    AttachInstancesRequest,
    CreateClusterRequest,
    DeleteClusterNodesRequest,
    DeleteClusterRequest,
    DescribeClusterDetailRequest,
    DescribeClusterNodesRequest,
    DescribeClustersV1Request,
)

from ansible_collections.scc.training.plugins.module_utils import _alicloud as ali
from ansible_collections.scc.training.plugins.module_utils import ack
from tests.unit.plugins.cloud_secrets import KEY_ID, KEY_SECRET, secret_leaks

SDK_CLASSES = {
    "CreateCluster": CreateClusterRequest.CreateClusterRequest,
    "DescribeClustersV1": DescribeClustersV1Request.DescribeClustersV1Request,
    "DescribeClusterDetail": DescribeClusterDetailRequest.DescribeClusterDetailRequest,
    "DeleteCluster": DeleteClusterRequest.DeleteClusterRequest,
    "AttachInstances": AttachInstancesRequest.AttachInstancesRequest,
    "DescribeClusterNodes": DescribeClusterNodesRequest.DescribeClusterNodesRequest,
    "DeleteClusterNodes": DeleteClusterNodesRequest.DeleteClusterNodesRequest,
}


@pytest.mark.parametrize("action", sorted(ali.CS_ROUTES))
def test_cs_routes_are_the_sdk_request_classes(action):
    request = SDK_CLASSES[action]()
    assert ali.CS_ROUTES[action] == (request.get_method(), request.get_uri_pattern())
    assert (request.get_product(), request.get_version(), request.get_action_name()) == ("CS", "2015-12-15", action)


def test_cs_path_fills_and_encodes_path_parameters():
    assert ali.cs_path("DescribeClusterNodes", ClusterId="c123") == ("GET", "/clusters/c123/nodes")
    assert ali.cs_path("DeleteCluster", ClusterId="c1/../x") == ("DELETE", "/clusters/c1%2F..%2Fx")
    with pytest.raises(KeyError):
        ali.cs_path("AttachInstances")


def api(cs_endpoint=None, **kwargs):
    return ali.AlicloudApi(KEY_ID, KEY_SECRET, "cn-shanghai", cs_endpoint=cs_endpoint, sleep=lambda s: None, **kwargs)


def test_roa_request_is_json_over_https_to_the_regional_endpoint():
    request = api()._roa_request("AttachInstances", "POST", "/clusters/c1/attach", {"b": True, "n": None}, {"x": [1]})
    request.trans_to_acs_request()
    assert request.get_domain() == "cs.cn-shanghai.aliyuncs.com"
    assert request.get_protocol_type() is protocol_type.HTTPS
    assert request.get_style() == "ROA" and request.get_method() == "POST"
    assert request.get_uri_pattern() == "/clusters/c1/attach"
    assert request.get_query_params() == {"b": "true"}
    assert request.get_headers()["Content-Type"] == "application/json"
    assert json.loads(request.get_content()) == {"x": [1]}


def test_roa_request_plain_http_only_to_loopback():
    request = api("127.0.0.1:8080")._roa_request("DescribeClustersV1", "GET", "/api/v1/clusters")
    assert request.get_protocol_type() is protocol_type.HTTP and request.get_content() is None
    with pytest.raises(ali.AlicloudApiError) as err:
        api("http://cs.example.com")
    assert err.value.code == "InsecureEndpoint" and "cs_endpoint" in err.value.message


def test_roa_error_reads_the_cs_body_the_sdk_leaves_unparsed():
    body = {"code": "ErrorClusterNotFound", "message": "cluster c1 not found", "requestId": "R-1", "status": 404}
    text = "ServerResponseBody: " + json.dumps(body)
    assert ali.roa_error("SDK.UnknownServerError", text, None) == (
        "ErrorClusterNotFound",
        "cluster c1 not found",
        "R-1",
    )
    # RPC errors, and bodies that are not the CS form, pass through as they are
    assert ali.roa_error("Throttling", "slow down", "R-2") == ("Throttling", "slow down", "R-2")
    assert ali.roa_error("SDK.UnknownServerError", "ServerResponseBody: <html>", None)[0] == "SDK.UnknownServerError"
    assert ali.roa_error("SDK.UnknownServerError", 'ServerResponseBody: {"a": 1}', None)[0] == "SDK.UnknownServerError"


class _Client:
    def __init__(self, script):
        self.script, self.requests = list(script), []

    def do_action_with_exception(self, request):
        self.requests.append(request)
        step = self.script.pop(0)
        if isinstance(step, Exception):
            raise step
        return json.dumps(step).encode()


def test_call_roa_retries_throttling_and_masks_credentials():
    client = api()
    client._client = _Client(
        [
            ServerException("Throttling.User", "Request was denied due to user flow control.", 400, "R-1"),
            ServerException(
                "SDK.UnknownServerError",
                "ServerResponseBody: "
                + json.dumps({"code": "InternalError", "message": "boom for " + KEY_SECRET, "requestId": "R-2"}),
                500,
            ),
            {"cluster_id": "c1"},
        ]
    )
    assert ali.cs_call(client, "DescribeClusterDetail", ClusterId="c1") == {"cluster_id": "c1"}
    assert len(client._client.requests) == 3 and client.calls[-1] == ("DescribeClusterDetail", 3)

    client._client = _Client(
        [ServerException("SDK.UnknownServerError", "ServerResponseBody: " + json.dumps(
            {"code": "ErrorClusterState", "message": "not running, key " + KEY_SECRET, "requestId": "R-3"}), 400)]
    )  # fmt: skip
    with pytest.raises(ali.AlicloudApiError) as err:
        ali.cs_call(client, "AttachInstances", body={"instances": ["i-1"]}, ClusterId="c1")
    assert (err.value.code, err.value.http_status, err.value.request_id) == ("ErrorClusterState", 400, "R-3")
    assert len(client._client.requests) == 1 and secret_leaks(str(err.value.to_result())) == []


def test_cs_cluster_reads_not_found_as_gone():
    client = api()
    client._client = _Client([ServerException("SDK.UnknownServerError", "ServerResponseBody: " + json.dumps(
        {"code": "ErrorClusterNotFound", "message": "no", "requestId": "R"}), 404), {"state": "deleted"},
        {"state": "running", "cluster_id": "c1"}])  # fmt: skip
    assert ali.cs_cluster(client, "c1") is None
    assert ali.cs_cluster(client, "c1") is None
    assert ali.cs_cluster(client, "c1")["state"] == "running"


def test_listings_read_every_page():
    client = api()
    client._client = _Client([
        {"clusters": [{"cluster_id": "c%d" % i} for i in range(50)], "page_info": {"total_count": 51}},
        {"clusters": [{"cluster_id": "c50"}], "page_info": {"total_count": 51}},
        {"nodes": [{"instance_id": "i-1"}], "page": {"total_count": 1}},
    ])  # fmt: skip
    assert len(ali.cs_clusters(client, "x")) == 51
    assert [r.get_query_params()["page_number"] for r in client._client.requests] == ["1", "2"]
    assert ali.cs_cluster_nodes(client, "c1", "np1") == [{"instance_id": "i-1"}]
    assert client._client.requests[-1].get_query_params()["nodepool_id"] == "np1"


# ---- ack.py -------------------------------------------------------------------------------------
PARAMS = dict(
    name="scc-ack", tags={"b": "2", "a": 1}, vpc_id="vpc-1", vswitch_ids=["vsw-1"], cluster_spec="ack.pro.small",
    service_cidr="172.21.0.0/20", pod_cidr="172.20.0.0/16", network_plugin="flannel", addons=[], snat_entry=False,
    endpoint_public_access=False,
    deletion_protection=False, kubernetes_version=None, state="present", cluster_id=None,
)  # fmt: skip


def test_cluster_body_is_the_create_cluster_request():
    body = ack.cluster_body(PARAMS, "cn-shanghai")
    assert body == {
        "name": "scc-ack", "region_id": "cn-shanghai", "cluster_type": "ManagedKubernetes",
        "cluster_spec": "ack.pro.small", "vpcid": "vpc-1", "vswitch_ids": ["vsw-1"], "service_cidr": "172.21.0.0/20",
        "container_cidr": "172.20.0.0/16", "addons": [{"name": "flannel", "config": ""}], "snat_entry": False,
        "endpoint_public_access": False, "deletion_protection": False,
        "tags": [{"key": "a", "value": "1"}, {"key": "b", "value": "2"}],
    }  # fmt: skip
    view = ack.cluster_view(dict(body, state=None))
    assert view["vpc_id"] == "vpc-1" and view["tags"] == {"a": "1", "b": "2"} and view["vswitch_ids"] == ["vsw-1"]


def test_terway_sends_its_add_on_no_pod_cidr_and_the_users_add_ons_after_it():
    body = ack.cluster_body(
        dict(PARAMS, network_plugin="terway-eniip", addons=[{"name": "csi-plugin", "config": None, "disabled": False}]),
        "cn-shanghai",
    )
    assert "container_cidr" not in body
    assert body["addons"] == [{"name": "terway-eniip", "config": ""}, {"name": "csi-plugin", "disabled": False}]


@pytest.mark.parametrize(
    "change,words",
    [
        (dict(pod_cidr=None), "pod_cidr is required with network_plugin=flannel"),
        (dict(pod_cidr="8.8.0.0/16"), "pod_cidr (8.8.0.0/16) must lie in 10.0.0.0/8"),
        (dict(pod_cidr="172.20.0.1/16"), "pod_cidr ('172.20.0.1/16') must be an IPv4 network"),
        (dict(pod_cidr="172.0.0.0/11"), "pod_cidr (172.0.0.0/11) must lie in"),
        (dict(pod_cidr="172.21.0.0/16"), "pod_cidr (172.21.0.0/16) overlaps service_cidr"),
        (dict(service_cidr="10.0.0.0/12"), "service_cidr (10.0.0.0/12) must have a prefix length from /16 to /24"),
        (dict(service_cidr="10.0.0.0/25"), "service_cidr (10.0.0.0/25) must have a prefix length"),
        (dict(network_plugin="calico"), "network_plugin ('calico') must be one of flannel, terway-eniip"),
        (dict(addons=[{"name": "flannel"}]), "addons[0] (flannel): the network add-on comes from network_plugin"),
        (dict(addons=[{"config": "x"}]), "addons[0] needs a name"),
    ],
)
def test_validate_cluster_judges_the_network_naming_the_option(change, words):
    errors = ack.validate_cluster(dict(PARAMS, **change))
    assert errors == [errors[0]] and words in errors[0], errors


def test_terway_needs_no_pod_cidr():
    assert ack.validate_cluster(dict(PARAMS, network_plugin="terway-eniip", pod_cidr=None)) == []


def test_cluster_matches_name_exactly_and_every_tag():
    cluster = {"name": "scc-ack", "tags": [{"key": "a", "value": "1"}, {"key": "x", "value": "y"}]}
    assert ack.cluster_matches(cluster, "scc-ack", {"a": 1})
    assert not ack.cluster_matches(cluster, "scc-ack-2", {"a": "1"})
    assert not ack.cluster_matches(cluster, "scc-ack", {"a": "2"})
    assert not ack.cluster_matches(cluster, "scc-ack", {"b": "1"})
    assert ack.vswitch_ids_of({"vswitch_id": "vsw-1,vsw-2"}) == ["vsw-1", "vsw-2"]
    assert ack.cluster_view(None) == {}


@pytest.mark.parametrize(
    "change,option",
    [
        (dict(name="-x"), "name"),
        (dict(name="x" * 64), "name"),
        (dict(vpc_id=None), "vpc_id"),
        (dict(vswitch_ids=[]), "vswitch_ids"),
        (dict(vswitch_ids=["subnet-1"]), "vswitch_ids"),
        (dict(state="absent", tags={}), "tags or cluster_id"),
    ],
)
def test_validate_cluster_names_the_option(change, option):
    errors = ack.validate_cluster(dict(PARAMS, **change))
    assert len(errors) == 1 and option in errors[0]


def test_validate_cluster_accepts_good_input_and_absent_by_id():
    assert ack.validate_cluster(PARAMS) == []
    assert ack.validate_cluster(dict(PARAMS, state="absent", tags={}, cluster_id="c1")) == []


def test_vpc_problems_name_instance_ids():
    instances = [{"InstanceId": "i-in", "VpcAttributes": {"VpcId": "vpc-1"}},
                 {"InstanceId": "i-out", "VpcAttributes": {"VpcId": "vpc-2"}}]  # fmt: skip
    assert ack.vpc_problems(instances, ["i-in"], "vpc-1") == []
    problems = ack.vpc_problems(instances, ["i-in", "i-out", "i-none"], "vpc-1")
    assert problems == [
        "instance_ids: i-out is in VPC vpc-2, not in the cluster's VPC vpc-1; an ECS instance joins only a cluster"
        " of its own VPC",
        "instance_ids: i-none is not an ECS instance of this region",
    ]


def test_node_plan_adds_only_the_missing_and_removes_only_the_present():
    nodes = [{"instance_id": "i-a", "node_name": "cn-shanghai.10.0.0.1", "state": "running"}]
    assert ack.node_plan(["i-a", "i-b"], nodes, "present") == (["i-b"], [])
    assert ack.node_plan(["i-a"], nodes, "present") == ([], [])
    assert ack.node_plan(["i-a", "i-b"], nodes, "absent") == ([], ["cn-shanghai.10.0.0.1"])
    assert ack.node_plan(["i-b"], nodes, "absent") == ([], [])
    assert ack.nodes_ready(nodes, ["i-a"]) and not ack.nodes_ready(nodes, ["i-a", "i-b"])
    assert not ack.nodes_ready([dict(nodes[0], state="initial")], ["i-a"])
    assert ack.nodes_gone(nodes, ["i-b"]) and not ack.nodes_gone(nodes, ["i-a"])


@pytest.mark.parametrize(
    "change,option",
    [
        (dict(cluster_id="x1"), "cluster_id"),
        (dict(instance_ids=[]), "instance_ids"),
        (dict(instance_ids=["i-ab", "i-ab"]), "twice"),
        (dict(password=None), "password or key_pair"),
        (dict(nodepool_id="np1", key_pair="k", password=None), "key_pair cannot"),
    ],
)
def test_validate_nodes_names_the_option(change, option):
    good = dict(cluster_id="c1a", instance_ids=["i-ab"], state="present", password="p", key_pair=None, nodepool_id=None)
    assert ack.validate_nodes(good) == []
    errors = ack.validate_nodes(dict(good, **change))
    assert len(errors) == 1 and option in errors[0], errors


ACK_SETTINGS = {
    "scc_cloud_ack_enabled": True,
    "scc_cloud_ack_cluster_spec": "ack.pro.small",
    "scc_cloud_ack_kubernetes_version": "",
    "scc_cloud_ack_service_cidr": "172.21.0.0/20",
    "scc_cloud_ack_network_plugin": "flannel",
    "scc_cloud_ack_pod_cidr": "172.20.0.0/16",
    "scc_cloud_ack_node_password": "pw",
    "scc_cloud_vpc_cidr": "192.168.0.0/16",
    "scc_cloud_key_pair_name": "",
}


@pytest.mark.parametrize(
    "change,variable",
    [
        (dict(scc_cloud_ack_enabled="maybe"), "scc_cloud_ack_enabled"),
        (dict(scc_cloud_ack_kubernetes_version="1.32"), "scc_cloud_ack_kubernetes_version"),
        (dict(scc_cloud_ack_service_cidr="192.168.16.0/20"), "overlaps scc_cloud_vpc_cidr"),
        (dict(scc_cloud_ack_service_cidr="172.21.0.1/20"), "scc_cloud_ack_service_cidr"),
        (dict(scc_cloud_ack_node_password=""), "scc_cloud_ack_node_password"),
        (
            dict(scc_cloud_ack_pod_cidr=""),
            "scc_cloud_ack_pod_cidr is required with scc_cloud_ack_network_plugin=flannel",
        ),
        (
            dict(scc_cloud_ack_pod_cidr="192.168.128.0/17"),
            "scc_cloud_ack_pod_cidr (192.168.128.0/17) overlaps scc_cloud_vpc_cidr",
        ),
        (
            dict(scc_cloud_ack_pod_cidr="172.21.0.0/16"),
            "scc_cloud_ack_pod_cidr (172.21.0.0/16) overlaps scc_cloud_ack_service_cidr",
        ),
        (dict(scc_cloud_ack_network_plugin="weave"), "scc_cloud_ack_network_plugin ('weave') must be one of"),
    ],
)
def test_ack_input_problems_name_the_variable(change, variable):
    problems = ack.ack_input_problems(dict(ACK_SETTINGS, **change))
    assert len(problems) == 1 and variable in problems[0], problems


def test_ack_input_problems_accept_good_input_and_nothing_when_disabled():
    assert ack.ack_input_problems(ACK_SETTINGS) == []
    assert ack.ack_input_problems(dict(ACK_SETTINGS, scc_cloud_ack_enabled="True")) == []
    assert ack.ack_input_problems(dict(ACK_SETTINGS, scc_cloud_ack_node_password="", scc_cloud_key_pair_name="k")) == []
    assert ack.ack_input_problems({"scc_cloud_ack_enabled": False, "scc_cloud_ack_cluster_spec": "bad"}) == []
    assert ack.ack_input_problems({"scc_cloud_ack_enabled": "false"}) == []
    # Terway: pods take VPC addresses, so no pod CIDR is needed or judged.
    terway = dict(ACK_SETTINGS, scc_cloud_ack_network_plugin="terway-eniip", scc_cloud_ack_pod_cidr="192.168.0.0/16")
    assert ack.ack_input_problems(terway) == []


# --- make mutation's survivors of ack (issue 36.8): each test below fails on one or more of them ---


@pytest.mark.parametrize(
    ("pod_cidr", "service_cidr"),
    [("10.0.0.0/8", "172.21.0.0/20"), ("172.16.0.0/12", "10.96.0.0/16"), ("192.168.0.0/16", "10.96.0.0/24")],
)
def test_a_pod_block_as_wide_as_its_private_range_is_accepted(pod_cidr, service_cidr):
    assert ack.validate_cluster(dict(PARAMS, pod_cidr=pod_cidr, service_cidr=service_cidr)) == []


@pytest.mark.parametrize(
    ("change", "problems"),
    [
        # The service block's widest and narrowest prefixes still meet the overlap check.
        (dict(service_cidr="172.20.0.0/24"), ["pod_cidr (172.20.0.0/16) overlaps service_cidr (172.20.0.0/24)"]),
        (dict(service_cidr="172.20.0.0/16"), ["pod_cidr (172.20.0.0/16) overlaps service_cidr (172.20.0.0/16)"]),
        # A service block refused for its prefix is not judged again for an overlap.
        (
            dict(service_cidr="172.20.0.0/25"),
            ["service_cidr (172.20.0.0/25) must have a prefix length from /16 to /24 (CreateCluster)"],
        ),
        (
            dict(service_cidr="172.20.0.0/15"),
            ["service_cidr (172.20.0.0/15) must have a prefix length from /16 to /24 (CreateCluster)"],
        ),
        (
            dict(service_cidr="fd00::/112"),
            ["service_cidr ('fd00::/112') must be an IPv4 network in CIDR form, e.g. 172.20.0.0/16"],
        ),
        (
            dict(pod_cidr="fd00::/64"),
            ["pod_cidr ('fd00::/64') must be an IPv4 network in CIDR form, e.g. 172.20.0.0/16"],
        ),
    ],
)
def test_the_service_block_is_judged_once(change, problems):
    assert ack.validate_cluster(dict(PARAMS, **change)) == problems


def test_cluster_tags_views_and_names_read_only_what_is_there():
    assert ack.tags_from_cs([{"value": "v"}, "junk", {"key": "a"}, {"key": "b", "value": "2"}]) == {"a": "", "b": "2"}
    # A name that sorts after the wanted one is not it.
    assert not ack.cluster_matches({"name": "scc-ack-2", "tags": []}, "scc-ack", {})
    assert ack.cluster_view({"cluster_id": "c1", "kubernetes_version": "1.32.1-aliyun.1"})["kubernetes_version"] == (
        "1.32.1-aliyun.1"
    )
    node = {"instance_id": "i-a", "ip_address": ["10.0.0.1"], "state": "running"}
    assert ack.node_view(node)["ip_address"] == ["10.0.0.1"] and ack.node_view({})["ip_address"] == []
    # A flannel cluster whose network_plugin came as null still sends its pod block, as its add-on is flannel.
    body = ack.cluster_body(dict(PARAMS, network_plugin=None), "cn-shanghai")
    assert body["container_cidr"] == "172.20.0.0/16" and body["addons"][0]["name"] == "flannel"


def test_vpc_problems_go_on_after_a_missing_instance_and_compare_vpcs_exactly():
    instances = [{"InstanceId": "i-low", "VpcAttributes": {"VpcId": "vpc-0"}}]
    problems = ack.vpc_problems(instances, ["i-none", "i-low"], "vpc-1")
    assert len(problems) == 2 and "i-none is not" in problems[0] and "i-low is in VPC vpc-0" in problems[1]


def test_validate_nodes_by_node_pool_and_removal_need_no_login():
    good = dict(cluster_id="c1a", instance_ids=["i-ab"], state="present", password=None, key_pair=None)
    assert ack.validate_nodes(dict(good, nodepool_id="np1")) == []
    assert ack.validate_nodes(dict(good, state="absent", nodepool_id=None)) == []


def test_ack_input_problems_judge_when_enabled_by_a_string_and_each_block_on_its_own():
    assert (
        ack.ack_input_problems(dict(ACK_SETTINGS, scc_cloud_ack_enabled="true", scc_cloud_ack_node_password="")) != []
    )
    # Terway: the service block is still judged against the VPC's block; only the pod block is not.
    terway = dict(
        ACK_SETTINGS, scc_cloud_ack_network_plugin="terway-eniip", scc_cloud_ack_service_cidr="192.168.16.0/20"
    )
    assert ack.ack_input_problems(terway) == [
        "scc_cloud_ack_service_cidr (192.168.16.0/20) overlaps scc_cloud_vpc_cidr (192.168.0.0/16)."
    ]
    # A service block refused for its form leaves the pod block still judged against the VPC's.
    both = dict(ACK_SETTINGS, scc_cloud_ack_service_cidr="x", scc_cloud_ack_pod_cidr="192.168.128.0/17")
    problems = ack.ack_input_problems(both)
    assert len(problems) == 2 and "scc_cloud_ack_pod_cidr (192.168.128.0/17) overlaps scc_cloud_vpc_cidr" in problems[1]
    # A service block refused for its prefix is not also reported as overlapping the VPC.
    wide = dict(ACK_SETTINGS, scc_cloud_vpc_cidr="172.16.0.0/12", scc_cloud_ack_service_cidr="172.21.0.0/25")
    wide["scc_cloud_ack_pod_cidr"] = "10.0.0.0/16"
    assert ack.ack_input_problems(wide) == [
        "scc_cloud_ack_service_cidr (172.21.0.0/25) must have a prefix length from /16 to /24 (CreateCluster)"
    ]
    # No VPC block given, or one of another IP version: nothing to compare, and no error.
    assert ack.ack_input_problems(dict(ACK_SETTINGS, scc_cloud_vpc_cidr="")) == []
    assert ack.ack_input_problems(dict(ACK_SETTINGS, scc_cloud_vpc_cidr="fd00::/48")) == []


def test_ack_input_problems_judge_the_pod_block_of_an_unknown_or_unset_plugin_as_flannels():
    weave = dict(ACK_SETTINGS, scc_cloud_ack_network_plugin="weave", scc_cloud_ack_pod_cidr="192.168.128.0/17")
    problems = ack.ack_input_problems(weave)
    assert (
        len(problems) == 2
        and "('weave') must be one of" in problems[0]
        and "overlaps scc_cloud_vpc_cidr" in problems[1]
    )
    assert ack.ack_input_problems(dict(ACK_SETTINGS, scc_cloud_ack_network_plugin=None)) == []
