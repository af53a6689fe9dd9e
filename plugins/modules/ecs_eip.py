#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: ecs_eip
short_description: Allocate, associate, unassociate and release an Elastic IP address, found by name and tags
version_added: 0.4.0
description:
  - Keeps one pay-as-you-go EIP named O(name) carrying O(tags) (VPC API 2016-04-28 C(AllocateEipAddress),
    C(DescribeEipAddresses), C(ReleaseEipAddress)) and, with O(instance_id), associates it with that ECS instance
    (C(AssociateEipAddress)), waiting until it is C(InUse).
  - O(state=absent) unassociates it from its instance (C(UnassociateEipAddress)), waits until it is C(Available), then
    releases it. Only an EIP with O(name) and every one of O(tags) is touched.
  - The allocation and each association carry a ClientToken derived from the request, so a retried call after a lost
    reply never allocates a second EIP.
  - An EIP associated with another instance than O(instance_id) fails the task (it is not moved).
  - Two EIPs of one name and tags fail the task rather than guessing.
extends_documentation_fragment: [scc.training.alicloud, scc.training.alicloud.api, scc.training.alicloud.state, scc.training.alicloud.wait]
options:
  name:
    description: EIP name, 1 to 128 characters, not starting with C(http://) or C(https://) (AllocateEipAddress C(Name)).
    type: str
    required: true
  description:
    description: Description, set at allocation (0 to 256 characters, not starting with C(http://) or C(https://)).
    type: str
  tags:
    description:
      - Tags the EIP carries, set at allocation; the EIP is found by O(name) and these tags.
      - Required with O(state=absent), so that nothing is released by a name alone.
    type: dict
    default: {}
  instance_id:
    description:
      - The ECS instance to associate the EIP with (C(InstanceType=EcsInstance)). Omitted, the association is left as
        it is.
    type: str
  bandwidth:
    description:
      - Peak bandwidth in Mbit/s; 1 to 200 with O(internet_charge_type=PayByTraffic), 1 to 500 with C(PayByBandwidth)
        (AllocateEipAddress C(Bandwidth), pay-as-you-go). Set at allocation only.
    type: int
    default: 5
  internet_charge_type:
    description:
      - How the EIP's traffic is billed (AllocateEipAddress C(InternetChargeType)). Set at allocation only.
    type: str
    choices: [PayByTraffic, PayByBandwidth]
    default: PayByTraffic
  wait_timeout:
    default: 300
attributes:
  check_mode:
    support: full
    description: Predicts the allocation, association or release without a write call.
  diff_mode:
    support: full
    description: The EIP before and after.
  action_group:
    support: full
    membership: [scc.training.alicloud]
    description: Use C(group/scc.training.alicloud) in C(module_defaults) to set the connection options.
author: scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: A public address for the bastion
  scc.training.ecs_eip:
    name: bert-bastion-eip
    tags: {managed-by: scc.training, scc-cluster: bert}
    instance_id: "{{ bastion.instances[0].instance_id }}"
  register: eip

- name: Unassociate and release it
  scc.training.ecs_eip:
    name: bert-bastion-eip
    tags: {managed-by: scc.training, scc-cluster: bert}
    state: absent
"""

RETURN = r"""
eip:
  description: The EIP (empty after O(state=absent)).
  returned: always
  type: dict
  contains:
    allocation_id:
      description: The EIP's ID.
      type: str
      sample: eip-2zeerraiwb7ujxscdxxx
    ip_address:
      description: Its address (empty in check mode before it exists).
      type: str
      sample: 47.100.0.10
    name:
      description: Name.
      type: str
      sample: bert-bastion-eip
    description:
      description: Description.
      type: str
    status:
      description: C(Available), C(Associating), C(InUse) or C(Unassociating).
      type: str
      sample: InUse
    bandwidth:
      description: Peak bandwidth, Mbit/s.
      type: str
      sample: "5"
    internet_charge_type:
      description: C(PayByTraffic) or C(PayByBandwidth).
      type: str
    instance_id:
      description: The instance it is associated with, or null.
      type: str
      sample: i-uf6f5bzd8y1v1tj1txxx
    tags:
      description: Its tags.
      type: dict
"""

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    EIP,
    TOKEN_GENERATIONS,
    AlicloudApiError,
    AlicloudModule,
)

# AllocateEipAddressRequest.bandwidth (alibabacloud_vpc20160428 7.2.2): PostPaid with PayByBandwidth 1 to 500 Mbit/s,
# with PayByTraffic 1 to 200.
MAX_BANDWIDTH = {"PayByBandwidth": 500, "PayByTraffic": 200}
# The states an EIP rests in; Associating and Unassociating pass (DescribeEipAddresses Status, the VPC API reference;
# the model's comment lists no values: UNCONFIRMED beyond the reference page).
SETTLED = ("Available", "InUse")


def validate(params):
    errors = []
    name = params["name"] or ""
    if not 1 <= len(name) <= 128 or name.startswith(("http://", "https://")):
        errors.append("name must be 1 to 128 characters and not start with http:// or https://")
    description = params["description"] or ""
    if len(description) > 256 or description.startswith(("http://", "https://")):
        errors.append("description must be at most 256 characters and not start with http:// or https://")
    high = MAX_BANDWIDTH[params["internet_charge_type"]]
    if not 1 <= params["bandwidth"] <= high:
        errors.append(
            "bandwidth must be 1 to %d Mbit/s with internet_charge_type %s, not %s"
            % (high, params["internet_charge_type"], params["bandwidth"])
        )
    if params["state"] == "absent" and not params["tags"]:
        errors.append("tags is required with state=absent (an EIP is never released by its name alone)")
    if params["instance_id"] is not None and not params["instance_id"].startswith("i-"):
        errors.append("instance_id must be an ECS instance ID (i-...), not %r" % params["instance_id"])
    return errors


def find(module):
    return module.find_one(EIP, where={"Name": module.params["name"]}, tags=module.params["tags"] or None)


def fetch(module, allocation_id):
    return module.find_one(EIP, resource_id=allocation_id)


def settled(module, eip, wanted=SETTLED):
    """``eip`` once its Status is one of ``wanted`` (an association under way is waited for, not interrupted)."""
    if eip.get("Status") in wanted or module.check_mode:
        return eip
    what = "EIP %s" % eip["AllocationId"]
    found = module.wait(lambda: fetch(module, eip["AllocationId"]), lambda e: e and e.get("Status") in wanted, what)
    return found


def call_with_token(module, action, params, done):
    """``action`` with a request-derived ClientToken; a token answers with its first result even once that result was
    undone (an association unassociated since), so while ``done()`` says the call had no effect the next generation of
    token is tried (the same sequence in every run)."""
    for generation in range(TOKEN_GENERATIONS):
        module.api.call("vpc", action, params, client_token_generation=generation)
        if done():
            return
    raise AlicloudApiError(action, "ClientTokenExhausted", "every derived ClientToken names an earlier %s" % action)


def associate(module, eip, instance_id):
    allocation_id = eip["AllocationId"]

    def now_with_it():
        current = fetch(module, allocation_id) or {}
        return current.get("InstanceId") == instance_id

    call_with_token(
        module,
        "AssociateEipAddress",
        {"AllocationId": allocation_id, "InstanceId": instance_id, "InstanceType": "EcsInstance"},
        now_with_it,
    )
    if not module.params["wait"]:
        return fetch(module, allocation_id)
    return settled(module, fetch(module, allocation_id), ("InUse",))


def unassociate(module, eip):
    allocation_id = eip["AllocationId"]

    def now_without():
        current = fetch(module, allocation_id) or {}
        return not current.get("InstanceId")

    call_with_token(
        module,
        "UnassociateEipAddress",
        {"AllocationId": allocation_id, "InstanceId": eip["InstanceId"], "InstanceType": "EcsInstance"},
        now_without,
    )
    return settled(module, fetch(module, allocation_id), ("Available",))


def present(module):
    p = module.params
    before = find(module)
    eip = before
    changed = False
    if eip is None:
        params = {
            "Name": p["name"],
            "Description": p["description"],
            "Bandwidth": p["bandwidth"],
            "InternetChargeType": p["internet_charge_type"],
            "InstanceChargeType": "PostPaid",
            "Tag": p["tags"] or None,
        }
        changed, _none, eip = module.create_unless_found(EIP, None, params, ready="Available")
        if module.check_mode:
            eip = {"Name": p["name"], "Description": p["description"], "Status": "Available", "Tags": _api_tags(p)}
    else:
        eip = settled(module, eip)
    wanted = p["instance_id"]
    if wanted and eip.get("InstanceId") != wanted:
        if eip.get("InstanceId"):
            module.fail_json(
                msg="instance_id: EIP %s (%s) is associated with %s, not %s; it is not moved: unassociate it first"
                % (eip["AllocationId"], p["name"], eip["InstanceId"], wanted)
            )
        changed = True
        if module.check_mode:
            eip = dict(eip, InstanceId=wanted, Status="InUse")
        else:
            eip = associate(module, eip, wanted)
    return changed, before, eip


def _api_tags(p):
    return {"Tag": [{"Key": k, "Value": v} for k, v in sorted((p["tags"] or {}).items())]}


def absent(module):
    before = eip = find(module)
    if eip is None:
        return False, None, None
    if not module.check_mode:
        eip = settled(module, eip)
        if eip.get("InstanceId"):
            eip = unassociate(module, eip)
    module.remove(EIP, eip)
    return True, before, None


def main():
    spec = dict(
        name=dict(type="str", required=True),
        description=dict(type="str"),
        tags=dict(type="dict", default={}),
        instance_id=dict(type="str"),
        bandwidth=dict(type="int", default=5),
        internet_charge_type=dict(type="str", default="PayByTraffic", choices=["PayByTraffic", "PayByBandwidth"]),
    )
    module = AlicloudModule.for_state(spec, wait_timeout=300, validate=validate)
    module.run_state(present, absent, EIP.view, "eip")


if __name__ == "__main__":
    main()
