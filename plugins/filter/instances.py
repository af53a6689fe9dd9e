# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""``instance_profile``: the supported-instance table (module_utils/instance_families.py) as a filter.

A thin wrapper: the data, its sources and the lookup live in the module_util. Documentation:
the sidecar instance_profile.yml.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import filter_call, lazy_module_utils

_hardware = lazy_module_utils("hardware_defaults")
instance_families = lazy_module_utils("instance_families")


def instance_profile(value, name=None):
    """Instance type, family or compute capability -> its profile (GPU, RDMA, driver, torch, NCCL)."""
    if isinstance(value, (dict, list)):
        raise AnsibleFilterError(
            "instance_profile: input must be an instance type such as 'ecs.sccgn6.24xlarge' or a compute "
            "capability such as '7.0', got %s" % type(value).__name__
        )
    if name is not None and not isinstance(name, str):
        raise AnsibleFilterError("instance_profile: name must be a variable name, got %s" % type(name).__name__)
    return filter_call("instance_profile", instance_families.profile, value, name)


def hardware_defaults(instance_type, nodes=None, jumbo_frames=False, fractions=None):
    """scc_instance_type (or, when empty, the nodes' gpu_info and rdma_info) -> every hardware default."""
    if isinstance(instance_type, (dict, list)):
        raise AnsibleFilterError(
            "hardware_defaults: input must be scc_instance_type (a string, empty when the nodes decide), got %s"
            % type(instance_type).__name__
        )
    if nodes is not None and not isinstance(nodes, dict):
        raise AnsibleFilterError(
            "hardware_defaults: nodes must map each host to its reports, got %s" % type(nodes).__name__
        )
    return filter_call("hardware_defaults", _hardware.resolve, instance_type, nodes, jumbo_frames, fractions)


class FilterModule(object):
    """scc.training supported-instance filters."""

    def filters(self):
        return {"instance_profile": instance_profile, "hardware_defaults": hardware_defaults}
