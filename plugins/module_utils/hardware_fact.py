# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The cluster's hardware fact, ``scc_hardware``: one resolution per run, the one route every role's hardware default
takes.

``cluster_fact(instance_type=None, jumbo_frames=False, nodes=None, compute_capability=None) -> dict``
    ``hardware_defaults.resolve``'s result (its keys unchanged) plus the keys the roles read:

    - ``declared`` (``scc_instance_type`` was set), ``instance_type``, ``jumbo_frames``;
    - ``source``: ``scc_instance_type``, ``nodes`` (what the nodes reported, no declaration) or ``default``
      (neither: the collection's documented default, sccgn6 = 8x V100, as ``scc_gpu_compute_capability``'s "7.0"
      always was; a note says so);
    - ``compute_capability``: ``scc_gpu_compute_capability`` when set (the cluster-wide hand-set value wins;
      ``compute_capabilities`` stays the resolved one, which validate.yml holds it against), else the oldest of
      ``compute_capabilities``: what the training levers and the version matrix judge against;
    - ``rdma_stack``: ``{source, erdma_mode, netdev_mtu}``: ``erdma`` in mode ``ofed`` on eRDMA families (Alibaba's
      ACK eRDMA page recommends the OFED driver mode on GPU instances, instance_families' ``ali-ack-erdma``), else
      ``distro``; ``netdev_mtu`` the eRDMA MTU (8500 with jumbo frames, else 1400; ``ali-erdma-gpu``), else None;
    - ``rdma_bandwidth``: ``{link_rate_gbps, qp_count}``: the family's rate per port (per ERI on eRDMA, whose sysfs
      rate is unconfirmed) when the type is declared, else None (rdma_bandwidth reads the ports' own rate);
      ``qp_count``, the queue pairs of one ib_write_bw run (perftest ``-q``), ERDMA_QP_COUNT on eRDMA, else None
      (rdma_bandwidth's rule: one per physical link of the port, so that a bonded RoCE port's test spreads over its
      links).

``value(fact, key)``: a dotted key of the fact (``rdma_stack.source``); KeyError naming it when absent.

``ROLE_DEFAULTS``: every role default that depends on the hardware, variable -> the fact's key it reads. Each is
    ``lookup('scc.training.hardware', '<key>')`` in the role's defaults (tests/unit/test_hardware_role_defaults.py
    reads the roles' files and fails on one that is not).

``contradictions(fact, settings) -> [str]``: a declared setting that contradicts the declared instance type, one
    sentence naming both variables (``scc_instance_type`` and the setting). A removed ``<role>_instance_type`` (0.4.0:
    the hardware has one route in, scc_instance_type) still set is refused by name, declared type or not; without a
    declared type nothing else is (the nodes' reports are judged by the roles themselves).

Pure Python, no Ansible imports: the lookup ``scc.training.hardware`` and the filter
``scc.training.hardware_contradictions`` wrap it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.module_utils import hardware_defaults
from ansible_collections.scc.training.plugins.module_utils import instance_families as table
from ansible_collections.scc.training.plugins.module_utils.input_checks import boolean

# Queue pairs of one ib_write_bw run over an ERI (perftest -q). UNCONFIRMED: no Alibaba eRDMA performance-test page
# is in the project's sources (/work/shared/research has none), so the count that reaches an ERI's line rate is not
# published there. 8 is the QP count Alibaba does publish for eRDMA: PAI's preset NCCL_IB_QPS_PER_CONNECTION=8 on
# eRDMA instance types (pai/user-guide/erdma-distributed-training-with-high-performance-networks; research
# hardware_facts 4.6), NCCL's queue pairs per connection, against NCCL's default of 1. A hand-set
# rdma_bandwidth_qp_count wins.
ERDMA_QP_COUNT = 8

# With nothing declared and nothing reported: the family the collection was written for, as the GPU roles' defaults
# always read it ("scc_instance_type | default('sccgn6')").
DEFAULT_FAMILY = "sccgn6"

# variable -> key of the fact (a dotted path). Hand-set values win: each default reads the lookup only.
ROLE_DEFAULTS = {
    "nvidia_driver_branch": "driver_branch",
    "nvidia_driver_gpu_compute_capability": "compute_capability",
    "bert_launch_gpu_compute_capability": "compute_capability",
    "bert_launch_nccl_env": "nccl_env",
    "resnet_launch_nccl_env": "nccl_env",
    "rdma_stack_source": "rdma_stack.source",
}


def _declared(value):
    return value is not None and str(value).strip() != ""


def cluster_fact(instance_type=None, jumbo_frames=False, nodes=None, compute_capability=None):
    """See the module docstring. Raises ValueError naming scc_instance_type (or scc_jumbo_frames) on bad input."""
    if instance_type is not None and not isinstance(instance_type, str):
        # A number would pass for a compute capability (8 -> 8.0), a boolean for a family 'True'.
        kind = (
            "boolean"
            if isinstance(instance_type, bool)
            else "number"
            if isinstance(instance_type, (int, float))
            else "value"
        )
        raise ValueError(
            "scc_instance_type (%r) must be a string: an instance type such as 'ecs.sccgn6.24xlarge' (quoted), not a %s"
            % (instance_type, kind)
        )
    declared = _declared(instance_type)
    # Nodes given decide (a node without a known GPU is an error naming scc_instance_type, not the default family).
    reported = bool(nodes)
    if declared:
        fact = hardware_defaults.resolve(instance_type, None, jumbo_frames)
    elif reported:
        fact = hardware_defaults.resolve(None, nodes, jumbo_frames)
    else:
        fact = hardware_defaults.resolve(DEFAULT_FAMILY, None, jumbo_frames)
        fact["source"] = "default"
        fact["notes"].append(
            "no scc_instance_type and no node report: %s (8x V100), the collection's default; set scc_instance_type"
            % DEFAULT_FAMILY
        )
    erdma = fact["rdma"]["kind"] == "erdma"
    if _set(compute_capability):
        # A value that reads as no compute capability is kept as written: the version matrix refuses it by name.
        cc = table.compute_capability(compute_capability) or str(compute_capability)
    else:
        cc = fact["compute_capabilities"][0]
    fact.update(
        {
            "declared": declared,
            "instance_type": str(instance_type).strip() if declared else None,
            "jumbo_frames": boolean(jumbo_frames),
            "compute_capability": cc,
            "rdma_stack": {
                "source": "erdma" if erdma else "distro",
                "erdma_mode": "ofed" if erdma else None,
                "netdev_mtu": fact["mtu"],
            },
            "rdma_bandwidth": {
                "link_rate_gbps": fact["rdma"]["rate_gbps"] if declared else None,
                "qp_count": ERDMA_QP_COUNT if erdma else None,
            },
        }
    )
    return fact


def value(fact, key):
    """The fact's value at a dotted ``key``."""
    node = fact
    for part in str(key).split("."):
        if not isinstance(node, dict) or part not in node:
            raise KeyError("scc_hardware has no key %r (keys: %s)" % (key, ", ".join(sorted(fact))))
        node = node[part]
    return node


def _set(value_):
    return value_ is not None and str(value_).strip() != ""


def _int(value_):
    try:
        return int(float(value_))
    except (TypeError, ValueError):
        return None


# The roles' own copies of scc_instance_type, removed in 0.4.0 (one route in: scc_instance_type, the fact
# scc_hardware). An inventory that still sets one is refused by name rather than silently ignored.
REMOVED_INSTANCE_TYPES = ("gpu_health_instance_type", "ib_check_instance_type", "nccl_check_instance_type",
                          "rdma_stack_instance_type")  # fmt: skip


def _removed_instance_types(fact, settings):
    """A removed per-role instance type still set: one sentence each, naming it and scc_instance_type."""
    problems = []
    for name in REMOVED_INSTANCE_TYPES:
        raw = settings.get(name)
        if not _set(raw):
            continue
        if fact and fact.get("declared"):
            hint = "scc_instance_type=%s decides" % fact["instance_type"]
        else:
            hint = "set scc_instance_type=%s instead" % raw
        problems.append(
            "%s=%s is no longer read (removed in 0.4.0): every role takes the instance type from scc_instance_type "
            "alone; unset %s (%s)." % (name, raw, name, hint)
        )
    return problems


# The settings contradictions() judges: what the lookup scc.training.hardware (contradictions=true) reads by name.
CONTRADICTION_SETTINGS = (
    "scc_gpu_compute_capability",
    "bert_launch_gpu_compute_capability",
    "nvidia_driver_gpu_compute_capability",
    "rdma_stack_source",
    "rdma_stack_netdev_mtu",
    "gpu_health_expected_gpus",
    "gpu_health_declared_gpus",
    "nccl_check_gpus",
    "scc_gpu_count",
    "ib_check_expected_links",
) + REMOVED_INSTANCE_TYPES

# A role default that is another setting itself (its value then is that setting's, judged under that name).
FOLLOWS = {"gpu_health_declared_gpus": "scc_gpu_count"}


def _declared_only(fact, settings):
    """``settings`` less the values a role's own default gives (read inside a role, its defaults are variables too):
    a ROLE_DEFAULTS variable equal to the fact's value at its key, a FOLLOWS variable equal to the one it follows."""
    kept = {}
    for name, raw in settings.items():
        if name in ROLE_DEFAULTS and fact:
            try:
                if _set(raw) and str(raw).strip() == str(value(fact, ROLE_DEFAULTS[name])):
                    continue
            except KeyError:
                pass
        if name in FOLLOWS and _set(raw) and str(raw).strip() == str(settings.get(FOLLOWS[name])).strip():
            continue
        kept[name] = raw
    return kept


def contradictions(fact, settings):
    """See the module docstring. ``settings``: the values (null or empty when not set) of CONTRADICTION_SETTINGS (any
    may be absent). A value that is the role's own default (a ROLE_DEFAULTS variable equal to the fact's value, a
    FOLLOWS variable equal to the one it follows) is not judged: inside a role its defaults are variables too."""
    settings = _declared_only(fact, settings or {})
    problems = _removed_instance_types(fact, settings)
    if not fact or not fact.get("declared"):
        return problems
    kind, family, itype = fact["rdma"]["kind"], fact["family"], fact["instance_type"]
    declared = "scc_instance_type=%s (%s)" % (itype, family)

    for name in ("scc_gpu_compute_capability", "bert_launch_gpu_compute_capability",
                 "nvidia_driver_gpu_compute_capability"):  # fmt: skip
        raw = settings.get(name)
        if not _set(raw):
            continue
        cc = table.compute_capability(raw)
        if cc is not None and cc not in fact["compute_capabilities"]:
            problems.append(
                "%s=%s contradicts %s, whose GPUs (%s) are compute capability %s: unset %s or correct one of them."
                % (name, raw, declared, ", ".join(fact["gpu_models"]), fact["compute_capability"], name)
            )

    source = settings.get("rdma_stack_source")
    if _set(source):
        if source == "erdma" and kind != "erdma":
            problems.append(
                "rdma_stack_source=erdma contradicts %s, whose RDMA is %s (mlx5), not eRDMA: use distro, doca or "
                "mlnx_ofed, or correct scc_instance_type." % (declared, kind)
            )
        elif source in ("doca", "mlnx_ofed") and kind == "erdma":
            problems.append(
                "rdma_stack_source=%s contradicts %s, whose RDMA is eRDMA (ERIs, no mlx5 port for OFED): use erdma or "
                "distro, or correct scc_instance_type." % (source, declared)
            )

    mtu = settings.get("rdma_stack_netdev_mtu")
    if _set(mtu) and kind == "erdma" and _int(mtu) not in (8500, 1400):
        problems.append(
            "rdma_stack_netdev_mtu=%s contradicts %s: eRDMA runs at MTU 8500 (scc_jumbo_frames true) or 1400 "
            "(Alibaba, Enable eRDMA on GPU-accelerated instances)." % (mtu, declared)
        )
    elif _set(mtu) and kind == "erdma" and fact["mtu"] is not None and _int(mtu) != fact["mtu"]:
        problems.append(
            "rdma_stack_netdev_mtu=%s contradicts scc_jumbo_frames=%s on %s, which gives MTU %s: set one to match the "
            "other." % (mtu, fact["jumbo_frames"], declared, fact["mtu"])
        )

    gpus = fact["gpu_count"]
    for name in ("gpu_health_expected_gpus", "gpu_health_declared_gpus", "nccl_check_gpus", "scc_gpu_count"):
        raw = settings.get(name)
        count = _int(raw) if _set(raw) else None
        # gpu_health_declared_gpus and scc_gpu_count use 0 for "not declared".
        if count and gpus and count > gpus:
            problems.append(
                "%s=%s contradicts %s, which has %d GPUs per node: a node cannot show more; unset %s or correct "
                "scc_instance_type." % (name, raw, declared, gpus, name)
            )

    links = settings.get("ib_check_expected_links")
    ports = fact["rdma"].get("ports")
    if _set(links) and ports and _int(links) is not None and _int(links) > ports:
        problems.append(
            "ib_check_expected_links=%s contradicts %s, which has %d RDMA ports per node." % (links, declared, ports)
        )
    return problems
