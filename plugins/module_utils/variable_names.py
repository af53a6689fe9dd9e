# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Typos in the user's variables: names in the collection's namespaces that nothing declares, stale group_vars.

Ansible takes any variable name without a word: ``bert_launch_batchsize: 64`` trains with the default batch size,
and a group_vars file of a group that no longer exists is skipped in silence. validate.yml asks this module once
per run (scc.training.variable_typos lookup) and warns with the closest declared name.

A name is in the collection's namespace when it starts with ``scc_`` or with a role's name and ``_``. It is
declared when a role's meta/argument_specs.yml has it as an option, or when the collection's own YAML (roles and
playbooks, outside comments) names it: the cluster-wide settings the roles read (``scc_transport``) and the facts
they publish (``gpu_health_report``, ``scc_healthy_nodes``) are in that text, and only there.
"""

from __future__ import annotations

import difflib
import os
import re

_NAME = re.compile(r"\b[a-z][a-z0-9_]*\b")
_COMMENT = re.compile(r"(^|\s)#.*$")
_YAML_SUFFIXES = (".yml", ".yaml")
# group_vars/<group>.yml, <group>.yaml, <group>.json, <group> (a file without suffix) or <group>/ (a directory).
_GROUP_VARS_SUFFIXES = (".yml", ".yaml", ".json")
# Ansible's own implicit groups: group_vars for them are always read.
IMPLICIT_GROUPS = ("all", "ungrouped")
# A message names at most this many nodes, then how many more.
_NODES_SHOWN = 3


def role_names(collection_root):
    """The collection's roles (directories of roles/ that have a meta/argument_specs.yml), sorted."""
    roles_dir = os.path.join(collection_root, "roles")
    return sorted(
        name
        for name in os.listdir(roles_dir)
        if os.path.isfile(os.path.join(roles_dir, name, "meta", "argument_specs.yml"))
    )


def namespaces(roles):
    """The prefixes that mark a variable as the collection's: ``scc_`` and ``<role>_`` for every role."""
    return ("scc_",) + tuple(sorted("%s_" % role for role in roles))


def in_namespace(name, prefixes):
    return isinstance(name, str) and name.startswith(prefixes)


def _yaml_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for filename in sorted(filenames):
            if filename.endswith(_YAML_SUFFIXES):
                yield os.path.join(dirpath, filename)


def names_in_yaml_text(text, prefixes):
    """The names with one of ``prefixes`` that YAML text mentions outside its comments."""
    found = set()
    for line in text.splitlines():
        code = _COMMENT.sub("", line)
        found.update(name for name in _NAME.findall(code) if name.startswith(prefixes))
    return found


def declared_names(collection_root, roles=None):
    """Every name of the collection's namespaces that its roles' specs or its roles' and playbooks' YAML name.

    The specs are YAML files under roles/ too: their option names are found with the rest of the text.
    """
    roles = role_names(collection_root) if roles is None else roles
    prefixes = namespaces(roles)
    declared = set()
    for top in ("roles", "playbooks"):
        for path in _yaml_files(os.path.join(collection_root, top)):
            with open(path, encoding="utf-8") as handle:
                declared |= names_in_yaml_text(handle.read(), prefixes)
    return frozenset(declared)


def _nodes_text(nodes):
    nodes = sorted(nodes)
    if len(nodes) <= _NODES_SHOWN:
        return ", ".join(nodes)
    return "%s and %d more" % (", ".join(nodes[:_NODES_SHOWN]), len(nodes) - _NODES_SHOWN)


def undeclared_variables(names_by_node, declared, prefixes):
    """One warning per name of the collection's namespaces that no role or playbook declares, sorted by name.

    ``names_by_node``: node -> the variable names set for it (inventory, group_vars, host_vars, extra vars).
    Each warning names the variable, the nodes it is set for and, where one is close, the declared name meant.
    The work is one pass over every node's names, then one look-up per distinct unknown name.
    """
    nodes_by_name = {}
    for node, names in names_by_node.items():
        for name in names:
            if in_namespace(name, prefixes) and name not in declared:
                nodes_by_name.setdefault(name, set()).add(node)
    choices = sorted(declared)
    warnings = []
    for name in sorted(nodes_by_name):
        close = difflib.get_close_matches(name, choices, n=1, cutoff=0.75)
        hint = "; did you mean %s?" % close[0] if close else "; no role of scc.training reads it"
        warnings.append(
            "%s (set for %s) is not a variable of scc.training%s" % (name, _nodes_text(nodes_by_name[name]), hint)
        )
    return warnings


def group_vars_groups(directory):
    """The group names that ``directory``/group_vars holds variables for (empty when it has none)."""
    group_vars = os.path.join(directory, "group_vars")
    if not os.path.isdir(group_vars):
        return {}
    found = {}
    for entry in sorted(os.listdir(group_vars)):
        if entry.startswith("."):
            continue
        path = os.path.join(group_vars, entry)
        stem, suffix = os.path.splitext(entry)
        group = stem if suffix in _GROUP_VARS_SUFFIXES else entry
        if os.path.isdir(path) or suffix in _GROUP_VARS_SUFFIXES or not suffix:
            found.setdefault(group, path)
    return found


def stale_group_vars(directories, groups):
    """A warning for each group_vars entry, in any of ``directories``, of a group the inventory does not have.

    Ansible reads group_vars only for the groups that exist, so a file left under a group's old name is skipped
    without a word and its settings silently fall back to the defaults.
    """
    known = set(groups) | set(IMPLICIT_GROUPS)
    warnings = []
    for directory in sorted({d for d in directories if d}):
        for group, path in sorted(group_vars_groups(directory).items()):
            if group not in known:
                close = difflib.get_close_matches(group, sorted(known), n=1, cutoff=0.6)
                hint = "; did you mean group %s?" % close[0] if close else ""
                warnings.append(
                    "%s holds variables of group %s, which the inventory does not have: Ansible does not read them%s"
                    % (path, group, hint)
                )
    return warnings
