# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""What provision.yml asks of the cloud for the GPU nodes of an instance type, decided from the supported-instance
table (instance_families.py), never from a second one:

* ``hpc_cluster``: only the SCC families (``ecs.scc*``) are created in an HPC cluster. RunInstances' HpcClusterId is
  "required when you create an SCC instance" and refused for other types (``InvalidHpcClusterId.Unnecessary``,
  research/aliyun_facts.md section 2, RunInstances error codes); the ECS Bare Metal eRDMA families (ebmgn7ex,
  ebmgn8v, ebmgn8is, ebmgn8ia, ebmgn9g*) reach each other through Elastic RDMA Interfaces, not an HPC cluster
  (research/hardware_facts.md 4.4 and 4.6: "an NIC with the Elastic RDMA Interface feature attached").
* ``eri_count``: how many Elastic RDMA Interfaces (ENIs with ``NetworkInterfaceTrafficMode=HighPerformance``) each
  node gets, the family's ``rdma.ports`` (hardware_facts 4.6: two on ebmgn8v and ebmgn8is); a hand-set count above
  it is refused (RunInstances: "The number of ENIs in RDMA mode cannot exceed the limit of the instance family").
* ``require_uefi``: the eRDMA families boot UEFI-only images (hardware_facts 5), so the image is checked first.
* ``mtu``: the MTU NCCL needs on the eRDMA ports, 8500 with jumbo frames, else 1400 (hardware_facts 4.6: "with jumbo
  frames MTU must be 8500 for NCCL's LL128, else 1400"); None for a family without eRDMA. rdma_stack checks the same.
"""

from __future__ import annotations

from ansible_collections.scc.training.plugins.module_utils import input_checks, instance_families

AUTO = "auto"

# RunInstances Period per PeriodUnit (alibabacloud_ecs20140526 7.11.8, RunInstancesRequest.period; Week on the China
# site): Month 1-9, 12, 24, 36, 48, 60; Week 1-4.
PERIODS = {"Month": (1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 24, 36, 48, 60), "Week": (1, 2, 3, 4)}


def charge_problems(charge_type, period, unit, prefix=""):
    """The subscription settings (``instance_charge_type``, ``period``, ``period_unit``, names with ``prefix``):
    a period is required and valid for its unit with PrePaid, and unused with PostPaid."""
    name = prefix + "period"
    if charge_type != "PrePaid":
        return ["%s is for %sinstance_charge_type=PrePaid only" % (name, prefix)] if period is not None else []
    valid = PERIODS.get(unit)
    if valid is None:
        return ["%speriod_unit must be Week or Month, got %r" % (prefix, unit)]
    if period is None:
        return ["%s is required with %sinstance_charge_type=PrePaid (%s)" % (name, prefix, ", ".join(map(str, valid)))]
    if period not in valid:
        return ["%s %s is not a valid %s subscription (%s)" % (name, period, unit, ", ".join(map(str, valid)))]
    return []


def needs_hpc_cluster(instance_type):
    """True for the SCC families (``ecs.sccgn6.24xlarge``): RunInstances needs an HpcClusterId for them only."""
    return instance_families.family_of(instance_type or "").startswith("scc")


def _eri_request(value):
    """``scc_cloud_eri_count`` as ``"auto"`` or an int >= 0; None when it is neither."""
    if isinstance(value, str) and value.strip().lower() == AUTO:
        return AUTO
    if isinstance(value, bool):
        return None
    try:
        count = int(value)
    except (TypeError, ValueError):
        return None
    return count if count >= 0 and str(count) == str(value).strip() else None


def node_plan(settings):
    """provision.yml's ``scc_cloud_instance_type``, ``scc_cloud_eri_count`` (``auto`` or a number) and
    ``scc_cloud_jumbo_frames`` -> ``{problems, family, hpc_cluster, eri_count, eri_limit, require_uefi, mtu,
    unconfirmed}``; with ``scc_cloud_instance_charge_type``, ``scc_cloud_period`` and ``scc_cloud_period_unit`` also
    their problems. ``problems`` (one sentence each, naming the variable) is empty when all is well."""
    instance_type = settings.get("scc_cloud_instance_type") or ""
    not_text = []
    if not isinstance(instance_type, str):
        not_text.append(
            "scc_cloud_instance_type (%r) must be a string naming an instance type such as 'ecs.sccgn6.24xlarge', "
            "not a %s" % (instance_type, type(instance_type).__name__)
        )
        instance_type = ""
    # As Ansible reads it (the module's bool option gets "false" as false): never Python's bool("false"), True.
    jumbo = input_checks.boolean(settings.get("scc_cloud_jumbo_frames", False))
    requested = _eri_request(settings.get("scc_cloud_eri_count", AUTO))
    family = instance_families.family_of(instance_type)
    facts = instance_families.FAMILIES.get(family)
    problems = charge_problems(
        settings.get("scc_cloud_instance_charge_type", "PostPaid"),
        settings.get("scc_cloud_period"),
        settings.get("scc_cloud_period_unit", "Month"),
        "scc_cloud_",
    )
    problems = not_text + problems
    if jumbo is None:
        problems.append(
            "scc_cloud_jumbo_frames must be true or false (got %r)" % (settings.get("scc_cloud_jumbo_frames"),)
        )
    unconfirmed = []
    plan = dict(family=family, hpc_cluster=needs_hpc_cluster(instance_type), eri_count=0, eri_limit=None)
    plan.update(require_uefi=False, mtu=None)
    if requested is None:
        problems.append(
            "scc_cloud_eri_count must be 'auto' or a whole number >= 0, got %r" % settings.get("scc_cloud_eri_count")
        )
    if facts is None:
        if requested == AUTO:
            problems.append(
                "scc_cloud_eri_count: instance family %r (scc_cloud_instance_type %s) is not in the supported-instance "
                "table (plugins/module_utils/instance_families.py), so its ERI count is not known; set "
                "scc_cloud_eri_count to the EriQuantity DescribeInstanceTypes reports for it (0 for none)"
                % (family, instance_type)
            )
        elif requested is not None:
            plan["eri_count"] = requested
        return dict(plan, problems=problems, unconfirmed=unconfirmed)
    rdma = facts["rdma"]
    erdma = rdma["kind"] == "erdma"
    limit = (rdma["ports"] or 0) if erdma else 0
    plan.update(eri_limit=limit, require_uefi=bool(facts["uefi_only"]))
    if erdma:
        plan["mtu"] = rdma["mtu"]["jumbo_frames" if jumbo else "standard"]
        unconfirmed.extend(key for key in facts["unconfirmed"] if key == "rdma.ports")
    if erdma and rdma["ports"] is None:
        # An eRDMA family whose ERI count per size no source gives (gn8v): the user's count, unchecked.
        plan["eri_limit"] = None
        if requested == AUTO:
            problems.append(
                "scc_cloud_eri_count: the ERI count of instance family %s (scc_cloud_instance_type %s) is not published "
                "(UNCONFIRMED in plugins/module_utils/instance_families.py); set scc_cloud_eri_count to the EriQuantity "
                "DescribeInstanceTypes reports for the type" % (family, instance_type)
            )
        elif requested is not None:
            plan["eri_count"] = requested
        return dict(plan, problems=problems, unconfirmed=unconfirmed)
    if requested == AUTO:
        plan["eri_count"] = limit
    elif requested is not None:
        if requested > limit:
            problems.append(
                "scc_cloud_eri_count %d is more than the %d Elastic RDMA Interfaces instance family %s supports%s"
                % (requested, limit, family, "" if erdma else " (it has no eRDMA; its RDMA is %s)" % rdma["kind"])
            )
        plan["eri_count"] = requested
    return dict(plan, problems=problems, unconfirmed=unconfirmed)
