# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Environment file filter for scc.training, a thin wrapper over plugins/module_utils/envfile.py.
Its documentation lives in ``env_file.yml``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.module_utils.envfile import env_file as _env_file


def env_file(env, style="plain", header=""):
    """{NAME: value} -> the text of a NAME=value file (plain) or a shell profile script (export)."""
    try:
        return _env_file(env, style, header)
    except (ValueError, TypeError) as exc:
        raise AnsibleFilterError("env_file: %s" % exc) from exc


class FilterModule(object):
    """scc.training environment file filter."""

    def filters(self):
        return {"env_file": env_file}
