#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: ecs_security_group
short_description: Create or delete a VPC security group and its ingress rules
version_added: 0.2.0
description:
  - Keeps one security group named O(name) in VPC O(vpc_id) carrying O(tags), with the ingress
    O(rules) (C(CreateSecurityGroup), C(AuthorizeSecurityGroup), C(RevokeSecurityGroup),
    C(DescribeSecurityGroups), C(DescribeSecurityGroupAttribute), C(DeleteSecurityGroup)).
  - Rules missing from the group are added; with O(purge_rules=true) rules not listed are revoked.
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
  state:
    description: Whether the group exists.
    type: str
    choices: [present, absent]
    default: present
extends_documentation_fragment:
  - scc.training.alicloud
  - scc.training.alicloud.attributes
author:
  - scc.training developers (!UNKNOWN)
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
  description: The group (empty after O(state=absent)).
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
    AlicloudApiError,
    AlicloudModule,
    tags_from_api,
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
    return errors


def rule_key(rule):
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


def rule_params(group_id, rule):
    return {
        "SecurityGroupId": group_id,
        "IpProtocol": rule["ip_protocol"],
        "PortRange": rule["port_range"],
        "SourceCidrIp": rule["source_cidr_ip"],
        "Policy": rule["policy"],
        "Priority": rule["priority"],
        "Description": rule.get("description"),
    }


def find(module, group_id=None):
    params = {"VpcId": module.params["vpc_id"]}
    if group_id:
        params["SecurityGroupId"] = group_id
    found = module.api.paginate("ecs", "DescribeSecurityGroups", params, ("SecurityGroups", "SecurityGroup"))
    if group_id:
        return next((g for g in found if g.get("SecurityGroupId") == group_id), None)
    named = [g for g in found if g.get("SecurityGroupName") == module.params["name"]]
    if len(named) > 1:
        module.fail_json(
            msg="name: %d security groups in %s are named %s"
            % (len(named), module.params["vpc_id"], module.params["name"])
        )
    return named[0] if named else None


def ingress_rules(module, group_id):
    reply = module.api.call(
        "ecs", "DescribeSecurityGroupAttribute", {"SecurityGroupId": group_id, "Direction": "ingress"}
    )
    perms = (reply.get("Permissions") or {}).get("Permission", []) or []
    return [rule_from_api(p) for p in perms if (p.get("Direction") or "ingress") == "ingress"]


def view(group, rules):
    if not group:
        return {}
    return dict(
        security_group_id=group.get("SecurityGroupId"),
        security_group_name=group.get("SecurityGroupName"),
        vpc_id=group.get("VpcId"),
        description=group.get("Description"),
        tags=tags_from_api(group.get("Tags")),
        rules=sorted(rules, key=rule_key),
    )


def present(module):
    p = module.params
    group = find(module)
    changed = False
    if not group:
        changed = True
        params = {
            "VpcId": p["vpc_id"],
            "SecurityGroupName": p["name"],
            "SecurityGroupType": "normal",
            "Description": p["description"],
            "Tag": dict(p["tags"]) or None,
        }
        if module.check_mode:
            wanted = [dict(r) for r in p["rules"]]
            return True, {}, view({"SecurityGroupName": p["name"], "VpcId": p["vpc_id"]}, wanted)
        group_id, _reply = module.api.create(
            "ecs", "CreateSecurityGroup", params, "SecurityGroupId", lambda i: find(module, i) is not None
        )
        group = find(module, group_id)
    have = ingress_rules(module, group["SecurityGroupId"])
    before = view(group, have) if not changed else {}
    have_keys = {rule_key(r) for r in have}
    want_keys = {rule_key(r) for r in p["rules"]}
    to_add = [r for r in p["rules"] if rule_key(r) not in have_keys]
    to_revoke = [r for r in have if rule_key(r) not in want_keys] if p["purge_rules"] else []
    if to_add or to_revoke:
        changed = True
        if not module.check_mode:
            for rule in to_add:
                module.api.call("ecs", "AuthorizeSecurityGroup", rule_params(group["SecurityGroupId"], rule))
            for rule in to_revoke:
                module.api.call("ecs", "RevokeSecurityGroup", rule_params(group["SecurityGroupId"], rule))
    after_rules = [r for r in have if r not in to_revoke] + [dict(r) for r in to_add]
    return changed, before, view(group, after_rules)


def absent(module):
    group = find(module)
    if not group:
        return False, {}, {}
    before = view(group, ingress_rules(module, group["SecurityGroupId"]))
    module.delete("ecs", "DeleteSecurityGroup", {"SecurityGroupId": group["SecurityGroupId"]})
    return True, before, {}


def main():
    rule_spec = dict(
        ip_protocol=dict(type="str", required=True, choices=["tcp", "udp", "icmp", "gre", "all"]),
        port_range=dict(type="str", default="-1/-1"),
        source_cidr_ip=dict(type="str", required=True),
        policy=dict(type="str", default="accept", choices=["accept", "drop"]),
        priority=dict(type="int", default=1),
        description=dict(type="str"),
    )
    module = AlicloudModule(
        argument_spec=dict(
            name=dict(type="str", required=True),
            vpc_id=dict(type="str", required=True),
            description=dict(type="str"),
            tags=dict(type="dict", default={}),
            rules=dict(type="list", elements="dict", default=[], options=rule_spec),
            purge_rules=dict(type="bool", default=False),
            state=dict(type="str", default="present", choices=["present", "absent"]),
        ),
        supports_check_mode=True,
    )
    errors = validate(module.params)
    if errors:
        module.fail_json(msg="; ".join(errors))
    try:
        if module.params["state"] == "present":
            changed, before, after = present(module)
        else:
            changed, before, after = absent(module)
    except AlicloudApiError as exc:
        module.fail_api(exc)
    result = dict(changed=changed, security_group=after)
    if module._diff:
        result["diff"] = dict(before=before, after=after)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
