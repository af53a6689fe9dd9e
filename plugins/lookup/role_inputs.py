# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
name: role_inputs
short_description: A role's variables by name, the names taken from its argument spec
version_added: 0.2.0
author: scc.training developers (@scc-training)
description:
  - Reads the options of one entry point of a role of this collection (its C(meta/argument_specs.yml)) and returns
    one mapping, option name -> the variable's templated value, for every option of that entry point.
  - The spec is the one list of the role's inputs (no second, hand-written list of names beside it); the lookup
    P(scc.training.role_input_problems#lookup) reads a role's settings this way and judges them by the role's rules.
  - An option that is not defined as a variable (no role default, not set by the user) maps to V(null), as an
    unset option without a default is to Ansible's argument validation.
  - The roles are this collection's own, found next to this plugin (C(<collection>/roles)), so it works from a
    checkout and from a collection installed from Galaxy.
  - Options marked C(no_log) in the spec (such as C(bert_launch_secret_env)) are returned like the others, for the
    rules that check them (names, overlaps); a caller never prints the mapping.
extends_documentation_fragment:
  - scc.training.role_lookup
"""

EXAMPLES = r"""
- name: Build the PersistentVolume and its claim from every k8s_cpfs_volume variable
  ansible.builtin.set_fact:
    __manifests: >-
      {{ lookup('scc.training.role_plan', 'k8s_cpfs_volume_manifests', lookup('scc.training.role_inputs', 'k8s_cpfs_volume')) }}
"""

RETURN = r"""
_raw:
  description:
    - One mapping per role named, option name -> templated value (V(null) when the variable is not defined).
    - With C(lookup()) and one role, the mapping itself.
  type: list
  elements: dict
"""

import os

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase

try:
    import yaml
except ImportError:  # pragma: no cover - PyYAML is a dependency of ansible-core
    yaml = None

# <collection>/plugins/lookup/role_inputs.py -> <collection>/roles
ROLES_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "roles")
COLLECTION = "scc.training."
_SPECS = {}


def spec_options(role, entry_point="main", roles_dir=ROLES_DIR):
    """The option names of ``role``'s ``entry_point`` in its meta/argument_specs.yml, in the spec's order."""
    if not isinstance(role, str) or not role:
        raise AnsibleLookupError("role_inputs: the role must be a name, got %r" % (role,))
    name = role[len(COLLECTION) :] if role.startswith(COLLECTION) else role
    if "/" in name or name.startswith("."):
        raise AnsibleLookupError("role_inputs: %r is not a role name" % (role,))
    path = os.path.join(roles_dir, name, "meta", "argument_specs.yml")
    if path not in _SPECS:
        try:
            with open(path, encoding="utf-8") as handle:
                _SPECS[path] = yaml.safe_load(handle) or {}
        except OSError as exc:
            raise AnsibleLookupError("role_inputs: role %s of scc.training has no %s: %s" % (name, path, exc)) from exc
    entry_points = _SPECS[path].get("argument_specs") or {}
    if entry_point not in entry_points:
        raise AnsibleLookupError(
            "role_inputs: role %s has no entry point %r (it has %s)"
            % (name, entry_point, ", ".join(sorted(entry_points)))
        )
    return list((entry_points[entry_point] or {}).get("options") or {})


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        entry_point = kwargs.pop("entry_point", "main")
        if kwargs:
            raise AnsibleLookupError("role_inputs: unknown option(s) %s (only entry_point)" % ", ".join(sorted(kwargs)))
        variables = variables or {}
        results = []
        for role in terms:
            names = spec_options(role, entry_point)
            results.append(
                {name: self._templar.template(variables[name]) if name in variables else None for name in names}
            )
        return results
