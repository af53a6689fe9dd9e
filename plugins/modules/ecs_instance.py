#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: ecs_instance
short_description: Keep an exact number of ECS instances (SCC bare-metal GPU servers) by name and tags
version_added: 0.1.0
description:
  - Keeps exactly O(count) instances whose name is O(name) and which carry every tag in O(tags).
    Missing ones are created with one C(RunInstances) call; extra ones are deleted, the most recently created first
    (C(CreationTime) has minute resolution; ties go by instance ID).
  - The create call carries a C(ClientToken) derived from the request and the instances the set already has.
    A run that fails after the cloud took the create (a lost reply, a timeout) and is run again finds the
    same set, presents the same token, so the cloud returns the instances it already made, never a second
    set of GPU servers; growing the set again (1 -> 2 after 0 -> 1) is a new create with a new token.
  - When the cloud has no stock (C(OperationDenied.NoStock)), the module fails naming the instance
    type and the zone (the zone of O(vswitch_id)).
  - SCC instance types (family C(ecs.scc*)) need O(hpc_cluster_id); the module fails before any
    write when it is missing. Other types are created without one (RunInstances refuses it for them with
    C(InvalidHpcClusterId.Unnecessary)).
  - With O(eri_count), each new instance gets that many Elastic RDMA Interfaces (secondary ENIs with
    C(NetworkInterfaceTrafficMode=HighPerformance)) at creation.
  - With O(require_uefi_image), the image's boot mode (C(DescribeImages) C(BootMode)) is checked before any
    instance is created, C(UEFI) or C(UEFI-Preferred), else the module fails naming O(image_id).
  - O(instance_charge_type=PrePaid) (subscription) creates with O(period), O(period_unit) and O(auto_renew).
    C(DeleteInstances) releases a subscription instance only once it has expired
    (C(TerminateSubscription), "whether to release an expired subscription instance"); an unexpired one is
    refused before any delete call, naming it (convert it to pay-as-you-go or release it in the console).
  - Waits until every kept instance is C(Running), then returns its private and RDMA addresses.
extends_documentation_fragment: [scc.training.alicloud, scc.training.alicloud.api, scc.training.alicloud.state, scc.training.alicloud.wait]
options:
  name:
    description: Instance name; with O(tags) it identifies the set of instances this task owns.
    type: str
    required: true
  count:
    description:
      - How many instances to keep. V(0) deletes them all. Ignored with O(state=absent).
    type: int
    default: 1
  state:
    description:
      - V(present) keeps O(count) instances; V(absent) deletes every matching instance.
      - V(absent) needs O(tags) or O(instance_ids), as a name alone may match instances someone else made.
  instance_ids:
    description:
      - With O(state=absent), delete only these of the matching instances (IDs C(i-...)).
    type: list
    elements: str
  instance_type:
    description:
      - Instance type, C(ecs.<family>.<size>), for example V(ecs.sccgn6.24xlarge).
      - Required to create instances.
    type: str
  image_id:
    description: Image to boot. Required to create instances.
    type: str
  vswitch_id:
    description: VSwitch the instances join. Required to create instances.
    type: str
  security_group_id:
    description: Security group of the instances. Required to create instances.
    type: str
  hpc_cluster_id:
    description: HPC cluster (C(hpc-...)) of the instances. Required for SCC instance types.
    type: str
  deployment_set_id:
    description: Optional deployment set (C(ds-...)).
    type: str
  key_pair_name:
    description: SSH key pair to install for the login user.
    type: str
  system_disk_category:
    description: System disk category.
    type: str
    default: cloud_essd
  system_disk_size:
    description: System disk size in GiB (20 to 2048).
    type: int
    default: 100
  tags:
    description:
      - Tags every instance carries (at most 20). They identify the set together with O(name).
    type: dict
    default: {}
  eri_count:
    description:
      - Elastic RDMA Interfaces per new instance (RunInstances C(NetworkInterface.N) with C(InstanceType=Secondary),
        C(NetworkInterfaceTrafficMode=HighPerformance), the instance's VSwitch and security group, and
        C(NetworkCardIndex) N-1; ebmgn7ex reaches 160 Gbit/s with its two ERIs on different NIC indexes, 100 on one).
      - At most what the instance family supports (DescribeInstanceTypes C(EriQuantity)); V(0) for none.
    type: int
    default: 0
  jumbo_frames:
    description:
      - RunInstances C(NetworkOptions.EnableJumboFrame). V(true) gives every ENI of the instance MTU 8500, V(false)
        MTU 1500 (the API's default is true, on the eighth-generation and later types that support it). Not sent when unset.
      - NCCL on eRDMA needs MTU 8500 with jumbo frames, else 1400 (rdma_stack checks it on the hosts).
    type: bool
  require_uefi_image:
    description:
      - Check before creating that O(image_id) boots UEFI (C(DescribeImages) C(BootMode) C(UEFI) or
        C(UEFI-Preferred)); the eRDMA bare-metal families (ebmgn8v, ebmgn8is, ...) boot UEFI images only.
    type: bool
    default: false
  instance_charge_type:
    description: V(PostPaid) (pay-as-you-go) or V(PrePaid) (subscription).
    type: str
    default: PostPaid
    choices: [PostPaid, PrePaid]
  period:
    description:
      - Subscription length in O(period_unit); required with O(instance_charge_type=PrePaid).
      - Month 1-9, 12, 24, 36, 48 or 60; Week 1-4 (RunInstances C(Period)).
    type: int
  period_unit:
    description: Unit of O(period).
    type: str
    default: Month
    choices: [Week, Month]
  auto_renew:
    description: Renew the subscription automatically (RunInstances C(AutoRenew), PrePaid only).
    type: bool
    default: false
  wait:
    description: Wait until created instances are C(Running) and deleted ones are gone.
  wait_timeout:
    default: 1200
author: scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Four SCC GPU servers in one HPC cluster
  scc.training.ecs_instance:
    name: bert-node
    count: 4
    instance_type: ecs.sccgn6.24xlarge
    image_id: m-scc-centos75
    vswitch_id: "{{ vsw.vswitch.vswitch_id }}"
    security_group_id: "{{ sg.security_group.security_group_id }}"
    hpc_cluster_id: "{{ hpc.hpc_cluster.hpc_cluster_id }}"
    tags:
      managed-by: scc.training
      cluster: bert
  register: nodes

- name: Two ebmgn8v nodes (H20, eRDMA), each with its two Elastic RDMA Interfaces, on a UEFI image, jumbo frames on
  scc.training.ecs_instance:
    name: bert-node
    count: 2
    instance_type: ecs.ebmgn8v.48xlarge
    image_id: aliyun_3_x64_20G_uefi_alibase_YYYYMMDD.vhd
    require_uefi_image: true
    eri_count: 2
    jumbo_frames: true
    vswitch_id: "{{ vsw.vswitch.vswitch_id }}"
    security_group_id: "{{ sg.security_group.security_group_id }}"
    tags:
      managed-by: scc.training
      cluster: bert
- name: Print the RDMA addresses
  ansible.builtin.debug:
    msg: "{{ nodes.instances | map(attribute='rdma_ip_addresses') | list }}"

- name: Delete them
  scc.training.ecs_instance:
    name: bert-node
    state: absent
    tags:
      managed-by: scc.training
      cluster: bert
"""

RETURN = r"""
instances:
  description: The instances kept (after the change), oldest first.
  returned: always
  type: list
  elements: dict
  contains:
    instance_id:
      description: Instance ID.
      type: str
      sample: i-uf6f5bzd8y1v1tj1t6vq
    status:
      description: C(Pending), C(Running), C(Starting), C(Stopping) or C(Stopped).
      type: str
      sample: Running
    instance_type:
      description: Instance type.
      type: str
      sample: ecs.sccgn6.24xlarge
    private_ip_addresses:
      description: VPC private addresses.
      type: list
      elements: str
      sample: [192.168.1.10]
    rdma_ip_addresses:
      description: RDMA (RoCE) addresses, empty for types without RDMA.
      type: list
      elements: str
      sample: [10.10.0.5]
    eip_address:
      description: The address of the EIP associated with it (M(scc.training.ecs_eip)), or null.
      type: str
      version_added: 0.4.0
      sample: 47.100.0.10
    gpu_amount:
      description: GPUs of the instance type.
      type: int
      sample: 8
    hpc_cluster_id:
      description: HPC cluster ID.
      type: str
      sample: hpc-pnlg1ds9rky4a
    tags:
      description: Tags as a dict.
      type: dict
      sample: {managed-by: scc.training}
created:
  description: IDs created by this run (in check mode, the number that would be created, as C(would-create-N)).
  returned: always
  type: list
  elements: str
  sample: [i-uf6f5bzd8y1v1tj1t6vq]
deleted:
  description: IDs deleted by this run (in check mode, that would be deleted).
  returned: always
  type: list
  elements: str
  sample: []
"""

import re
import time

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    INSTANCE,
    INSTANCE_GONE,
    VSWITCH,
    AlicloudApiError,
    AlicloudModule,
    batches,
    find_all,
    wait_for,
)
from ansible_collections.scc.training.plugins.module_utils.cloud_nodes import charge_problems

INSTANCE_TYPE = re.compile(r"^ecs\.([a-z][a-z0-9-]*)\.([a-z0-9-]+)$")
MAX_PER_CALL = 100  # RunInstances Amount is 1..100


def is_scc_type(instance_type):
    """ecs.sccgn6.24xlarge, ecs.scch5.16xlarge: Super Computing Cluster families need an HPC cluster."""
    match = INSTANCE_TYPE.match(instance_type or "")
    return bool(match) and match.group(1).startswith("scc")


def validate(params):
    """Every error in the options, as messages naming the option; checked before any API call."""
    errors = []
    if params["count"] is not None and params["count"] < 0:
        errors.append("count must be >= 0, got %d" % params["count"])
    if not params["name"] or len(params["name"]) > 128:
        errors.append("name must be 1 to 128 characters")
    tags = params["tags"] or {}
    if len(tags) > 20:
        errors.append("tags: at most 20 tags, got %d" % len(tags))
    for key in tags:
        if not key or str(key).startswith(("aliyun", "acs:")):
            errors.append("tags: key %r is empty or uses a reserved prefix (aliyun, acs:)" % key)
    if params["state"] == "absent" and not tags and not params["instance_ids"]:
        errors.append(
            "state=absent needs tags or instance_ids: name %r alone may match instances another owner made"
            % params["name"]
        )
    if params["state"] == "present" and params["instance_ids"]:
        errors.append("instance_ids is for state=absent only (present keeps count instances by name and tags)")
    creating = params["state"] == "present" and (params["count"] or 0) > 0
    instance_type = params["instance_type"]
    if instance_type is not None and not INSTANCE_TYPE.match(instance_type):
        errors.append(
            "instance_type %r is not of the form ecs.<family>.<size> (e.g. ecs.sccgn6.24xlarge)" % instance_type
        )
    if creating:
        for option in ("instance_type", "image_id", "vswitch_id", "security_group_id"):
            if not params[option]:
                errors.append("%s is required to create instances (count > 0)" % option)
        if instance_type and is_scc_type(instance_type) and not params["hpc_cluster_id"]:
            errors.append("hpc_cluster_id is required for the SCC instance type %s" % instance_type)
        size = params["system_disk_size"]
        if size is not None and not 20 <= size <= 2048:
            errors.append("system_disk_size must be 20 to 2048 GiB, got %d" % size)
        errors.extend(charge_problems(params["instance_charge_type"], params["period"], params["period_unit"]))
    if (params["eri_count"] or 0) < 0:
        errors.append("eri_count must be >= 0, got %d" % params["eri_count"])
    return errors


def find(module):
    """The live instances of the set (name, every tag, and one of instance_ids when given), oldest first."""
    p = module.params
    found = find_all(module.api, INSTANCE, {"InstanceName": p["name"]}, {"InstanceName": p["name"]}, p["tags"])
    wanted = set(p["instance_ids"] or ()) or None
    return [i for i in found if i.get("Status") not in INSTANCE_GONE and (wanted is None or i["InstanceId"] in wanted)]


def run_params(p, amount):
    params = {
        "InstanceType": p["instance_type"],
        "ImageId": p["image_id"],
        "VSwitchId": p["vswitch_id"],
        "SecurityGroupId": p["security_group_id"],
        "InstanceName": p["name"],
        "HpcClusterId": p["hpc_cluster_id"],
        "DeploymentSetId": p["deployment_set_id"],
        "KeyPairName": p["key_pair_name"],
        "SystemDisk.Category": p["system_disk_category"],
        "SystemDisk.Size": p["system_disk_size"],
        "InstanceChargeType": p["instance_charge_type"],
        "Amount": amount,
    }
    if p["instance_charge_type"] == "PrePaid":
        params.update(Period=p["period"], PeriodUnit=p["period_unit"], AutoRenew=p["auto_renew"])
    if p["jumbo_frames"] is not None:
        params["NetworkOptions.EnableJumboFrame"] = p["jumbo_frames"]
    if p["eri_count"]:
        params["NetworkInterface"] = [
            {
                "InstanceType": "Secondary",
                "VSwitchId": p["vswitch_id"],
                "SecurityGroupId": p["security_group_id"],
                "NetworkInterfaceTrafficMode": "HighPerformance",
                "NetworkCardIndex": index,
            }
            for index in range(p["eri_count"])
        ]
    if p["tags"]:
        params["Tag"] = dict(p["tags"])
    return params


# DescribeImages Images.Image[].BootMode: BIOS, UEFI or UEFI-Preferred (dual); alibabacloud_ecs20140526 7.11.8
# (DescribeImagesResponseBodyImagesImage.boot_mode; the values as CreateImageRequest.boot_mode documents them).
UEFI_BOOT_MODES = ("UEFI", "UEFI-Preferred")


def image_problem(module):
    """Why ``image_id`` cannot boot the instance type (not found, or not UEFI when ``require_uefi_image``); None
    when it can. Read-only (DescribeImages), so also run in check mode."""
    p = module.params
    reply = module.api.call("ecs", "DescribeImages", {"ImageId": p["image_id"], "PageSize": 10})
    images = (reply.get("Images") or {}).get("Image") or []
    if not images:
        return "image_id %s: no such image in region %s (DescribeImages)" % (p["image_id"], module.api.region)
    mode = images[0].get("BootMode") or ""
    if mode not in UEFI_BOOT_MODES:
        return (
            "image_id %s boots %s, but instance type %s boots UEFI images only (require_uefi_image); choose a UEFI"
            " image (DescribeImages BootMode UEFI or UEFI-Preferred)"
            % (p["image_id"], mode or "an unstated mode", p["instance_type"])
        )
    return None


def create(module, missing, known):
    """Launch ``missing`` instances, at most 100 a call; return the IDs that are new (not in ``known``).

    Each call's ClientToken is derived from its request and the IDs the set has before it (``known`` and
    those the earlier calls made): growing 1 -> 2 sends the very request that created the first instance, and
    the cloud would return that one for the same token; a retry of the same step, which finds the same set,
    keeps the token and gets what the lost call made (``client_token``).
    """
    created = []
    while missing > 0:
        amount = min(missing, MAX_PER_CALL)
        try:
            ids, _reply = module.api.create(
                "ecs",
                "RunInstances",
                run_params(module.params, amount),
                "InstanceIdSets.InstanceIdSet",
                lambda i: bool(find_all(module.api, INSTANCE, resource_id=i)),
                token_basis=sorted(set(known) | set(created)),
            )
        except AlicloudApiError as exc:
            if exc.code == "OperationDenied.NoStock":
                raise no_stock(module, exc, amount) from None
            raise
        created.extend(i for i in ids if i not in known)
        missing -= amount
    return created


def no_stock(module, exc, amount):
    """``exc`` (OperationDenied.NoStock) with a message naming the instance type and the zone."""
    vswitch_id = module.params["vswitch_id"]
    switch = find_all(module.api, VSWITCH, resource_id=vswitch_id)
    zone = switch[0]["ZoneId"] if switch else "of vswitch_id %s" % vswitch_id
    message = (
        "no stock of %d more %s in zone %s; choose another instance_type or a vswitch_id in another zone,"
        " or retry later (the cloud said: %s)" % (amount, module.params["instance_type"], zone, exc.message)
    )
    return AlicloudApiError(exc.action, exc.code, message, exc.http_status, exc.request_id, exc.attempts)


def unexpired_subscriptions(instances, ids, now=None):
    """The IDs among ``ids`` of PrePaid instances whose ``ExpiredTime`` (ISO 8601 UTC) is still ahead."""
    now = now or time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime())
    return [
        i["InstanceId"]
        for i in instances
        if i["InstanceId"] in ids and i.get("InstanceChargeType") == "PrePaid" and (i.get("ExpiredTime") or "9") > now
    ]


def subscription_flag(instances, batch):
    """``TerminateSubscription=true`` when the batch holds an (expired) PrePaid instance, else nothing."""
    prepaid = any(i.get("InstanceChargeType") == "PrePaid" for i in instances if i["InstanceId"] in batch)
    return {"TerminateSubscription": True} if prepaid else {}


def delete(module, extra):
    """Delete ``extra`` (IDs) once none is Pending (the API refuses: IncorrectInstanceStatus.Initializing)."""
    found = module.wait(
        lambda: [i for i in find(module) if i["InstanceId"] in extra],
        lambda found: all(i.get("Status") != "Pending" for i in found),
        "instances %s still Pending" % ", ".join(extra),
    )
    for batch in batches(extra, MAX_PER_CALL):
        try:
            module.api.call(
                "ecs", "DeleteInstances", {"InstanceId": batch, "Force": True, **subscription_flag(found, batch)}
            )
        except AlicloudApiError as exc:
            if not exc.code.startswith("InvalidInstanceId.NotFound"):
                raise


def ensure(module, want):
    """Keep ``want`` instances; before and after are ``{"instances", "created", "deleted"}``."""
    p = module.params
    current = find(module)
    known = [i["InstanceId"] for i in current]
    created, deleted = [], []
    if len(current) < want:
        missing = want - len(current)
        problem = image_problem(module) if p["require_uefi_image"] else None
        if problem:
            module.fail_json(msg=problem, instances=[INSTANCE.view(i) for i in current])
        if module.check_mode:
            created = ["would-create-%d" % n for n in range(1, missing + 1)]
        else:
            created = create(module, missing, known)
    elif len(current) > want:
        deleted = known[want:][::-1]  # newest first
        locked = unexpired_subscriptions(current, deleted)
        if locked:
            module.fail_json(
                msg="instances %s are PrePaid (subscription) and not expired: DeleteInstances releases a subscription"
                " instance only once it has expired (TerminateSubscription); convert them to pay-as-you-go"
                " (ModifyInstanceChargeType) or release them in the console, then run again" % ", ".join(locked),
                instances=[INSTANCE.view(i) for i in current],
            )
        if not module.check_mode:
            delete(module, deleted)
    changed = bool(created or deleted)
    before = dict(instances=current, created=[], deleted=[])
    if module.check_mode or not p["wait"]:
        kept = [i for i in current if i["InstanceId"] not in deleted]
        if not module.check_mode and changed:
            kept = find(module)
        return changed, before, dict(instances=kept, created=created, deleted=deleted)

    def settled(instances):
        ids = {i["InstanceId"] for i in instances}
        return (
            not ids & set(deleted)
            and set(created) <= ids
            and all(i.get("Status") == "Running" for i in instances)
            and len(instances) == want
        )

    try:
        kept = wait_for(
            lambda: find(module), settled, p["wait_timeout"], on_poll=module.wait_history("instances %s" % p["name"])
        )
    except TimeoutError as exc:
        module.fail_json(msg="instances %s: %s" % (p["name"], exc), created=created, deleted=deleted)
    return changed, before, dict(instances=kept, created=created, deleted=deleted)


def present(module):
    return ensure(module, module.params["count"])


def absent(module):
    return ensure(module, 0)


def view(state):
    """The result: the instances kept, and the IDs created and deleted."""
    return dict(state, instances=[INSTANCE.view(i) for i in state["instances"]])


def diff_view(state):
    """--diff shows the instance IDs of the set (in check mode, with the would-be ones)."""
    return {"instance_ids": sorted({i["InstanceId"] for i in state["instances"]} | set(state["created"]))}


def main():
    spec = dict(
        name=dict(type="str", required=True),
        count=dict(type="int", default=1),
        instance_type=dict(type="str"),
        image_id=dict(type="str"),
        vswitch_id=dict(type="str"),
        security_group_id=dict(type="str"),
        hpc_cluster_id=dict(type="str"),
        deployment_set_id=dict(type="str"),
        key_pair_name=dict(type="str", no_log=False),
        system_disk_category=dict(type="str", default="cloud_essd"),
        system_disk_size=dict(type="int", default=100),
        tags=dict(type="dict", default={}),
        instance_ids=dict(type="list", elements="str"),
        eri_count=dict(type="int", default=0),
        jumbo_frames=dict(type="bool"),
        require_uefi_image=dict(type="bool", default=False),
        instance_charge_type=dict(type="str", default="PostPaid", choices=["PostPaid", "PrePaid"]),
        period=dict(type="int"),
        period_unit=dict(type="str", default="Month", choices=["Week", "Month"]),
        auto_renew=dict(type="bool", default=False),
    )
    module = AlicloudModule.for_state(spec, wait_timeout=1200, validate=validate)
    module.run_state(present, absent, view, diff_view=diff_view)


if __name__ == "__main__":
    main()
