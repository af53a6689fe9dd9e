#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: ecs_nat_gateway
short_description: An enhanced Internet NAT gateway in a vSwitch with an EIP and one SNAT entry, found by name and tags
version_added: 0.5.0
description:
  - Keeps one pay-as-you-go enhanced Internet NAT gateway named O(name) carrying O(tags) in O(vswitch_id) of O(vpc_id)
    (VPC API 2016-04-28 C(CreateNatGateway), C(DescribeNatGateways), C(DeleteNatGateway); C(NatType=Enhanced),
    C(NetworkType=internet), C(InstanceChargeType=PostPaid), C(InternetChargeType=PayByLcu)), waiting until it is
    C(Available).
  - Associates the EIP O(eip_allocation_id) with it (C(AssociateEipAddress) with C(InstanceType=Nat)), waiting until
    the EIP is C(InUse), and keeps one SNAT entry in its SNAT table for O(snat_source_vswitch_id) through that EIP's
    address (C(CreateSnatEntry), C(DescribeSnatTableEntries)), waiting until it is C(Available). The nodes of that
    vSwitch reach the Internet (package mirrors) through it, and nothing reaches them from the Internet.
  - O(state=absent) deletes the gateway's SNAT entries (C(DeleteSnatEntry)), unassociates its EIPs, then deletes the
    gateway and waits until it is gone. The EIPs themselves are left allocated (M(scc.training.ecs_eip) releases
    them). Only a gateway with O(name) and every one of O(tags) is touched.
  - The gateway, the association and the SNAT entry are made with a ClientToken derived from the request, so a
    retried call after a lost reply never makes a second one.
  - A gateway found in another vSwitch, an EIP associated with something else, and an SNAT entry for the vSwitch
    through another address fail the task (nothing is moved or rewritten). Two gateways of one name and tags fail the
    task rather than guessing.
extends_documentation_fragment: [scc.training.alicloud, scc.training.alicloud.api, scc.training.alicloud.state, scc.training.alicloud.wait]
options:
  name:
    description:
      - NAT gateway name, 2 to 128 characters, starting with a letter, then letters, digits, C(_) or C(-)
        (CreateNatGateway C(Name)). Also the SNAT entry's name.
    type: str
    required: true
  description:
    description: Description, set at creation (empty, or 2 to 256 characters not starting with C(http://) or C(https://)).
    type: str
  tags:
    description:
      - Tags the gateway carries, set at creation; the gateway is found by O(name) and these tags.
      - Required with O(state=absent), so that nothing is deleted by a name alone.
    type: dict
    default: {}
  vpc_id:
    description: The VPC (CreateNatGateway C(VpcId), required there). Required with O(state=present).
    type: str
  vswitch_id:
    description:
      - The vSwitch the gateway takes its private address in (CreateNatGateway C(VSwitchId)); its zone must offer
        enhanced NAT gateways (C(ListEnhanhcedNatGatewayAvailableZones)). Required with O(state=present).
    type: str
  eip_allocation_id:
    description:
      - The EIP (M(scc.training.ecs_eip), not associated with anything else) whose address the SNAT entry uses.
        Required with O(state=present).
    type: str
  snat_source_vswitch_id:
    description:
      - The vSwitch whose instances go out through the gateway (CreateSnatEntry C(SourceVSwitchId)). Omitted, the
        gateway's own O(vswitch_id).
    type: str
  wait_timeout:
    default: 600
attributes:
  check_mode:
    support: full
    description: Predicts the gateway, the association and the SNAT entry, or their deletion, without a write call.
  diff_mode:
    support: full
    description: The gateway (with its SNAT entry) before and after.
  action_group:
    support: full
    membership: [scc.training.alicloud]
    description: Use C(group/scc.training.alicloud) in C(module_defaults) to set the connection options.
author: scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: An EIP for the nodes' way out
  scc.training.ecs_eip:
    name: bert-nat-eip
    tags: {managed-by: scc.training, scc-cluster: bert}
  register: nat_eip

- name: A NAT gateway with SNAT for the nodes' vSwitch
  scc.training.ecs_nat_gateway:
    name: bert-nat
    tags: {managed-by: scc.training, scc-cluster: bert}
    vpc_id: "{{ vpc.vpc.vpc_id }}"
    vswitch_id: "{{ vswitch.vswitch.vswitch_id }}"
    eip_allocation_id: "{{ nat_eip.eip.allocation_id }}"

- name: Delete it (its SNAT entry and the EIP's association first)
  scc.training.ecs_nat_gateway:
    name: bert-nat
    tags: {managed-by: scc.training, scc-cluster: bert}
    state: absent
"""

RETURN = r"""
nat_gateway:
  description: The NAT gateway (empty after O(state=absent)).
  returned: always
  type: dict
  contains:
    nat_gateway_id:
      description: Its ID (empty in check mode before it exists).
      type: str
      sample: ngw-bp1uewa15k4iy5770xxxx
    name:
      description: Name.
      type: str
    description:
      description: Description.
      type: str
    vpc_id:
      description: Its VPC.
      type: str
    vswitch_id:
      description: The vSwitch it takes its private address in.
      type: str
    status:
      description: C(Creating), C(Available), C(Modifying), C(Deleting) or C(Converting).
      type: str
      sample: Available
    nat_type:
      description: C(Enhanced).
      type: str
    network_type:
      description: C(internet).
      type: str
    snat_table_id:
      description: Its SNAT table.
      type: str
      sample: stb-8vbczigrhop8x5u3txxxx
    eip_allocation_ids:
      description: The EIPs associated with it.
      type: list
      elements: str
    tags:
      description: Its tags.
      type: dict
    snat_entry:
      description: The SNAT entry of O(snat_source_vswitch_id) (empty when there is none).
      type: dict
      contains:
        snat_entry_id:
          description: Its ID.
          type: str
          sample: snat-bp1vcgcf8tm0plqcgxxxx
        snat_ip:
          description: The EIP address the vSwitch's traffic leaves through.
          type: str
        source_vswitch_id:
          description: The vSwitch it translates.
          type: str
        status:
          description: C(Pending), C(Available) or C(Deleting).
          type: str
"""

import re

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    EIP,
    NAT_GATEWAY,
    SNAT_ENTRY,
    TOKEN_GENERATIONS,
    AlicloudApiError,
    AlicloudModule,
    find_all,
)

# CreateNatGatewayRequest.name (alibabacloud_vpc20160428 7.2.2): 2 to 128 characters, starting with a letter (or a
# Chinese character, not accepted here), then digits, underscores and hyphens.
NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{1,127}\Z")
# The states a gateway passes on its way to Available (DescribeNatGatewaysRequest Status: Creating, Available,
# Modifying, Deleting, Converting); Deleting never leads back.
GATEWAY_PASSING = ("Creating", "Modifying", "Converting")
# An SNAT entry: Pending while it is made, Deleting -> no longer listed (VPC API reference,
# api-vpc-2016-04-28-deletesnatentry); Available once made (DescribeSnatTableEntries "Status": UNCONFIRMED, that page
# not retrieved and the response model's comment lists no values).
SNAT_READY = "Available"


def validate(params):
    errors = []
    if not NAME.match(params["name"] or ""):
        errors.append(
            "name must be 2 to 128 characters, start with a letter and hold only letters, digits, _ and -, not %r"
            % params["name"]
        )
    description = params["description"] or ""
    if description and (not 2 <= len(description) <= 256 or description.startswith(("http://", "https://"))):
        errors.append("description must be empty or 2 to 256 characters, not starting with http:// or https://")
    if params["state"] == "absent":
        if not params["tags"]:
            errors.append("tags is required with state=absent (a NAT gateway is never deleted by its name alone)")
        return errors
    for option, prefix in (("vpc_id", "vpc-"), ("vswitch_id", "vsw-"), ("eip_allocation_id", "eip-")):
        value = params[option]
        if not value:
            errors.append("%s is required with state=present" % option)
        elif not value.startswith(prefix):
            errors.append("%s must be an ID starting with %s, not %r" % (option, prefix, value))
    source = params["snat_source_vswitch_id"]
    if source is not None and not source.startswith("vsw-"):
        errors.append("snat_source_vswitch_id must be a vSwitch ID (vsw-...), not %r" % source)
    return errors


def find(module):
    p = module.params
    return module.find_one(NAT_GATEWAY, where={"Name": p["name"]}, tags=p["tags"] or None)


def fetch(module, ngw_id):
    return module.find_one(NAT_GATEWAY, resource_id=ngw_id)


def snat_table(ngw):
    ids = ((ngw or {}).get("SnatTableIds") or {}).get("SnatTableId") or []
    return ids[0] if ids else None


def available(module, ngw):
    """``ngw`` once Available (a change under way is waited for); a gateway being deleted fails the task."""
    status = ngw.get("Status")
    if status == "Available" or (module.check_mode and status in GATEWAY_PASSING):
        return ngw
    if status not in GATEWAY_PASSING:
        module.fail_json(msg="name: NAT gateway %s is %s, not Available" % (ngw["NatGatewayId"], status))
    what = "NAT gateway %s" % ngw["NatGatewayId"]
    found = module.wait(
        lambda: fetch(module, ngw["NatGatewayId"]),
        lambda n: n is None or n.get("Status") not in GATEWAY_PASSING,
        what,
    )
    if not found or found.get("Status") != "Available":
        module.fail_json(msg="%s is %s, not Available" % (what, (found or {}).get("Status", "gone")))
    return found


def call_with_token(module, action, params, done):
    """``action`` with a request-derived ClientToken; while ``done()`` says an earlier token's result was undone since,
    the next generation of token is tried (as ecs_eip)."""
    for generation in range(TOKEN_GENERATIONS):
        module.api.call("vpc", action, params, client_token_generation=generation)
        if done():
            return
    raise AlicloudApiError(action, "ClientTokenExhausted", "every derived ClientToken names an earlier %s" % action)


def bind_eip(module, ngw, eip):
    """The EIP associated with the gateway (InstanceType Nat), InUse once the module waits; predicted in check mode."""
    ngw_id = ngw.get("NatGatewayId")
    if eip.get("InstanceId") == ngw_id and ngw_id:
        return False, eip
    if eip.get("InstanceId"):
        module.fail_json(
            msg="eip_allocation_id: EIP %s is associated with %s, not NAT gateway %s; it is not moved"
            % (eip["AllocationId"], eip["InstanceId"], ngw_id or module.params["name"])
        )
    if module.check_mode:
        return True, dict(eip, InstanceId=ngw_id, InstanceType="Nat", Status="InUse")
    allocation_id = eip["AllocationId"]

    def fetch_eip():
        return module.find_one(EIP, resource_id=allocation_id) or {}

    call_with_token(
        module,
        "AssociateEipAddress",
        {"AllocationId": allocation_id, "InstanceId": ngw_id, "InstanceType": "Nat"},
        lambda: fetch_eip().get("InstanceId") == ngw_id,
    )
    if not module.params["wait"]:
        return True, fetch_eip()
    found = module.wait(fetch_eip, lambda e: e.get("Status") == "InUse", "EIP %s" % allocation_id)
    return True, found


def snat_present(module, ngw, eip, found):
    """The SNAT entry of the source vSwitch through the EIP's address (``found`` when it exists): (changed, entry)."""
    p = module.params
    if found:
        return False, found
    source = p["snat_source_vswitch_id"] or p["vswitch_id"]
    if module.check_mode:
        return True, {"SnatIp": eip.get("IpAddress"), "SourceVSwitchId": source, "SnatEntryName": p["name"],
                      "Status": SNAT_READY}  # fmt: skip
    table = snat_table(ngw)
    params = {
        "SnatTableId": table,
        "SourceVSwitchId": source,
        "SnatIp": eip.get("IpAddress"),
        "SnatEntryName": p["name"],
    }
    return True, module.create(SNAT_ENTRY, params, scope={"SnatTableId": table}, ready=SNAT_READY)


def present(module):
    p = module.params
    before = find(module)
    # Everything that would refuse is judged before the first write: the gateway's place, the EIP's owner, the SNAT
    # entry's address.
    if before is not None:
        have = (before.get("NatGatewayPrivateInfo") or {}).get("VswitchId")
        if before.get("VpcId") != p["vpc_id"] or have != p["vswitch_id"]:
            module.fail_json(
                msg="vswitch_id: NAT gateway %s (%s) is in %s of %s, not %s of %s; it is not moved"
                % (before["NatGatewayId"], p["name"], have, before.get("VpcId"), p["vswitch_id"], p["vpc_id"])
            )
    eip = module.find_one(EIP, "eip_allocation_id", resource_id=p["eip_allocation_id"])
    if eip is None:
        module.fail_json(msg="eip_allocation_id: EIP %s does not exist" % p["eip_allocation_id"])
    ngw_id = (before or {}).get("NatGatewayId")
    if eip.get("InstanceId") and eip.get("InstanceId") != ngw_id:
        module.fail_json(
            msg="eip_allocation_id: EIP %s is associated with %s, not NAT gateway %s; it is not moved"
            % (eip["AllocationId"], eip["InstanceId"], ngw_id or p["name"])
        )
    found_entry = snat_entry(module, before)
    if found_entry and found_entry.get("SnatIp") != eip.get("IpAddress"):
        module.fail_json(
            msg="eip_allocation_id: the SNAT entry %s of %s goes out through %s, not %s (EIP %s); it is not"
            " rewritten: delete the gateway first"
            % (found_entry["SnatEntryId"], found_entry.get("SourceVSwitchId"), found_entry.get("SnatIp"),
               eip.get("IpAddress"), eip["AllocationId"])
        )  # fmt: skip
    changed = False
    if before is None:
        params = {
            "VpcId": p["vpc_id"],
            "VSwitchId": p["vswitch_id"],
            "Name": p["name"],
            "Description": p["description"],
            "NatType": "Enhanced",
            "NetworkType": "internet",
            "InstanceChargeType": "PostPaid",
            "InternetChargeType": "PayByLcu",
            "Tag": p["tags"] or None,
        }
        changed, _none, ngw = module.create_unless_found(NAT_GATEWAY, None, params, ready="Available")
        if module.check_mode:
            ngw = {
                "Name": p["name"],
                "Description": p["description"],
                "VpcId": p["vpc_id"],
                "NatGatewayPrivateInfo": {"VswitchId": p["vswitch_id"]},
                "Status": "Available",
                "NatType": "Enhanced",
                "NetworkType": "internet",
                "Tags": {"Tag": [{"TagKey": k, "TagValue": v} for k, v in sorted((p["tags"] or {}).items())]},
            }
    else:
        ngw = available(module, before)
    bound, eip = bind_eip(module, ngw, eip)
    if bound and not module.check_mode:
        ngw = fetch(module, ngw["NatGatewayId"]) or ngw
    elif bound:
        ngw = dict(ngw, IpLists={"IpList": [{"AllocationId": eip["AllocationId"], "IpAddress": eip.get("IpAddress")}]})
    snat_changed, entry = snat_present(module, ngw, eip, found_entry)
    return changed or bound or snat_changed, dict(before, _snat=found_entry) if before else None, dict(ngw, _snat=entry)


def snat_entry(module, ngw):
    """The SNAT entry of the source vSwitch in the gateway's table, or None."""
    table = snat_table(ngw)
    if not table:
        return None
    source = module.params["snat_source_vswitch_id"] or module.params["vswitch_id"]
    return module.find_one(
        SNAT_ENTRY, "snat_source_vswitch_id", scope={"SnatTableId": table}, where={"SourceVSwitchId": source}
    )


def absent(module):
    before = ngw = find(module)
    if ngw is None:
        return False, None, None
    table = snat_table(ngw)
    entries = module_find_entries(module, table)
    before = dict(before, _snat=entries[0] if entries else None)
    if module.check_mode:
        return True, before, None
    if ngw.get("Status") in GATEWAY_PASSING:
        ngw = available(module, ngw)
    for entry in entries:
        module.remove(SNAT_ENTRY, entry, scope={"SnatTableId": table}, wait_gone=True)
    for item in (ngw.get("IpLists") or {}).get("IpList") or []:
        allocation_id = item.get("AllocationId")
        eip = module.find_one(EIP, resource_id=allocation_id) if allocation_id else None
        if not eip or eip.get("InstanceId") != ngw["NatGatewayId"]:
            continue
        if eip.get("Status") != "InUse":
            eip = module.wait(
                lambda a=allocation_id: module.find_one(EIP, resource_id=a) or {},
                lambda e: e.get("Status") in ("InUse", "Available"),
                "EIP %s" % allocation_id,
            )
        if eip.get("InstanceId") == ngw["NatGatewayId"]:
            call_with_token(
                module,
                "UnassociateEipAddress",
                {"AllocationId": allocation_id, "InstanceId": ngw["NatGatewayId"], "InstanceType": "Nat"},
                lambda a=allocation_id: not (module.find_one(EIP, resource_id=a) or {}).get("InstanceId"),
            )
            module.wait(
                lambda a=allocation_id: module.find_one(EIP, resource_id=a) or {},
                lambda e: e.get("Status") == "Available",
                "EIP %s" % allocation_id,
            )
    module.remove(NAT_GATEWAY, ngw, wait_gone=True)
    return True, before, None


def module_find_entries(module, table):
    """Every SNAT entry of the gateway's table (the gateway is this module's: they go with it)."""
    if not table:
        return []
    return find_all(module.api, SNAT_ENTRY, scope={"SnatTableId": table})


def view(ngw):
    if not ngw:
        return {}
    shown = NAT_GATEWAY.view(ngw)
    shown["snat_entry"] = SNAT_ENTRY.view(ngw.get("_snat"))
    return shown


def main():
    spec = dict(
        name=dict(type="str", required=True),
        description=dict(type="str"),
        tags=dict(type="dict", default={}),
        vpc_id=dict(type="str"),
        vswitch_id=dict(type="str"),
        eip_allocation_id=dict(type="str"),
        snat_source_vswitch_id=dict(type="str"),
    )
    module = AlicloudModule.for_state(spec, wait_timeout=600, validate=validate)
    module.run_state(present, absent, view, "nat_gateway")


if __name__ == "__main__":
    main()
