# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""``cloud_node_plan``: what provision.yml asks of the cloud for the GPU nodes (HPC cluster, Elastic RDMA Interfaces,
UEFI image, eRDMA MTU), a thin wrapper over plugins/module_utils/cloud_nodes.py. Documentation: cloud_node_plan.yml.
``cloud_ssh_rules``: ecs_security_group rules opening SSH from a list of CIDR blocks or addresses (the bastion's
security group, the nodes' SSH from the bastion). Documentation: cloud_ssh_rules.yml."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
    require_list,
    require_settings,
)

cloud_inputs = lazy_module_utils("cloud_inputs")
cloud_nodes = lazy_module_utils("cloud_nodes")


def cloud_node_plan(settings):
    """provision.yml's scc_cloud_instance_type, scc_cloud_eri_count, scc_cloud_jumbo_frames -> the node plan."""
    return cloud_nodes.node_plan(require_settings(settings, "cloud_node_plan"))


def cloud_ssh_rules(sources, description=None):
    """A list of CIDR blocks or addresses -> ecs_security_group rules opening tcp 22 from each (with ``description``)."""
    if description is not None and not isinstance(description, str):
        raise AnsibleFilterError("cloud_ssh_rules: description must be a string, not %s" % type(description).__name__)
    return filter_call("cloud_ssh_rules", cloud_inputs.ssh_rules, require_list(sources, "cloud_ssh_rules"), description)


class FilterModule(object):
    """scc.training cloud node filter."""

    def filters(self):
        return {"cloud_node_plan": cloud_node_plan, "cloud_ssh_rules": cloud_ssh_rules}
