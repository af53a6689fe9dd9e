"""VPC 2016-04-28 actions: VPCs and vSwitches, the API the modules use for them.

The same store and handlers as the ECS 2014-05-26 copies of these actions (lab/cloud/ecs.py), which the ECS
API still answers but which the VPC API replaced (lab/cloud/contract.py DEPRECATED_ACTIONS). Request and reply
shapes: alibabacloud_vpc20160428's models (CreateVpcRequest, DescribeVpcsResponseBody, ...); the contract check
holds every request and reply to them. A passing DryRun: 400 DryRunOperation, as ECS (VPC CreateVpc
reference, "DryRun": "If the request passes the dry run, the DryRunOperation error code is returned").
"""

from __future__ import annotations

import ipaddress

from . import ecs
from .errors import ApiError, invalid
from .store import Store, now_iso, page
from .wire import Params

VERSION = "2016-04-28"
PRODUCT = "Vpc"

# ---- EIPs ---------------------------------------------------------------------------------------------------
# AllocateEipAddress, AssociateEipAddress, UnassociateEipAddress, ReleaseEipAddress, DescribeEipAddresses
# (alibabacloud_vpc20160428 7.2.2: AllocateEipAddressRequest RegionId required; AssociateEipAddressRequest
# AllocationId and InstanceId required; UnassociateEipAddressRequest AllocationId required; ReleaseEipAddressRequest
# AllocationId and RegionId required; DescribeEipAddressesRequest RegionId required). Their states (Associating,
# InUse, Unassociating, Available) are the API reference's (DescribeEipAddresses "Status"; the model's comment lists
# none: UNCONFIRMED beyond the reference page). Error codes: IncorrectEipStatus for an action the EIP's state does not
# allow (the AssociateEipAddress and ReleaseEipAddress error lists); the code for an instance that already has an EIP
# is the emulator's (UNCONFIRMED).
#
# The network rule of this lab: an EIP's address is a LOOPBACK address (127.0.200.0/24), never a public one. It is
# a stand-in for the public address Alibaba Cloud would give; nothing here routes to it.
EIP_POOL = ipaddress.IPv4Network("127.0.200.0/24")
EIP_BANDWIDTH = {"PayByBandwidth": 500, "PayByTraffic": 200}  # PostPaid maxima (AllocateEipAddressRequest.bandwidth)


def _eip(s: Store, ctx, allocation_id: str | None) -> dict:
    return s.find("eips", allocation_id, ctx.region)


def _eip_status(s: Store, eip: dict) -> str:
    return s.status(eip)


def _eip_out(s: Store, eip: dict) -> dict:
    out = {k: v for k, v in eip.items() if not k.startswith("_")}
    out["Status"] = _eip_status(s, eip)
    out["Tags"] = {"Tag": [{"Key": k, "Value": v} for k, v in eip.get("_tags", {}).items()]}
    return out


def _eip_address(s: Store) -> str:
    used = {e["IpAddress"] for e in s.eips.values()}
    for host in list(EIP_POOL.hosts())[1:]:
        if str(host) not in used:
            return str(host)
    raise ApiError(400, "QuotaExceeded.Eip", "The EIP quota is exceeded.")


def allocate_eip_address(s: Store, p: Params, ctx) -> dict:
    charge = p.choice("InstanceChargeType", ("PostPaid", "PrePaid"), "PostPaid")
    if charge != "PostPaid":
        raise invalid("InstanceChargeType", "The emulator allocates pay-as-you-go EIPs only.")
    metering = p.choice("InternetChargeType", ("PayByBandwidth", "PayByTraffic"), "PayByBandwidth")
    bandwidth = p.int("Bandwidth", 5, 1, EIP_BANDWIDTH[metering])
    tags = p.tags()
    ctx.dry_run_check()
    allocation_id = s.new_id("eip-")
    address = _eip_address(s)
    s.eips[allocation_id] = {
        "AllocationId": allocation_id,
        "IpAddress": address,
        "Name": p.get("Name", ""),
        "Description": p.get("Description", ""),
        "RegionId": ctx.region,
        "Bandwidth": str(bandwidth),
        "InternetChargeType": metering,
        "ChargeType": charge,
        "AllocationTime": now_iso(seconds=True),
        "InstanceId": "",
        "InstanceType": "",
        "InstanceRegionId": "",
        "PrivateIpAddress": "",
        "_region": ctx.region,
        "_listed_from": s.listed_from(),
        "_tags": {t["Key"]: t.get("Value", "") for t in tags},
        "_timeline": s.timeline((0, "Available")),
    }
    return {"AllocationId": allocation_id, "EipAddress": address}


def _require_eip_status(s: Store, eip: dict, wanted: str) -> None:
    if _eip_status(s, eip) != wanted:
        raise ApiError(400, "IncorrectEipStatus", "The current status of the EIP does not support this operation.")


def associate_eip_address(s: Store, p: Params, ctx) -> dict:
    eip = _eip(s, ctx, p.req("AllocationId"))
    kind = p.choice(
        "InstanceType", ("EcsInstance", "Nat", "SlbInstance", "NetworkInterface", "HaVip", "IpAddress"), "EcsInstance"
    )
    if kind != "EcsInstance":
        raise invalid("InstanceType", "The emulator associates EIPs with ECS instances only.")
    inst = s.find("instances", p.req("InstanceId"), ctx.region)
    _require_eip_status(s, eip, "Available")
    if inst["EipAddress"]["AllocationId"]:
        raise ApiError(400, "InvalidInstance.EipAlreadyAssociated", "The instance already has an EIP.")
    ctx.dry_run_check()
    eip.update(
        InstanceId=inst["InstanceId"],
        InstanceType="EcsInstance",
        InstanceRegionId=ctx.region,
        PrivateIpAddress=inst["VpcAttributes"]["PrivateIpAddress"]["IpAddress"][0],
        _timeline=s.timeline((0, "Associating"), (s.timings.eip, "InUse")),
    )
    inst["EipAddress"] = {
        "AllocationId": eip["AllocationId"],
        "IpAddress": eip["IpAddress"],
        "Bandwidth": int(eip["Bandwidth"]),
        "InternetChargeType": eip["InternetChargeType"],
        "IsSupportUnassociate": True,
    }
    return {}


def _detach(s: Store, eip: dict) -> None:
    inst = s.instances.get(eip["InstanceId"])
    if inst is not None:
        inst["EipAddress"] = ecs.no_eip()
    eip.update(InstanceId="", InstanceType="", InstanceRegionId="", PrivateIpAddress="")


def unassociate_eip_address(s: Store, p: Params, ctx) -> dict:
    eip = _eip(s, ctx, p.req("AllocationId"))
    _require_eip_status(s, eip, "InUse")
    if p.get("InstanceId") and p.get("InstanceId") != eip["InstanceId"]:
        raise invalid("InstanceId", "The EIP is not associated with the specified instance.")
    ctx.dry_run_check()
    _detach(s, eip)
    eip["_timeline"] = s.timeline((0, "Unassociating"), (s.timings.eip, "Available"))
    return {}


def release_eip_address(s: Store, p: Params, ctx) -> dict:
    eip = _eip(s, ctx, p.req("AllocationId"))
    _require_eip_status(s, eip, "Available")
    return s.delete(ctx, "eips", eip["AllocationId"])


def describe_eip_addresses(s: Store, p: Params, ctx) -> dict:
    items = [e for e in s.eips.values() if e["_region"] == ctx.region and s.listed(e)]
    if p.get("AllocationId"):
        wanted = set(p.get("AllocationId").split(","))
        items = [e for e in items if e["AllocationId"] in wanted]
    for param, field in (("EipAddress", "IpAddress"), ("EipName", "Name"), ("AssociatedInstanceId", "InstanceId")):
        if p.get(param):
            items = [e for e in items if e[field] == p.get(param)]
    if p.get("Status"):
        items = [e for e in items if _eip_status(s, e) == p.get("Status")]
    items = [e for e in items if s.tags_match(e, p.tags())]
    items.sort(key=lambda e: (e["AllocationTime"], e["AllocationId"]))
    chunk, meta = page(items, p, max_size=100)
    return {**meta, "EipAddresses": {"EipAddress": [_eip_out(s, e) for e in chunk]}}


ACTIONS = {
    **{
        name: ecs.ACTIONS[name]
        for name in ("CreateVpc", "DescribeVpcs", "DeleteVpc", "CreateVSwitch", "DescribeVSwitches", "DeleteVSwitch")
    },
    "AllocateEipAddress": allocate_eip_address,
    "AssociateEipAddress": associate_eip_address,
    "UnassociateEipAddress": unassociate_eip_address,
    "ReleaseEipAddress": release_eip_address,
    "DescribeEipAddresses": describe_eip_addresses,
}
# VPC CreateVpc / CreateVSwitch / DeleteVpc / DeleteVSwitch take a ClientToken (the VPC models' ClientToken); so do
# AllocateEipAddress, AssociateEipAddress and UnassociateEipAddress (their request models' ClientToken).
CLIENT_TOKEN = {"CreateVpc", "CreateVSwitch", "AllocateEipAddress", "AssociateEipAddress", "UnassociateEipAddress"}


def host_id(region: str) -> str:
    return "vpc.aliyuncs.com"


def dry_run_reply(action: str):
    return ecs.dry_run_reply(action)
