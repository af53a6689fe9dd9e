# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Filters for scc.training, thin wrappers: ``env_file`` over plugins/module_utils/envfile.py and
``aiacc_component`` over plugins/module_utils/aiacc.py (aiacc's validate.yml; the playbooks that install and validate
it). Their documentation lives in the sidecars ``env_file.yml`` and ``aiacc_component.yml``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import lazy_module_utils

aiacc = lazy_module_utils("aiacc")
envfile = lazy_module_utils("envfile")


def env_file(env, style="plain", header="", secret=False):
    """{NAME: value} -> the text of a NAME=value file (plain) or a shell profile script (export)."""
    try:
        return envfile.env_file(env, style, header, secret)
    except (ValueError, TypeError) as exc:
        raise AnsibleFilterError("env_file: %s" % exc) from exc


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
        return {f.__name__: f for f in (env_file, aiacc_component)}
