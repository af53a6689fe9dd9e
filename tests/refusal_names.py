"""The rule every refusal of a bad input keeps (issue 36.5): its message names the variable given and no other
variable of the collection, except those a case lists as related (a rule across two variables names both).

A variable is a name that the collection's specs, roles or playbooks declare (variable_names.declared_names), less
the roles' and the inventory groups' names ("scc_cloud: ..." starts a role's message; scc_cluster is a group).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from ansible_collections.scc.training.plugins.module_utils import variable_names

ROOT = Path(__file__).resolve().parents[1]
GROUPS = frozenset(("scc_cluster", "scc_data_prep"))
_WORD = re.compile(r"[a-z][a-z0-9_]*")
# The rules across variables, whose refusal names both (symmetric): any other variable a refusal names is unrelated.
RULES_ACROSS = (
    # bert_launch_transport follows scc_transport; rdma needs the nccl backend on GPUs.
    ("bert_launch_transport", "scc_transport"),
    ("bert_launch_transport", "bert_launch_backend"),
    ("bert_launch_transport", "bert_launch_cpu_only"),
    ("bert_launch_transport", "scc_cpu_only"),
    # A signing key goes with an rpm package only (a .deb carries no signature).
    ("cpfs_mount_alinas_gpg_key", "cpfs_mount_alinas_package"),
    # The package comes from a URL or from a mirror, exactly one.
    ("cpfs_mount_alinas_url", "cpfs_mount_alinas_mirror"),
    # A tool path names the tool nic_firmware_tool chose.
    ("nic_firmware_tool_path", "nic_firmware_tool"),
    # The artifact's name and sha256 follow the source (DOCA-OFED or MLNX_OFED).
    ("rdma_stack_source", "rdma_stack_artifact_name"),
    ("rdma_stack_source", "rdma_stack_artifact_sha256"),
    # provision.yml: the zone is the region's, the vSwitch inside the VPC and sized for the nodes, a period with PrePaid.
    ("scc_cloud_zone", "scc_cloud_region"),
    ("scc_cloud_vswitch_cidr", "scc_cloud_vpc_cidr"),
    ("scc_cloud_instance_count", "scc_cloud_vswitch_cidr"),
    ("scc_cloud_instance_count", "scc_cloud_release_all_nodes"),
    ("scc_cloud_period", "scc_cloud_instance_charge_type"),
    ("scc_cloud_period", "scc_cloud_period_unit"),
    ("scc_cloud_auto_renew", "scc_cloud_instance_charge_type"),
    ("scc_cloud_eri_count", "scc_cloud_instance_type"),
    ("scc_cloud_ack_service_cidr", "scc_cloud_vpc_cidr"),
    ("scc_cloud_ack_node_password", "scc_cloud_key_pair_name"),
    ("scc_cloud_data_prep_instance_type", "scc_cloud_data_prep_enabled"),
)


def rule_partners(variable: str) -> set:
    """The variables a rule across variables pairs with ``variable`` (RULES_ACROSS)."""
    return {b for a, b in RULES_ACROSS if a == variable} | {a for a, b in RULES_ACROSS if b == variable}


@lru_cache(maxsize=1)
def variables() -> frozenset:
    roles = variable_names.role_names(str(ROOT))
    return variable_names.declared_names(str(ROOT), roles) - set(roles) - GROUPS


def named(message: str) -> set:
    """The collection's variables that ``message`` names (whole words)."""
    known = variables()
    return {word for word in _WORD.findall(message or "") if word in known}


def assert_names_only(message: str, variable: str, related=()) -> None:
    """``message`` names ``variable`` and no variable outside ``related`` and the partners of its rules across
    variables (RULES_ACROSS)."""
    assert message, f"no refusal for {variable}"
    found = named(message) | ({variable} if variable in _WORD.findall(message) else set())
    assert variable in found, f"the refusal does not name {variable}: {message}"
    unrelated = found - {variable} - set(related) - rule_partners(variable)
    assert not unrelated, f"the refusal of {variable} also names {sorted(unrelated)}: {message}"
