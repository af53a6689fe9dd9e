# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""``cloud_ssh_rules``: ecs_security_group rules opening SSH from a list of CIDR blocks or addresses (the bastion's
security group, the nodes' SSH from the bastion), a thin wrapper over plugins/module_utils/cloud_inputs.py.
Documentation: cloud_ssh_rules.yml."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
    require_list,
)

cloud_inputs = lazy_module_utils("cloud_inputs")


def cloud_ssh_rules(sources, description=None):
    """A list of CIDR blocks or addresses -> ecs_security_group rules opening tcp 22 from each (with ``description``)."""
    if description is not None and not isinstance(description, str):
        raise AnsibleFilterError("cloud_ssh_rules: description must be a string, not %s" % type(description).__name__)
    return filter_call("cloud_ssh_rules", cloud_inputs.ssh_rules, require_list(sources, "cloud_ssh_rules"), description)


class FilterModule(object):
    """scc.training cloud node filter."""

    def filters(self):
        return {f.__name__: f for f in (cloud_ssh_rules,)}
