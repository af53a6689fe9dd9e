# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
name: variable_typos
short_description: Warn about the user's variables that scc.training does not know, and group_vars Ansible skips
version_added: 0.2.0
author:
  - scc.training developers (!UNKNOWN)
description:
  - Looks at the variables set for each node of the cluster group (inventory, group_vars, host_vars, extra vars),
    once, and warns about every name that starts with C(scc_) or with a role's name and C(_) but that no role's
    argument spec, role or playbook of this collection declares, naming the closest declared name
    (C(bert_launch_batchsize) -> C(bert_launch_batch_size)). Ansible itself accepts any name, so a misspelt
    setting silently leaves the default in force.
  - Also warns about each C(group_vars) entry, next to the nodes' inventories or the playbook, of a group the
    inventory does not have (a cluster group renamed after its group_vars were written), since Ansible skips
    those variables without a word.
  - Returns the warnings (a list of strings) and shows each as an Ansible warning. Nothing is refused.
  - The declared names are read once per process from this collection's roles and playbooks (outside YAML
    comments), so a variable a role publishes or reads (C(scc_transport), C(gpu_health_report)) is known.
options:
  _terms:
    description: The name of the cluster group whose nodes' variables are checked.
    required: true
    type: list
    elements: str
"""

EXAMPLES = r"""
- name: Warn about typos in the cluster's variables
  ansible.builtin.set_fact:
    __scc_variable_warnings: "{{ lookup('scc.training.variable_typos', 'scc_cluster') }}"
"""

RETURN = r"""
_raw:
  description: One warning per unknown variable name or skipped group_vars entry; empty when there is none.
  type: list
  elements: str
"""

import os

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase
from ansible.utils.display import Display

from ansible_collections.scc.training.plugins.module_utils import variable_names

display = Display()

# <collection>/plugins/lookup/variable_typos.py -> <collection>
COLLECTION_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_DECLARED = {}


def declared(collection_root=COLLECTION_ROOT):
    """The collection's roles' namespaces and declared names, read once per process."""
    if collection_root not in _DECLARED:
        roles = variable_names.role_names(collection_root)
        _DECLARED[collection_root] = (
            variable_names.namespaces(roles),
            variable_names.declared_names(collection_root, roles),
        )
    return _DECLARED[collection_root]


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        if kwargs:
            raise AnsibleLookupError("variable_typos: unknown option(s) %s" % ", ".join(sorted(kwargs)))
        if len(terms) != 1 or not isinstance(terms[0], str):
            raise AnsibleLookupError("variable_typos: give one cluster group name, got %r" % (terms,))
        variables = variables or {}
        groups = variables.get("groups") or {}
        hostvars = variables.get("hostvars") or {}
        nodes = list(groups.get(terms[0]) or [])
        prefixes, names = declared()
        names_by_node = {}
        directories = {variables.get("playbook_dir")}
        for node in nodes:
            node_vars = hostvars[node]
            # Only the names: no value is templated.
            names_by_node[node] = [name for name in node_vars.keys() if variable_names.in_namespace(name, prefixes)]
            directories.add(node_vars.get("inventory_dir"))
        # Extra vars and the controller's own inventory variables are localhost's too.
        names_by_node.setdefault("localhost", [n for n in variables if variable_names.in_namespace(n, prefixes)])
        warnings = variable_names.undeclared_variables(names_by_node, names, prefixes)
        warnings += variable_names.stale_group_vars(directories, groups) if nodes else []
        for warning in warnings:
            display.warning(warning)
        return [warnings]
