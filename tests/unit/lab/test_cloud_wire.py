"""The cloud emulator's wire protocol, driven by the unmodified aliyunsdkcore AcsClient."""

import json
import os
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest
from aliyunsdkcore.acs_exception.exceptions import ClientException, ServerException
from aliyunsdkcore.auth.credentials import StsTokenCredential
from aliyunsdkcore.client import AcsClient
from aliyunsdkecs.request.v20140526 import (
    CreateSecurityGroupRequest,
    CreateVpcRequest,
    CreateVSwitchRequest,
    DescribeInstancesRequest,
    DescribeSecurityGroupsRequest,
    DescribeVpcsRequest,
    RunInstancesRequest,
)

from lab.cloud import CloudEmulator, wire
from lab.cloud.testing import call, client, vpc_request
from lab.cluster import Lab
from lab.hosts import HostState

KEY_ID, SECRET = "LTAI-emulator-test", "emulator-test-secret"
ROOT = Path(__file__).resolve().parents[3]


def send(emu, request, key_id=None, secret=None, region="cn-shanghai"):
    request.set_endpoint(emu.endpoint)
    client = AcsClient(key_id or emu.access_key_id, secret or emu.access_key_secret, region, auto_retry=False)
    return json.loads(client.do_action_with_exception(vpc_request(request)))  # VPCs: the VPC API's


def test_signature_verified_and_vpc_round_trip(emu):
    create = CreateVpcRequest.CreateVpcRequest()
    create.set_CidrBlock("192.168.0.0/16")
    create.set_VpcName("my vpc*~")  # characters the two-pass encoding treats specially
    vpc_id = send(emu, create)["VpcId"]
    listed = send(emu, DescribeVpcsRequest.DescribeVpcsRequest())
    assert listed["TotalCount"] == 1
    assert listed["Vpcs"]["Vpc"][0]["VpcId"] == vpc_id
    assert listed["Vpcs"]["Vpc"][0]["VpcName"] == "my vpc*~"
    assert [v["VpcId"] for v in emu.vpcs()] == [vpc_id]


def test_wrong_secret_is_signature_mismatch_the_sdk_recognises(emu):
    with pytest.raises(ServerException) as err:
        send(emu, DescribeSecurityGroupsRequest.DescribeSecurityGroupsRequest(), secret="not-the-secret")
    # The SDK rewrites SignatureDoesNotMatch to InvalidAccessKeySecret only when the server's
    # string to sign (after "is:") equals its own: proof that both canonicalise alike.
    assert err.value.get_http_status() == 400
    assert err.value.get_error_code() == "InvalidAccessKeySecret"
    assert emu.calls[-1]["code"] == "SignatureDoesNotMatch"


def test_unknown_access_key_is_not_found(emu):
    with pytest.raises(ServerException) as err:
        send(emu, DescribeSecurityGroupsRequest.DescribeSecurityGroupsRequest(), key_id="LTAI-unknown")
    assert (err.value.get_http_status(), err.value.get_error_code()) == (404, "InvalidAccessKeyId.NotFound")
    assert err.value.get_error_msg() == "Specified access key is not found."


def test_error_body_shape_and_request_id(emu, contract_findings):
    with pytest.raises(ServerException) as err:
        send(emu, DescribeSecurityGroupsRequest.DescribeSecurityGroupsRequest(), region="xx-nowhere-1")
    assert (err.value.get_http_status(), err.value.get_error_code()) == (404, "InvalidRegionId.NotFound")
    status, body = emu.handle("POST", {"AccessKeyId": "nobody"})[:2]
    assert status == 404
    assert list(body) == ["RequestId", "Message", "HostId", "Code", "Recommend"]
    assert body["Recommend"].endswith("requestId=" + body["RequestId"])
    assert contract_findings() == [" : no API model for version ''"]  # the bare request, on purpose


def test_replayed_nonce_and_stale_timestamp_are_refused(emu):
    params = {
        "Action": "DescribeVpcs",
        "Version": "2016-04-28",
        "RegionId": "cn-shanghai",
        "Format": "JSON",
        "AccessKeyId": emu.access_key_id,
        "SignatureMethod": "HMAC-SHA1",
        "SignatureType": "",
        "SignatureVersion": "1.0",
        "SignatureNonce": "n-1",
        "Timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    params["Signature"] = wire.sign("POST", params, emu.access_key_secret)
    assert emu.handle("POST", dict(params))[0] == 200
    assert emu.handle("POST", dict(params))[1]["Code"] == "SignatureNonceUsed"
    params.update(SignatureNonce="n-2", Timestamp="2020-01-01T00:00:00Z")
    params["Signature"] = wire.sign("POST", params, emu.access_key_secret)
    assert emu.handle("POST", params)[1]["Code"] == "InvalidTimeStamp.Expired"


@pytest.mark.parametrize("address", ["0.0.0.0", "10.1.2.3", "127.0.14.11", "::1"])
def test_listens_on_127_0_0_1_only(address):
    with pytest.raises(ValueError, match=r"loopback 127\.0\.0\.1 only"):
        CloudEmulator(address=address, access_key_id=KEY_ID, access_key_secret=SECRET)


def test_cli_serves_with_environment_credentials_and_lab_backed_instances(tmp_path):
    # A recorded lab (state.json only: no host is started or contacted).
    Lab(tmp_path).save([HostState("node1", "127.0.14.11", 1, 2, "0"), HostState("node2", "127.0.14.12", 3, 4, "0")])
    env = {**os.environ, "ALIBABA_CLOUD_ACCESS_KEY_ID": KEY_ID, "ALIBABA_CLOUD_ACCESS_KEY_SECRET": SECRET}
    proc = subprocess.Popen(
        [sys.executable, "-m", "lab", "cloud", "--port", "0", "--back-with-lab", str(tmp_path)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("cloud emulator listening on http://127.0.0.1:")
        served = types.SimpleNamespace(
            endpoint=line.rsplit("//", 1)[1].strip(), access_key_id=KEY_ID, access_key_secret=SECRET
        )
        acs = client(served, region="cn-beijing", auto_retry=False)
        vpc = call(acs, CreateVpcRequest.CreateVpcRequest, CidrBlock="10.0.0.0/16")["VpcId"]
        vsw = call(
            acs, CreateVSwitchRequest.CreateVSwitchRequest, VpcId=vpc, ZoneId="cn-beijing-h", CidrBlock="10.0.1.0/24"
        )["VSwitchId"]
        sg = call(acs, CreateSecurityGroupRequest.CreateSecurityGroupRequest, VpcId=vpc)["SecurityGroupId"]
        call(
            acs,
            RunInstancesRequest.RunInstancesRequest,
            ImageId="img",
            InstanceType="ecs.g6.large",
            VSwitchId=vsw,
            SecurityGroupId=sg,
            Amount=2,
        )
        listed = call(acs, DescribeInstancesRequest.DescribeInstancesRequest)["Instances"]["Instance"]
        assert sorted(i["VpcAttributes"]["PrivateIpAddress"]["IpAddress"][0] for i in listed) == [
            "127.0.14.11",
            "127.0.14.12",
        ]
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0


def test_cli_refuses_a_non_loopback_address():
    env = {**os.environ, "ALIBABA_CLOUD_ACCESS_KEY_ID": KEY_ID, "ALIBABA_CLOUD_ACCESS_KEY_SECRET": SECRET}
    cmd = [sys.executable, "-m", "lab", "cloud", "--port", "0", "--address", "10.1.2.3"]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 2
    assert "loopback" in done.stderr


def test_client_error_when_nothing_listens():
    request = DescribeVpcsRequest.DescribeVpcsRequest()
    request.set_endpoint("127.0.0.1:9")
    with pytest.raises(ClientException):
        AcsClient(KEY_ID, SECRET, "cn-shanghai", auto_retry=False).do_action_with_exception(request)


def test_sts_credentials_need_the_security_token():
    with CloudEmulator(access_key_id="STS.key", access_key_secret=SECRET, security_token="token-1") as emu:

        def describe(acs):
            request = DescribeVpcsRequest.DescribeVpcsRequest()  # fresh: the STS signer adds to it
            request.set_endpoint(emu.endpoint)
            return json.loads(acs.do_action_with_exception(vpc_request(request)))

        def sts(token):
            return AcsClient(
                region_id="cn-shanghai", credential=StsTokenCredential("STS.key", SECRET, token), auto_retry=False
            )

        assert describe(sts("token-1"))["TotalCount"] == 0
        with pytest.raises(ServerException) as err:
            describe(AcsClient("STS.key", SECRET, "cn-shanghai", auto_retry=False))
        assert (err.value.get_http_status(), err.value.get_error_code()) == (400, "MissingSecurityToken")
        with pytest.raises(ServerException) as err:
            describe(sts("token-0"))
        assert err.value.get_error_code() == "InvalidParameter"
        assert err.value.get_error_msg() == 'The specified parameter "SecurityToken.Expired" is not valid.'
