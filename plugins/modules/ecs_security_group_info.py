#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: ecs_security_group_info
short_description: List security groups with their ingress rules, by VPC, name, tags or ID
version_added: 0.2.0
description:
  - Read-only C(DescribeSecurityGroups), every page, filtered on the server by VPC, ID and tags;
    then one C(DescribeSecurityGroupAttribute) per group for its ingress rules.
extends_documentation_fragment: [scc.training.alicloud, scc.training.alicloud.api, scc.training.alicloud.info_attributes]
options:
  vpc_id:
    description: The VPC whose groups to list.
    type: str
  name:
    description: Security group name, matched exactly.
    type: str
  tags:
    description: Tags a group must carry, all of them (other tags do not matter).
    type: dict
    default: {}
  security_group_id:
    description: A security group ID (C(sg-...)).
    type: str
author: scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Our security groups in the cluster's VPC
  scc.training.ecs_security_group_info:
    vpc_id: "{{ vpc.vpcs[0].vpc_id }}"
    tags:
      managed-by: scc.training
  register: groups
"""

RETURN = r"""
security_groups:
  description:
    - Matching groups, oldest first, each as M(scc.training.ecs_security_group) returns
      RV(scc.training.ecs_security_group#module:security_group), ingress rules included.
  returned: always
  type: list
  elements: dict
  sample: [{security_group_id: sg-uf6f7l4fg90oxxx, security_group_name: bert-sg, vpc_id: vpc-uf6f7l4fg90oyyy,
            tags: {managed-by: scc.training}, rules: [{ip_protocol: tcp, port_range: 22/22}]}]
"""

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    SECURITY_GROUP,
    AlicloudModule,
    with_ingress_rules,
)


def main():
    module = AlicloudModule(
        dict(
            vpc_id=dict(type="str"),
            security_group_id=dict(type="str"),
            name=dict(type="str"),
            tags=dict(type="dict", default={}),
        )
    )
    p = module.params
    module.run_info(
        SECURITY_GROUP,
        "security_groups",
        scope={"VpcId": p["vpc_id"]},
        where={"SecurityGroupName": p["name"]},
        tags=p["tags"],
        resource_id=p["security_group_id"],
        view=lambda group: SECURITY_GROUP.view(with_ingress_rules(module.api, group)),
    )


if __name__ == "__main__":
    main()
