# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
name: role_plan
short_description: One of the roles' own computations (a plan), by its name
version_added: 0.5.0
author: scc.training developers (@scc-training)
description:
  - Runs the role-internal computation named by the first term with the other terms (and keyword options) as its
    arguments, and returns its result with its type (a list, a dict, a string, a number or a bool).
  - The roles' own logic (an /etc/hosts block, the rounds of a bandwidth test, a verdict from a command's output)
    lives in this collection's C(plugins/module_utils) as pure functions; the registry
    C(plugins/plugin_utils/role_plans.py) maps each plan's name to the function that checks its input and calls one.
    These were filters of the same names until 0.4.0; the public filters are the ones a playbook of one's own calls.
  - A plan that reads the inventory's variables (V(mpi_hostfile_slots), V(fabric_samples)) takes C(hostvars) from the
    lookup's variables, never as a term.
  - Bad input is an error naming the plan and what it expected.
  - Internal to this collection's roles; a plan's arguments may change between releases.
  - On ansible-core before 2.19 it refuses to run while C(allow_unsafe_lookups) is on; ansible-core then hands
    C(lookup()) the plugin's list as it is, without taking its one element, and the roles would misread every plan.
options:
  _terms:
    description:
      - The plan's name, then its positional arguments.
    required: true
    type: list
    elements: raw
notes:
  - With C(lookup()) the result is the plan's value itself (a one-element list unwrapped, as ansible-core does for
    every lookup); C(query()) returns it as the list's only element. Keyword arguments are the plan's own.
"""

EXAMPLES = r"""
- name: The /etc/hosts block of the cluster's nodes
  ansible.builtin.set_fact:
    __block: "{{ lookup('scc.training.role_plan', 'cluster_hosts_block', __nodes) }}"

- name: This node's side of a bandwidth round (a dict)
  ansible.builtin.debug:
    msg: "{{ lookup('scc.training.role_plan', 'bandwidth_round_side', 0, 4, 2) }}"

- name: The hostfile's nodes with their slots (hostvars read by the lookup)
  ansible.builtin.debug:
    msg: "{{ lookup('scc.training.role_plan', 'mpi_hostfile_slots', groups['gpu']) }}"
"""

RETURN = r"""
_raw:
  description:
    - One element, the plan's result, of the type the plan returns (with C(lookup()), the element itself).
  type: list
  elements: raw
"""

from inspect import signature

from ansible import constants as C
from ansible.errors import AnsibleFilterError, AnsibleLookupError
from ansible.plugins.lookup import LookupBase
from ansible.release import __version__ as ANSIBLE_CORE_VERSION


def unsafe_lookups_keep_the_list(version=ANSIBLE_CORE_VERSION):
    """True where ``lookup()`` would hand back the plugin's list itself: ansible-core 2.16 to 2.18 with
    allow_unsafe_lookups on (ansible/template/__init__.py, ``Templar._lookup``: the one element is taken only
    ``if ran and allow_unsafe is False``). 2.19 takes it whatever the setting (``_invoke_lookup``)."""
    major, minor = (int(part) for part in version.split(".")[:2])
    return (major, minor) < (2, 19) and bool(getattr(C, "DEFAULT_ALLOW_UNSAFE_LOOKUPS", False))


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        # Imported here: a worker that loads this plugin and calls no plan compiles nothing more.
        from ansible_collections.scc.training.plugins.plugin_utils import role_plans

        if unsafe_lookups_keep_the_list():
            raise AnsibleLookupError(
                "role_plan: allow_unsafe_lookups is on (ansible.cfg [defaults] or ANSIBLE_ALLOW_UNSAFE_LOOKUPS): "
                "ansible-core %s then returns a lookup's list unwrapped, and the roles would misread every plan; "
                "turn it off (the collection needs it for nothing)" % ANSIBLE_CORE_VERSION
            )
        if not terms:
            raise AnsibleLookupError("role_plan: the first term must be a plan's name")
        name, args = terms[0], list(terms[1:])
        try:
            function = role_plans.plan(name)
        except AnsibleFilterError as exc:
            raise AnsibleLookupError(str(exc.message)) from None
        if name in role_plans.READS_HOSTVARS:
            args.insert(1, (variables or {}).get("hostvars", {}))
        try:
            signature(function).bind(*args, **kwargs)
        except TypeError as exc:
            raise AnsibleLookupError("role_plan: %s%s: %s" % (name, signature(function), exc)) from None
        try:
            return [function(*args, **kwargs)]
        except AnsibleFilterError as exc:
            raise AnsibleLookupError(str(exc.message)) from exc
