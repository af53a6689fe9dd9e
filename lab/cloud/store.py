"""The emulator's state: resources in memory, their status timelines, ids, tags and paging.

A resource is a dict of API fields plus internal fields starting with "_". Status changes that
take time in real life (Pending -> Running) are a timeline of (time, status) computed when read,
so nothing runs in the background; Timings sets how long each step takes.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import random
import string
import threading
import time

from .errors import ApiError, invalid
from .wire import Params

# What a lookup by id answers when the id is unknown in the region, per table (research/aliyun_facts.md).
NOT_FOUND = {
    "vpcs": ("InvalidVpcId.NotFound", "Specified VPC does not exist."),
    "vswitches": ("InvalidVSwitchId.NotFound", "Specified virtual switch does not exist."),
    "security_groups": ("InvalidSecurityGroupId.NotFound", "The specified SecurityGroupId does not exist."),
    "hpc_clusters": ("InvalidHpcClusterId.NotFound", "The specified HpcClusterId is not found."),
    "instances": ("InvalidInstanceId.NotFound", "The specified InstanceId does not exist."),
    "file_systems": ("InvalidFileSystem.NotFound", "The specified file system does not exist."),
    "mount_targets": ("InvalidMountTarget.NotFound", "The specified mount target does not exist."),
    "protocol_services": ("InvalidProtocolService.NotFound", "The specified protocol service does not exist."),
    "exports": ("InvalidExport.NotFound", "The specified export does not exist."),
    # VPC API ReleaseEipAddress / AssociateEipAddress error codes: "InvalidAllocationId.NotFound" (the VPC API
    # reference's error lists; UNCONFIRMED: no model states error codes).
    "eips": ("InvalidAllocationId.NotFound", "Specified allocation ID is not found."),
    # DeleteNatGateway / DescribeSnatTableEntries error lists of the VPC API reference (UNCONFIRMED: no model states
    # error codes): an unknown NAT gateway, SNAT table or SNAT entry.
    "nat_gateways": ("InvalidNatGatewayId.NotFound", "The specified NAT gateway does not exist."),
    "snat_entries": ("InvalidSnatEntryId.NotFound", "The specified SNAT entry does not exist."),
}
# ACK clusters answer in the CS API's own way (lab/cloud/cs.py, ErrorClusterNotFound).


@dataclasses.dataclass
class Timings:
    """Seconds each state change takes (real life: minutes; tests: fractions of a second)."""

    vpc: float = 0.0  # VPC and vSwitch: Pending -> Available
    instance_pending: float = 0.2  # Pending -> Starting
    instance_starting: float = 0.3  # Starting -> Running
    instance_stopping: float = 0.2  # Stopping -> Stopped
    file_system: float = 0.5  # CPFS Pending -> Running (20-40 minutes in real life)
    mount_target: float = 0.2  # Pending -> Active
    protocol_service: float = 0.2  # Creating -> Running
    cluster: float = 0.5  # ACK cluster initial -> running (real life: about 10 minutes)
    cluster_delete: float = 0.3  # ACK cluster deleting -> deleted
    node: float = 0.2  # an attached ACK node initial -> running
    # Eventual consistency: a new resource is missing from Describe* listings this long after its
    # create returned (ECS: "the instance may not be returned by DescribeInstances immediately after
    # RunInstances"; real life: seconds). Other actions find it by id at once.
    listing_lag: float = 0.0
    # Asynchronous release: what a deleted resource used (an instance's security group, vSwitch and
    # HPC cluster; a mount target's file system) stays in use this long after the delete returned,
    # and deleting it meanwhile answers DependencyViolation ("releasing ECS instances and ENIs is
    # asynchronous", DeleteSecurityGroup's description; real life: seconds to minutes).
    release_lag: float = 0.0
    # Running -> cloud-init printed the host keys on the console (GetInstanceConsoleOutput; real life: the boot, a
    # minute or more). Before it the console shows the kernel's first lines only; before Running, nothing.
    console_keys: float = 0.0
    eip: float = 0.0  # an EIP Associating -> InUse and Unassociating -> Available (real life: seconds)
    nat_gateway: float = 0.2  # a NAT gateway Creating -> Available, and Deleting -> gone (real life: a minute or two)
    snat_entry: float = 0.1  # an SNAT entry Pending -> Available, and Deleting -> gone (real life: seconds)


def now_iso(when: float | None = None, seconds: bool = False) -> str:
    fmt = "%Y-%m-%dT%H:%M:%SZ" if seconds else "%Y-%m-%dT%H:%MZ"
    return time.strftime(fmt, time.gmtime(time.time() if when is None else when))


class Store:
    def __init__(self, timings: Timings, seed: int = 0, host_addresses: list[str] | None = None):
        self.timings = timings
        self.lock = threading.RLock()
        self.rng = random.Random(seed)
        self.vpcs: dict[str, dict] = {}
        self.vswitches: dict[str, dict] = {}
        self.security_groups: dict[str, dict] = {}
        self.hpc_clusters: dict[str, dict] = {}
        self.instances: dict[str, dict] = {}
        self.file_systems: dict[str, dict] = {}
        self.mount_targets: dict[str, dict] = {}  # by MountTargetDomain
        self.protocol_services: dict[str, dict] = {}
        self.exports: dict[str, dict] = {}
        self.eips: dict[str, dict] = {}  # EIPs (VPC API), by AllocationId; their addresses are loopback (eip_address)
        self.nat_gateways: dict[str, dict] = {}  # NAT gateways (VPC API), by NatGatewayId
        self.snat_entries: dict[str, dict] = {}  # SNAT entries (VPC API), by SnatEntryId; "_table" their SNAT table
        self.clusters: dict[str, dict] = {}  # ACK (CS API) clusters, their nodes inside under "_nodes"
        self.cs_tokens: dict[str, tuple[str, dict]] = {}  # CreateCluster client_token -> (its body, its reply)
        # (until, {kind: ids}) of deleted resources whose dependencies are still being released.
        self.releasing: list[tuple[float, dict[str, tuple]]] = []
        # Lab hosts that back new instances: address -> instance id (None while free).
        self.backing: dict[str, str | None] = dict.fromkeys(host_addresses or [])
        # Capacity per instance type (unset: plenty); with lab hosts, also their number.
        self.stock: dict[str, int] = {}
        # Boot mode per image ID (BIOS, UEFI, UEFI-Preferred) where the name does not tell (ecs.image_boot_mode).
        self.images: dict[str, str] = {}
        # The SSH host public keys ("type base64") of each backing lab host, by address: what the console of the
        # instance it backs prints (GetInstanceConsoleOutput); an instance without them gets keys of its own.
        self.host_keys: dict[str, list[str]] = {}

    # ---- ids, time, status ------------------------------------------------------------
    def new_id(self, prefix: str, length: int = 20) -> str:
        alphabet = string.ascii_lowercase + string.digits
        return prefix + "".join(self.rng.choices(alphabet, k=length))

    @staticmethod
    def timeline(*steps: tuple[float, str]) -> list[tuple[float, str]]:
        start = time.monotonic()
        out, at = [], start
        for delay, status in steps:
            at += delay
            out.append((at, status))
        return out

    @staticmethod
    def status(resource: dict) -> str:
        current = resource["_timeline"][0][1]
        now = time.monotonic()
        for at, status in resource["_timeline"]:
            if at <= now:
                current = status
        return current

    def listed_from(self) -> float:
        """When a resource created now starts to appear in Describe* listings (``Timings.listing_lag``)."""
        return time.monotonic() + self.timings.listing_lag

    @staticmethod
    def listed(resource: dict) -> bool:
        """Whether Describe* shows ``resource`` yet (eventual consistency)."""
        return resource.get("_listed_from", 0.0) <= time.monotonic()

    def release_later(self, **uses: str | list | tuple | None) -> None:
        """A resource was deleted: what it ``uses`` (kind -> id or ids) stays in use for ``release_lag``."""
        if self.timings.release_lag > 0:
            held = {kind: tuple(ids) if isinstance(ids, (list, tuple)) else (ids,) for kind, ids in uses.items()}
            self.releasing.append((time.monotonic() + self.timings.release_lag, held))

    def still_in_use(self, kind: str, resource_id: str) -> bool:
        """Whether a deleted resource still holds ``resource_id`` (a ``kind`` of ``release_later``)."""
        now = time.monotonic()
        self.releasing = [(until, held) for until, held in self.releasing if until > now]
        return any(resource_id in held.get(kind, ()) for _until, held in self.releasing)

    # ---- lookups ------------------------------------------------------------------------
    def find(self, table: str, key: str | None, region: str, message: str | None = None) -> dict:
        """The item ``key`` of ``table`` (a Store attribute) in ``region``, else its NotFound error."""
        item = getattr(self, table).get(key or "")
        if item is None or item["_region"] != region:
            code, default = NOT_FOUND[table]
            raise ApiError(404, code, message or default)
        return item

    def find_part(self, table: str, key: str | None, fs: dict) -> dict:
        """The item ``key`` of ``table`` that is part of file system ``fs``, else its NotFound error."""
        item = getattr(self, table).get(key or "")
        if item is None or item["_fs"] != fs["FileSystemId"]:
            raise ApiError(404, *NOT_FOUND[table])
        return item

    def delete(self, ctx, table: str, key: str) -> dict:
        """The end of a delete action whose checks passed: a DryRun stops here; the empty reply."""
        ctx.dry_run_check()
        del getattr(self, table)[key]
        return {}

    # ---- tags ---------------------------------------------------------------------------
    @staticmethod
    def tags_match(resource: dict, wanted: list[dict[str, str]]) -> bool:
        have = resource.get("_tags", {})
        for tag in wanted:
            if tag["Key"] not in have:
                return False
            if tag.get("Value") not in (None, "") and have[tag["Key"]] != tag["Value"]:
                return False
        return True

    # ---- addresses ----------------------------------------------------------------------
    def take_address(self, vswitch: dict) -> str:
        network = ipaddress.IPv4Network(vswitch["CidrBlock"])
        used = vswitch["_used"]
        # The first address and the last three of a vSwitch are reserved (VPC docs).
        for index in range(1, network.num_addresses - 3):
            host = str(network[index])
            if host not in used:
                used.add(host)
                return host
        raise ApiError(403, "InvalidVSwitchId.IpNotEnough", "The specified VSwitch has not enough IpAddress.")

    def available(self, instance_type: str) -> int:
        free = 100
        if instance_type in self.stock:
            used = sum(1 for i in self.instances.values() if i["InstanceType"] == instance_type)
            free = max(0, self.stock[instance_type] - used)
        if self.backing:
            free = min(free, sum(1 for owner in self.backing.values() if owner is None))
        return free

    def take_backing_host(self, instance_id: str) -> str | None:
        for address, owner in self.backing.items():
            if owner is None:
                self.backing[address] = instance_id
                return address
        return None


def page(items: list, p: Params, default_size: int = 10, max_size: int = 100) -> tuple[list, dict]:
    number = p.int("PageNumber", 1, 1, 1 << 30)
    size = p.int("PageSize", default_size, 1, max_size)
    start = (number - 1) * size
    return items[start : start + size], {"TotalCount": len(items), "PageNumber": number, "PageSize": size}


def token_page(items: list, p: Params, max_size: int = 100) -> tuple[list, dict]:
    """NextToken/MaxResults paging: the token is the offset of the next item."""
    token = p.get("NextToken", "0")
    if not token.isdigit():
        raise invalid("NextToken")
    size = p.int("MaxResults", 10, 1, max_size)
    start = int(token)
    chunk = items[start : start + size]
    nxt = str(start + size) if start + size < len(items) else ""
    return chunk, {"NextToken": nxt, "TotalCount": len(items)}


def public(resource: dict) -> dict:
    return {k: v for k, v in resource.items() if not k.startswith("_")}
