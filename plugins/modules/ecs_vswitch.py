#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: ecs_vswitch
short_description: Create or delete a VSwitch in a VPC, found by name
version_added: 0.1.0
description:
  - Keeps one VSwitch named O(name) in VPC O(vpc_id) (C(CreateVSwitch), C(DescribeVSwitches), C(DeleteVSwitch)),
    and waits until a new one is C(Available).
  - O(cidr_block) must lie inside the VPC's CIDR block; that is checked (with a read-only
    C(DescribeVpcs)) before any write.
  - Zone and CIDR block cannot change; different values for an existing VSwitch fail.
extends_documentation_fragment: [scc.training.alicloud, scc.training.alicloud.api, scc.training.alicloud.state, scc.training.alicloud.wait]
options:
  name:
    description: VSwitch name.
    type: str
    required: true
  vpc_id:
    description: VPC of the VSwitch.
    type: str
    required: true
  zone_id:
    description: Zone, for example V(cn-shanghai-b). Required to create.
    type: str
  cidr_block:
    description: IPv4 CIDR block inside the VPC's, prefix length 16 to 29. Required to create.
    type: str
  description:
    description: Description, set at creation.
    type: str
  wait_timeout:
    default: 300
author: scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: The cluster's VSwitch, in one zone
  scc.training.ecs_vswitch:
    name: bert-vsw
    vpc_id: "{{ vpc.vpc.vpc_id }}"
    zone_id: cn-shanghai-b
    cidr_block: 192.168.1.0/24
  register: vsw
"""

RETURN = r"""
vswitch:
  description: The VSwitch, with its zone and CIDR block (empty after O(state=absent)).
  returned: always
  type: dict
  contains:
    vswitch_id:
      description: VSwitch ID.
      type: str
      sample: vsw-uf6f7l4fg90oxxx
    vpc_id:
      description: VPC ID.
      type: str
      sample: vpc-uf6f7l4fg90oyyy
    zone_id:
      description: Zone.
      type: str
      sample: cn-shanghai-b
    cidr_block:
      description: CIDR block.
      type: str
      sample: 192.168.1.0/24
    status:
      description: C(Pending) or C(Available).
      type: str
      sample: Available
    vswitch_name:
      description: Name.
      type: str
      sample: bert-vsw
    description:
      description: Description.
      type: str
      sample: managed-by=scc.training
"""

import ipaddress

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    VPC,
    VSWITCH,
    AlicloudModule,
)


def validate(params):
    errors = []
    cidr = params["cidr_block"]
    if cidr is not None:
        try:
            net = ipaddress.ip_network(cidr, strict=True)
            if net.version != 4 or not 16 <= net.prefixlen <= 29:
                errors.append("cidr_block %s must be IPv4 with a prefix length of 16 to 29" % cidr)
        except ValueError as exc:
            errors.append("cidr_block %r is not an IPv4 network: %s" % (cidr, exc))
    if params["state"] == "present":
        for option in ("zone_id", "cidr_block"):
            if not params[option]:
                errors.append("%s is required with state=present" % option)
    return errors


def find(module):
    return module.find_one(VSWITCH, scope=scope(module), where={"VSwitchName": module.params["name"]})


def scope(module):
    return {"VpcId": module.params["vpc_id"]}


def check_inside_vpc(module):
    """Read-only: the VSwitch CIDR must lie inside the VPC's (checked before any write)."""
    p = module.params
    vpc = module.find_one(VPC, "vpc_id", resource_id=p["vpc_id"])
    if vpc is None:
        module.fail_json(msg="vpc_id: no VPC %s in region %s" % (p["vpc_id"], module.api.region))
    if not ipaddress.ip_network(p["cidr_block"]).subnet_of(ipaddress.ip_network(vpc["CidrBlock"])):
        module.fail_json(
            msg="cidr_block %s is not inside the CIDR block %s of VPC %s"
            % (p["cidr_block"], vpc["CidrBlock"], p["vpc_id"])
        )


def present(module):
    p = module.params
    check_inside_vpc(module)
    vsw = find(module)
    for key, option in (("ZoneId", "zone_id"), ("CidrBlock", "cidr_block")):
        if vsw and vsw.get(key) != p[option]:
            module.fail_json(
                msg="%s: VSwitch %s has %s, not %s; it cannot change"
                % (option, vsw["VSwitchId"], vsw.get(key), p[option])
            )
    params = {
        "VpcId": p["vpc_id"],
        "ZoneId": p["zone_id"],
        "CidrBlock": p["cidr_block"],
        "VSwitchName": p["name"],
        "Description": p["description"],
    }
    return module.create_unless_found(VSWITCH, vsw, params, scope(module), ready="Available")


def absent(module):
    return module.delete_if_found(VSWITCH, find(module))


def main():
    spec = dict(
        name=dict(type="str", required=True),
        vpc_id=dict(type="str", required=True),
        zone_id=dict(type="str"),
        cidr_block=dict(type="str"),
        description=dict(type="str"),
    )
    module = AlicloudModule.for_state(spec, wait_timeout=300, validate=validate)
    module.run_state(present, absent, VSWITCH.view, "vswitch")


if __name__ == "__main__":
    main()
