# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The aiacc role's filters for scc.training, thin wrappers: ``env_file`` over plugins/module_utils/envfile.py
and ``secret_env_problems`` over plugins/module_utils/input_checks.py (mpi_job's validate.yml),
``aiacc_component`` over plugins/module_utils/aiacc.py (aiacc's validate.yml; the playbooks that install and validate
it). Their documentation lives in the sidecars ``env_file.yml``, ``secret_env_problems.yml`` and
``aiacc_component.yml``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import lazy_module_utils

aiacc = lazy_module_utils("aiacc")
envfile = lazy_module_utils("envfile")
input_checks = lazy_module_utils("input_checks")


def env_file(env, style="plain", header="", secret=False):
    """{NAME: value} -> the text of a NAME=value file (plain) or a shell profile script (export)."""
    try:
        return envfile.env_file(env, style, header, secret)
    except (ValueError, TypeError) as exc:
        raise AnsibleFilterError("env_file: %s" % exc) from exc


def secret_env_problems(secret, variable):
    """A secret environment (``variable``) -> [] or the sentences naming its bad names and values' names (never a
    value): names that are not environment variable names, values that are not strings or span lines."""
    if not isinstance(variable, str) or not variable:
        raise AnsibleFilterError("secret_env_problems: the variable's name must be a non-empty string")
    return input_checks.secret_env_problems(variable, secret, "", [])


def aiacc_component(frameworks):
    """{framework variable: value} -> 'aiacc', 'acspeed' or '' (an error when they ask for different ones)."""
    if not isinstance(frameworks, dict):
        raise AnsibleFilterError("aiacc_component: expected a dict of framework variables, got %r" % (frameworks,))
    try:
        return aiacc.aiacc_component(frameworks)
    except ValueError as exc:
        raise AnsibleFilterError("aiacc_component: %s" % exc) from exc


class FilterModule(object):
    """scc.training filters of the aiacc role."""

    def filters(self):
        return {
            "env_file": env_file,
            "secret_env_problems": secret_env_problems,
            "aiacc_component": aiacc_component,
        }
