"""Helpers for tests that drive the emulator through the real SDK."""

from __future__ import annotations

import contextlib
import json
import os
import secrets

from aliyunsdkcore.client import AcsClient
from aliyunsdkcore.request import CommonRequest
from aliyunsdkecs.request.v20140526 import (
    CreateHpcClusterRequest,
    CreateSecurityGroupRequest,
    CreateVpcRequest,
    CreateVSwitchRequest,
)

from .server import CloudEmulator

# The SDK (requests) honours these: a test against 127.0.0.1 must not go through a proxy.
PROXY_VARIABLES = ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")


@contextlib.contextmanager
def emulator(**kwargs):
    """A CloudEmulator on a free port with fresh credentials (``emu.access_key_id``,
    ``emu.access_key_secret``); the proxy variables stay out of the environment meanwhile."""
    saved = {name: os.environ.pop(name) for name in PROXY_VARIABLES if name in os.environ}
    kwargs.setdefault("port", 0)
    try:
        with CloudEmulator(
            access_key_id="LTAI" + secrets.token_hex(8), access_key_secret=secrets.token_hex(15), **kwargs
        ) as emu:
            yield emu
    finally:
        os.environ.update(saved)


def client(
    emu, region: str = "cn-shanghai", key_id: str | None = None, secret: str | None = None, **kwargs
) -> AcsClient:
    """An AcsClient with the emulator's credentials whose ECS, VPC and NAS endpoints are the emulator."""
    acs = AcsClient(key_id or emu.access_key_id, secret or emu.access_key_secret, region, **kwargs)
    acs.add_endpoint(region, "Ecs", emu.endpoint)
    acs.add_endpoint(region, "Vpc", emu.endpoint)
    acs.add_endpoint(region, "NAS", emu.endpoint)
    return acs


# The VPC and vSwitch actions go through the VPC API (2016-04-28), as the modules send them: aliyunsdkecs's
# classes for them are ECS 2014-05-26's copies, which the VPC API replaced (lab/cloud/contract.py).
VPC_ACTIONS = ("CreateVpc", "DescribeVpcs", "DeleteVpc", "CreateVSwitch", "DescribeVSwitches", "DeleteVSwitch")


def vpc_request(request):
    """The VPC API (2016-04-28) form of an aliyunsdkecs request for one of VPC_ACTIONS: its parameters, the
    endpoint and timeouts it has; any other request as it is."""
    if request.get_action_name() not in VPC_ACTIONS or request.get_version() != "2014-05-26":
        return request
    out = CommonRequest(version="2016-04-28", action_name=request.get_action_name(), product="Vpc")
    out.set_method("POST")
    out.set_accept_format("json")
    if request.endpoint:
        out.set_endpoint(request.endpoint)
    for key, value in request.get_query_params().items():
        out.add_query_param(key, value)
    return out


def call(acs: AcsClient, request_class, **params) -> dict:
    """Build `request_class()`, call set_<Name>(value) for each param, send (VPC_ACTIONS through the VPC API),
    decode the JSON."""
    request = request_class()
    for name, value in params.items():
        getattr(request, "set_" + name)(value)
    return json.loads(acs.do_action_with_exception(vpc_request(request)))


def network(acs: AcsClient, vswitch_cidr: str = "10.0.1.0/24", cluster: bool = True, tags=None) -> dict:
    """A VPC named scc (10.0.0.0/16) with a VSwitch in cn-shanghai-b and, with ``cluster``, a security
    group carrying ``tags`` and an HPC cluster: the ids under "vpc", "vsw", "sg" and "hpc"."""
    vpc = call(acs, CreateVpcRequest.CreateVpcRequest, CidrBlock="10.0.0.0/16", VpcName="scc")["VpcId"]
    vsw = call(
        acs,
        CreateVSwitchRequest.CreateVSwitchRequest,
        VpcId=vpc,
        ZoneId="cn-shanghai-b",
        CidrBlock=vswitch_cidr,
        VSwitchName="scc",
    )["VSwitchId"]
    if not cluster:
        return {"vpc": vpc, "vsw": vsw}
    group = dict(VpcId=vpc, SecurityGroupName="scc", Tags=[{"Key": k, "Value": v} for k, v in (tags or {}).items()])
    return {
        "vpc": vpc,
        "vsw": vsw,
        "sg": call(acs, CreateSecurityGroupRequest.CreateSecurityGroupRequest, **group)["SecurityGroupId"],
        "hpc": call(acs, CreateHpcClusterRequest.CreateHpcClusterRequest, Name="scc")["HpcClusterId"],
    }
