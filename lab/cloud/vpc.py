"""VPC 2016-04-28 actions: VPCs and vSwitches, the API the modules use for them.

The same store and handlers as the ECS 2014-05-26 copies of these actions (lab/cloud/ecs.py), which the ECS
API still answers but which the VPC API replaced (lab/cloud/contract.py DEPRECATED_ACTIONS). Request and reply
shapes: alibabacloud_vpc20160428's models (CreateVpcRequest, DescribeVpcsResponseBody, ...); the contract check
holds every request and reply to them. A passing DryRun: 400 DryRunOperation, as ECS (VPC CreateVpc
reference, "DryRun": "If the request passes the dry run, the DryRunOperation error code is returned").
"""

from __future__ import annotations

import ipaddress
import time

from . import ecs
from .errors import ApiError, invalid
from .store import NOT_FOUND, Store, now_iso, page
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
    if kind == "Nat":
        return _associate_with_nat(s, p, ctx, eip)
    if kind != "EcsInstance":
        raise invalid("InstanceType", "The emulator associates EIPs with ECS instances and NAT gateways only.")
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
    ngw = s.nat_gateways.get(eip["InstanceId"])
    if ngw is not None:
        ngw["_eips"] = [a for a in ngw["_eips"] if a != eip["AllocationId"]]
    eip.update(InstanceId="", InstanceType="", InstanceRegionId="", PrivateIpAddress="")


def unassociate_eip_address(s: Store, p: Params, ctx) -> dict:
    eip = _eip(s, ctx, p.req("AllocationId"))
    _require_eip_status(s, eip, "InUse")
    if p.get("InstanceId") and p.get("InstanceId") != eip["InstanceId"]:
        raise invalid("InstanceId", "The EIP is not associated with the specified instance.")
    if p.get("InstanceType", "EcsInstance") != eip["InstanceType"]:
        raise invalid("InstanceType", "The EIP is associated with an instance of type %s." % eip["InstanceType"])
    _snats(s)
    if eip["InstanceType"] == "Nat" and any(
        eip["IpAddress"] in e["SnatIp"].split(",") for e in s.snat_entries.values()
    ):
        # The EIP is still the address of an SNAT entry (the emulator's code; UNCONFIRMED).
        raise ApiError(400, "DependencyViolation.SnatEntry", "The EIP is used by an SNAT entry.")
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


# ---- NAT gateways and SNAT entries ---------------------------------------------------------------------------
# CreateNatGateway, DescribeNatGateways, DeleteNatGateway, CreateSnatEntry, DescribeSnatTableEntries, DeleteSnatEntry,
# and AssociateEipAddress / UnassociateEipAddress with InstanceType Nat (alibabacloud_vpc20160428 7.2.2:
# CreateNatGatewayRequest RegionId and VpcId required, NatType "Enhanced", NetworkType internet|intranet,
# InstanceChargeType PostPaid, InternetChargeType PayByLcu, VSwitchId "you must specify the vSwitch";
# DeleteNatGatewayRequest NatGatewayId and RegionId required, Force; CreateSnatEntryRequest RegionId and SnatTableId
# required, SourceVSwitchId or SourceCIDR, SnatIp; DeleteSnatEntryRequest RegionId, SnatEntryId and SnatTableId
# required; DescribeSnatTableEntriesRequest SnatTableId or NatGatewayId). A NAT gateway's states are the
# DescribeNatGatewaysRequest Status comment's: Creating, Available, Modifying, Deleting, Converting; DeleteNatGateway is
# asynchronous, Deleting until the gateway is no longer listed (VPC API reference, api-vpc-2016-04-28-deletenatgateway).
# An SNAT entry: Pending while it is made, Deleting until it is no longer listed, and "If some SNAT entries are in the
# Pending state, you cannot delete these SNAT entries" with 400 IncorretSnatEntryStatus (sic; VPC API reference,
# api-vpc-2016-04-28-deletesnatentry); Available is DescribeSnatTableEntries' word for the rest (that page not
# retrieved: UNCONFIRMED; the response model's comment lists no values). DeleteNatGateway's page lists
# DependencyViolation.* codes for what still depends on a gateway; the emulator refuses a gateway with SNAT entries or
# EIPs without Force under codes of that form (the exact codes UNCONFIRMED). CreateSnatEntry's SnatIp must be an EIP
# associated with the gateway (the emulator's reading of the API reference).
NAT_PAGE_MAX = 50  # DescribeNatGatewaysRequest / DescribeSnatTableEntriesRequest PageSize: "Maximum value: 50"


def _ngw_status(s: Store, ngw: dict) -> str:
    return s.status(ngw)


def _ngw_out(s: Store, ngw: dict) -> dict:
    _snats(s)
    out = {k: v for k, v in ngw.items() if not k.startswith("_")}
    out["Status"] = _ngw_status(s, ngw)
    out["IpLists"] = {
        "IpList": [
            {
                "AllocationId": a,
                "IpAddress": s.eips[a]["IpAddress"],
                "UsingStatus": "UsedBySnatTable"
                if any(s.eips[a]["IpAddress"] in e["SnatIp"].split(",") for e in s.snat_entries.values())
                else "Idle",
                "SnatEntryEnabled": True,
            }
            for a in ngw["_eips"]
            if a in s.eips
        ]
    }
    out["Tags"] = {"Tag": [{"TagKey": k, "TagValue": v} for k, v in ngw.get("_tags", {}).items()]}
    return out


def _ngw_gone(s: Store, ngw: dict) -> bool:
    return ngw.get("_deleting") is not None and ngw["_deleting"] <= time.monotonic()


def _ngws(s: Store) -> None:
    """Drop the NAT gateways whose Deleting has ended."""
    for key in [k for k, n in s.nat_gateways.items() if _ngw_gone(s, n)]:
        del s.nat_gateways[key]


def create_nat_gateway(s: Store, p: Params, ctx) -> dict:
    vpc = s.find("vpcs", p.req("VpcId"), ctx.region)
    p.choice("NatType", ("Enhanced",), "Enhanced")
    network = p.choice("NetworkType", ("internet", "intranet"), "internet")
    p.choice("InstanceChargeType", ("PostPaid",), "PostPaid")
    p.choice("InternetChargeType", ("PayByLcu",), "PayByLcu")
    # An enhanced NAT gateway lives in a vSwitch of the VPC (CreateNatGatewayRequest.v_switch_id).
    sw = s.find("vswitches", p.req("VSwitchId"), ctx.region)
    if sw["VpcId"] != vpc["VpcId"]:
        raise invalid("VSwitchId", "The vSwitch does not belong to the VPC.")
    tags = p.tags()
    ctx.dry_run_check()
    ngw_id = s.new_id("ngw-")
    private_ip = s.take_address(sw)
    s.nat_gateways[ngw_id] = {
        "NatGatewayId": ngw_id,
        "Name": p.get("Name", ""),
        "Description": p.get("Description", ""),
        "VpcId": vpc["VpcId"],
        "RegionId": ctx.region,
        "NatType": "Enhanced",
        "NetworkType": network,
        "InstanceChargeType": "PostPaid",
        "InternetChargeType": "PayByLcu",
        "CreationTime": now_iso(seconds=True),
        "SnatTableIds": {"SnatTableId": ["stb-" + ngw_id[4:]]},
        "ForwardTableIds": {"ForwardTableId": ["ftb-" + ngw_id[4:]]},
        "NatGatewayPrivateInfo": {"VswitchId": sw["VSwitchId"], "PrivateIpAddress": private_ip},
        "_eips": [],
        "_vswitch": sw["VSwitchId"],
        "_region": ctx.region,
        "_listed_from": s.listed_from(),
        "_tags": {t["Key"]: t.get("Value", "") for t in tags},
        "_timeline": s.timeline((0, "Creating"), (s.timings.nat_gateway, "Available")),
    }
    return {
        "NatGatewayId": ngw_id,
        "SnatTableIds": {"SnatTableId": ["stb-" + ngw_id[4:]]},
        "ForwardTableIds": {"ForwardTableId": ["ftb-" + ngw_id[4:]]},
    }


def _ngw(s: Store, ctx, ngw_id: str | None) -> dict:
    _ngws(s)
    return s.find("nat_gateways", ngw_id, ctx.region)


def describe_nat_gateways(s: Store, p: Params, ctx) -> dict:
    _ngws(s)
    items = [n for n in s.nat_gateways.values() if n["_region"] == ctx.region and s.listed(n)]
    for param in ("NatGatewayId", "Name", "VpcId", "NatType", "NetworkType"):
        if p.get(param):
            items = [n for n in items if n[param] == p.get(param)]
    if p.get("Status"):
        items = [n for n in items if _ngw_status(s, n) == p.get("Status")]
    items = [n for n in items if s.tags_match(n, p.tags())]
    items.sort(key=lambda n: (n["CreationTime"], n["NatGatewayId"]))
    chunk, meta = page(items, p, max_size=NAT_PAGE_MAX)
    return {**meta, "NatGateways": {"NatGateway": [_ngw_out(s, n) for n in chunk]}}


def delete_nat_gateway(s: Store, p: Params, ctx) -> dict:
    _snats(s)
    ngw = _ngw(s, ctx, p.req("NatGatewayId"))
    force = p.bool("Force")
    table = ngw["SnatTableIds"]["SnatTableId"][0]
    entries = [k for k, e in s.snat_entries.items() if e["_table"] == table]
    if _ngw_status(s, ngw) != "Available":
        raise ApiError(
            400, "IncorrectStatus.NatGateway", "The status of the NAT gateway does not support this operation."
        )
    if not force and entries:
        raise ApiError(400, "DependencyViolation.SnatEntry", "The NAT gateway still has SNAT entries.")
    if not force and ngw["_eips"]:
        raise ApiError(400, "DependencyViolation.EIPS", "The NAT gateway is still associated with EIPs.")
    ctx.dry_run_check()
    for key in entries:
        del s.snat_entries[key]
    for allocation_id in list(ngw["_eips"]):
        if allocation_id in s.eips:
            _detach(s, s.eips[allocation_id])
    s.vswitches[ngw["_vswitch"]]["_used"].discard(ngw["NatGatewayPrivateInfo"]["PrivateIpAddress"])
    ngw["_timeline"] = s.timeline((0, "Deleting"))
    ngw["_deleting"] = time.monotonic() + s.timings.nat_gateway
    return {}


def _associate_with_nat(s: Store, p: Params, ctx, eip: dict) -> dict:
    ngw = _ngw(s, ctx, p.req("InstanceId"))
    _require_eip_status(s, eip, "Available")
    if _ngw_status(s, ngw) != "Available":
        raise ApiError(
            400, "IncorrectStatus.NatGateway", "The status of the NAT gateway does not support this operation."
        )
    ctx.dry_run_check()
    ngw["_eips"].append(eip["AllocationId"])
    eip.update(
        InstanceId=ngw["NatGatewayId"],
        InstanceType="Nat",
        InstanceRegionId=ctx.region,
        PrivateIpAddress="",
        _timeline=s.timeline((0, "Associating"), (s.timings.eip, "InUse")),
    )
    return {}


def _snat_status(s: Store, entry: dict) -> str:
    return s.status(entry)


def _snat_out(s: Store, entry: dict) -> dict:
    out = {k: v for k, v in entry.items() if not k.startswith("_")}
    out["Status"] = _snat_status(s, entry)
    return out


def _snats(s: Store) -> None:
    now = time.monotonic()
    for key in [k for k, e in s.snat_entries.items() if e.get("_deleting") is not None and e["_deleting"] <= now]:
        del s.snat_entries[key]


def _ngw_of_table(s: Store, ctx, table: str) -> dict:
    _ngws(s)
    for ngw in s.nat_gateways.values():
        if ngw["_region"] == ctx.region and table in ngw["SnatTableIds"]["SnatTableId"]:
            return ngw
    raise ApiError(404, "InvalidSnatTableId.NotFound", "The specified SNAT table does not exist.")


def create_snat_entry(s: Store, p: Params, ctx) -> dict:
    _snats(s)
    table = p.req("SnatTableId")
    ngw = _ngw_of_table(s, ctx, table)
    source_vswitch, source_cidr = p.get("SourceVSwitchId"), p.get("SourceCIDR")
    if bool(source_vswitch) == bool(source_cidr):
        raise invalid("SourceVSwitchId", "Specify either SourceVSwitchId or SourceCIDR.")
    if source_vswitch:
        sw = s.find("vswitches", source_vswitch, ctx.region)
        if sw["VpcId"] != ngw["VpcId"]:
            raise invalid("SourceVSwitchId", "The vSwitch does not belong to the NAT gateway's VPC.")
    snat_ip = p.req("SnatIp")
    bound = {s.eips[a]["IpAddress"] for a in ngw["_eips"] if a in s.eips}
    if not set(snat_ip.split(",")) <= bound:
        raise invalid("SnatIp", "The SNAT IP address is not an EIP associated with the NAT gateway.")
    if any(
        e["_table"] == table and e["SourceVSwitchId"] == (source_vswitch or "") and source_vswitch
        for e in s.snat_entries.values()
    ):
        raise ApiError(400, "Forbidden.SourceVSwitchId.Duplicated", "An SNAT entry of this vSwitch exists.")
    ctx.dry_run_check()
    entry_id = s.new_id("snat-")
    s.snat_entries[entry_id] = {
        "SnatEntryId": entry_id,
        "SnatEntryName": p.get("SnatEntryName", ""),
        "SnatTableId": table,
        "NatGatewayId": ngw["NatGatewayId"],
        "SnatIp": snat_ip,
        "SourceVSwitchId": source_vswitch or "",
        "SourceCIDR": s.vswitches[source_vswitch]["CidrBlock"] if source_vswitch else source_cidr,
        "_table": table,
        "_region": ctx.region,
        "_listed_from": s.listed_from(),
        "_timeline": s.timeline((0, "Pending"), (s.timings.snat_entry, "Available")),
    }
    return {"SnatEntryId": entry_id}


def describe_snat_table_entries(s: Store, p: Params, ctx) -> dict:
    _snats(s)
    table, ngw_id = p.get("SnatTableId"), p.get("NatGatewayId")
    if not table and not ngw_id:
        raise invalid("SnatTableId", "Specify SnatTableId or NatGatewayId.")
    if table:
        _ngw_of_table(s, ctx, table)
    items = [e for e in s.snat_entries.values() if e["_region"] == ctx.region and s.listed(e)]
    if table:
        items = [e for e in items if e["_table"] == table]
    if ngw_id:
        items = [e for e in items if e["NatGatewayId"] == ngw_id]
    for param in ("SnatEntryId", "SnatEntryName", "SourceVSwitchId", "SnatIp", "SourceCIDR"):
        if p.get(param):
            items = [e for e in items if e[param] == p.get(param)]
    items.sort(key=lambda e: e["SnatEntryId"])
    chunk, meta = page(items, p, max_size=NAT_PAGE_MAX)
    return {**meta, "SnatTableEntries": {"SnatTableEntry": [_snat_out(s, e) for e in chunk]}}


def delete_snat_entry(s: Store, p: Params, ctx) -> dict:
    _snats(s)
    table = p.req("SnatTableId")
    _ngw_of_table(s, ctx, table)
    entry = s.find("snat_entries", p.req("SnatEntryId"), ctx.region)
    if entry["_table"] != table:
        raise ApiError(404, *NOT_FOUND["snat_entries"])
    if _snat_status(s, entry) != "Available":
        raise ApiError(400, "IncorretSnatEntryStatus", "Some Snat entry status blocked this operation..")
    ctx.dry_run_check()
    entry["_timeline"] = s.timeline((0, "Deleting"))
    entry["_deleting"] = time.monotonic() + s.timings.snat_entry
    return {}


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
    "CreateNatGateway": create_nat_gateway,
    "DescribeNatGateways": describe_nat_gateways,
    "DeleteNatGateway": delete_nat_gateway,
    "CreateSnatEntry": create_snat_entry,
    "DescribeSnatTableEntries": describe_snat_table_entries,
    "DeleteSnatEntry": delete_snat_entry,
}
# VPC CreateVpc / CreateVSwitch / DeleteVpc / DeleteVSwitch take a ClientToken (the VPC models' ClientToken); so do
# AllocateEipAddress, AssociateEipAddress and UnassociateEipAddress (their request models' ClientToken).
# CreateNatGateway, CreateSnatEntry and DeleteSnatEntry too (their request models' ClientToken).
CLIENT_TOKEN = {
    "CreateVpc",
    "CreateVSwitch",
    "AllocateEipAddress",
    "AssociateEipAddress",
    "UnassociateEipAddress",
    "CreateNatGateway",
    "CreateSnatEntry",
    "DeleteSnatEntry",
}


def host_id(region: str) -> str:
    return "vpc.aliyuncs.com"


def dry_run_reply(action: str):
    return ecs.dry_run_reply(action)
