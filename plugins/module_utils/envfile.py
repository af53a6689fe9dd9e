# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Environment files: a mapping of variables -> the text of a NAME=value file (what mpirun -x
exports, line by line) or of a shell profile script (export NAME='value', shell-quoted).

Pure Python, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
import shlex

from ansible_collections.scc.training.plugins.module_utils.input_checks import env_value_problems, is_text

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")


def env_file(env, style="plain", header="", secret=False):
    """The text of an environment file, names sorted.

    style plain: NAME=value lines (e.g. for mpirun -x); export: a shell profile script,
    export NAME='value' (shell-quoted). ``secret``: every value must be a string (a secret is written as it is,
    never as Python's rendering of a number, a list or null). No value may hold a control character or any line
    end of str.splitlines (input_checks.LINE_ENDS). Errors name the variable, never a value.
    """
    if style not in ("plain", "export"):
        raise ValueError("style must be plain or export, got %r" % (style,))
    if not isinstance(env, dict):
        raise ValueError("the input must be a mapping of environment variable names to values")
    lines = ["# " + header] if header else []
    for name in sorted(env, key=str):
        if not _ENV_NAME.match(str(name)):
            raise ValueError("%r is not an environment variable name" % (name,))
        if secret and not is_text(env[name]):
            raise ValueError("the value of %s is not a string (quote it)" % name)
        value = "" if env[name] is None else str(env[name])
        problems = env_value_problems("env", {name: value})
        if problems:
            raise ValueError(problems[0])
        lines.append("export %s=%s" % (name, shlex.quote(value)) if style == "export" else "%s=%s" % (name, value))
    return "\n".join(lines) + "\n"
