# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""aiacc's rules across its variables (its validate.yml): ``aiacc_input_problems``; and which AIACC component
the launchers' frameworks need (``aiacc_component``: playbooks install and validate the role only then). The version matrix
stays with scc.training.gpu_stack_check (plugins/module_utils/_gpu_matrix.py).

Pure Python, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.scc.training.plugins.module_utils.input_checks import (
    ABSOLUTE,
    MIRROR,
    SHA256,
    env_value_problems,
    pattern,
    rule_problems,
    text,
)

# What a GPU host installs: the artifact, where it comes from, and where it goes.
_ARTIFACT_RULES = (
    (
        "aiacc_artifact_name",
        pattern(r"^[A-Za-z0-9][A-Za-z0-9._+-]*\.(whl|tar\.gz)$"),
        "the wheel or .tar.gz file to install",
    ),
    ("aiacc_venv_path", pattern(ABSOLUTE.pattern), "absolute"),
    ("aiacc_artifacts_path", pattern(ABSOLUTE.pattern), "absolute"),
    ("aiacc_verify_import", pattern(r"^([A-Za-z_][A-Za-z0-9_.]*)?$"), "empty or a module name"),
)
_SOURCE_RULES = {
    "release": (
        (
            "aiacc_artifact_sha256",
            pattern(SHA256.pattern),
            "its sha256 with aiacc_source release (Alibaba publishes no manifest)",
        ),
        ("aiacc_release_url", pattern(MIRROR.pattern), "a URL with aiacc_source release"),
    ),
    "mirror": (
        (
            "aiacc_mirror",
            pattern(MIRROR.pattern),
            "an http(s):// URL or absolute controller directory with aiacc_source mirror",
        ),
    ),
}


_COMPONENTS = ("aiacc", "acspeed")


def aiacc_component(frameworks):
    """{launcher's framework variable: its value} -> the AIACC component they need: 'aiacc', 'acspeed' or ''.

    Both components go into python_env's one venv, so two launchers asking for different ones are refused
    (ValueError naming both variables): the aiacc role installs one (aiacc_framework).
    """
    wanted = {name: value for name, value in sorted(frameworks.items()) if value in _COMPONENTS}
    chosen = set(wanted.values())
    if len(chosen) > 1:
        raise ValueError(
            "%s ask for different AIACC components, but python_env's venv gets one (aiacc_framework): "
            "train every job with the same one" % " and ".join("%s=%s" % item for item in wanted.items())
        )
    return chosen.pop() if chosen else ""


def aiacc_input_problems(settings):
    """aiacc's variables -> one sentence per problem, naming the variable and its value ([] when all is well).

    ``settings``: the ``aiacc_*`` variables, ``aiacc_cpu_only`` a bool (a CPU-only cluster installs nothing,
    so only ``aiacc_env`` is checked there).
    """
    problems = []
    if not settings["aiacc_cpu_only"]:
        problems.extend(rule_problems(settings, _ARTIFACT_RULES))
        source = settings["aiacc_source"]
        problems.extend(rule_problems(settings, _SOURCE_RULES.get(source if isinstance(source, str) else None, ())))
    env = settings["aiacc_env"]
    if not isinstance(env, dict):
        return problems + env_value_problems("aiacc_env", env)
    if any(not re.match(r"^[A-Z_][A-Z0-9_]*\Z", text(name)) for name in env):
        problems.append("aiacc_env must map environment variable names (A-Z, 0-9, _) to values; got %s." % env)
    problems += env_value_problems("aiacc_env", env)
    return problems
