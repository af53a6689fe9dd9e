# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
name: role_input_problems
short_description: A role's input problems, judged by the role's rules over its variables
version_added: 0.4.0
author: scc.training developers (@scc-training)
description:
  - Judges one role of this collection's variables before anything changes, as the role's C(tasks/validate.yml) does;
    reads the options of the role's entry point (its C(meta/argument_specs.yml)) with their templated values, as the
    lookup P(scc.training.role_inputs#lookup) does, adds what the role's rules read beyond them (the hosts of the
    role's group, a switch read as a bool, a role-internal constant) and returns the problems the role's rules find.
  - The rules are the registry of C(plugins/module_utils/role_problems.py), role name -> the function of the role's
    topic module; each problem is one readable line naming its variable (control characters escaped, long values cut).
  - An empty list means the role's variables are sound.
extends_documentation_fragment:
  - scc.training.role_lookup
"""

EXAMPLES = r"""
- name: Check the bert_launch variables (every problem at once)
  ansible.builtin.assert:
    that: __problems | length == 0
    fail_msg: "bert_launch: {{ __problems | join(' ') }}"
    quiet: true
  vars:
    __problems: "{{ lookup('scc.training.role_input_problems', 'bert_launch') }}"
"""

RETURN = r"""
_raw:
  description:
    - One list per role named, of the problems its rules found (one sentence each, empty when all is well).
    - With C(lookup()) and one role, the list itself.
  type: list
  elements: list
"""

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase

from ansible_collections.scc.training.plugins.lookup.role_inputs import COLLECTION, spec_options
from ansible_collections.scc.training.plugins.module_utils import role_problems
from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import readable_problem


class _Settings(dict):
    """A role's variables whose missing key is an error naming the lookup, the role and the variable."""

    def __init__(self, role, value):
        super().__init__(value)
        self.role = role

    def __missing__(self, key):
        raise AnsibleLookupError("role_input_problems: role %s: its rules read %s, which it lacks" % (self.role, key))


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        entry_point = kwargs.pop("entry_point", "main")
        if kwargs:
            raise AnsibleLookupError(
                "role_input_problems: unknown option(s) %s (only entry_point)" % ", ".join(sorted(kwargs))
            )
        variables = variables or {}

        def get(name, default=None):
            if name not in variables:
                return default
            # The inventory's groups hold names, never templates: read as they are (no walk over every host).
            return variables[name] if name == "groups" else self._templar.template(variables[name])

        results = []
        for role in terms:
            names = spec_options(role, entry_point)
            name = role[len(COLLECTION) :] if role.startswith(COLLECTION) else role
            try:
                settings = role_problems.settings_of(name, {option: get(option) for option in names}, get)
                found = role_problems.problems(name, _Settings(name, settings))
            except ValueError as exc:
                raise AnsibleLookupError("role_input_problems: %s" % exc) from exc
            results.append([readable_problem(problem) for problem in found])
        return results
