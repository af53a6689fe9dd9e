# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""What the collection's filters share: the checks of an input's type (text, mapping, list), and errors that name
the filter. The filters are thin wrappers over plugins/module_utils, whose functions raise
ValueError (their parse errors are subclasses of it).

``lazy_module_utils``: the filter files reach their module_utils through it, imported at the first call of a filter
that needs one. Ansible's Jinja2 loader imports every filter file of a collection to find one filter of it
(ansible/plugins/loader.py, Jinja2Loader.get_with_context), in each forked worker whose task uses one, and a
collection's Python files are compiled from source on each import (its loader keeps no bytecode): a filter file
that imported its module_utils at load time made every such worker compile most of plugins/module_utils.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Mapping

from ansible.errors import AnsibleFilterError
from ansible.module_utils.six import string_types


def _refuse(filter_name, what, value):
    raise AnsibleFilterError("%s: %s, got %s" % (filter_name, what, type(value).__name__))


def require_text(value, filter_name, what="the command's output as a string"):
    """`value` when it is a string, else AnsibleFilterError('<filter_name>: input must be <what>, got <type>')."""
    if not isinstance(value, string_types):
        _refuse(filter_name, "input must be " + what, value)
    return value


def require_mapping(value, filter_name, what="input must be a dict"):
    """`value` when it is a mapping, else AnsibleFilterError('<filter_name>: <what>, got <type>')."""
    if not isinstance(value, Mapping):
        _refuse(filter_name, what, value)
    return value


def require_list(value, filter_name, what="input must be a list"):
    """`value` as a list when it is a list (or another iterable that is not text or a mapping), else
    AnsibleFilterError('<filter_name>: <what>, got <type>')."""
    if isinstance(value, (string_types, bytes, Mapping)) or not hasattr(value, "__iter__"):
        _refuse(filter_name, what, value)
    return list(value)


def require_hosts(hosts, hostvars, filter_name):
    """``hosts`` as a list of inventory names, each one of ``hostvars``; else an error naming the filter (or plan)."""
    hosts = [str(h) for h in require_list(hosts, filter_name, "the input (inventory host names) must be a list")]
    require_mapping(hostvars, filter_name, "hostvars must be a mapping")
    missing = [h for h in hosts if h not in hostvars]
    if missing:
        raise AnsibleFilterError("%s: not in the inventory: %s" % (filter_name, ", ".join(missing)))
    return hosts


def filter_call(filter_name, function, *args, errors=(ValueError,)):
    """``function(*args)``; `errors` become AnsibleFilterError('<filter_name>: <message>'), and a KeyError (a key
    the input lacks) AnsibleFilterError('<filter_name>: the input lacks <key>'), never a bare KeyError."""
    try:
        return function(*args)
    except KeyError as exc:
        raise AnsibleFilterError("%s: the input lacks %s" % (filter_name, exc)) from exc
    except errors as exc:
        raise AnsibleFilterError("%s: %s" % (filter_name, exc)) from exc


class _Settings(dict):
    """A role's variables whose missing key is an error naming the filter and the variable, not a bare KeyError."""

    def __init__(self, filter_name, value):
        super().__init__(value)
        self.filter_name = filter_name

    def __missing__(self, key):
        raise AnsibleFilterError("%s: the input lacks the variable %s" % (self.filter_name, key))


MODULE_UTILS = "ansible_collections.scc.training.plugins.module_utils"


class _LazyModule(object):
    """plugins/module_utils/<name>.py, imported at the first read of one of its attributes."""

    __slots__ = ("_module", "_name")

    def __init__(self, name):
        self._name = name
        self._module = None

    def __getattr__(self, attribute):
        if self._module is None:
            self._module = importlib.import_module("%s.%s" % (MODULE_UTILS, self._name))
        return getattr(self._module, attribute)

    def __repr__(self):
        return "<lazy %s.%s>" % (MODULE_UTILS, self._name)


def lazy_module_utils(name):
    """plugins/module_utils/``name``.py as an object whose attributes are the module's, imported at the first read
    of one (a filter's call), not when the filter file loads (see the module's docstring)."""
    return _LazyModule(name)


# What no sentence of a refusal may hold as it is: a line end of any line splitter (a value with U+2028 split the
# message in two), and a value so long it buries the rule (a 100 kB string was echoed whole).
_LINE_BREAKING = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")
_LONG_WORD = re.compile(r"(\S{200})\S{100,}")
PROBLEM_MAX = 2000


def readable_problem(problem):
    """A refusal's sentence as one readable line: line ends and control characters escaped (``\u2028``), a word
    longer than 300 characters cut after 200 with its length, the sentence cut beyond PROBLEM_MAX characters."""
    problem = _LINE_BREAKING.sub(lambda match: json.dumps(match.group())[1:-1], str(problem))
    problem = _LONG_WORD.sub(lambda match: "%s... (%d characters)" % (match.group(1), len(match.group())), problem)
    if len(problem) > PROBLEM_MAX:
        problem = "%s... (%d characters)" % (problem[:PROBLEM_MAX], len(problem))
    return problem


def require_settings(value, filter_name):
    """`value` (a role's variables) as a dict whose missing key raises
    AnsibleFilterError('<filter_name>: the input lacks the variable <name>'); AnsibleFilterError unless a dict."""
    if not isinstance(value, Mapping):
        raise AnsibleFilterError(
            "%s: input must be a dict of the role's variables, got %s" % (filter_name, type(value).__name__)
        )
    return _Settings(filter_name, value)
