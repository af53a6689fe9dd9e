"""ECS 2014-05-26 actions: VPC, vSwitch, security group, HPC cluster, instances, tags.

Reply shapes follow alibabacloud_ecs20140526's response models (facts file, section 2).
"""

from __future__ import annotations

import ipaddress
import re
import time

from .errors import ApiError, dependency, invalid, missing
from .store import Store, now_iso, page, public, token_page
from .wire import Params

VERSION = "2014-05-26"
PRODUCT = "Ecs"

# Private ranges a VPC may use (CreateVpc docs): 10/8, 172.16/12, 192.168/16 and subnets.
_PRIVATE = [ipaddress.IPv4Network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")]

# Instance types the emulator knows: (vCPU, memory GiB, GPUs, GPU spec, SCC). SCC types need
# an HPC cluster (RunInstances: "required when you create an SCC instance").
INSTANCE_TYPES = {
    "ecs.sccgn6.24xlarge": (96, 384.0, 8, "NVIDIA V100", True),
    "ecs.sccgn6ne.24xlarge": (96, 768.0, 8, "NVIDIA V100", True),
    "ecs.scch5.16xlarge": (64, 192.0, 0, "", True),
    "ecs.gn6v-c8g1.16xlarge": (64, 256.0, 8, "NVIDIA V100", False),
    "ecs.g6.large": (2, 8.0, 0, "", False),
}


def family(instance_type: str) -> str:
    return instance_type.rsplit(".", 1)[0].split("-")[0]


def _zone(s: Store, ctx, zone: str) -> str:
    if not re.fullmatch(re.escape(ctx.region) + r"-[a-z]", zone):
        raise ApiError(400, "InvalidZoneId.NotFound", "The specified zone does not exist.")
    return zone


# ---- VPC -----------------------------------------------------------------------------------
def _vpc_out(s: Store, vpc: dict) -> dict:
    out = public(vpc)
    out["Status"] = s.status(vpc)
    out["VSwitchIds"] = {"VSwitchId": [v for v, sw in s.vswitches.items() if sw["VpcId"] == vpc["VpcId"]]}
    return out


def create_vpc(s: Store, p: Params, ctx) -> dict:
    cidr = p.cidr("CidrBlock", "172.16.0.0/12")
    if not any(cidr.subnet_of(n) for n in _PRIVATE) or not 8 <= cidr.prefixlen <= 24:
        raise ApiError(400, "InvalidCidrBlock.Malformed", "Specified CIDR block is not valid.")
    name = p.get("VpcName", "")
    ctx.dry_run_check()
    vpc_id = s.new_id("vpc-")
    s.vpcs[vpc_id] = {
        "VpcId": vpc_id,
        "RegionId": ctx.region,
        "VpcName": name,
        "Description": p.get("Description", ""),
        "CidrBlock": str(cidr),
        "VRouterId": s.new_id("vrt-"),
        "IsDefault": False,
        "CreationTime": now_iso(seconds=True),
        "UserCidrs": {"UserCidr": [p.get("UserCidr")] if p.get("UserCidr") else []},
        "_region": ctx.region,
        "_timeline": s.timeline((0, "Pending"), (s.timings.vpc, "Available")),
    }
    return {"VpcId": vpc_id, "VRouterId": s.vpcs[vpc_id]["VRouterId"], "RouteTableId": s.new_id("vtb-")}


def describe_vpcs(s: Store, p: Params, ctx) -> dict:
    items = [v for v in s.vpcs.values() if v["_region"] == ctx.region]
    if p.get("VpcId"):
        wanted = set(p.get("VpcId").split(","))
        items = [v for v in items if v["VpcId"] in wanted]
    if p.get("VpcName"):
        items = [v for v in items if v["VpcName"] == p.get("VpcName")]
    if p.get("IsDefault"):
        items = [v for v in items if v["IsDefault"] == p.bool("IsDefault")]
    chunk, meta = page(items, p, max_size=50)
    return {**meta, "Vpcs": {"Vpc": [_vpc_out(s, v) for v in chunk]}}


def delete_vpc(s: Store, p: Params, ctx) -> dict:
    vpc = s.find(s.vpcs, p.req("VpcId"), ctx.region, "InvalidVpcId.NotFound", "Specified VPC does not exist.")
    if any(sw["VpcId"] == vpc["VpcId"] for sw in s.vswitches.values()):
        raise dependency("DependencyViolation.VSwitch", "Specified VPC has VSwitches.")
    if any(sg["VpcId"] == vpc["VpcId"] for sg in s.security_groups.values()):
        raise dependency("DependencyViolation.SecurityGroup", "Specified VPC has security groups.")
    ctx.dry_run_check()
    del s.vpcs[vpc["VpcId"]]
    return {}


# ---- vSwitch -------------------------------------------------------------------------------
def _vswitch_out(s: Store, sw: dict) -> dict:
    out = public(sw)
    out["Status"] = s.status(sw)
    size = ipaddress.IPv4Network(sw["CidrBlock"]).num_addresses
    out["AvailableIpAddressCount"] = size - 4 - len(sw["_used"])
    return out


def create_vswitch(s: Store, p: Params, ctx) -> dict:
    vpc = s.find(s.vpcs, p.req("VpcId"), ctx.region, "InvalidVpcId.NotFound", "Specified VPC does not exist.")
    zone = _zone(s, ctx, p.req("ZoneId"))
    cidr = p.cidr("CidrBlock")
    if cidr is None:
        raise missing("CidrBlock")
    if not cidr.subnet_of(ipaddress.IPv4Network(vpc["CidrBlock"])) or not 16 <= cidr.prefixlen <= 29:
        raise ApiError(400, "InvalidCidrBlock.Malformed", "Specified CIDR block is not valid.")
    for other in s.vswitches.values():
        if other["VpcId"] == vpc["VpcId"] and cidr.overlaps(ipaddress.IPv4Network(other["CidrBlock"])):
            raise ApiError(400, "InvalidCIDRBlock.Overlapped", "Specified CIDR block overlapped with other vswitch.")
    ctx.dry_run_check()
    sw_id = s.new_id("vsw-")
    s.vswitches[sw_id] = {
        "VSwitchId": sw_id,
        "VpcId": vpc["VpcId"],
        "ZoneId": zone,
        "CidrBlock": str(cidr),
        "VSwitchName": p.get("VSwitchName", ""),
        "Description": p.get("Description", ""),
        "CreationTime": now_iso(seconds=True),
        "IsDefault": False,
        "ResourceGroupId": "",
        "_region": ctx.region,
        "_used": set(),
        "_timeline": s.timeline((0, "Pending"), (s.timings.vpc, "Available")),
    }
    return {"VSwitchId": sw_id}


def describe_vswitches(s: Store, p: Params, ctx) -> dict:
    items = [v for v in s.vswitches.values() if v["_region"] == ctx.region]
    for field in ("VpcId", "VSwitchId", "ZoneId", "VSwitchName"):
        if p.get(field):
            items = [v for v in items if v[field] == p.get(field)]
    chunk, meta = page(items, p, max_size=50)
    return {**meta, "VSwitches": {"VSwitch": [_vswitch_out(s, v) for v in chunk]}}


def delete_vswitch(s: Store, p: Params, ctx) -> dict:
    sw = s.find(s.vswitches, p.req("VSwitchId"), ctx.region, "InvalidVSwitchId.NotFound", "Specified virtual switch does not exist.")
    if any(i["VpcAttributes"]["VSwitchId"] == sw["VSwitchId"] for i in s.instances.values()):
        raise dependency("DependencyViolation", "Specified object has dependent resources.")
    ctx.dry_run_check()
    del s.vswitches[sw["VSwitchId"]]
    return {}


ACTIONS = {
    "CreateVpc": create_vpc,
    "DescribeVpcs": describe_vpcs,
    "DeleteVpc": delete_vpc,
    "CreateVSwitch": create_vswitch,
    "DescribeVSwitches": describe_vswitches,
    "DeleteVSwitch": delete_vswitch,
}
# Actions that honour ClientToken (a repeat with the same token returns the first reply).
CLIENT_TOKEN = {"CreateVpc", "CreateVSwitch"}


def host_id(region: str) -> str:
    return "ecs.aliyuncs.com"


def dry_run_reply(action: str):
    """A passing DryRun is an error reply (ECS docs); StopInstances/DeleteInstances use DRYRUN.SUCCESS."""
    if action in ("StopInstances", "DeleteInstances"):
        return ApiError(400, "DRYRUN.SUCCESS", "This request is a dryrun request with successful result.")
    return ApiError(400, "DryRunOperation", "Request validation has been passed with DryRun flag set.")
