# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""What the roles' ``<role>_input_problems`` functions share: numbers read as Jinja's ``int`` and
``float`` filters read them, the patterns several roles check, and values shown as ``to_json``
shows them. The argument specs have checked types and choices already; these functions check the
patterns, ranges and rules across variables no spec expresses.

Pure Python, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import posixpath
import re

from ansible_collections.scc.training.plugins.module_utils.redact import redact_text

SHA256 = re.compile(r"^[0-9a-f]{64}\Z")
# An absolute path without a '.' or '..' segment: the rules that compare paths by prefix ("inside the
# wheelhouse", "under /opt") read the path as written, so /opt/../etc must not pass for a path under /opt.
ABSOLUTE = re.compile(r"^/(?!(.*/)?\.\.?(/|$))")
# Control characters (newline, carriage return, tab, NUL, DEL ...) and every other line end of str.splitlines
# (\x85 NEL, \u2028 LINE SEPARATOR, \u2029 PARAGRAPH SEPARATOR; \v \f \x1c-\x1e are control characters already):
# an environment value holding one would split the NAME=value line of an env file (the ranks read theirs with
# splitlines, mpi_job_rank.load_secret_env) or smuggle a second variable into it.
LINE_ENDS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_CONTROL = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")
# An offline mirror: an http(s):// URL or an absolute directory on the controller.
MIRROR = re.compile(r"^(https?://|/)")
INTERFACE = re.compile(r"^[A-Za-z0-9_.:\-]+\Z")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")


def absolute_path_problems(variable, value):
    """[] when ``value`` is an absolute path without '.' or '..' segments, else the sentence naming ``variable``."""
    path = text(value)
    if not path.startswith("/"):
        return ["%s (%s) must be an absolute path." % (variable, show(path))]
    if not ABSOLUTE.match(path):
        return [
            "%s (%s) must be an absolute path without '.' or '..' segments (it names %s)."
            % (variable, show(path), show(posixpath.normpath(path)))
        ]
    return []


def normal_path(value):
    """``value`` as the directory it names ('//', '/./' and a trailing '/' removed), for rules that compare prefixes."""
    return posixpath.normpath("/" + text(value).lstrip("/")) if text(value).startswith("/") else text(value)


def is_inside(path, directory):
    """Whether the absolute ``path`` is ``directory`` or lies under it, both normalised first."""
    path, directory = normal_path(path), normal_path(directory).rstrip("/")
    return path == directory or path.startswith(directory + "/")


def env_value_problems(variable, env):
    """[] when no value of the mapping ``env`` holds a control character, else the sentence naming ``variable`` and
    the names of the variables (never the values: they may be secrets)."""
    if not isinstance(env, dict):
        return ["%s must be a mapping of environment variable names to values, got %s." % (variable, show(env))]
    bad = sorted(str(name) for name, value in env.items() if value is not None and _CONTROL.search(str(value)))
    if not bad:
        return []
    return [
        "%s: the value of %s holds a control character or a line end (a newline, tab, U+0085, U+2028, ...): each "
        "variable must be one line." % (variable, ", ".join(bad))
    ]


def is_text(value):
    """Whether ``value`` is a string: a str (Ansible's tagged and unsafe strings are str), or an Ansible Vault
    string (ansible-core's EncryptedString, which is not a str but decrypts to one)."""
    return isinstance(value, str) or type(value).__name__ == "EncryptedString"


def secret_env_problems(variable, secret, public_variable, public_names):
    """A secret environment mapping: names, one line each, and no name also in the public one (which would
    decide which of the two a rank gets). Never shows a value."""
    if not isinstance(secret, dict):
        return ["%s must be a mapping of environment variable names to values." % variable]
    bad = sorted(str(name) for name in secret if not ENV_NAME.match(str(name)))
    problems = ["%s's keys must be environment variable names (got %s)." % (variable, show(bad))] if bad else []
    not_text = sorted(str(name) for name, value in secret.items() if not is_text(value))
    if not_text:
        problems.append(
            "%s: the value of %s is not a string (quote it): a secret is written as it is, never as Python's "
            "rendering of a number, a boolean, a list or null." % (variable, ", ".join(not_text))
        )
    both = sorted(str(name) for name in secret if name in set(public_names))
    if both:
        problems.append(
            "%s and %s both set %s: a secret goes in one only." % (variable, public_variable, ", ".join(both))
        )
    return problems + env_value_problems(variable, secret)


def number(value, kind=int):
    """``value`` as an int or a float, None when it is none (or not a number)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        return kind(value)
    except (TypeError, ValueError):
        try:
            return kind(float(value))
        except (TypeError, ValueError):
            return None


# Ansible's booleans (ansible.module_utils.parsing.convert_bool BOOLEANS_TRUE / BOOLEANS_FALSE), which its argument
# specs (type bool), its "bool" filter and a module's bool option read alike: the string "false" is false everywhere.
_TRUE = frozenset(("y", "yes", "on", "1", "true", "t"))
_FALSE = frozenset(("n", "no", "off", "0", "false", "f"))


def boolean(value):
    """``value`` as Ansible reads a boolean (True, False), or None when it is none of them (null, "maybe", 2)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    return None


def whole_number(value):
    """``value`` as an int when it is one as written (an int, or a string of digits with an optional sign), else
    None: never a float (2.5 or 8.0, which an ``int`` command-line option refuses), a boolean or null."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.match(r"^\s*[+-]?[0-9]+\s*\Z", value):
        return int(value)
    return None


def at_least(value, minimum, kind=int):
    """Whether ``value`` is a number >= ``minimum``."""
    value = number(value, kind)
    return value is not None and value >= minimum


def fraction(value):
    """Whether ``value`` is in (0, 1]."""
    value = number(value, float)
    return value is not None and 0 < value <= 1


def is_port(value):
    """Whether ``value`` is a TCP/UDP port, 1 to 65535."""
    value = number(value, int)
    return value is not None and 1 <= value <= 65535


def matches(pattern, value):
    """Jinja's ``is match``: ``value`` (a string) matches ``pattern`` at its start; a pattern that ends with ``$`` must
    reach the value's very end (Python's ``$`` also matches before a final newline: "name\\n" would pass)."""
    if isinstance(pattern, str) and pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + "\\Z"
    return isinstance(value, str) and re.match(pattern, value) is not None


def text(value):
    """A string variable, "" when it is none."""
    return "" if value is None else str(value)


# A value shown in a message is cut to its start beyond this many characters (a 100 kB string is not echoed whole).
SHOWN_MAX = 200


def _bounded(shown):
    return shown if len(shown) <= SHOWN_MAX else "%s... (%d characters)" % (shown[:SHOWN_MAX], len(shown))


def show(value):
    """``value`` as Ansible's ``to_json`` shows it, a URL's credentials masked (a mirror's, an index's); one line
    (JSON escapes newlines and U+2028), cut beyond SHOWN_MAX characters; a value JSON cannot hold as its repr."""
    try:
        shown = json.dumps(value)
    except (TypeError, ValueError):
        shown = json.dumps(repr(value))
    return _bounded(redact_text(shown))


def brief(value):
    """``value`` as it is when it is a plain one-line value (a number, a short string), else as ``show`` shows it."""
    plain = text(value)
    if isinstance(value, (str, int, float)) and not isinstance(value, bool) and len(plain) <= SHOWN_MAX:
        if not _CONTROL.search(plain):
            return redact_text(plain)
    return show(value)


def pattern(regex):
    """A check: the value, as a string, matches ``regex`` at its start (Jinja's ``is match``)."""
    return lambda value: matches(regex, text(value))


def minimum(least, kind=int):
    """A check: the value is a number >= ``least``."""
    return lambda value: at_least(value, least, kind)


def positive(value):
    """A check: the value is a number > 0."""
    value = number(value, float)
    return value is not None and value > 0


def is_set(value):
    """A check: the value is not empty."""
    return bool(text(value))


def rule_problems(settings, rules):
    """``rules``: (variable, check, what it must be) -> "<variable> (<value>) must be <what>." for each that fails."""
    return [
        "%s (%s) must be %s." % (name, brief(settings[name]), what)
        for name, check, what in rules
        if not check(settings[name])
    ]


def group_problems(settings, variable):
    """The role's group (``variable``) must have hosts: ``settings["group_hosts"]`` (``groups[<group>]``)."""
    if settings["group_hosts"]:
        return []
    return ["%s (%s) must name a non-empty inventory group." % (variable, settings[variable])]
