#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: ecs_security_group
short_description: Create or delete a VPC security group and its ingress rules
version_added: 0.1.0
description:
  - Keeps one security group named O(name) in VPC O(vpc_id) carrying O(tags), with the ingress
    O(rules) (C(CreateSecurityGroup), C(AuthorizeSecurityGroup), C(RevokeSecurityGroup),
    C(DescribeSecurityGroups), C(DescribeSecurityGroupAttribute), C(DeleteSecurityGroup)).
  - Rules missing from the group are added; with O(purge_rules=true) rules not listed are revoked.
extends_documentation_fragment: [scc.training.alicloud, scc.training.alicloud.api, scc.training.alicloud.state]
options:
  name:
    description: Security group name.
    type: str
    required: true
  vpc_id:
    description: VPC of the group.
    type: str
    required: true
  description:
    description: Description, set at creation.
    type: str
  tags:
    description: Tags of the group, set at creation (at most 20).
    type: dict
    default: {}
  rules:
    description: Ingress rules.
    type: list
    elements: dict
    default: []
    suboptions:
      ip_protocol:
        description: Protocol.
        type: str
        choices: [tcp, udp, icmp, gre, all]
        required: true
      port_range:
        description: C(first/last), for example V(22/22). V(-1/-1) for icmp, gre and all.
        type: str
        default: "-1/-1"
      source_cidr_ip:
        description: IPv4 source CIDR block.
        type: str
        required: true
      policy:
        description: Accept or drop.
        type: str
        choices: [accept, drop]
        default: accept
      priority:
        description: 1 (first) to 100.
        type: int
        default: 1
      description:
        description: Rule description.
        type: str
  purge_rules:
    description: Revoke ingress rules that O(rules) does not list.
    type: bool
    default: false
  purge_descriptions:
    description:
      - Revoke the ingress rules that O(rules) does not list and whose description is one of these; every other rule
        not listed stays (unless O(purge_rules)). A rule an earlier run made for a purpose now gone, told by the
        description it was made with (C(playbooks/provision.yml)'s SSH rule from the bastion, once C(scc_cloud_access)
        is no longer C(bastion)). An empty description is refused; it would match every rule made without one.
    type: list
    elements: str
    default: []
    version_added: 0.5.0
author: scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Security group of the cluster, ssh from the VPC and everything inside the VSwitch
  scc.training.ecs_security_group:
    name: bert-sg
    vpc_id: "{{ vpc.vpc.vpc_id }}"
    tags:
      managed-by: scc.training
    rules:
      - ip_protocol: tcp
        port_range: 22/22
        source_cidr_ip: 192.168.0.0/16
      - ip_protocol: all
        source_cidr_ip: 192.168.1.0/24
  register: sg
"""

RETURN = r"""
security_group:
  description: The security group with its ingress rules (empty after O(state=absent)).
  returned: always
  type: dict
  contains:
    security_group_id:
      description: Group ID.
      type: str
      sample: sg-uf6f7l4fg90oxxx
    security_group_name:
      description: Name.
      type: str
      sample: bert-sg
    vpc_id:
      description: VPC ID.
      type: str
      sample: vpc-uf6f7l4fg90oyyy
    description:
      description: Description.
      type: str
      sample: managed-by=scc.training
    tags:
      description: Tags as a dict.
      type: dict
      sample: {managed-by: scc.training}
    rules:
      description: Ingress rules, in the form of O(rules).
      type: list
      elements: dict
      sample: [{ip_protocol: tcp, port_range: 22/22, source_cidr_ip: 192.168.0.0/16, policy: accept, priority: 1}]
"""

import ipaddress
import re

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    SECURITY_GROUP,
    AlicloudModule,
    rule_key,
    with_ingress_rules,
)

PORT_RANGE = re.compile(r"^(-1/-1|\d{1,5}/\d{1,5})$")


def validate(params):
    errors = []
    for n, rule in enumerate(params["rules"] or [], start=1):
        where = "rules[%d]" % n
        port_range = rule["port_range"]
        if not PORT_RANGE.match(port_range):
            errors.append("%s.port_range %r is not first/last (e.g. 22/22) or -1/-1" % (where, port_range))
        elif port_range != "-1/-1":
            first, last = (int(x) for x in port_range.split("/"))
            if not 1 <= first <= last <= 65535:
                errors.append("%s.port_range %s must be 1..65535 with first <= last" % (where, port_range))
            if rule["ip_protocol"] not in ("tcp", "udp"):
                errors.append("%s.port_range must be -1/-1 for ip_protocol %s" % (where, rule["ip_protocol"]))
        try:
            ipaddress.IPv4Network(rule["source_cidr_ip"], strict=True)
        except ValueError as exc:
            errors.append("%s.source_cidr_ip %r: %s" % (where, rule["source_cidr_ip"], exc))
        if not 1 <= rule["priority"] <= 100:
            errors.append("%s.priority must be 1 to 100, got %d" % (where, rule["priority"]))
    if len(params["tags"] or {}) > 20:
        errors.append("tags: at most 20 tags")
    for n, description in enumerate(params.get("purge_descriptions") or [], start=1):
        if not (description or "").strip():
            # a rule made without a description has an empty one: this would revoke every such rule
            errors.append(
                "purge_descriptions[%d] is empty: it would revoke every rule made without a description "
                "(purge_rules revokes every rule not listed)" % n
            )
    return errors


def rule_params(group_id, rule):
    """One rule in the current form, ``Permissions.1.*``: the top-level IpProtocol, PortRange, SourceCidrIp, Policy,
    Priority and Description are marked **[Deprecated]** in the ECS 2014-05-26 model (alibabacloud_ecs20140526
    AuthorizeSecurityGroupRequest / RevokeSecurityGroupRequest: "Use Permissions.N.IpProtocol ...")."""
    permission = {
        "IpProtocol": rule["ip_protocol"],
        "PortRange": rule["port_range"],
        "SourceCidrIp": rule["source_cidr_ip"],
        "Policy": rule["policy"],
        "Priority": rule["priority"],
        "Description": rule.get("description"),
    }
    return {"SecurityGroupId": group_id, "Permissions": [{k: v for k, v in permission.items() if v is not None}]}


def find(module):
    """The group with its ingress rules, or None."""
    p = module.params
    group = module.find_one(SECURITY_GROUP, scope={"VpcId": p["vpc_id"]}, where={"SecurityGroupName": p["name"]})
    return with_ingress_rules(module.api, group) if group else None


def present(module):
    p = module.params
    group = before = find(module)
    if not group:
        params = {
            "VpcId": p["vpc_id"],
            "SecurityGroupName": p["name"],
            "SecurityGroupType": "normal",
            "Description": p["description"],
            "Tag": dict(p["tags"]) or None,
        }
        if module.check_mode:
            return True, None, dict(params, IngressRules=[dict(r) for r in p["rules"]])
        group = with_ingress_rules(module.api, module.create(SECURITY_GROUP, params, scope={"VpcId": p["vpc_id"]}))
    have = group["IngressRules"]
    have_keys = {rule_key(r) for r in have}
    want_keys = {rule_key(r) for r in p["rules"]}
    to_add = [r for r in p["rules"] if rule_key(r) not in have_keys]
    purge = set(p["purge_descriptions"])
    to_revoke = [
        r for r in have if rule_key(r) not in want_keys and (p["purge_rules"] or r.get("description") in purge)
    ]
    if not module.check_mode:
        for rule in to_add:
            module.api.call("ecs", "AuthorizeSecurityGroup", rule_params(group["SecurityGroupId"], rule))
        for rule in to_revoke:
            module.api.call("ecs", "RevokeSecurityGroup", rule_params(group["SecurityGroupId"], rule))
    after = dict(group, IngressRules=[r for r in have if r not in to_revoke] + [dict(r) for r in to_add])
    return bool(before is None or to_add or to_revoke), before, after


def absent(module):
    return module.delete_if_found(SECURITY_GROUP, find(module))


def main():
    rule_spec = dict(
        ip_protocol=dict(type="str", required=True, choices=["tcp", "udp", "icmp", "gre", "all"]),
        port_range=dict(type="str", default="-1/-1"),
        source_cidr_ip=dict(type="str", required=True),
        policy=dict(type="str", default="accept", choices=["accept", "drop"]),
        priority=dict(type="int", default=1),
        description=dict(type="str"),
    )
    spec = dict(
        name=dict(type="str", required=True),
        vpc_id=dict(type="str", required=True),
        description=dict(type="str"),
        tags=dict(type="dict", default={}),
        rules=dict(type="list", elements="dict", default=[], options=rule_spec),
        purge_rules=dict(type="bool", default=False),
        purge_descriptions=dict(type="list", elements="str", default=[]),
    )
    module = AlicloudModule.for_state(spec, validate=validate)
    module.run_state(present, absent, SECURITY_GROUP.view, "security_group")


if __name__ == "__main__":
    main()
