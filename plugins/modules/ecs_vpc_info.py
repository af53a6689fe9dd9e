#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: ecs_vpc_info
short_description: List VPCs by name or ID
version_added: 0.2.0
description:
  - Read-only C(DescribeVpcs), every page. Without options, every VPC of the region.
extends_documentation_fragment: [scc.training.alicloud, scc.training.alicloud.api, scc.training.alicloud.info_attributes]
options:
  name:
    description: The VPC name to look for, matched exactly.
    type: str
  vpc_id:
    description: ID of the VPC (C(vpc-...)).
    type: str
author: scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Find the cluster's VPC without changing anything
  scc.training.ecs_vpc_info:
    name: bert-vpc
  register: found

- name: Its VSwitches
  ansible.builtin.debug:
    msg: "{{ found.vpcs | map(attribute='vswitch_ids') | flatten }}"
"""

RETURN = r"""
vpcs:
  description: Matching VPCs, oldest first, each as M(scc.training.ecs_vpc) returns RV(scc.training.ecs_vpc#module:vpc).
  returned: always
  type: list
  elements: dict
  sample: [{vpc_id: vpc-uf6f7l4fg90oxxx, vpc_name: bert-vpc, cidr_block: 192.168.0.0/16, status: Available,
            description: "managed-by=scc.training", vswitch_ids: [vsw-uf6f7l4fg90oyyy]}]
"""

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    VPC,
    AlicloudModule,
)


def main():
    module = AlicloudModule(dict(vpc_id=dict(type="str"), name=dict(type="str")))
    module.run_info(VPC, "vpcs", where={"VpcName": module.params["name"]}, resource_id=module.params["vpc_id"])


if __name__ == "__main__":
    main()
