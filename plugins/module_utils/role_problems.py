# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The registry of the roles' input rules: role name -> the function of its topic module that judges the role's
variables (one sentence per problem, naming its variable; empty when all is well), and what that function reads
beyond the options of the role's spec (the hosts of the role's group, a role-internal constant, a switch as a bool).

One route for every role's ``tasks/validate.yml``: ``lookup('scc.training.role_input_problems', '<role>')`` takes the
role's settings from its ``meta/argument_specs.yml`` (as ``role_inputs`` does), adds ``extras(settings, get)`` and
returns ``problems(role, settings)``. Pure: ``get(name, default)`` is the caller's reading of a variable (templated);
the topic modules are imported at the first call of their role (a lookup that judges one role compiles one module).
"""

from __future__ import annotations

import importlib
from collections import namedtuple

from ansible_collections.scc.training.plugins.module_utils import input_checks

MODULE_UTILS = "ansible_collections.scc.training.plugins.module_utils"

# module: plugins/module_utils/<module>.py; function: its judge of the role's settings; extras: (settings, get) -> the
# values it reads beyond the spec's options (added to, or replacing, the settings).
Rules = namedtuple("Rules", "module function extras")


def as_bool(value):
    """A switch as Ansible's ``bool`` filter reads it (input_checks.boolean: y/yes/on/true/t/1, any case, 1 or True);
    anything else, null included, is False."""
    return input_checks.boolean(value) is True


def group_hosts(get, group_variable):
    """The inventory hosts of the group the variable ``group_variable`` names ([] when no such group)."""
    groups = get("groups", {}) or {}
    name = get(group_variable, None)
    hosts = groups.get(name) if isinstance(name, str) and isinstance(groups, dict) else None
    return list(hosts) if hosts else []


def _extras(group=None, bools=(), variables=None, defaults=None):
    """Extras from a declaration: ``group_hosts`` of the group variable ``group``, each of ``bools`` as a bool, and
    ``variables`` (key -> variable name, or a list of names -> the list of their values) with ``defaults`` (variable
    name -> its value when undefined; null otherwise)."""
    variables = variables or {}
    defaults = defaults or {}

    def extras(settings, get):
        found = {}
        if group:
            found["group_hosts"] = group_hosts(get, group)
        for name in bools:
            found[name] = as_bool(get(name, settings.get(name)))
        for key, names in variables.items():
            if isinstance(names, (list, tuple)):
                found[key] = [get(name, defaults.get(name)) for name in names]
            else:
                found[key] = get(names, defaults.get(names))
        return found

    return extras


def _rdma_bandwidth(settings, get):
    """The group's hosts, and the link rate resolved by the role (the hardware's when the option is null)."""
    link_rate = get("_rdma_bandwidth_link_rate", None)
    found = {"group_hosts": group_hosts(get, "rdma_bandwidth_group")}
    found["rdma_bandwidth_link_rate_gbps"] = link_rate.get("gbps") if isinstance(link_rate, dict) else None
    return found


def _k8s_training_job(settings, get):
    """The launcher's secret environment by its names only (never the values: refused with mpijob, no Secret is
    rendered), and no check of the launcher's own variables (render.yml checks them, once the job is built)."""
    workload = settings.get("k8s_training_job_workload")
    found = {"check_launcher": False}
    if isinstance(workload, str):
        secret_env = get(workload + "_launch_secret_env", {})
        found[workload + "_launch_secret_env"] = list(secret_env) if isinstance(secret_env, (dict, list)) else []
    return found


_INSTANCE_TYPE = {"scc_instance_type": "scc_instance_type"}

REGISTRY = {
    "aiacc": Rules("aiacc", "aiacc_input_problems", _extras(bools=("aiacc_cpu_only",))),
    "artifact_fetch": Rules("artifacts", "artifact_fetch_input_problems", None),
    "bert_launch": Rules(
        "bert_launch",
        "bert_launch_input_problems",
        _extras(
            group="bert_launch_group",
            bools=("bert_launch_cpu_only", "bert_launch_standin_rdma_on_cpu"),
            variables={"seq_len_range": ["_bert_launch_seq_len_min", "_bert_launch_seq_len_max"]},
        ),
    ),
    "bert_prep": Rules(
        "bert_prep",
        "bert_prep_input_problems",
        _extras(group="bert_prep_group", variables={"corpus_variable": "_bert_prep_corpus_variable"}),
    ),
    "cpfs_mount": Rules(
        "cpfs",
        "cpfs_mount_input_problems",
        _extras(
            group="cpfs_mount_group",
            variables={
                "refused_protocols": "_cpfs_mount_refused_protocols",
                "artifact_fetch_mirror_manifests": "artifact_fetch_mirror_manifests",
                "source_forms": "_cpfs_mount_source_forms",
                "alinas_package_pattern": "_cpfs_mount_alinas_package_pattern",
            },
            defaults={"artifact_fetch_mirror_manifests": {}},
        ),
    ),
    "cuda": Rules("gpu_inputs", "cuda_input_problems", None),
    "cudnn": Rules("gpu_inputs", "cudnn_input_problems", None),
    "fabric_monitor": Rules("fabric", "fabric_monitor_input_problems", _extras(group="fabric_monitor_group")),
    # scc_instance_type as the user gave it: its type is judged on it (ansible-core 2.16 to 2.18 render a role's
    # templated copy of a number as a string).
    "gpu_health": Rules("gpu_health", "gpu_health_input_problems", _extras(variables=_INSTANCE_TYPE)),
    "hosts_file": Rules("cluster", "hosts_file_input_problems", _extras(group="hosts_file_group")),
    "imagenet_prep": Rules("imagenet", "imagenet_prep_input_problems", _extras(group="imagenet_prep_group")),
    "k8s_cpfs_volume": Rules("k8s_jobs", "cpfs_volume_problems", None),
    "k8s_training_job": Rules("k8s_jobs", "training_job_problems", _k8s_training_job),
    "nccl": Rules("gpu_inputs", "nccl_input_problems", None),
    "nccl_check": Rules(
        "nccl_check", "nccl_check_input_problems", _extras(group="nccl_check_group", variables=_INSTANCE_TYPE)
    ),
    "nic_firmware": Rules("mellanox_fw", "nic_firmware_input_problems", _extras(bools=("nic_firmware_burn",))),
    "nvidia_driver": Rules("gpu_inputs", "nvidia_driver_input_problems", None),
    "openmpi": Rules("mpi", "openmpi_input_problems", None),
    "python_env": Rules("wheels", "python_env_input_problems", None),
    "rdma_bandwidth": Rules("fabric", "rdma_bandwidth_input_problems", _rdma_bandwidth),
    "rdma_stack": Rules(
        "rdma",
        "rdma_stack_input_problems",
        _extras(bools=("rdma_stack_peermem", "rdma_stack_cpu_only"), variables=_INSTANCE_TYPE),
    ),
    "resnet_launch": Rules(
        "resnet_launch",
        "resnet_launch_input_problems",
        _extras(group="resnet_launch_group", bools=("resnet_launch_cpu_only",)),
    ),
    "scc_cloud": Rules("cloud_inputs", "problems", None),
    "ssh_trust": Rules("cluster", "ssh_trust_input_problems", _extras(group="ssh_trust_group")),
}


def rules(role):
    """The role's Rules; ValueError naming the roles that have some when ``role`` has none."""
    if role not in REGISTRY:
        raise ValueError("no input rules for role %r (roles with rules: %s)" % (role, ", ".join(sorted(REGISTRY))))
    return REGISTRY[role]


def settings_of(role, settings, get):
    """The role's settings (its spec's options) with what its rules read beyond them."""
    extras = rules(role).extras
    found = dict(settings)
    if extras is not None:
        found.update(extras(found, get))
    return found


def problems(role, settings):
    """``role``'s judge over ``settings`` (its variables, extras included) -> one sentence per problem."""
    entry = rules(role)
    module = importlib.import_module("%s.%s" % (MODULE_UTILS, entry.module))
    return list(getattr(module, entry.function)(settings))
