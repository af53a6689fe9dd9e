# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""``instance_profile``: the supported-instance table (module_utils/instance_families.py) as a filter;
``nvidia_kernel_modules``: the NVIDIA kernel-module flavour for a compute capability (instance_families.py);
``hardware_defaults`` over module_utils/hardware_defaults.py; ``scc_cluster_input_problems``, the types of the
cluster-wide scc_instance_type and scc_jumbo_frames (playbooks/validate.yml) and a role's copy of scc_instance_type
(the role's validate); ``cluster_hardware`` (the fact scc_hardware) and ``hardware_contradictions`` over
module_utils/hardware_fact.py.

Thin wrappers: the data, its sources and the lookup live in the module_utils. Documentation: the sidecars
instance_profile.yml, nvidia_kernel_modules.yml, hardware_defaults.yml, scc_cluster_input_problems.yml,
cluster_hardware.yml and hardware_contradictions.yml.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import filter_call, lazy_module_utils

_hardware = lazy_module_utils("hardware_defaults")
instance_families = lazy_module_utils("instance_families")
_fact = lazy_module_utils("hardware_fact")


def instance_profile(value, name=None):
    """Instance type, family or compute capability -> its profile (GPU, RDMA, driver, torch, NCCL)."""
    if name is not None and not isinstance(name, str):
        raise AnsibleFilterError("instance_profile: name must be a variable name, got %s" % type(name).__name__)
    if value is not None and not isinstance(value, str):
        # A number would be read as a compute capability (8 -> 8.0), a boolean as a family 'True': refused by name,
        # as a list or a mapping is.
        raise AnsibleFilterError(
            "instance_profile: %s (%r) must be a string: an instance type such as 'ecs.sccgn6.24xlarge', or a compute "
            "capability such as '7.0' (quoted), not a %s"
            % (name or "scc_instance_type", value, instance_families.type_name(value))
        )
    return filter_call("instance_profile", instance_families.profile, value, name)


def nvidia_kernel_modules(value):
    """Compute capability (or a list of them) -> "open" or "proprietary"; never fails on a bad one (the version
    matrix refuses it by name)."""
    if isinstance(value, dict):
        raise AnsibleFilterError("nvidia_kernel_modules: input must be a compute capability or a list, got dict")
    return filter_call("nvidia_kernel_modules", instance_families.kernel_modules, value)


def hardware_defaults(instance_type, nodes=None, jumbo_frames=False, fractions=None):
    """scc_instance_type (or, when empty, the nodes' gpu_info and rdma_info) -> every hardware default."""
    if isinstance(instance_type, (dict, list)):
        raise AnsibleFilterError(
            "hardware_defaults: input must be scc_instance_type (a string, empty when the nodes decide), got %s"
            % instance_families.type_name(instance_type)
        )
    if nodes is not None and not isinstance(nodes, dict):
        raise AnsibleFilterError(
            "hardware_defaults: nodes must map each host to its reports, got %s" % type(nodes).__name__
        )
    return filter_call("hardware_defaults", _hardware.resolve, instance_type, nodes, jumbo_frames, fractions)


def scc_cluster_input_problems(settings):
    """{scc_instance_type, scc_jumbo_frames, a role's <role>_instance_type} -> one sentence per problem."""
    if not isinstance(settings, dict):
        raise AnsibleFilterError("scc_cluster_input_problems: the input must be a mapping of variables")
    return instance_families.cluster_input_problems(settings)


def cluster_hardware(instance_type, nodes=None, jumbo_frames=False, compute_capability=None):
    """scc_instance_type (empty: the nodes decide, else the default family) -> the fact scc_hardware."""
    if isinstance(instance_type, (dict, list)) or isinstance(instance_type, bool):
        raise AnsibleFilterError(
            "cluster_hardware: input must be scc_instance_type (a string, empty when the nodes decide), got %s"
            % type(instance_type).__name__
        )
    if nodes is not None and not isinstance(nodes, dict):
        raise AnsibleFilterError(
            "cluster_hardware: nodes must map each host to its reports, got %s" % type(nodes).__name__
        )
    return filter_call("cluster_hardware", _fact.cluster_fact, instance_type, jumbo_frames, nodes, compute_capability)


def hardware_contradictions(fact, settings):
    """scc_hardware and the declared settings -> one sentence per setting that contradicts the declared type."""
    if not isinstance(fact, dict) or not isinstance(settings, dict):
        raise AnsibleFilterError("hardware_contradictions: input must be scc_hardware and settings a mapping")
    return _fact.contradictions(fact, settings)


class FilterModule(object):
    """scc.training supported-instance filters."""

    def filters(self):
        return {
            "instance_profile": instance_profile,
            "nvidia_kernel_modules": nvidia_kernel_modules,
            "hardware_defaults": hardware_defaults,
            "scc_cluster_input_problems": scc_cluster_input_problems,
            "cluster_hardware": cluster_hardware,
            "hardware_contradictions": hardware_contradictions,
        }
