# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""What the collection's filters share: the checks of an input's type (text, mapping, list), and errors that name
the filter. The filters are thin wrappers over plugins/module_utils, whose functions raise
ValueError (their parse errors are subclasses of it)."""

from __future__ import annotations

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


def input_problems_filter(problems):
    """The thin filter of a role's ``<role>_input_problems`` (a module_utils function of the role's variables -> one
    sentence per problem, empty when all is well), under the same name: a non-dict input or a missing variable is
    the filter's error, naming it (``require_settings``)."""
    name = problems.__name__

    def input_problems(settings):
        return problems(require_settings(settings, name))

    input_problems.__name__ = input_problems.__qualname__ = name
    input_problems.__doc__ = (
        "%s's variables -> one sentence per problem (empty when all is well)." % name[: -len("_input_problems")]
    )
    return input_problems


def require_settings(value, filter_name):
    """`value` (a role's variables, for its ``<role>_input_problems``) as a dict whose missing key raises
    AnsibleFilterError('<filter_name>: the input lacks the variable <name>'); AnsibleFilterError unless a dict."""
    if not isinstance(value, Mapping):
        raise AnsibleFilterError(
            "%s: input must be a dict of the role's variables, got %s" % (filter_name, type(value).__name__)
        )
    return _Settings(filter_name, value)
