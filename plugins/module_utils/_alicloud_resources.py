# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The resource catalogue (``ResourceKind`` per kind: how it is listed, created, deleted and shown) and
the one look-up every module and the inventory plugin use (``find_all`` / ``find_one``).

Note that this module util is **PRIVATE** to the collection. It can change without notice.
Do not use it from other collections.
"""

from __future__ import annotations

import json

from ansible_collections.scc.training.plugins.module_utils._alicloud_client import _dig
from ansible_collections.scc.training.plugins.module_utils._alicloud_tagging import tags_from_api


def rule_key(rule):
    """What tells two ingress rules apart (the description does not)."""
    return (
        rule["ip_protocol"].lower(),
        rule["port_range"],
        rule["source_cidr_ip"],
        rule["policy"].lower(),
        int(rule["priority"]),
    )


def rule_from_api(perm):
    return dict(
        ip_protocol=perm.get("IpProtocol", "").lower(),
        port_range=perm.get("PortRange"),
        source_cidr_ip=perm.get("SourceCidrIp"),
        policy=(perm.get("Policy") or "accept").lower(),
        priority=int(perm.get("Priority") or 1),
        description=perm.get("Description") or None,
    )


def with_ingress_rules(api, group):
    """The group with its ingress rules (``IngressRules``, in the form of ecs_security_group's ``rules``)."""
    reply = api.call(
        "ecs", "DescribeSecurityGroupAttribute", {"SecurityGroupId": group["SecurityGroupId"], "Direction": "ingress"}
    )
    perms = (reply.get("Permissions") or {}).get("Permission", []) or []
    rules = [rule_from_api(p) for p in perms if (p.get("Direction") or "ingress") == "ingress"]
    return dict(group, IngressRules=rules)


def _list_at(path):
    """A view field holding the list at ``path`` (``"VSwitchIds.VSwitchId"``), empty when absent."""
    return lambda item: list(_dig(item, path) or [])


def _tags(item):
    return tags_from_api(item.get("Tags"))


def _mount_target_domains(fs):
    return [t.get("MountTargetDomain") for t in _list_at("MountTargets.MountTarget")(fs)]


def _ingress_rules(group):
    return sorted(group.get("IngressRules") or [], key=rule_key)


class ResourceKind:
    """How one kind of resource is listed, created, deleted and shown: what the helpers below need.

    ``items`` is the path to the list in a Describe reply; ``token_paged`` listings page with
    NextToken instead of PageNumber. ``id_param`` asks the server for one id (a name ending in
    ``Ids`` takes a JSON list, of at most ``ids_per_call`` ids where the API limits it); without it
    the id is matched here. ``parent`` is the scope key the
    delete call needs as well (a NAS file system's children). ``gone`` is the part of an error
    code that means "already deleted". ``created_match`` marks a create that takes no ClientToken
    (``{listed field: create parameter}``): after a lost reply, the one listed whose fields equal
    those parameters is what it made. ``fields`` map the snake_case names modules return to an
    API field (dotted for nested ones) or to a function of the item.
    """

    def __init__(self, what, plural, product, describe, items, id_field, **extra):
        self.what, self.plural, self.product, self.describe = what, plural, product, describe
        self.items, self.id_field = items, id_field
        self.id_param = extra.pop("id_param", None)
        self.ids_per_call = extra.pop("ids_per_call", None)
        self.token_paged = extra.pop("token_paged", False)
        self.server_tags = extra.pop("server_tags", False)
        self.fixed = extra.pop("fixed", {})
        self.create = extra.pop("create", None)
        self.delete = extra.pop("delete", None)
        self.gone = extra.pop("gone", "NotFound")
        self.parent = extra.pop("parent", None)
        # Fields of a listed resource its delete request also needs (besides its id and the parent).
        self.delete_with = extra.pop("delete_with", ())
        self.created_match = extra.pop("created_match", None)
        self.fields = extra.pop("fields", {})
        if extra:
            raise TypeError("unknown ResourceKind fields: %s" % ", ".join(sorted(extra)))

    def view(self, item):
        """The snake_case dict modules return for an API item; {} for none."""
        if not item:
            return {}
        return {name: _dig(item, f) if isinstance(f, str) else f(item) for name, f in self.fields.items()}


VPC = ResourceKind(
    "VPC", "VPCs", "vpc", "DescribeVpcs", ("Vpcs", "Vpc"), "VpcId", id_param="VpcId",
    create="CreateVpc", delete="DeleteVpc", gone="InvalidVpcId.NotFound",
    fields={"vpc_id": "VpcId", "vpc_name": "VpcName", "cidr_block": "CidrBlock", "status": "Status",
            "description": "Description", "vswitch_ids": _list_at("VSwitchIds.VSwitchId")},
)  # fmt: skip
VSWITCH = ResourceKind(
    "VSwitch", "VSwitches", "vpc", "DescribeVSwitches", ("VSwitches", "VSwitch"), "VSwitchId", id_param="VSwitchId",
    create="CreateVSwitch", delete="DeleteVSwitch", gone="InvalidVSwitchId.NotFound",
    fields={"vswitch_id": "VSwitchId", "vswitch_name": "VSwitchName", "vpc_id": "VpcId", "zone_id": "ZoneId",
            "cidr_block": "CidrBlock", "status": "Status", "description": "Description"},
)  # fmt: skip
SECURITY_GROUP = ResourceKind(
    "security group", "security groups", "ecs", "DescribeSecurityGroups", ("SecurityGroups", "SecurityGroup"),
    "SecurityGroupId", id_param="SecurityGroupId", server_tags=True, token_paged=True,
    create="CreateSecurityGroup", delete="DeleteSecurityGroup",
    fields={"security_group_id": "SecurityGroupId", "security_group_name": "SecurityGroupName", "vpc_id": "VpcId",
            "description": "Description", "tags": _tags, "rules": _ingress_rules},
)  # fmt: skip
# EIPs (VPC API 2016-04-28): AllocateEipAddress (ClientToken), ReleaseEipAddress, DescribeEipAddresses (PageNumber;
# the AllocationId filter; Tag.N server-side). alibabacloud_vpc20160428 7.2.2: AllocateEipAddressRequest,
# ReleaseEipAddressRequest (AllocationId and RegionId required), DescribeEipAddressesResponseBodyEipAddressesEipAddress
# (the fields below; Tags.Tag[] of Key/Value).
EIP = ResourceKind(
    "EIP", "EIPs", "vpc", "DescribeEipAddresses", ("EipAddresses", "EipAddress"), "AllocationId",
    id_param="AllocationId", server_tags=True, create="AllocateEipAddress", delete="ReleaseEipAddress",
    gone="InvalidAllocationId.NotFound",
    fields={"allocation_id": "AllocationId", "ip_address": "IpAddress", "name": "Name", "description": "Description",
            "status": "Status", "bandwidth": "Bandwidth", "internet_charge_type": "InternetChargeType",
            "instance_id": lambda e: e.get("InstanceId") or None, "tags": _tags},
)  # fmt: skip
# NAT gateways (VPC API 2016-04-28): CreateNatGateway (ClientToken), DeleteNatGateway (NatGatewayId and RegionId
# required), DescribeNatGateways (PageNumber, PageSize at most 50; Name, VpcId, NatGatewayId filters; Tag.N server-side).
# alibabacloud_vpc20160428 7.2.2: DescribeNatGatewaysResponseBodyNatGatewaysNatGateway (the fields below; Tags.Tag[] of
# TagKey/TagValue; IpLists.IpList[] the EIPs bound to it; SnatTableIds.SnatTableId[] its SNAT table).
NAT_GATEWAY = ResourceKind(
    "NAT gateway", "NAT gateways", "vpc", "DescribeNatGateways", ("NatGateways", "NatGateway"), "NatGatewayId",
    id_param="NatGatewayId", server_tags=True, create="CreateNatGateway", delete="DeleteNatGateway",
    gone="InvalidNatGatewayId.NotFound",
    fields={"nat_gateway_id": "NatGatewayId", "name": "Name", "description": "Description", "vpc_id": "VpcId",
            "vswitch_id": "NatGatewayPrivateInfo.VswitchId", "status": "Status", "nat_type": "NatType",
            "network_type": "NetworkType",
            "snat_table_id": lambda n: (_list_at("SnatTableIds.SnatTableId")(n) or [None])[0],
            "eip_allocation_ids": lambda n: [i.get("AllocationId") for i in _list_at("IpLists.IpList")(n)],
            "tags": _tags},
)  # fmt: skip
# SNAT entries of a NAT gateway's SNAT table: CreateSnatEntry (ClientToken), DeleteSnatEntry (RegionId, SnatEntryId and
# SnatTableId required; ClientToken), DescribeSnatTableEntries (SnatTableId; PageSize at most 50).
SNAT_ENTRY = ResourceKind(
    "SNAT entry", "SNAT entries", "vpc", "DescribeSnatTableEntries", ("SnatTableEntries", "SnatTableEntry"),
    "SnatEntryId", id_param="SnatEntryId", parent="SnatTableId", create="CreateSnatEntry", delete="DeleteSnatEntry",
    gone="InvalidSnatEntryId.NotFound",
    fields={"snat_entry_id": "SnatEntryId", "snat_entry_name": "SnatEntryName", "snat_ip": "SnatIp",
            "source_vswitch_id": "SourceVSwitchId", "source_cidr": "SourceCIDR", "status": "Status"},
)  # fmt: skip
HPC_CLUSTER = ResourceKind(
    "HPC cluster", "HPC clusters", "ecs", "DescribeHpcClusters", ("HpcClusters", "HpcCluster"), "HpcClusterId",
    id_param="HpcClusterIds", create="CreateHpcCluster", delete="DeleteHpcCluster",
    fields={"hpc_cluster_id": "HpcClusterId", "name": "Name", "description": "Description"},
)  # fmt: skip
# Instances are never one of a kind: ecs_instance keeps a count of them (find_all, RunInstances).
# DescribeInstances takes at most 100 ids in its InstanceIds JSON array (ECS API reference,
# https://help.aliyun.com/en/ecs/api-describeinstances, InstanceIds; research/aliyun_facts.md, section 2),
# and an empty array finds nothing (as ``ids=[]`` here): find_all's ``ids`` asks 100 a call.
INSTANCE = ResourceKind(
    "instance", "instances", "ecs", "DescribeInstances", ("Instances", "Instance"), "InstanceId",
    id_param="InstanceIds", ids_per_call=100, server_tags=True, token_paged=True,
    fields={"instance_id": "InstanceId", "instance_name": "InstanceName", "host_name": "HostName",
            "status": "Status", "instance_type": "InstanceType", "instance_type_family": "InstanceTypeFamily",
            "zone_id": "ZoneId", "region_id": "RegionId", "image_id": "ImageId", "cpu": "Cpu", "memory": "Memory",
            "gpu_amount": "GPUAmount", "gpu_spec": "GPUSpec",
            "hpc_cluster_id": lambda i: i.get("HpcClusterId") or None,
            "deployment_set_id": lambda i: i.get("DeploymentSetId") or None,
            "vpc_id": "VpcAttributes.VpcId", "vswitch_id": "VpcAttributes.VSwitchId",
            "private_ip_addresses": _list_at("VpcAttributes.PrivateIpAddress.IpAddress"),
            "rdma_ip_addresses": _list_at("RdmaIpAddress.IpAddress"),
            "public_ip_addresses": _list_at("PublicIpAddress.IpAddress"),
            "eip_address": lambda i: (i.get("EipAddress") or {}).get("IpAddress") or None,
            "security_group_ids": _list_at("SecurityGroupIds.SecurityGroupId"),
            "creation_time": "CreationTime", "tags": _tags},
)  # fmt: skip
INSTANCE_GONE = ("Deleted", "Released")
CPFS = ResourceKind(
    "CPFS file system", "CPFS file systems", "nas", "DescribeFileSystems", ("FileSystems", "FileSystem"),
    "FileSystemId", id_param="FileSystemId", fixed={"FileSystemType": "cpfs"},
    create="CreateFileSystem", delete="DeleteFileSystem",
    fields={"file_system_id": "FileSystemId", "description": "Description", "file_system_type": "FileSystemType",
            "status": "Status", "capacity": "Capacity", "storage_type": "StorageType", "zone_id": "ZoneId",
            "vpc_id": "VpcId", "mount_targets": _mount_target_domains, "tags": _tags},
)  # fmt: skip
MOUNT_TARGET = ResourceKind(
    "mount target", "mount targets", "nas", "DescribeMountTargets", ("MountTargets", "MountTarget"),
    "MountTargetDomain", parent="FileSystemId", create="CreateMountTarget", delete="DeleteMountTarget",
    created_match={"VswId": "VSwitchId"},  # no ClientToken (research/aliyun_facts.md, CreateMountTarget)
    fields={"mount_target_domain": "MountTargetDomain", "status": "Status", "network_type": "NetworkType",
            "vpc_id": "VpcId", "vswitch_id": lambda t: t.get("VswId") or t.get("VSwitchId")},
)  # fmt: skip
# nas_cpfs_protocol_service shows a service and its export together (its own view).
PROTOCOL_SERVICE = ResourceKind(
    "protocol service", "protocol services", "nas", "DescribeProtocolService", ("ProtocolServices",),
    "ProtocolServiceId", token_paged=True, parent="FileSystemId",
    create="CreateProtocolService", delete="DeleteProtocolService",
)  # fmt: skip
EXPORT = ResourceKind(
    "export", "exports", "nas", "DescribeProtocolMountTarget", ("ProtocolMountTargets",), "ExportId",
    token_paged=True, parent="FileSystemId", create="CreateProtocolMountTarget", delete="DeleteProtocolMountTarget",
    # DeleteProtocolMountTarget: FileSystemId, ProtocolServiceId and ExportId are all required (alibabacloud_nas20170626
    # DeleteProtocolMountTargetRequest); without ProtocolServiceId the real API refuses the teardown's delete.
    delete_with=("ProtocolServiceId",),
)  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Finding resources: the one listing helper for every kind


class AmbiguousMatch(Exception):
    """More than one resource fits what should name exactly one."""

    def __init__(self, kind, criteria, matches):
        self.ids = [m.get(kind.id_field) for m in matches]
        wanted = ", ".join("%s=%s" % item for item in sorted(criteria.items())) or "the filters"
        super().__init__(
            "%d %s match %s (%s); rename or delete the extra ones, this module will not guess"
            % (len(matches), kind.plural, wanted, ", ".join(map(str, self.ids)))
        )


def batches(items, size):
    """``items`` in consecutive lists of at most ``size`` (all in one list when ``size`` is None)."""
    size = size or max(len(items), 1)
    return [items[start : start + size] for start in range(0, len(items), size)]


def _listed(api, kind, params):
    if kind.token_paged:
        return api.paginate_token(kind.product, kind.describe, params, kind.items[0])
    return api.paginate(kind.product, kind.describe, params, kind.items)


def _listed_by_ids(api, kind, params, ids):
    """Every item listed for ``ids`` (each asked once, ``kind.ids_per_call`` a call), each item once."""
    if not (kind.id_param or "").endswith("Ids"):
        raise ValueError("%s are not listed by a list of ids" % kind.plural)
    found = {}
    for batch in batches(list(dict.fromkeys(ids)), kind.ids_per_call):
        for item in _listed(api, kind, dict(params, **{kind.id_param: json.dumps(batch)})):
            found.setdefault(item.get(kind.id_field), item)
    return list(found.values())


def find_all(api, kind, scope=None, where=None, tags=None, resource_id=None, ids=None):
    """Every ``kind`` in ``scope`` (server-side filters) whose fields equal ``where`` and which
    carries all ``tags`` (and is ``resource_id``, when given; one of the list ``ids``, when given:
    asked of the server in calls of at most ``kind.ids_per_call``), read over every page, oldest
    first. None values in ``scope`` and ``where`` are no filter; ``ids=[]`` finds nothing."""
    params = {k: v for k, v in dict(kind.fixed, **(scope or {})).items() if v is not None}
    wanted = {k: v for k, v in (where or {}).items() if v is not None}
    if resource_id is not None:
        wanted[kind.id_field] = resource_id
        if kind.id_param:
            params[kind.id_param] = json.dumps([resource_id]) if kind.id_param.endswith("Ids") else resource_id
    if tags and kind.server_tags:
        params["Tag"] = dict(tags)
    found = _listed(api, kind, params) if ids is None else _listed_by_ids(api, kind, params, ids)
    matches = [
        item
        for item in found
        if all(item.get(k) == v for k, v in wanted.items())
        and all(tags_from_api(item.get("Tags")).get(k) == v for k, v in (tags or {}).items())
    ]
    return sorted(matches, key=lambda i: (i.get("CreationTime") or i.get("CreateTime") or "", i.get(kind.id_field)))


def find_one(api, kind, scope=None, where=None, tags=None, resource_id=None):
    """The one ``kind`` that ``find_all`` matches, or None; AmbiguousMatch when several do."""
    matches = find_all(api, kind, scope, where, tags, resource_id)
    if len(matches) > 1:
        criteria = {k: v for k, v in dict(scope or {}, **(where or {})).items() if v is not None}
        criteria.update(("tag:%s" % k, v) for k, v in (tags or {}).items())
        raise AmbiguousMatch(kind, criteria, matches)
    return matches[0] if matches else None
