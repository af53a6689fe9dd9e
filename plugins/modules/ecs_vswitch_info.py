#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: ecs_vswitch_info
short_description: List VSwitches by VPC, zone, name or ID
version_added: 0.2.0
description:
  - Read-only C(DescribeVSwitches), every page, filtered on the server by VPC, zone and ID.
extends_documentation_fragment: [scc.training.alicloud, scc.training.alicloud.api, scc.training.alicloud.info_attributes]
options:
  vpc_id:
    description: The VPC to list the VSwitches of; without it, every VPC of the region.
    type: str
  zone_id:
    description: Only VSwitches in this zone, for example V(cn-shanghai-b).
    type: str
  name:
    description: VSwitch name, matched exactly.
    type: str
  vswitch_id:
    description: A VSwitch ID (C(vsw-...)).
    type: str
author: scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: The VSwitch of the cluster in its VPC
  scc.training.ecs_vswitch_info:
    vpc_id: "{{ vpc.vpcs[0].vpc_id }}"
    name: bert-vsw
  register: vsw
"""

RETURN = r"""
vswitches:
  description:
    - Matching VSwitches, oldest first, each as M(scc.training.ecs_vswitch) returns RV(scc.training.ecs_vswitch#module:vswitch).
  returned: always
  type: list
  elements: dict
  sample: [{vswitch_id: vsw-uf6f7l4fg90oxxx, vswitch_name: bert-vsw, vpc_id: vpc-uf6f7l4fg90oyyy,
            zone_id: cn-shanghai-b, cidr_block: 192.168.1.0/24, status: Available, description: ""}]
"""

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    VSWITCH,
    AlicloudModule,
)


def main():
    module = AlicloudModule(
        dict(vpc_id=dict(type="str"), zone_id=dict(type="str"), vswitch_id=dict(type="str"), name=dict(type="str"))
    )
    p = module.params
    scope = {"VpcId": p["vpc_id"], "ZoneId": p["zone_id"]}
    module.run_info(VSWITCH, "vswitches", scope, {"VSwitchName": p["name"]}, resource_id=p["vswitch_id"])


if __name__ == "__main__":
    main()
