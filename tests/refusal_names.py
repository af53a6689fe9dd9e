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
# The rules across variables, whose refusal names each variable of its group (any other variable it names is
# unrelated). Each group is one rule, or one verdict over a set of settings that decide together.
RULES_ACROSS = (
    # The GPU stack's version matrix (gpu_stack_check): the AIACC/ACSpeed release, the launchers' framework, the torch
    # build, its CUDA, the venv's Python and where its wheels come from decide together; a verdict names each.
    (
        "aiacc_framework",
        "aiacc_version",
        "bert_launch_framework",
        "resnet_launch_framework",
        "python_env_python",
        "python_env_requirements",
        "python_env_torch_cuda",
        "python_env_constraints_file",
        "python_env_pip_extra_args",
        "scc_gpu_compute_capability",
    ),
    # bert_launch's transport: rdma needs the nccl backend on GPUs; the framework needs GPUs; each follows an scc_*.
    (
        "bert_launch_framework",
        "bert_launch_transport",
        "scc_transport",
        "bert_launch_backend",
        "bert_launch_cpu_only",
        "scc_cpu_only",
    ),
    # A signing key goes with an rpm package only (a .deb carries no signature).
    ("cpfs_mount_alinas_gpg_key", "cpfs_mount_alinas_package"),
    # The package comes from a URL or from a mirror, exactly one; a mirror's manifest is pinned.
    ("cpfs_mount_alinas_url", "cpfs_mount_alinas_mirror"),
    ("cpfs_mount_alinas_mirror", "artifact_fetch_mirror_manifests"),
    # Which client mounts CPFS (cpfs_mount_cpfs_nfs_client) decides whether Alibaba's package, where it comes from
    # and its helper-only mount options apply: a refusal of one names the client and the others it needs or refuses.
    (
        "cpfs_mount_cpfs_nfs_client",
        "cpfs_mount_alinas_package",
        "cpfs_mount_alinas_url",
        "cpfs_mount_alinas_sha256",
        "cpfs_mount_alinas_mirror",
        "cpfs_mount_alinas_gpg_key",
        "cpfs_mount_options",
    ),
    # The protocol a refusal points at: what provision.yml makes (scc_cloud_cpfs_protocol).
    ("cpfs_mount_protocol", "scc_cloud_cpfs_protocol"),
    # A tool path names the tool nic_firmware_tool chose.
    ("nic_firmware_tool_path", "nic_firmware_tool"),
    # The artifact's name and sha256 follow the source (DOCA-OFED or MLNX_OFED); peermem needs an OFED source.
    ("rdma_stack_source", "rdma_stack_artifact_name", "rdma_stack_artifact_sha256", "rdma_stack_peermem"),
    # Warm-up steps are counted within the steps; a burn needs every target's image.
    ("bert_launch_warmup_steps", "bert_launch_steps"),
    ("nic_firmware_burn", "nic_firmware_targets"),
    # peermem needs GPUs; the mirror holds the source's artifact.
    ("rdma_stack_peermem", "rdma_stack_cpu_only", "scc_cpu_only"),
    ("rdma_stack_source", "rdma_stack_mirror"),
    # The AIACC release's source decides which of mirror, URL and sha256 it needs; rdma_bandwidth's mode its link rate.
    ("aiacc_source", "aiacc_mirror", "aiacc_release_url", "aiacc_artifact_sha256"),
    ("rdma_bandwidth_mode", "rdma_bandwidth_link_rate_gbps"),
    # The kernel-module flavour is judged against the GPU's compute capability (open on V100, proprietary on Blackwell).
    ("nvidia_driver_kernel_modules", "nvidia_driver_gpu_compute_capability"),
    # from= goes in its own variable.
    ("ssh_trust_authorized_key_options", "ssh_trust_restrict_from"),
    # A role variable and the cluster-wide one it follows, named together ("gpu_health_declared_gpus (scc_gpu_count)").
    ("gpu_health_declared_gpus", "scc_gpu_count"),
    ("bert_launch_gpu_compute_capability", "scc_gpu_compute_capability"),
    # An instance type outside the table: the refusal points at scc_gpu_compute_capability instead.
    ("scc_instance_type", "scc_gpu_compute_capability"),
    # provision.yml: the zone is the region's, the vSwitch inside the VPC and sized for the nodes, a period with PrePaid.
    ("scc_cloud_zone", "scc_cloud_region"),
    ("scc_cloud_vswitch_cidr", "scc_cloud_vpc_cidr"),
    ("scc_cloud_instance_count", "scc_cloud_vswitch_cidr"),
    ("scc_cloud_instance_count", "scc_cloud_release_all_nodes"),
    ("scc_cloud_period", "scc_cloud_instance_charge_type", "scc_cloud_period_unit"),
    ("scc_cloud_auto_renew", "scc_cloud_instance_charge_type"),
    ("scc_cloud_eri_count", "scc_cloud_instance_type"),
    ("scc_cloud_ack_service_cidr", "scc_cloud_vpc_cidr"),
    ("scc_cloud_ack_node_password", "scc_cloud_key_pair_name"),
    ("scc_cloud_data_prep_instance_type", "scc_cloud_data_prep_enabled"),
)


def rule_partners(variable: str) -> set:
    """The variables a rule across variables pairs with ``variable`` (RULES_ACROSS)."""
    return {other for group in RULES_ACROSS if variable in group for other in group} - {variable}


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
