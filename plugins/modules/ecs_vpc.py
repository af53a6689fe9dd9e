#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: ecs_vpc
short_description: Create or delete a VPC, found by name
version_added: 0.1.0
description:
  - Keeps one VPC named O(name) (ECS API 2014-05-26 C(CreateVpc), C(DescribeVpcs), C(DeleteVpc)),
    and waits until a new one is C(Available).
  - The CIDR block cannot change; a different O(cidr_block) for an existing VPC fails.
  - Two VPCs with the same name fail the task rather than guessing.
extends_documentation_fragment: [scc.training.alicloud, scc.training.alicloud.api, scc.training.alicloud.state, scc.training.alicloud.wait]
options:
  name:
    description: VPC name (2 to 128 characters, not starting with C(http://) or C(https://)).
    type: str
    required: true
  cidr_block:
    description:
      - IPv4 CIDR block, inside 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16, prefix length 8 to 24.
      - Required to create the VPC.
    type: str
  description:
    description:
      - Description, set at creation. M(scc.training.ecs_vpc) does not change it later.
      - C(playbooks/teardown.yml) deletes only VPCs whose description marks them as made by scc.training.
    type: str
  wait_timeout:
    default: 300
author: scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: A VPC for the cluster
  scc.training.ecs_vpc:
    name: bert-vpc
    cidr_block: 192.168.0.0/16
    description: "managed-by=scc.training"
  register: vpc
"""

RETURN = r"""
vpc:
  description: The VPC (empty after O(state=absent)).
  returned: always
  type: dict
  contains:
    vpc_id:
      description: VPC ID.
      type: str
      sample: vpc-uf6f7l4fg90oxxx
    vpc_name:
      description: Name.
      type: str
      sample: bert-vpc
    cidr_block:
      description: CIDR block.
      type: str
      sample: 192.168.0.0/16
    status:
      description: C(Pending) or C(Available).
      type: str
      sample: Available
    description:
      description: Description.
      type: str
      sample: managed-by=scc.training
    vswitch_ids:
      description: VSwitches in the VPC.
      type: list
      elements: str
      sample: []
"""

import ipaddress

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    VPC,
    AlicloudModule,
)

PRIVATE_RANGES = [ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")]


def validate(params):
    errors = []
    name = params["name"] or ""
    if not 2 <= len(name) <= 128 or name.startswith(("http://", "https://")):
        errors.append("name must be 2 to 128 characters and not start with http:// or https://")
    cidr = params["cidr_block"]
    if cidr is not None:
        try:
            net = ipaddress.ip_network(cidr, strict=True)
        except ValueError as exc:
            errors.append("cidr_block %r is not an IPv4 network: %s" % (cidr, exc))
        else:
            # VPC API CreateVpc "CidrBlock" (alibabacloud_vpc20160428 CreateVpcRequest): an RFC 1918 block's "subnet
            # mask must be 16 to 28 bits in length" (this module said 8 to 24, ECS 2014-05-26's old rule).
            if net.version != 4 or not any(net.subnet_of(r) for r in PRIVATE_RANGES) or not 16 <= net.prefixlen <= 28:
                errors.append(
                    "cidr_block %s must lie inside 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16 "
                    "with a prefix length of 16 to 28" % cidr
                )
    elif params["state"] == "present":
        errors.append("cidr_block is required with state=present")
    return errors


def find(module):
    return module.find_one(VPC, where={"VpcName": module.params["name"]})


def present(module):
    p = module.params
    vpc = find(module)
    if vpc and vpc.get("CidrBlock") != p["cidr_block"]:
        module.fail_json(
            msg="cidr_block: VPC %s has %s, not %s; a VPC's CIDR block cannot change"
            % (vpc["VpcId"], vpc.get("CidrBlock"), p["cidr_block"])
        )
    params = {"VpcName": p["name"], "CidrBlock": p["cidr_block"], "Description": p["description"]}
    return module.create_unless_found(VPC, vpc, params, ready="Available")


def absent(module):
    return module.delete_if_found(VPC, find(module))


def main():
    spec = dict(name=dict(type="str", required=True), cidr_block=dict(type="str"), description=dict(type="str"))
    module = AlicloudModule.for_state(spec, wait_timeout=300, validate=validate)
    module.run_state(present, absent, VPC.view, "vpc")


if __name__ == "__main__":
    main()
