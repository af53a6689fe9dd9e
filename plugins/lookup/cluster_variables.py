# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
name: cluster_variables
short_description: Every node's own view of the collection's variables, once per run, for validate.yml
version_added: 0.2.0
author:
  - scc.training developers (!UNKNOWN)
description:
  - Looks at the variables set for each node of the cluster group (inventory, group_vars, host_vars, extra vars)
    in one pass, and returns three things validate.yml needs before anything changes.
  - C(warnings), each also shown as an Ansible warning, nothing refused. Every name that starts with C(scc_) or
    with a role's name and C(_) but that no role's argument spec, role or playbook of this collection declares,
    with the closest declared name (C(bert_launch_batchsize) -> C(bert_launch_batch_size)); Ansible itself takes
    any name, so a misspelt setting silently leaves the default in force. And each C(group_vars) entry, next to
    the nodes' inventories or the playbook, of a group the inventory does not have (a cluster group renamed after
    its group_vars were written), since Ansible skips those variables without a word.
  - C(judge), the nodes whose role variables validate.yml judges, the first node of each distinct view (the values
    of the collection's variables set for it, as written, not templated, and the inventory's C(ecs_instance_type)),
    so that a host_vars value of any node is judged, and a cluster whose nodes agree is judged once.
  - C(problems), refusals, one when the nodes have more than one instance type (C(scc_instance_type), else the
    inventory's C(ecs_instance_type)), naming the nodes of each.
  - The declared names are read once per process from this collection's roles and playbooks (outside YAML
    comments), so a variable a role publishes or reads (C(scc_transport), C(gpu_health_report)) is known.
options:
  _terms:
    description: The name of the cluster group whose nodes' variables are looked at.
    required: true
    type: list
    elements: str
"""

EXAMPLES = r"""
- name: Look at every node's variables
  ansible.builtin.set_fact:
    __scc_cluster_variables: "{{ lookup('scc.training.cluster_variables', 'scc_cluster') }}"
"""

RETURN = r"""
_raw:
  description: One mapping.
  type: list
  elements: dict
  contains:
    warnings:
      description: One warning per unknown variable name or skipped group_vars entry; empty when there is none.
      type: list
      elements: str
    judge:
      description: The nodes to judge, in the group's order; empty when the group has no node.
      type: list
      elements: str
    problems:
      description: Refusals (a cluster of several instance types); empty when there is none.
      type: list
      elements: str
"""

import os

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase
from ansible.utils.display import Display

from ansible_collections.scc.training.plugins.module_utils import node_views, variable_names

display = Display()

# <collection>/plugins/lookup/cluster_variables.py -> <collection>
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


def _raw_vars(hostvars, node):
    """A node's variables as written (inventory, group_vars, host_vars, extra vars, cached facts), not templated:
    a view is what the user wrote for the node, so per-node paths such as "{{ inventory_hostname }}/hosts" are one
    view, and no template is run (nor can fail) here. A template that reads another per-node variable is judged as
    the first node of its view renders it; each role judges every node again when it runs."""
    raw_get = getattr(hostvars, "raw_get", None)
    return raw_get(node) if raw_get is not None else hostvars[node]


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        if kwargs:
            raise AnsibleLookupError("cluster_variables: unknown option(s) %s" % ", ".join(sorted(kwargs)))
        if len(terms) != 1 or not isinstance(terms[0], str):
            raise AnsibleLookupError("cluster_variables: give one cluster group name, got %r" % (terms,))
        variables = variables or {}
        groups = variables.get("groups") or {}
        hostvars = variables.get("hostvars") or {}
        nodes = list(groups.get(terms[0]) or [])
        prefixes, names = declared()
        names_by_node, views, types = {}, {}, {}
        directories = {variables.get("playbook_dir")}
        for node in nodes:
            node_vars = _raw_vars(hostvars, node)
            own = [name for name in node_vars if variable_names.in_namespace(name, prefixes)]
            names_by_node[node] = own
            values = {name: node_vars[name] for name in own}
            reported = node_vars.get(node_views.INVENTORY_INSTANCE_TYPE)
            values[node_views.INVENTORY_INSTANCE_TYPE] = reported
            views[node] = node_views.view_digest(values)
            types[node] = (values.get(node_views.DECLARED_INSTANCE_TYPE), reported)
            directories.add(node_vars.get("inventory_dir"))
        # Extra vars and the controller's own inventory variables are localhost's too.
        names_by_node.setdefault("localhost", [n for n in variables if variable_names.in_namespace(n, prefixes)])
        warnings = variable_names.undeclared_variables(names_by_node, names, prefixes)
        warnings += variable_names.stale_group_vars(directories, groups) if nodes else []
        for warning in warnings:
            display.warning(warning)
        return [
            {
                "warnings": warnings,
                "judge": node_views.nodes_to_judge(views, nodes),
                "problems": node_views.instance_type_problems(types, nodes),
            }
        ]
