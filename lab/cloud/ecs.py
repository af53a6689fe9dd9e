"""ECS 2014-05-26 actions: VPC, vSwitch, security group, HPC cluster, instances, tags.

Reply shapes follow alibabacloud_ecs20140526's response models (facts file, section 2).
"""

from __future__ import annotations

import base64
import calendar
import hashlib
import ipaddress
import re
import time

from .errors import ApiError, dependency, invalid, missing, no_stock
from .store import Store, now_iso, page, public, token_page
from .wire import Params

VERSION = "2014-05-26"
PRODUCT = "Ecs"

# Private ranges a VPC may use (CreateVpc docs): 10/8, 172.16/12, 192.168/16 and subnets.
_PRIVATE = [ipaddress.IPv4Network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")]

# Instance types the emulator knows: (vCPU, memory GiB, GPUs, GPU spec, SCC, ERIs). SCC types need
# an HPC cluster (RunInstances: "required when you create an SCC instance"). ERIs: DescribeInstanceTypes'
# EriQuantity, the Elastic RDMA Interfaces a type takes (ENIs with NetworkInterfaceTrafficMode=HighPerformance).
INSTANCE_TYPES = {
    "ecs.sccgn6.24xlarge": (96, 384.0, 8, "NVIDIA V100", True, 0),
    "ecs.sccgn6ne.24xlarge": (96, 768.0, 8, "NVIDIA V100", True, 0),
    "ecs.scch5.16xlarge": (64, 192.0, 0, "", True, 0),
    "ecs.gn6v-c8g1.16xlarge": (64, 256.0, 8, "NVIDIA V100", False, 0),
    "ecs.g6.large": (2, 8.0, 0, "", False, 0),
    # General purpose g7 (the data-prep ECS): vCPUs and GiB from AlibabaCloudDocs/ecs, intl.en-US/Instance/
    # Instance type families/General purpose instance families.md ("g7, general purpose instance family").
    "ecs.g7.large": (2, 8.0, 0, "", False, 0),
    "ecs.g7.8xlarge": (32, 128.0, 0, "", False, 0),
    "ecs.g7.16xlarge": (64, 256.0, 0, "", False, 0),
    # ECS Bare Metal eRDMA GPU types (research/hardware_facts.md section 5: vCPUs, GiB, GPUs; 4.6: two eRDMA NICs
    # each, PAI). The GPU spec string of ebmgn8v is the emulator's: the family table names no model (H20 per
    # Alibaba's solution documents).
    "ecs.ebmgn8v.48xlarge": (192, 1024.0, 8, "NVIDIA H20", False, 2),
    "ecs.ebmgn8is.32xlarge": (128, 1024.0, 8, "NVIDIA L20", False, 2),
}

# RunInstances Period per PeriodUnit (alibabacloud_ecs20140526 7.11.8, RunInstancesRequest.period, China site).
PERIODS = {"Month": (1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 24, 36, 48, 60), "Week": (1, 2, 3, 4)}


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
    # VPC 2016-04-28 CreateVpc: an RFC 1918 block with a 16- to 28-bit mask (CreateVpcRequest "CidrBlock"); the ECS
    # 2014-05-26 copy: /8 to /24 (its API reference; unconfirmed in its model, which has no comment). The VPC API's
    # default block when none is given: 172.16.0.0/12 (UNCONFIRMED for the VPC API; ECS's reference).
    shortest, longest = (16, 28) if ctx.service.VERSION == "2016-04-28" else (8, 24)
    if cidr.prefixlen < shortest and p.get("CidrBlock") is None:
        shortest = cidr.prefixlen
    if not any(cidr.subnet_of(n) for n in _PRIVATE) or not shortest <= cidr.prefixlen <= longest:
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
        "_listed_from": s.listed_from(),
        "_timeline": s.timeline((0, "Pending"), (s.timings.vpc, "Available")),
    }
    return {"VpcId": vpc_id, "VRouterId": s.vpcs[vpc_id]["VRouterId"], "RouteTableId": s.new_id("vtb-")}


def describe_vpcs(s: Store, p: Params, ctx) -> dict:
    items = [v for v in s.vpcs.values() if v["_region"] == ctx.region and s.listed(v)]
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
    vpc = s.find("vpcs", p.req("VpcId"), ctx.region)
    if any(sw["VpcId"] == vpc["VpcId"] for sw in s.vswitches.values()):
        raise dependency("DependencyViolation.VSwitch", "Specified VPC has VSwitches.")
    if any(sg["VpcId"] == vpc["VpcId"] for sg in s.security_groups.values()):
        raise dependency("DependencyViolation.SecurityGroup", "Specified VPC has security groups.")
    if s.still_in_use("vpc", vpc["VpcId"]):
        raise dependency("DependencyViolation", "Specified object has dependent resources.")
    return s.delete(ctx, "vpcs", vpc["VpcId"])


# ---- vSwitch -------------------------------------------------------------------------------
def _vswitch_out(s: Store, sw: dict) -> dict:
    out = public(sw)
    out["Status"] = s.status(sw)
    size = ipaddress.IPv4Network(sw["CidrBlock"]).num_addresses
    out["AvailableIpAddressCount"] = size - 4 - len(sw["_used"])
    return out


def create_vswitch(s: Store, p: Params, ctx) -> dict:
    vpc = s.find("vpcs", p.req("VpcId"), ctx.region)
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
        "_listed_from": s.listed_from(),
        "_used": set(),
        "_timeline": s.timeline((0, "Pending"), (s.timings.vpc, "Available")),
    }
    return {"VSwitchId": sw_id}


def describe_vswitches(s: Store, p: Params, ctx) -> dict:
    items = [v for v in s.vswitches.values() if v["_region"] == ctx.region and s.listed(v)]
    for field in ("VpcId", "VSwitchId", "ZoneId", "VSwitchName"):
        if p.get(field):
            items = [v for v in items if v[field] == p.get(field)]
    chunk, meta = page(items, p, max_size=50)
    return {**meta, "VSwitches": {"VSwitch": [_vswitch_out(s, v) for v in chunk]}}


def delete_vswitch(s: Store, p: Params, ctx) -> dict:
    sw = s.find("vswitches", p.req("VSwitchId"), ctx.region)
    users = [i["VpcAttributes"]["VSwitchId"] for i in s.instances.values()]
    users += [f["VswIds"]["VswId"][0] for f in s.file_systems.values()]
    users += [m["VswId"] for m in s.mount_targets.values()]
    users += [x["VSwitchId"] for x in [*s.protocol_services.values(), *s.exports.values()]]
    # An ACK cluster (lab/cloud/cs.py) holds its vSwitches until it is deleted.
    users += [v for c in s.clusters.values() if Store.status(c) != "deleted" for v in c["vswitch_ids"]]
    # A NAT gateway (lab/cloud/vpc.py) holds an address in its vSwitch until its Deleting ends.
    users += [n["_vswitch"] for n in s.nat_gateways.values()]
    if sw["VSwitchId"] in users or s.still_in_use("vswitch", sw["VSwitchId"]):
        raise dependency("DependencyViolation", "Specified object has dependent resources.")
    reply = s.delete(ctx, "vswitches", sw["VSwitchId"])
    s.release_later(vpc=sw["VpcId"])
    return reply


# ---- security group --------------------------------------------------------------------------
_PROTOCOLS = ("tcp", "udp", "icmp", "gre", "all")
_RULE_KEY = ("Direction", "IpProtocol", "PortRange", "SourceCidrIp", "SourceGroupId", "DestCidrIp", "Policy", "NicType")


def _tags_out(resource: dict) -> dict:
    return {"Tag": [{"TagKey": k, "TagValue": v} for k, v in resource.get("_tags", {}).items()]}


def _sg(s: Store, ctx, sg_id: str | None) -> dict:
    return s.find("security_groups", sg_id, ctx.region)


def create_security_group(s: Store, p: Params, ctx) -> dict:
    vpc_id = p.get("VpcId", "")
    if vpc_id:
        s.find("vpcs", vpc_id, ctx.region)
    kind = p.choice("SecurityGroupType", ("normal", "enterprise"), "normal")
    tags = p.tags()
    ctx.dry_run_check()
    sg_id = s.new_id("sg-")
    s.security_groups[sg_id] = {
        "SecurityGroupId": sg_id,
        "SecurityGroupName": p.get("SecurityGroupName", ""),
        "Description": p.get("Description", ""),
        "SecurityGroupType": kind,
        "VpcId": vpc_id,
        "CreationTime": now_iso(seconds=True),
        "_region": ctx.region,
        "_listed_from": s.listed_from(),
        "_rules": [],
        "_tags": {t["Key"]: t.get("Value", "") for t in tags},
    }
    return {"SecurityGroupId": sg_id}


def _rules(p: Params, direction: str) -> list[dict]:
    """The rules of one Authorize/Revoke call: Permissions.N.* or the top-level fields."""
    given = p.numbered_dicts("Permissions") or [
        {
            k: p.get(k)
            for k in (
                "IpProtocol",
                "PortRange",
                "SourceCidrIp",
                "SourceGroupId",
                "DestCidrIp",
                "Policy",
                "Priority",
                "NicType",
                "Description",
            )
            if p.get(k) is not None
        }
    ]
    rules = []
    for raw in given:
        protocol = (raw.get("IpProtocol") or "").lower()
        if not protocol:
            raise missing("IpProtocol")
        if protocol not in _PROTOCOLS:
            raise ApiError(400, "InvalidIpProtocol.Malformed", "The specified parameter IpProtocol is not valid.")
        ports = raw.get("PortRange")
        if not ports:
            raise missing("PortRange")
        low, high = (ports.split("/", 1) + [""])[:2]
        if protocol in ("tcp", "udp"):
            ok = low.isdigit() and high.isdigit() and 1 <= int(low) <= int(high) <= 65535
        else:
            ok = ports == "-1/-1"
        if not ok:
            raise ApiError(400, "InvalidPortRange.Malformed", "The specified parameter PortRange is not valid.")
        if direction == "ingress" and not (raw.get("SourceCidrIp") or raw.get("SourceGroupId")):
            raise missing("SourceCidrIp")
        policy = (raw.get("Policy") or "accept").lower()
        if policy not in ("accept", "drop"):
            raise invalid("Policy")
        priority = raw.get("Priority") or "1"
        if not priority.isdigit() or not 1 <= int(priority) <= 100:
            raise invalid("Priority")
        rules.append(
            {
                "Direction": direction,
                "IpProtocol": protocol.upper(),
                "PortRange": ports,
                "SourceCidrIp": raw.get("SourceCidrIp", ""),
                "SourceGroupId": raw.get("SourceGroupId", ""),
                "DestCidrIp": raw.get("DestCidrIp", ""),
                "Policy": policy.capitalize(),
                "Priority": int(priority),
                "NicType": raw.get("NicType") or "intranet",
                "Description": raw.get("Description", ""),
            }
        )
    return rules


def authorize_security_group(s: Store, p: Params, ctx) -> dict:
    sg = _sg(s, ctx, p.req("SecurityGroupId"))
    rules = _rules(p, "ingress")
    for rule in rules:
        if rule["SourceGroupId"]:
            _sg(s, ctx, rule["SourceGroupId"])
    ctx.dry_run_check()
    for rule in rules:
        key = tuple(rule[k] for k in _RULE_KEY)
        # An identical rule is not added twice; the call still succeeds.
        if not any(tuple(r[k] for k in _RULE_KEY) == key for r in sg["_rules"]):
            sg["_rules"].append({**rule, "SecurityGroupRuleId": s.new_id("sgr-"), "CreateTime": now_iso(seconds=True)})
    return {}


def revoke_security_group(s: Store, p: Params, ctx) -> dict:
    sg = _sg(s, ctx, p.req("SecurityGroupId"))
    rules = _rules(p, "ingress")
    ctx.dry_run_check()
    keys = {tuple(r[k] for k in _RULE_KEY) for r in rules}
    sg["_rules"] = [r for r in sg["_rules"] if tuple(r[k] for k in _RULE_KEY) not in keys]
    return {}


def describe_security_group_attribute(s: Store, p: Params, ctx) -> dict:
    sg = _sg(s, ctx, p.req("SecurityGroupId"))
    direction = p.choice("Direction", ("ingress", "egress", "all"), "all")
    rules = [r for r in sg["_rules"] if direction == "all" or r["Direction"] == direction]
    return {
        "RegionId": ctx.region,
        "SecurityGroupId": sg["SecurityGroupId"],
        "SecurityGroupName": sg["SecurityGroupName"],
        "Description": sg["Description"],
        "VpcId": sg["VpcId"],
        "InnerAccessPolicy": "Accept" if sg["SecurityGroupType"] == "normal" else "Drop",
        "Permissions": {"Permission": [dict(r) for r in sorted(rules, key=lambda r: r["Priority"])]},
    }


def _sg_out(s: Store, sg: dict) -> dict:
    out = public(sg)
    out["Tags"] = _tags_out(sg)
    out["EcsCount"] = sum(
        sg["SecurityGroupId"] in i["SecurityGroupIds"]["SecurityGroupId"] for i in s.instances.values()
    )
    return out


def describe_security_groups(s: Store, p: Params, ctx) -> dict:
    items = [g for g in s.security_groups.values() if g["_region"] == ctx.region and s.listed(g)]
    for field in ("VpcId", "SecurityGroupId", "SecurityGroupName", "SecurityGroupType"):
        if p.get(field):
            items = [g for g in items if g[field] == p.get(field)]
    ids = p.json_list("SecurityGroupIds")
    if ids is not None:
        items = [g for g in items if g["SecurityGroupId"] in ids]
    items = [g for g in items if s.tags_match(g, p.tags())]
    if p.get("NextToken") is not None or p.get("MaxResults") is not None:
        # NextToken/MaxResults (at most 100: DescribeSecurityGroups reference, MaxResults "Maximum value: 100")
        chunk, meta = token_page(items, p, max_size=100)
    else:
        chunk, meta = page(items, p, max_size=50)
        meta["NextToken"] = ""
    return {"RegionId": ctx.region, **meta, "SecurityGroups": {"SecurityGroup": [_sg_out(s, g) for g in chunk]}}


def delete_security_group(s: Store, p: Params, ctx) -> dict:
    sg = _sg(s, ctx, p.req("SecurityGroupId"))
    in_use = any(sg["SecurityGroupId"] in i["SecurityGroupIds"]["SecurityGroupId"] for i in s.instances.values())
    if in_use or s.still_in_use("security_group", sg["SecurityGroupId"]):
        raise dependency("DependencyViolation", "There is still instance(s) in the specified security group.")
    reply = s.delete(ctx, "security_groups", sg["SecurityGroupId"])
    s.release_later(vpc=sg["VpcId"])
    return reply


# ---- HPC cluster ---------------------------------------------------------------------------
def _hpc(s: Store, ctx, hpc_id: str | None) -> dict:
    return s.find("hpc_clusters", hpc_id, ctx.region)


def create_hpc_cluster(s: Store, p: Params, ctx) -> dict:
    name = p.req("Name")
    ctx.dry_run_check()
    hpc_id = s.new_id("hpc-")
    s.hpc_clusters[hpc_id] = {
        "HpcClusterId": hpc_id,
        "Name": name,
        "Description": p.get("Description", ""),
        "_region": ctx.region,
        "_listed_from": s.listed_from(),
    }
    return {"HpcClusterId": hpc_id}


def describe_hpc_clusters(s: Store, p: Params, ctx) -> dict:
    items = [h for h in s.hpc_clusters.values() if h["_region"] == ctx.region and s.listed(h)]
    ids = p.json_list("HpcClusterIds")
    if ids is not None:
        items = [h for h in items if h["HpcClusterId"] in ids]
    chunk, meta = page(items, p)
    return {**meta, "HpcClusters": {"HpcCluster": [public(h) for h in chunk]}}


def delete_hpc_cluster(s: Store, p: Params, ctx) -> dict:
    hpc = _hpc(s, ctx, p.req("HpcClusterId"))
    in_use = any(i["HpcClusterId"] == hpc["HpcClusterId"] for i in s.instances.values())
    if in_use or s.still_in_use("hpc_cluster", hpc["HpcClusterId"]):
        raise dependency("DependencyViolation", "Specified object has dependent resources.")
    return s.delete(ctx, "hpc_clusters", hpc["HpcClusterId"])


# ---- instances -----------------------------------------------------------------------------
def _instance(s: Store, ctx, instance_id: str | None) -> dict:
    return s.find("instances", instance_id, ctx.region)


# What the emulator keeps of an instance that DescribeInstances does not report (its response model,
# DescribeInstancesResponseBodyInstancesInstance, has no such field): shown by emu.instances() for the tests, left
# out of the wire reply. AutoRenew: DescribeInstanceAutoRenewAttribute's; a NIC's NetworkInterfaceTrafficMode and
# NetworkCardIndex: DescribeNetworkInterfaces'.
INSPECTION_ONLY = ("AutoRenew",)
NIC_INSPECTION_ONLY = ("NetworkInterfaceTrafficMode", "NetworkCardIndex")


def no_eip() -> dict:
    """DescribeInstances' EipAddress of an instance without an EIP (empty fields, as the API reports them)."""
    return {"AllocationId": "", "IpAddress": "", "Bandwidth": 0, "InternetChargeType": "", "IsSupportUnassociate": True}


def instance_out(s: Store, inst: dict, wire: bool = False) -> dict:
    """An instance as emu.instances() shows it; ``wire``: as DescribeInstances reports it."""
    out = public(inst)
    out["Status"] = s.status(inst)
    out["Tags"] = _tags_out(inst)
    if wire:
        for key in INSPECTION_ONLY:
            out.pop(key, None)
        nics = out.get("NetworkInterfaces", {}).get("NetworkInterface", [])
        out["NetworkInterfaces"] = {
            "NetworkInterface": [{k: v for k, v in nic.items() if k not in NIC_INSPECTION_ONLY} for nic in nics]
        }
    return out


def run_instances(s: Store, p: Params, ctx) -> dict:
    itype = p.req("InstanceType")
    if itype not in INSTANCE_TYPES:
        # github.com/rancher/rancher/issues/10220: "Status Code: 400 Code:
        # InvalidInstanceType.ValueNotSupported Message: The specified instanceType beyond ..."
        raise ApiError(
            400, "InvalidInstanceType.ValueNotSupported", "The specified instanceType beyond the permitted range."
        )
    cpu, memory, gpus, gpu_spec, scc, eri_limit = INSTANCE_TYPES[itype]
    image = p.req("ImageId")
    sw = s.find("vswitches", p.req("VSwitchId"), ctx.region)
    if p.get("ZoneId") and p.get("ZoneId") != sw["ZoneId"]:
        raise ApiError(400, "InvalidParameter.Mismatch", "Specified virtual switch is not in the specified zone.")
    sg_ids = p.numbered("SecurityGroupIds") or ([p.get("SecurityGroupId")] if p.get("SecurityGroupId") else [])
    if p.numbered("SecurityGroupIds") and p.get("SecurityGroupId"):
        raise invalid("SecurityGroupId", "SecurityGroupId and SecurityGroupIds.N cannot be set together.")
    if not sg_ids:
        raise missing("SecurityGroupId")
    for sg_id in sg_ids:
        if _sg(s, ctx, sg_id)["VpcId"] != sw["VpcId"]:
            raise ApiError(
                400,
                "InvalidSecurityGroupId.NotVpc",
                "The specified security group and VSwitch are not in the same VPC.",
            )
    hpc_id = p.get("HpcClusterId")
    if scc and not hpc_id:
        raise ApiError(400, "InvalidHpcClusterId.Necessary", "The HpcClusterId is necessary")
    if hpc_id and not scc:
        raise ApiError(400, "InvalidHpcClusterId.Unnecessary", "The specified HpcClusterId is unnecessary.")
    if hpc_id:
        _hpc(s, ctx, hpc_id)
    eris = _eri_requests(s, p, ctx, sw, eri_limit)
    charge = _charge(p)
    jumbo = p.get("NetworkOptions.EnableJumboFrame")
    jumbo_frames = True if jumbo is None else p.bool("NetworkOptions.EnableJumboFrame")  # the API's default: true
    amount = p.int("Amount", 1, 1, 100)
    min_amount = p.int("MinAmount", amount, 1, amount)
    tags = p.tags()
    bandwidth = p.int("InternetMaxBandwidthOut", 0, 0, 100)
    if p.get("PrivateIpAddress") and amount > 1:
        raise invalid("PrivateIpAddress", "It can be set only when Amount is 1.")
    available = s.available(itype)
    if available < min_amount:
        raise no_stock()
    count = min(amount, available)
    # Addresses from the vSwitch: a private one, and an RDMA one for SCC types, unless lab-backed.
    needed = 0 if s.backing else count * ((2 if scc else 1) + len(eris))
    if ipaddress.IPv4Network(sw["CidrBlock"]).num_addresses - 4 - len(sw["_used"]) < needed:
        raise ApiError(403, "InvalidVSwitchId.IpNotEnough", "The specified VSwitch has not enough IpAddress.")
    ctx.dry_run_check()
    ids = []
    name = p.get("InstanceName")
    for n in range(count):
        inst_id = s.new_id("i-")
        backing = s.take_backing_host(inst_id)
        private = backing or s.take_address(sw)
        # Lab hosts have no RDMA network: a backed instance reports its one address for both.
        rdma = ([backing] if backing else [s.take_address(sw)]) if scc else []
        eri_nics = [
            {
                "NetworkInterfaceId": s.new_id("eni-"),
                "Type": "Secondary",
                "NetworkInterfaceTrafficMode": "HighPerformance",
                "NetworkCardIndex": eri["NetworkCardIndex"],
                "PrimaryIpAddress": backing or s.take_address(eri["_vswitch"]),
            }
            for eri in eris
        ]
        this_name = name or inst_id
        if name and p.bool("UniqueSuffix") and count > 1:
            this_name = f"{name}{n + 1:03d}"
        s.instances[inst_id] = {
            "InstanceId": inst_id,
            "InstanceName": this_name,
            "HostName": p.get("HostName") or ("iZ" + inst_id[2:] + "Z"),
            "Description": p.get("Description", ""),
            "RegionId": ctx.region,
            "ZoneId": sw["ZoneId"],
            "InstanceType": itype,
            "InstanceTypeFamily": family(itype),
            "ImageId": image,
            "OSType": "linux",
            "Cpu": cpu,
            "Memory": int(memory * 1024),
            "GPUAmount": gpus,
            "GPUSpec": gpu_spec,
            "HpcClusterId": hpc_id or "",
            "DeploymentSetId": p.get("DeploymentSetId", ""),
            **charge,
            "InstanceNetworkType": "vpc",
            "InternetMaxBandwidthOut": bandwidth,
            "CreationTime": now_iso(),
            "StartTime": now_iso(),
            "StoppedMode": "Not-applicable",
            "DeletionProtection": False,
            "VpcAttributes": {
                "VpcId": sw["VpcId"],
                "VSwitchId": sw["VSwitchId"],
                "PrivateIpAddress": {"IpAddress": [private]},
                "NatIpAddress": "",
            },
            "SecurityGroupIds": {"SecurityGroupId": list(sg_ids)},
            "RdmaIpAddress": {"IpAddress": rdma},
            "PublicIpAddress": {"IpAddress": []},
            # The EIP associated with it (AssociateEipAddress, lab/cloud/vpc.py), empty fields while none is.
            "EipAddress": no_eip(),
            "InnerIpAddress": {"IpAddress": []},
            "NetworkInterfaces": {
                "NetworkInterface": [
                    {"NetworkInterfaceId": s.new_id("eni-"), "Type": "Primary", "PrimaryIpAddress": private},
                    *eri_nics,
                ]
            },
            "_jumbo_frames": jumbo_frames,
            "OperationLocks": {"LockReason": []},
            "_region": ctx.region,
            "_listed_from": s.listed_from(),
            "_vswitch": sw["VSwitchId"],
            "_backing": backing,
            "_addresses": [a for a in [private, *rdma, *(n["PrimaryIpAddress"] for n in eri_nics)] if a != backing],
            "_tags": {t["Key"]: t.get("Value", "") for t in tags},
            "_timeline": s.timeline(
                (0, "Pending"), (s.timings.instance_pending, "Starting"), (s.timings.instance_starting, "Running")
            ),
        }
        ids.append(inst_id)
    return {"InstanceIdSets": {"InstanceIdSet": ids}, "OrderId": "", "TradePrice": 0.0}


def _eri_requests(s: Store, p: Params, ctx, sw: dict, limit: int) -> list[dict]:
    """RunInstances' NetworkInterface.N.* in HighPerformance mode (Elastic RDMA Interfaces), each checked: its
    VSwitch and security group known and in the instance's VPC, at most the type's EriQuantity. The code for too
    many is the emulator's (the API documents the rule, "cannot exceed the limit of the instance family", not the
    code)."""
    eris = []
    for n, nic in enumerate(p.numbered_dicts("NetworkInterface"), start=1):
        mode = nic.get("NetworkInterfaceTrafficMode", "Standard")
        if mode not in ("Standard", "HighPerformance"):
            raise invalid(
                f"NetworkInterface.{n}.NetworkInterfaceTrafficMode", "Valid values: Standard, HighPerformance."
            )
        if nic.get("InstanceType", "Secondary") != "Secondary" or mode != "HighPerformance":
            continue
        nic_sw = s.find("vswitches", nic.get("VSwitchId") or sw["VSwitchId"], ctx.region)
        if nic_sw["VpcId"] != sw["VpcId"] or _sg(s, ctx, nic.get("SecurityGroupId"))["VpcId"] != sw["VpcId"]:
            raise ApiError(
                400,
                "InvalidSecurityGroupId.NotVpc",
                "The specified security group and VSwitch are not in the same VPC.",
            )
        eris.append({"NetworkCardIndex": int(nic.get("NetworkCardIndex") or 0), "_vswitch": nic_sw})
    if len(eris) > limit:
        raise invalid(
            "NetworkInterface.N.NetworkInterfaceTrafficMode",
            f"The number of ENIs in RDMA mode ({len(eris)}) exceeds the limit of the instance family ({limit}).",
        )
    return eris


def _charge(p: Params) -> dict:
    """InstanceChargeType and, for PrePaid, Period/PeriodUnit (required and checked), AutoRenew and the
    ExpiredTime DescribeInstances shows (ISO 8601 UTC, minutes)."""
    charge_type = p.choice("InstanceChargeType", ("PostPaid", "PrePaid"), "PostPaid")
    if charge_type == "PostPaid":
        return {"InstanceChargeType": "PostPaid", "ExpiredTime": "2099-12-31T15:59Z"}
    unit = p.choice("PeriodUnit", ("Week", "Month"), "Month")
    period = p.int("Period", 0, 0, 60)
    if period == 0:
        raise missing("Period")
    if period not in PERIODS[unit]:
        raise invalid("Period", "Valid values for PeriodUnit %s: %s." % (unit, ", ".join(map(str, PERIODS[unit]))))
    days = period * (7 if unit == "Week" else 30)
    return {
        "InstanceChargeType": "PrePaid",
        "ExpiredTime": now_iso(time.time() + days * 86400),
        "AutoRenew": p.bool("AutoRenew"),
        "_period": (period, unit),
    }


def _expired(inst: dict) -> bool:
    return calendar.timegm(time.strptime(inst["ExpiredTime"], "%Y-%m-%dT%H:%MZ")) <= time.time()


def _fuzzy(pattern: str, value: str) -> bool:
    # InstanceName filter: "*" matches anything (DescribeInstances docs: fuzzy search).
    return re.fullmatch(".*".join(re.escape(part) for part in pattern.split("*")), value) is not None


def describe_instances(s: Store, p: Params, ctx) -> dict:
    items = [i for i in s.instances.values() if i["_region"] == ctx.region and s.listed(i)]
    ids = p.json_list("InstanceIds")
    if ids is not None:
        if len(ids) > 100:
            raise invalid("InstanceIds", "At most 100 ids.")
        items = [i for i in items if i["InstanceId"] in ids]
    if p.get("Status"):
        items = [i for i in items if s.status(i) == p.get("Status")]
    for field in ("ZoneId", "InstanceType", "InstanceTypeFamily", "HpcClusterId", "ImageId"):
        if p.get(field):
            items = [i for i in items if i[field] == p.get(field)]
    for field in ("VpcId", "VSwitchId"):
        if p.get(field):
            items = [i for i in items if i["VpcAttributes"][field] == p.get(field)]
    if p.get("SecurityGroupId"):
        items = [i for i in items if p.get("SecurityGroupId") in i["SecurityGroupIds"]["SecurityGroupId"]]
    if p.get("InstanceName"):
        items = [i for i in items if _fuzzy(p.get("InstanceName"), i["InstanceName"])]
    wanted = p.json_list("PrivateIpAddresses")
    if wanted is not None:
        items = [i for i in items if set(i["VpcAttributes"]["PrivateIpAddress"]["IpAddress"]) & set(wanted)]
    wanted = p.json_list("RdmaIpAddresses")
    if wanted is not None:
        items = [i for i in items if set(i["RdmaIpAddress"]["IpAddress"]) & set(wanted)]
    items = [i for i in items if s.tags_match(i, p.tags())]
    if p.get("NextToken") is not None or p.get("MaxResults") is not None:
        chunk, meta = token_page(items, p)
        meta.update(PageNumber=1, PageSize=len(chunk))
    else:
        chunk, meta = page(items, p)
        meta["NextToken"] = ""
    return {**meta, "Instances": {"Instance": [instance_out(s, i, wire=True) for i in chunk]}}


def _check_deletable(s: Store, inst: dict, force: bool, terminate_subscription: bool = False) -> None:
    if inst["InstanceChargeType"] == "PrePaid" and not (terminate_subscription and _expired(inst)):
        # DeleteInstance(s) TerminateSubscription: "whether to release an expired subscription instance"
        # (alibabacloud_ecs20140526 7.11.8); the code is the emulator's (UNCONFIRMED).
        raise ApiError(
            403, "InvalidInstanceChargeType.NotSupport", "A subscription instance can be released only once expired."
        )
    status = s.status(inst)
    if status == "Pending":
        raise ApiError(
            403,
            "IncorrectInstanceStatus.Initializing",
            "The specified instance is in initializing, please try again later.",
        )
    if status != "Stopped" and not force:
        raise ApiError(
            403, "IncorrectInstanceStatus", "The current status of the resource does not support this operation."
        )


def _release(s: Store, inst: dict) -> None:
    sw = s.vswitches.get(inst["_vswitch"])
    if sw is not None:
        sw["_used"].difference_update(inst["_addresses"])
    if inst["_backing"]:
        s.backing[inst["_backing"]] = None
    # An EIP associated with it stays allocated, no longer associated (the emulator's reading of DeleteInstance:
    # releasing an instance does not release its EIP; UNCONFIRMED).
    for eip in s.eips.values():
        if eip["InstanceId"] == inst["InstanceId"]:
            eip.update(InstanceId="", InstanceType="", InstanceRegionId="", PrivateIpAddress="")
    del s.instances[inst["InstanceId"]]
    s.release_later(
        vswitch=inst["_vswitch"],
        security_group=inst["SecurityGroupIds"]["SecurityGroupId"],
        hpc_cluster=inst["HpcClusterId"] or None,
    )


def delete_instance(s: Store, p: Params, ctx) -> dict:
    inst = _instance(s, ctx, p.req("InstanceId"))
    _check_deletable(s, inst, p.bool("Force"), p.bool("TerminateSubscription"))
    ctx.dry_run_check()
    _release(s, inst)
    return {}


def _numbered_instances(s: Store, p: Params, ctx) -> list[dict]:
    """The instances InstanceId.1..N name (1 to 100 of them, as the batch actions take), each known."""
    ids = p.numbered("InstanceId")
    if not ids:
        raise missing("InstanceId.1")
    if len(ids) > 100:
        raise invalid("InstanceId", "At most 100 ids.")
    return [_instance(s, ctx, i) for i in ids]


def delete_instances(s: Store, p: Params, ctx) -> dict:
    found = _numbered_instances(s, p, ctx)
    for inst in found:
        _check_deletable(s, inst, p.bool("Force"), p.bool("TerminateSubscription"))
    ctx.dry_run_check()
    for inst in found:
        _release(s, inst)
    return {}


def _require_status(s: Store, inst: dict, status: str) -> str:
    """The instance's status, which must be ``status`` for the action to go on."""
    current = s.status(inst)
    if current != status:
        raise ApiError(
            403, "IncorrectInstanceStatus", "The current status of the resource does not support this operation."
        )
    return current


def _stop(s: Store, inst: dict) -> str:
    previous = _require_status(s, inst, "Running")
    inst["_timeline"] = s.timeline((0, "Stopping"), (s.timings.instance_stopping, "Stopped"))
    inst["StoppedMode"] = "KeepCharging"
    return previous


def stop_instance(s: Store, p: Params, ctx) -> dict:
    inst = _instance(s, ctx, p.req("InstanceId"))
    _require_status(s, inst, "Running")
    ctx.dry_run_check()
    _stop(s, inst)
    return {}


def stop_instances(s: Store, p: Params, ctx) -> dict:
    found = _numbered_instances(s, p, ctx)
    ctx.dry_run_check()
    responses = []
    for inst in found:
        try:
            previous = _stop(s, inst)
            responses.append(
                {
                    "InstanceId": inst["InstanceId"],
                    "Code": "200",
                    "Message": "success",
                    "PreviousStatus": previous,
                    "CurrentStatus": "Stopping",
                }
            )
        except ApiError as err:
            responses.append(
                {
                    "InstanceId": inst["InstanceId"],
                    "Code": err.code,
                    "Message": err.message,
                    "PreviousStatus": s.status(inst),
                    "CurrentStatus": s.status(inst),
                }
            )
    return {"InstanceResponses": {"InstanceResponse": responses}}


def start_instance(s: Store, p: Params, ctx) -> dict:
    inst = _instance(s, ctx, p.req("InstanceId"))
    _require_status(s, inst, "Stopped")
    ctx.dry_run_check()
    inst["_timeline"] = s.timeline((0, "Starting"), (s.timings.instance_starting, "Running"))
    inst["StoppedMode"] = "Not-applicable"
    return {}


# ---- tags ----------------------------------------------------------------------------------
def _taggable(s: Store, p: Params, ctx) -> list[dict]:
    kind = p.req("ResourceType").lower()
    tables = {"instance": "instances", "securitygroup": "security_groups"}
    if kind not in tables:
        raise invalid("ResourceType", "Valid values here: instance, securitygroup.")
    ids = p.numbered("ResourceId")
    if len(ids) > 50:
        raise invalid("ResourceId", "At most 50 ids.")
    return [s.find(tables[kind], i, ctx.region, f"The specified resource {i} does not exist.") for i in ids]


def tag_resources(s: Store, p: Params, ctx) -> dict:
    resources = _taggable(s, p, ctx)
    if not resources:
        raise missing("ResourceId.1")
    tags = p.tags()
    if not tags:
        raise missing("Tag.1.Key")
    ctx.dry_run_check()
    for resource in resources:
        resource["_tags"].update({t["Key"]: t.get("Value", "") for t in tags})
    return {}


def untag_resources(s: Store, p: Params, ctx) -> dict:
    resources = _taggable(s, p, ctx)
    keys = p.numbered("TagKey")
    everything = p.bool("All")
    ctx.dry_run_check()
    for resource in resources:
        for key in list(resource["_tags"]):
            if everything or key in keys:
                del resource["_tags"][key]
    return {}


def list_tag_resources(s: Store, p: Params, ctx) -> dict:
    kind = p.req("ResourceType").lower()
    if p.numbered("ResourceId"):
        resources = _taggable(s, p, ctx)
    else:
        table = {"instance": s.instances, "securitygroup": s.security_groups}.get(kind)
        if table is None:
            raise invalid("ResourceType", "Valid values here: instance, securitygroup.")
        resources = [r for r in table.values() if r["_region"] == ctx.region]
    resources = [r for r in resources if s.tags_match(r, p.tags())]
    id_key = "InstanceId" if kind == "instance" else "SecurityGroupId"
    rows = [
        {"ResourceType": kind, "ResourceId": r[id_key], "TagKey": k, "TagValue": v}
        for r in resources
        for k, v in r["_tags"].items()
    ]
    chunk, meta = token_page(rows, p, max_size=1000)
    return {"NextToken": meta["NextToken"], "TagResources": {"TagResource": chunk}}


def describe_instance_types(s: Store, p: Params, ctx) -> dict:
    wanted = p.numbered("InstanceTypes")
    rows = []
    for type_id, (cpu, memory, gpus, gpu_spec, _scc, eris) in INSTANCE_TYPES.items():
        if wanted and type_id not in wanted:
            continue
        if p.get("InstanceTypeFamily") and family(type_id) != p.get("InstanceTypeFamily"):
            continue
        rows.append(
            {
                "InstanceTypeId": type_id,
                "InstanceTypeFamily": family(type_id),
                "CpuCoreCount": cpu,
                "MemorySize": memory,
                "GPUAmount": gpus,
                "GPUSpec": gpu_spec,
                "EriQuantity": eris,
            }
        )
    return {"NextToken": "", "InstanceTypes": {"InstanceType": rows}}


def image_boot_mode(s: Store, image_id: str) -> str:
    """The BootMode DescribeImages reports: set per image in ``s.images``, else read from the name as the
    emulator's convention: Alibaba Cloud Linux's UEFI editions carry ``uefi`` in their image names
    (aliyun_3_x64_20G_uefi_alibase_<date>.vhd), everything else boots BIOS."""
    return s.images.get(image_id) or ("UEFI" if "uefi" in image_id.lower() else "BIOS")


def describe_images(s: Store, p: Params, ctx) -> dict:
    """DescribeImages by ImageId: every image ID is an available image (RunInstances accepts any); the reply
    carries Images.Image[].ImageId/Status/BootMode (alibabacloud_ecs20140526 7.11.8
    DescribeImagesResponseBodyImagesImage; BootMode BIOS, UEFI or UEFI-Preferred)."""
    image_id = p.get("ImageId")
    rows = (
        [] if not image_id else [{"ImageId": image_id, "Status": "Available", "BootMode": image_boot_mode(s, image_id)}]
    )
    chunk, meta = page(rows, p)
    return {**meta, "RegionId": ctx.region, "Images": {"Image": chunk}}


# ---- console (cloud-init's host keys) -------------------------------------------------------
def _new_host_keys() -> list[str]:
    """An ed25519 and an ECDSA P-256 host key of an emulated instance (OpenSSH public key lines)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519

    pub = serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
    return [
        ed25519.Ed25519PrivateKey.generate().public_key().public_bytes(*pub).decode(),
        ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(*pub).decode(),
    ]


def host_keys(s: Store, inst: dict) -> list[str]:
    """The instance's SSH host public keys: its backing lab host's (``s.host_keys``), else made once for it."""
    if "_host_keys" not in inst:
        backing = inst.get("_backing")
        inst["_host_keys"] = list(s.host_keys.get(backing) or []) if backing else []
        if not inst["_host_keys"]:
            inst["_host_keys"] = _new_host_keys()
    return inst["_host_keys"]


_FP_TYPE = {"ssh-ed25519": (256, "ED25519"), "ecdsa-sha2-nistp256": (256, "ECDSA"), "ssh-rsa": (3072, "RSA")}


def console_output(s: Store, inst: dict) -> str:
    """The serial console of an instance as text: empty before it runs; the kernel's first lines while it boots;
    then cloud-init's host key block as canonical/cloud-init tools/write-ssh-key-fingerprints prints it (through
    ``logger --stderr -t ec2``: every line ``ec2: ``), the fingerprints ssh-keygen -l's, lines ending in \r\n."""
    if s.status(inst) != "Running":
        return ""
    lines = [
        "[    0.000000] Linux version 5.10.134-16.al8.x86_64 (mockbuild@x86-build-1) #1 SMP",
        "[    1.234567] Run /init as init process",
    ]
    running_since = max(at for at, status in inst["_timeline"] if status == "Running")
    if time.monotonic() >= running_since + s.timings.console_keys:
        keys = host_keys(s, inst)
        comment = "root@" + inst["HostName"]
        fps = []
        for key in keys:
            key_type, blob = key.split()[:2]
            bits, label = _FP_TYPE.get(key_type, (0, key_type.upper()))
            digest = base64.b64encode(hashlib.sha256(base64.b64decode(blob)).digest()).decode().rstrip("=")
            fps.append(f"{bits} SHA256:{digest} {comment} ({label})")
        block = [
            "",
            "#############################################################",
            "-----BEGIN SSH HOST KEY FINGERPRINTS-----",
            *fps,
            "-----END SSH HOST KEY FINGERPRINTS-----",
            "#############################################################",
            "-----BEGIN SSH HOST KEY KEYS-----",
            *(" ".join(k.split()[:2]) + " " + comment for k in keys),
            "-----END SSH HOST KEY KEYS-----",
        ]
        lines += ["ec2: " + line if line else "ec2:" for line in block]
        lines.append("Cloud-init v. 23.2.2 finished. Datasource DataSourceAliYun.")
    return "".join(line + "\r\n" for line in lines)


def get_instance_console_output(s: Store, p: Params, ctx) -> dict:
    """GetInstanceConsoleOutput (alibabacloud_ecs20140526 7.11.8: InstanceId and RegionId required, RemoveSymbols
    optional; the reply's ConsoleOutput "The Base64-encoded system command line output of the instance",
    LastUpdateTime "in UTC+8. Format: yyyy-MM-dd HH:mm:ss")."""
    inst = _instance(s, ctx, p.req("InstanceId"))
    if p.get("RemoveSymbols") is not None:
        p.bool("RemoveSymbols")  # checked; the emulator's console carries no formatting symbols to remove
    text = console_output(s, inst)
    return {
        "InstanceId": inst["InstanceId"],
        "ConsoleOutput": base64.b64encode(text.encode()).decode(),
        "LastUpdateTime": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(time.time() + 8 * 3600)),
    }


ACTIONS = {
    "GetInstanceConsoleOutput": get_instance_console_output,
    "DescribeInstanceTypes": describe_instance_types,
    "DescribeImages": describe_images,
    "CreateVpc": create_vpc,
    "DescribeVpcs": describe_vpcs,
    "DeleteVpc": delete_vpc,
    "CreateVSwitch": create_vswitch,
    "DescribeVSwitches": describe_vswitches,
    "DeleteVSwitch": delete_vswitch,
    "CreateSecurityGroup": create_security_group,
    "AuthorizeSecurityGroup": authorize_security_group,
    "RevokeSecurityGroup": revoke_security_group,
    "DescribeSecurityGroupAttribute": describe_security_group_attribute,
    "DescribeSecurityGroups": describe_security_groups,
    "DeleteSecurityGroup": delete_security_group,
    "CreateHpcCluster": create_hpc_cluster,
    "DescribeHpcClusters": describe_hpc_clusters,
    "DeleteHpcCluster": delete_hpc_cluster,
    "RunInstances": run_instances,
    "DescribeInstances": describe_instances,
    "DeleteInstance": delete_instance,
    "DeleteInstances": delete_instances,
    "StopInstance": stop_instance,
    "StopInstances": stop_instances,
    "StartInstance": start_instance,
    "TagResources": tag_resources,
    "UntagResources": untag_resources,
    "ListTagResources": list_tag_resources,
}
# Actions that honour ClientToken: a repeat with the same token and parameters returns the
# first reply; with other parameters, IdempotentParameterMismatch.
CLIENT_TOKEN = {
    "CreateVpc",
    "CreateVSwitch",
    "CreateSecurityGroup",
    "AuthorizeSecurityGroup",
    "CreateHpcCluster",
    "DeleteHpcCluster",
    "RunInstances",
    "DeleteInstances",
}


def host_id(region: str) -> str:
    return "ecs.aliyuncs.com"


def dry_run_reply(action: str):
    """A passing DryRun is an error reply (ECS docs); StopInstances/DeleteInstances use DRYRUN.SUCCESS."""
    if action in ("StopInstances", "DeleteInstances"):
        return ApiError(400, "DRYRUN.SUCCESS", "This request is a dryrun request with successful result.")
    return ApiError(400, "DryRunOperation", "Request validation has been passed with DryRun flag set.")
