"""VPC 2016-04-28 actions: VPCs and vSwitches, the API the modules use for them.

The same store and handlers as the ECS 2014-05-26 copies of these actions (lab/cloud/ecs.py), which the ECS
API still answers but which the VPC API replaced (lab/cloud/contract.py DEPRECATED_ACTIONS). Request and reply
shapes: alibabacloud_vpc20160428's models (CreateVpcRequest, DescribeVpcsResponseBody, ...); the contract check
holds every request and reply to them. A passing DryRun: 400 DryRunOperation, as ECS (VPC CreateVpc
reference, "DryRun": "If the request passes the dry run, the DryRunOperation error code is returned").
"""

from __future__ import annotations

from . import ecs

VERSION = "2016-04-28"
PRODUCT = "Vpc"

ACTIONS = {
    name: ecs.ACTIONS[name]
    for name in ("CreateVpc", "DescribeVpcs", "DeleteVpc", "CreateVSwitch", "DescribeVSwitches", "DeleteVSwitch")
}
# VPC CreateVpc / CreateVSwitch / DeleteVpc / DeleteVSwitch take a ClientToken (the VPC models' ClientToken).
CLIENT_TOKEN = {"CreateVpc", "CreateVSwitch"}


def host_id(region: str) -> str:
    return "vpc.aliyuncs.com"


def dry_run_reply(action: str):
    return ecs.dry_run_reply(action)
