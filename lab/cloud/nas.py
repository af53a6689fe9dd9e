"""NAS 2017-06-26 actions for CPFS: file systems, mount targets, the CPFS-NFS protocol service.

Reply shapes follow alibabacloud_nas20170626's response models (facts file, section 3).
"""

from __future__ import annotations

from .errors import ApiError, dependency, invalid, missing
from .store import NOT_FOUND, Store, now_iso, page, public, token_page
from .wire import Params

VERSION = "2017-06-26"
PRODUCT = "NAS"


def host_id(region: str) -> str:
    return f"nas.{region}.aliyuncs.com" if region else "nas.aliyuncs.com"


def dry_run_reply(action: str):
    """NAS answers a passing DryRun with 200 and empty ids (CreateFileSystem docs)."""
    return {
        "CreateFileSystem": {"FileSystemId": ""},
        "CreateMountTarget": {"MountTargetDomain": ""},
        "CreateProtocolService": {"ProtocolServiceId": ""},
        "CreateProtocolMountTarget": {"ExportId": ""},
    }.get(action, {})


def _fs(s: Store, ctx, fs_id: str | None) -> dict:
    return s.find("file_systems", fs_id, ctx.region)


def _vpc_vswitch(s: Store, p: Params, ctx) -> tuple[dict, dict]:
    vpc = s.find("vpcs", p.req("VpcId"), ctx.region)
    sw = s.find("vswitches", p.req("VSwitchId"), ctx.region)
    if sw["VpcId"] != vpc["VpcId"]:
        raise ApiError(400, "InvalidVSwitchId.NotInVpc", "The specified VSwitch is not in the specified VPC.")
    return vpc, sw


def _add_part(s: Store, ctx, fs: dict, table: str, key: str, fields: dict, *timeline: tuple[float, str]) -> None:
    """Store a new part of file system ``fs`` (mount target, protocol service, export) under ``key``:
    its API ``fields`` and the internal ones, its status changing along ``timeline``."""
    getattr(s, table)[key] = {
        **fields,
        "_fs": fs["FileSystemId"],
        "_region": ctx.region,
        "_listed_from": s.listed_from(),
        "_timeline": s.timeline(*timeline),
    }


def _running(s: Store, fs: dict) -> None:
    if s.status(fs) != "Running":
        raise ApiError(
            403, "InvalidStatus.FileSystem", "The current status of the file system does not support this operation."
        )


# ---- file systems --------------------------------------------------------------------------
def _mount_targets_of(s: Store, fs_id: str) -> list[dict]:
    return [m for m in s.mount_targets.values() if m["_fs"] == fs_id]


def _mt_out(s: Store, mt: dict) -> dict:
    out = public(mt)
    out["Status"] = s.status(mt)
    return out


def _fs_mt_out(s: Store, mt: dict) -> dict:
    """A mount target as DescribeFileSystems embeds it: its model (DescribeFileSystemsResponseBodyFileSystems-
    FileSystemMountTargetsMountTarget) names the access group AccessGroupName and has no IPVersion, unlike
    DescribeMountTargets' (AccessGroup, IPVersion)."""
    out = {k: v for k, v in _mt_out(s, mt).items() if k not in ("AccessGroup", "IPVersion")}
    out["AccessGroupName"] = mt["AccessGroup"]
    return out


def _fs_out(s: Store, fs: dict) -> dict:
    out = public(fs)
    out["Status"] = s.status(fs)
    listed = [m for m in _mount_targets_of(s, fs["FileSystemId"]) if s.listed(m)]
    out["MountTargets"] = {"MountTarget": [_fs_mt_out(s, m) for m in listed]}
    out["Tags"] = {"Tag": [{"Key": k, "Value": v} for k, v in fs["_tags"].items()]}
    return out


def create_file_system(s: Store, p: Params, ctx) -> dict:
    kind = p.choice("FileSystemType", ("standard", "extreme", "cpfs", "cpfsse"), "standard")
    if kind not in ("cpfs", "cpfsse"):
        raise invalid("FileSystemType", "The emulator serves CPFS only (cpfs, cpfsse).")
    if p.req("ProtocolType") != "cpfs":
        raise invalid("ProtocolType", "It must be cpfs for a CPFS file system.")
    storage = p.choice("StorageType", ("advance_100", "advance_200", "economic"))
    if storage is None:
        raise missing("StorageType")
    capacity = p.int("Capacity", 0, 1, 1_000_000)
    if capacity == 0:
        raise missing("Capacity")
    zone = p.req("ZoneId")
    sw = _vpc_vswitch(s, p, ctx)[1]
    if sw["ZoneId"] != zone:
        raise ApiError(400, "InvalidParameter.Mismatch", "Specified virtual switch is not in the specified zone.")
    tags = p.tags()
    charge = p.choice("ChargeType", ("PayAsYouGo", "Subscription"), "PayAsYouGo")
    bandwidth = p.int("Bandwidth", 0, 0, 1_000_000)
    ctx.dry_run_check()
    fs_id = s.new_id("cpfs-", 16)
    s.file_systems[fs_id] = {
        "FileSystemId": fs_id,
        "FileSystemType": kind,
        "ProtocolType": "cpfs",
        "StorageType": storage,
        "Capacity": capacity,
        "Bandwidth": bandwidth,
        "ZoneId": zone,
        "RegionId": ctx.region,
        "VpcId": sw["VpcId"],
        "VswIds": {"VswId": [sw["VSwitchId"]]},
        "Description": p.get("Description", ""),
        "CreateTime": now_iso(seconds=True),
        "ChargeType": charge,
        "MeteredSize": 0,
        "Version": "2.3.0",
        "_region": ctx.region,
        "_listed_from": s.listed_from(),
        "_tags": {t["Key"]: t.get("Value", "") for t in tags},
        "_timeline": s.timeline((0, "Pending"), (s.timings.file_system, "Running")),
    }
    return {"FileSystemId": fs_id}


def describe_file_systems(s: Store, p: Params, ctx) -> dict:
    items = [f for f in s.file_systems.values() if f["_region"] == ctx.region and s.listed(f)]
    if p.get("FileSystemId"):
        wanted = set(p.get("FileSystemId").split(","))
        items = [f for f in items if f["FileSystemId"] in wanted]
    kinds = p.get("FileSystemType", "all")
    if kinds != "all":
        items = [f for f in items if f["FileSystemType"] in kinds.split(",")]
    if p.get("VpcId"):
        items = [f for f in items if f["VpcId"] == p.get("VpcId")]
    items = [f for f in items if s.tags_match(f, p.tags())]
    chunk, meta = page(items, p)
    return {**meta, "FileSystems": {"FileSystem": [_fs_out(s, f) for f in chunk]}}


def delete_file_system(s: Store, p: Params, ctx) -> dict:
    fs = _fs(s, ctx, p.req("FileSystemId"))
    if (
        _mount_targets_of(s, fs["FileSystemId"])
        or any(ps["_fs"] == fs["FileSystemId"] for ps in s.protocol_services.values())
        or s.still_in_use("file_system", fs["FileSystemId"])
    ):
        raise dependency(
            "OperationDenied.DependencyViolation", "The file system still has mount targets or protocol services."
        )
    reply = s.delete(ctx, "file_systems", fs["FileSystemId"])
    s.release_later(vswitch=fs["VswIds"]["VswId"])
    return reply


# ---- mount targets -------------------------------------------------------------------------
def create_mount_target(s: Store, p: Params, ctx) -> dict:
    fs = _fs(s, ctx, p.req("FileSystemId"))
    if p.req("NetworkType") != "Vpc":
        raise invalid("NetworkType", "CPFS mount targets are in a VPC (Vpc).")
    sw = _vpc_vswitch(s, p, ctx)[1]
    if p.get("SecurityGroupId"):
        s.find("security_groups", p.get("SecurityGroupId"), ctx.region)
    _running(s, fs)
    ctx.dry_run_check()
    short = fs["FileSystemId"].removeprefix("cpfs-")
    domain = f"cpfs-{short}-{s.new_id('', 6)}.{ctx.region}.cpfs.nas.aliyuncs.com"
    fields = {
        "MountTargetDomain": domain,
        "NetworkType": "Vpc",
        "VpcId": sw["VpcId"],
        "VswId": sw["VSwitchId"],
        "AccessGroup": p.get("AccessGroupName", "DEFAULT_VPC_GROUP_NAME"),
        "IPVersion": "IPv4",
        "ClientMasterNodes": {"ClientMasterNode": []},
    }
    _add_part(s, ctx, fs, "mount_targets", domain, fields, (0, "Pending"), (s.timings.mount_target, "Active"))
    return {"MountTargetDomain": domain, "MountTargetExtra": {"DualStackMountTargetDomain": ""}}


def describe_mount_targets(s: Store, p: Params, ctx) -> dict:
    fs = _fs(s, ctx, p.req("FileSystemId"))
    items = [m for m in _mount_targets_of(s, fs["FileSystemId"]) if s.listed(m)]
    if p.get("MountTargetDomain"):
        items = [m for m in items if m["MountTargetDomain"] == p.get("MountTargetDomain")]
    chunk, meta = page(items, p)
    return {**meta, "MountTargets": {"MountTarget": [_mt_out(s, m) for m in chunk]}}


# A file system's deletable part -> the parameter naming it, and what it held (release_later's keywords).
_PARTS = {
    "mount_targets": ("MountTargetDomain", lambda fs, mt: {"file_system": fs["FileSystemId"], "vswitch": mt["VswId"]}),
    "exports": ("ExportId", lambda fs, e: {"protocol_service": e["ProtocolServiceId"], "vswitch": e["VSwitchId"]}),
}


def _delete_part(s: Store, p: Params, ctx, kind: str) -> dict:
    """Delete a file system's part of ``kind`` (_PARTS); what it held is released later."""
    id_name, release = _PARTS[kind]
    fs = _fs(s, ctx, p.req("FileSystemId"))
    part = s.find_part(kind, p.req(id_name), fs)
    reply = s.delete(ctx, kind, part[id_name])
    s.release_later(**release(fs, part))
    return reply


def delete_mount_target(s: Store, p: Params, ctx) -> dict:
    return _delete_part(s, p, ctx, "mount_targets")


# ---- CPFS-NFS protocol service and exports -------------------------------------------------
def create_protocol_service(s: Store, p: Params, ctx) -> dict:
    fs = _fs(s, ctx, p.req("FileSystemId"))
    if p.req("ProtocolType") != "NFS":
        raise invalid("ProtocolType", "Only NFS (NFSv3) is supported.")
    spec = p.choice("ProtocolSpec", ("General",), "General")
    throughput = p.int("Throughput", 0, 0, 1_000_000)
    sw = _vpc_vswitch(s, p, ctx)[1]
    _running(s, fs)
    ctx.dry_run_check()
    ps_id = s.new_id("ptc-", 16)
    fields = {
        "ProtocolServiceId": ps_id,
        "FileSystemId": fs["FileSystemId"],
        "ProtocolType": "NFS",
        "ProtocolSpec": spec,
        "ProtocolThroughput": throughput,
        "VpcId": sw["VpcId"],
        "VSwitchId": sw["VSwitchId"],
        "Description": p.get("Description", ""),
        "CreateTime": now_iso(seconds=True),
    }
    _add_part(s, ctx, fs, "protocol_services", ps_id, fields, (0, "Creating"), (s.timings.protocol_service, "Running"))
    return {"ProtocolServiceId": ps_id}


def _ps_out(s: Store, ps: dict) -> dict:
    out = public(ps)
    out["Status"] = s.status(ps)
    return out


def describe_protocol_service(s: Store, p: Params, ctx) -> dict:
    fs = _fs(s, ctx, p.req("FileSystemId"))
    items = [ps for ps in s.protocol_services.values() if ps["_fs"] == fs["FileSystemId"] and s.listed(ps)]
    if p.get("ProtocolServiceIds"):
        wanted = set(p.get("ProtocolServiceIds").split(","))
        items = [ps for ps in items if ps["ProtocolServiceId"] in wanted]
    chunk, meta = token_page(items, p)
    return {"NextToken": meta["NextToken"], "ProtocolServices": [_ps_out(s, ps) for ps in chunk]}


def delete_protocol_service(s: Store, p: Params, ctx) -> dict:
    fs = _fs(s, ctx, p.req("FileSystemId"))
    ps = s.find_part("protocol_services", p.req("ProtocolServiceId"), fs)
    in_use = any(e["ProtocolServiceId"] == ps["ProtocolServiceId"] for e in s.exports.values())
    if in_use or s.still_in_use("protocol_service", ps["ProtocolServiceId"]):
        raise dependency("OperationDenied.DependencyViolation", "The protocol service still has exports.")
    reply = s.delete(ctx, "protocol_services", ps["ProtocolServiceId"])
    s.release_later(file_system=fs["FileSystemId"], vswitch=ps["VSwitchId"])
    return reply


def create_protocol_mount_target(s: Store, p: Params, ctx) -> dict:
    fs = _fs(s, ctx, p.req("FileSystemId"))
    ps = s.find_part("protocol_services", p.req("ProtocolServiceId"), fs)
    if not (p.get("FsetId") or p.get("Path")):
        raise missing("Path")
    sw = _vpc_vswitch(s, p, ctx)[1]
    ctx.dry_run_check()
    export_id = s.new_id("exp-", 16)
    fields = {
        "ExportId": export_id,
        "ProtocolServiceId": ps["ProtocolServiceId"],
        "FsetId": p.get("FsetId", ""),
        "Path": p.get("Path", ""),
        "VpcId": sw["VpcId"],
        "VSwitchId": sw["VSwitchId"],
        "AccessGroupName": p.get("AccessGroupName", "DEFAULT_VPC_GROUP_NAME"),
        "ProtocolMountTargetDomain": f"{ps['ProtocolServiceId']}-{s.new_id('', 6)}.{ctx.region}.cpfs.aliyuncs.com",
        "ProtocolType": "NFS",
        "Description": p.get("Description", ""),
        "CreateTime": now_iso(seconds=True),
    }
    _add_part(s, ctx, fs, "exports", export_id, fields, (0, "CREATING"), (s.timings.mount_target, "ACTIVE"))
    return {"ExportId": export_id}


def describe_protocol_mount_target(s: Store, p: Params, ctx) -> dict:
    fs = _fs(s, ctx, p.req("FileSystemId"))
    items = [e for e in s.exports.values() if e["_fs"] == fs["FileSystemId"] and s.listed(e)]
    for f in p.numbered_dicts("Filters"):
        if f.get("Key") and f.get("Value"):
            values = set(f["Value"].split(","))
            items = [e for e in items if str(e.get(f["Key"])) in values]
    chunk, meta = token_page(items, p)
    out = []
    for e in chunk:
        row = public(e)
        row["Status"] = s.status(e)
        out.append(row)
    return {"NextToken": meta["NextToken"], "ProtocolMountTargets": out}


def delete_protocol_mount_target(s: Store, p: Params, ctx) -> dict:
    # FileSystemId, ProtocolServiceId and ExportId: "This parameter is required." (alibabacloud_nas20170626
    # DeleteProtocolMountTargetRequest); the export must be one of that service's.
    fs = _fs(s, ctx, p.req("FileSystemId"))
    export = s.find_part("exports", p.req("ExportId"), fs)
    if export["ProtocolServiceId"] != p.req("ProtocolServiceId"):
        raise ApiError(404, *NOT_FOUND["exports"])
    return _delete_part(s, p, ctx, "exports")


ACTIONS = {
    "CreateFileSystem": create_file_system,
    "DescribeFileSystems": describe_file_systems,
    "DeleteFileSystem": delete_file_system,
    "CreateMountTarget": create_mount_target,
    "DescribeMountTargets": describe_mount_targets,
    "DeleteMountTarget": delete_mount_target,
    "CreateProtocolService": create_protocol_service,
    "DescribeProtocolService": describe_protocol_service,
    "DeleteProtocolService": delete_protocol_service,
    "CreateProtocolMountTarget": create_protocol_mount_target,
    "DescribeProtocolMountTarget": describe_protocol_mount_target,
    "DeleteProtocolMountTarget": delete_protocol_mount_target,
}
CLIENT_TOKEN = {"CreateFileSystem", "CreateProtocolService", "CreateProtocolMountTarget"}
