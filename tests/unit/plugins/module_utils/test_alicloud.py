"""Pure logic of the client factory (ClientToken derivation, retry classification, backoff, params)
and of the one look-up helper (find_all, find_one, the views), against a scripted SDK client."""

import json
from urllib.parse import quote

import pytest

from ansible_collections.scc.training.plugins.module_utils import _alicloud as ali
from tests.unit.plugins.cloud_secrets import KEY_ID, KEY_SECRET, STS_TOKEN, closed_loopback_port, secret_leaks


def test_client_token_is_derived_from_the_request_only():
    params = {"InstanceType": "ecs.sccgn6.24xlarge", "Amount": 2, "Tag": {"a": "1"}}
    token = ali.client_token("RunInstances", params)
    # the same request gives the same token, whatever the dict order and volatile fields
    again = ali.client_token(
        "RunInstances",
        {"Tag": {"a": "1"}, "Amount": 2, "InstanceType": "ecs.sccgn6.24xlarge", "ClientToken": "old", "DryRun": True},
    )
    assert token == again
    assert token.startswith("scc-") and len(token) == ali.CLIENT_TOKEN_LENGTH and token.isascii()
    # any change of the request, the action or the generation gives another token
    assert ali.client_token("RunInstances", dict(params, Amount=3)) != token
    assert ali.client_token("CreateInstance", params) != token
    assert ali.client_token("RunInstances", params, generation=1) != token


def test_client_token_tells_two_creates_of_one_request_apart_by_their_basis():
    # ecs_instance growing 1 -> 2 sends the request that made the first instance: the IDs already there differ.
    params = {"InstanceType": "ecs.g6.large", "Amount": 1}
    first = ali.client_token("RunInstances", params, basis=[])
    grow = ali.client_token("RunInstances", params, basis=["i-1"])
    assert first != grow and len(grow) == ali.CLIENT_TOKEN_LENGTH and grow.isascii()
    assert ali.client_token("RunInstances", dict(params), basis=["i-1"]) == grow  # a retry of the same step
    assert ali.client_token("RunInstances", params, 1, ["i-1"]) not in (
        grow,
        ali.client_token("RunInstances", params, 1),
    )
    # Without a basis, the token is the request's alone, as before.
    assert ali.client_token("RunInstances", params, basis=None) == ali.client_token("RunInstances", params)


@pytest.mark.parametrize(
    "code,status,expected",
    [
        ("Throttling", 400, True),
        ("Throttling.User", 400, True),
        ("Throttling.Api", 429, True),
        ("ServiceUnavailable", 503, True),
        ("InternalError", 500, True),
        ("SDK.HttpError", None, True),
        ("SDK.UnknownServerError", 502, True),  # a proxy's non-JSON 502
        ("InvalidParameter", 400, False),
        ("IdempotentParameterMismatch", 403, False),
        ("OperationDenied.NoStock", 403, False),
        ("Forbidden.RAM", 403, False),
        ("SignatureDoesNotMatch", 400, False),
        ("InvalidAccessKeySecret", 400, False),
    ],
)
def test_retry_classification(code, status, expected):
    assert ali.is_retryable(code, status) is expected


def test_backoff_is_jittered_exponential_and_capped():
    assert ali.backoff_delay(0, rand=lambda: 1.0) == 0.5
    assert ali.backoff_delay(3, rand=lambda: 1.0) == 4.0
    assert ali.backoff_delay(30, rand=lambda: 1.0) == 20.0
    assert ali.backoff_delay(3, rand=lambda: 0.25) == 1.0
    assert ali.backoff_delay(3, rand=lambda: 0.0) == 0.0


def test_flatten_params_rpc_form():
    flat = ali.flatten_params(
        {"Tag": {"b": "2", "a": "1"}, "InstanceId": ["i-1", "i-2"], "Force": True, "Skip": None, "Amount": 2}
    )
    assert flat == {
        "Tag.1.Key": "a",
        "Tag.1.Value": "1",
        "Tag.2.Key": "b",
        "Tag.2.Value": "2",
        "InstanceId.1": "i-1",
        "InstanceId.2": "i-2",
        "Force": "true",
        "Amount": 2,
    }


def test_tags_from_api_both_shapes():
    assert ali.tags_from_api({"Tag": [{"TagKey": "a", "TagValue": "1"}]}) == {"a": "1"}
    assert ali.tags_from_api({"Tag": [{"Key": "a", "Value": "1"}]}, "Key", "Value") == {"a": "1"}
    assert ali.tags_from_api(None) == {}


class _FakeSdkClient:
    """Stands in for AcsClient.do_action_with_exception: replays a script of replies/errors."""

    def __init__(self, script):
        self.script = list(script)
        self.requests = []

    def do_action_with_exception(self, request):
        self.requests.append(dict(request.get_query_params()))
        item = self.script.pop(0)
        if isinstance(item, Exception):
            raise item
        return item


def _api(script, retries=3):
    """An AlicloudApi replaying ``script``, and the pauses it took (its clock is their sum)."""
    sleeps = []
    api = ali.AlicloudApi(
        "AKID",
        "SECRET",
        "cn-shanghai",
        ecs_endpoint="127.0.0.1:1",
        api_retries=retries,
        sleep=sleeps.append,
        clock=lambda: sum(sleeps),
    )
    api._client = _FakeSdkClient(script)
    return api, sleeps


def test_call_retries_transient_errors_with_the_same_client_token():
    from aliyunsdkcore.acs_exception.exceptions import ClientException, ServerException

    api, sleeps = _api(
        [
            ServerException("Throttling", "Request was denied due to request throttling.", 400, "R-1"),
            ClientException("SDK.HttpError", "connection reset"),
            b'{"RequestId": "R-3", "VpcId": "vpc-1"}',
        ]
    )
    reply = api.call("ecs", "CreateVpc", {"CidrBlock": "192.168.0.0/16"}, client_token_generation=0)
    assert reply["VpcId"] == "vpc-1"
    tokens = {r["ClientToken"] for r in api._client.requests}
    assert len(api._client.requests) == 3 and len(tokens) == 1
    assert len(sleeps) == 2


def test_call_fails_at_once_on_a_permanent_error_and_gives_up_after_the_bound():
    from aliyunsdkcore.acs_exception.exceptions import ServerException

    api, sleeps = _api([ServerException("InvalidParameter", "bad", 400, "R-9")])
    with pytest.raises(ali.AlicloudApiError) as err:
        api.call("ecs", "DescribeVpcs", {})
    assert (err.value.code, err.value.request_id, err.value.attempts) == ("InvalidParameter", "R-9", 1)
    assert sleeps == []

    api, sleeps = _api([ServerException("ServiceUnavailable", "down", 503, "R-%d" % i) for i in range(3)], retries=2)
    with pytest.raises(ali.AlicloudApiError) as err:
        api.call("ecs", "DescribeVpcs", {})
    assert err.value.attempts == 3 and len(sleeps) == 2


def test_create_moves_to_the_next_token_when_the_old_result_is_gone():
    api = _api([b'{"VpcId": "vpc-deleted"}', b'{"VpcId": "vpc-new"}'])[0]
    vpc_id, _reply = api.create("ecs", "CreateVpc", {"CidrBlock": "10.0.0.0/8"}, "VpcId", lambda i: i == "vpc-new")
    assert vpc_id == "vpc-new"
    first, second = (r["ClientToken"] for r in api._client.requests)
    assert first == ali.client_token("CreateVpc", {"CidrBlock": "10.0.0.0/8"}, 0)
    assert second == ali.client_token("CreateVpc", {"CidrBlock": "10.0.0.0/8"}, 1)


def test_create_keeps_one_token_while_the_new_resource_is_not_listed_yet():
    api, sleeps = _api([b'{"VpcId": "vpc-1"}'])
    answers = iter([False, False, True])  # Describe* lags the create twice
    vpc_id, _reply = api.create("ecs", "CreateVpc", {"CidrBlock": "10.0.0.0/8"}, "VpcId", lambda i: next(answers))
    assert vpc_id == "vpc-1" and len(api._client.requests) == 1  # one CreateVpc, no second token
    assert sleeps == [0.1, 0.2]


def test_create_moves_on_only_once_the_listing_timeout_passed():
    api, sleeps = _api([b'{"VpcId": "vpc-deleted"}', b'{"VpcId": "vpc-new"}'])
    api.create("ecs", "CreateVpc", {"CidrBlock": "10.0.0.0/8"}, "VpcId", lambda i: i == "vpc-new")
    assert sum(sleeps) >= ali.LISTING_TIMEOUT and max(sleeps) == 5.0


def test_a_create_without_token_is_not_repeated_when_the_lost_reply_did_create():
    from aliyunsdkcore.acs_exception.exceptions import ClientException

    api = _api([ClientException("SDK.HttpError", "connection reset"), b'{"MountTargetDomain": "second"}'])[0]
    reply = api.call("nas", "CreateMountTarget", {"FileSystemId": "cpfs-1"}, before_retry=lambda e: {"X": "first"})
    assert reply == {"X": "first"} and len(api._client.requests) == 1
    assert "ClientToken" not in api._client.requests[0]

    api = _api([ClientException("SDK.HttpError", "connection reset"), b'{"MountTargetDomain": "made"}'])[0]
    assert api.call("nas", "CreateMountTarget", {}, before_retry=lambda e: None) == {"MountTargetDomain": "made"}


def test_only_a_failure_that_may_have_taken_effect_is_looked_for():
    # No reply (connection dropped) or a 5xx may have created it; a 4xx (throttling) never did.
    assert ali.may_have_applied(None) and ali.may_have_applied(500) and ali.may_have_applied(503)
    assert not ali.may_have_applied(400) and not ali.may_have_applied(403)


@pytest.mark.parametrize(
    "action,code,expected",
    [
        ("DeleteVpc", "DependencyViolation", True),
        ("DeleteVpc", "DependencyViolation.VSwitch", True),
        ("DeleteSecurityGroup", "DependencyViolation", True),
        ("DeleteFileSystem", "OperationDenied.DependencyViolation", True),
        ("DeleteVpc", "DependencyViolationX", False),  # a prefix only up to a dot
        ("DeleteVpc", "InvalidVpcId.NotFound", False),
        ("CreateVpc", "DependencyViolation", False),  # only the deletes in the table
    ],
)
def test_dependency_errors_are_those_of_the_table(action, code, expected):
    assert ali.is_dependency_error(action, code) is expected


def test_a_delete_retries_a_dependency_error_until_it_goes_and_then_until_the_deadline():
    from aliyunsdkcore.acs_exception.exceptions import ServerException

    def busy(i):
        return ServerException("DependencyViolation", "There is still instance(s)", 403, "R-%d" % i)

    api, sleeps = _api([busy(1), busy(2), b'{"RequestId": "R-3"}'])
    assert api.delete("ecs", "DeleteSecurityGroup", {"SecurityGroupId": "sg-1"}) == {"RequestId": "R-3"}
    assert len(api._client.requests) == 3 and len(sleeps) == 2 and all(s >= 0.5 for s in sleeps)

    api, sleeps = _api([busy(i) for i in range(200)])
    api._dependency_timeout = 30
    with pytest.raises(ali.AlicloudApiError) as err:
        api.delete("ecs", "DeleteSecurityGroup", {"SecurityGroupId": "sg-1"})
    assert err.value.code == "DependencyViolation" and 30 <= sum(sleeps) <= 31

    # any other error fails at once
    api, sleeps = _api([ServerException("Forbidden.RAM", "no", 403, "R-1")])
    with pytest.raises(ali.AlicloudApiError):
        api.delete("ecs", "DeleteSecurityGroup", {"SecurityGroupId": "sg-1"})
    assert sleeps == []


def test_missing_credentials_and_region_are_named():
    with pytest.raises(ali.AlicloudApiError, match="access_key"):
        ali.AlicloudApi(None, None, "cn-shanghai")
    with pytest.raises(ali.AlicloudApiError, match="region"):
        ali.AlicloudApi("a", "b", None)


def test_paginate_token_follows_next_token_and_reads_both_list_shapes():
    api = _api(
        [
            b'{"NextToken": "2", "ProtocolServices": [{"ProtocolServiceId": "ptc-1"}, {"ProtocolServiceId": "ptc-2"}]}',
            b'{"NextToken": "", "ProtocolServices": {"ProtocolService": [{"ProtocolServiceId": "ptc-3"}]}}',
        ]
    )[0]
    found = api.paginate_token("nas", "DescribeProtocolService", {"FileSystemId": "cpfs-1"}, "ProtocolServices")
    assert [s["ProtocolServiceId"] for s in found] == ["ptc-1", "ptc-2", "ptc-3"]
    first, second = api._client.requests
    assert "NextToken" not in first and second["NextToken"] == "2" and second["FileSystemId"] == "cpfs-1"


def _page(total, kind, *items):
    """One page of a Describe reply of ``kind`` listing ``items``, out of ``total``."""
    outer, inner = kind.items
    return json.dumps({"TotalCount": total, outer: {inner: list(items)}}).encode()


def test_find_all_reads_every_page_matches_here_and_sorts_oldest_first():
    old = {"VpcId": "vpc-1", "VpcName": "bert", "CreationTime": "2024-01-01T00:00:00Z"}
    new = {"VpcId": "vpc-2", "VpcName": "bert", "CreationTime": "2024-02-01T00:00:00Z"}
    other = {"VpcId": "vpc-3", "VpcName": "other", "CreationTime": "2023-01-01T00:00:00Z"}
    api = _api([_page(3, ali.VPC, new, other), _page(3, ali.VPC, old)])[0]
    assert [v["VpcId"] for v in ali.find_all(api, ali.VPC, where={"VpcName": "bert"})] == ["vpc-1", "vpc-2"]
    assert [int(r["PageNumber"]) for r in api._client.requests] == [1, 2]


def test_find_one_by_id_asks_the_server_and_refuses_two_of_one_name():
    api = _api([_page(1, ali.HPC_CLUSTER, {"HpcClusterId": "hpc-1", "Name": "c"})])[0]
    cluster = ali.find_one(api, ali.HPC_CLUSTER, resource_id="hpc-1")
    assert cluster["HpcClusterId"] == "hpc-1" and api._client.requests[0]["HpcClusterIds"] == '["hpc-1"]'

    twins = [{"VpcId": "vpc-%d" % i, "VpcName": "bert"} for i in (1, 2)]
    api = _api([_page(2, ali.VPC, *twins)])[0]
    with pytest.raises(ali.AmbiguousMatch, match=r"2 VPCs match VpcId=vpc-9, VpcName=bert \(vpc-1, vpc-2\)") as err:
        ali.find_one(api, ali.VPC, scope={"VpcId": "vpc-9"}, where={"VpcName": "bert"})
    assert err.value.ids == ["vpc-1", "vpc-2"]


def test_find_all_by_ids_asks_each_id_once_in_calls_the_api_takes_and_lists_each_item_once():
    ids = ["i-%03d" % n for n in range(205)]
    old, new = {"InstanceId": "i-150", "CreationTime": "2024-01"}, {"InstanceId": "i-007", "CreationTime": "2024-02"}
    api = _api([_page(1, ali.INSTANCE, new), _page(2, ali.INSTANCE, old, new), _page(0, ali.INSTANCE)])[0]
    # Reversed, three asked twice: DescribeInstances takes 100 ids a call; an item listed twice is found once.
    assert ali.find_all(api, ali.INSTANCE, ids=ids[::-1] + ids[:3]) == [old, new]
    asked = [json.loads(r["InstanceIds"]) for r in api._client.requests]
    assert [len(batch) for batch in asked] == [100, 100, 5] and sorted(i for batch in asked for i in batch) == ids
    assert ali.find_all(api, ali.INSTANCE, ids=[]) == [] and len(api._client.requests) == 3  # none asked
    # A kind without a known limit asks every id in one call; one listed by a single id takes no list.
    api = _api([_page(0, ali.HPC_CLUSTER)])[0]
    assert ali.find_all(api, ali.HPC_CLUSTER, ids=ids) == []
    assert [json.loads(r["HpcClusterIds"]) for r in api._client.requests] == [ids]
    with pytest.raises(ValueError, match="VPCs are not listed by a list of ids"):
        ali.find_all(api, ali.VPC, ids=["vpc-1"])


def test_find_all_filters_tags_here_and_sends_them_where_the_api_takes_them():
    group = {"SecurityGroupId": "sg-1", "Tags": {"Tag": [{"TagKey": "managed-by", "TagValue": "scc.training"}]}}
    api = _api([_page(1, ali.SECURITY_GROUP, group)] * 2)[0]
    assert ali.find_all(api, ali.SECURITY_GROUP, tags={"managed-by": "scc.training"}) == [group]
    assert api._client.requests[0]["Tag.1.Key"] == "managed-by"
    assert ali.find_all(api, ali.SECURITY_GROUP, tags={"managed-by": "someone"}) == []


def test_views_read_nested_fields_and_show_nothing_for_none():
    inst = {
        "InstanceId": "i-1",
        "HpcClusterId": "",
        "VpcAttributes": {"VpcId": "vpc-1", "PrivateIpAddress": {"IpAddress": ["192.168.1.10"]}},
        "Tags": {"Tag": [{"TagKey": "a", "TagValue": "1"}]},
    }
    shown = ali.INSTANCE.view(inst)
    assert shown["vpc_id"] == "vpc-1" and shown["private_ip_addresses"] == ["192.168.1.10"]
    assert shown["hpc_cluster_id"] is None and shown["rdma_ip_addresses"] == [] and shown["tags"] == {"a": "1"}
    assert ali.VPC.view(None) == {} and ali.CPFS.view({}) == {}


# ---------------------------------------------------------------------------------------------
# Transport: HTTPS to every real endpoint, credentials masked in every error text


@pytest.mark.parametrize(
    "endpoint,host,protocol",
    [
        ("ecs.cn-shanghai.aliyuncs.com", "ecs.cn-shanghai.aliyuncs.com", "https"),
        ("https://ecs.cn-shanghai.aliyuncs.com/", "ecs.cn-shanghai.aliyuncs.com", "https"),
        ("HTTPS://ecs-vpc.cn-shanghai.aliyuncs.com", "ecs-vpc.cn-shanghai.aliyuncs.com", "https"),
        ("10.0.0.5:8080", "10.0.0.5:8080", "https"),  # a private address is no emulator
        ("127.0.0.1:8080", "127.0.0.1:8080", "http"),
        ("http://127.0.3.4:9", "127.0.3.4:9", "http"),
        ("localhost:9", "localhost:9", "http"),
        ("http://[::1]:9", "[::1]:9", "http"),
        ("https://127.0.0.1:8443", "127.0.0.1:8443", "https"),
    ],
)
def test_endpoints_are_https_unless_loopback(endpoint, host, protocol):
    assert ali.endpoint_protocol("ecs_endpoint", endpoint) == (host, protocol)


@pytest.mark.parametrize(
    "endpoint", ["http://ecs.cn-shanghai.aliyuncs.com", "http://127.0.0.1.example.com:80", "http://10.0.0.5"]
)
def test_plain_http_to_a_host_that_is_not_loopback_is_refused_naming_the_option(endpoint):
    with pytest.raises(ali.AlicloudApiError, match=r"nas_endpoint: .* is plain HTTP") as err:
        ali.AlicloudApi("AK", "SK", "cn-shanghai", nas_endpoint=endpoint)
    assert err.value.code == "InsecureEndpoint"
    with pytest.raises(ali.AlicloudApiError, match="ecs_endpoint: 'ftp://x' is neither"):
        ali.AlicloudApi("AK", "SK", "cn-shanghai", ecs_endpoint="ftp://x")


def test_every_request_to_a_real_endpoint_is_https():
    from aliyunsdkcore.http import protocol_type

    api = ali.AlicloudApi("AK", "SK", "cn-shanghai")  # the default endpoints: ecs/nas.<region>.aliyuncs.com
    for product in ("ecs", "nas"):
        request = api._request(product, "DescribeRegions", {})
        assert request.get_protocol_type() is protocol_type.HTTPS  # the SDK compares with `is`
        assert request.get_domain() == "%s.cn-shanghai.aliyuncs.com" % product
    loopback = ali.AlicloudApi("AK", "SK", "cn-shanghai", ecs_endpoint="127.0.0.1:1")._request("ecs", "X", {})
    assert loopback.get_protocol_type() is protocol_type.HTTP


def test_a_real_connection_error_leaves_no_credential_in_the_error():
    api = ali.AlicloudApi(
        KEY_ID,
        KEY_SECRET,
        "cn-shanghai",
        security_token=STS_TOKEN,
        ecs_endpoint="127.0.0.1:%d" % closed_loopback_port(),
        connect_timeout=2,
        api_retries=1,
        sleep=lambda seconds: None,
    )
    with pytest.raises(ali.AlicloudApiError) as err:
        api.call("ecs", "DescribeVpcs", {})
    text = str(err.value) + json.dumps(err.value.to_result())
    assert err.value.code == "SDK.HttpError" and "SecurityToken=" in text  # the signed URL, masked
    assert secret_leaks(text) == []


def test_mask_secrets_masks_every_encoding_and_the_signed_parameters():
    encoded = "SecurityToken=%s&x=%s&Signature=abc%%3D" % (quote(STS_TOKEN, safe=""), quote(quote(KEY_SECRET, safe="")))
    masked = ali.mask_secrets(encoded + " " + STS_TOKEN, [KEY_ID, KEY_SECRET, STS_TOKEN])
    assert secret_leaks(masked) == [] and "Signature=********" in masked
    assert ali.mask_secrets(None, ["x"]) is None


def test_mask_secrets_masks_the_longest_form_whole_and_leaves_text_without_secrets_as_it_is():
    # A secret whose raw form is inside its own percent-encoded form ("%25" encodes to "%2525"): the
    # encoded form is masked whole, no tail of it is left behind.
    secret = "tok%25"
    assert ali.mask_secrets("sign=%s." % quote(secret, safe=""), [secret]) == "sign=%s." % ali.MASK
    assert ali.secret_forms(secret) == ["tok%252525", "tok%2525", "tok%25"]
    # An empty or missing credential masks nothing (not the gaps between characters).
    assert ali.mask_secrets("no credential here", ["", None]) == "no credential here"
    assert ali.mask_secrets("", [KEY_SECRET]) == ""


def test_the_client_token_of_a_request_is_the_same_in_every_release():
    # A token that changed between two runs of provision (an upgrade mid-way) would create the resource twice.
    params = {"CidrBlock": "192.168.0.0/16", "VpcName": "scc"}
    expected = "scc-19ffba4770c71aa61b8d593c00bdbd8a0825ce2fab65a9784a6d91e2a09d"
    assert ali.client_token("CreateVpc", params) == ali.client_token("CreateVpc", params, 0) == expected


def test_each_retry_waits_the_full_jitter_backoff_of_its_attempt(monkeypatch):
    from aliyunsdkcore.acs_exception.exceptions import ServerException

    from ansible_collections.scc.training.plugins.module_utils import _alicloud_client

    # The jitter at its top: each pause is its attempt's whole bound, 0.5 s doubled per retry.
    top = ali.backoff_delay
    monkeypatch.setattr(_alicloud_client, "backoff_delay", lambda attempt: top(attempt, rand=lambda: 1.0))
    api, sleeps = _api([ServerException("ServiceUnavailable", "down", 503, "R-%d" % i) for i in range(3)] + [b"{}"])
    assert api.call("ecs", "DescribeVpcs", {}) == {}
    assert sleeps == [0.5, 1.0, 2.0]
