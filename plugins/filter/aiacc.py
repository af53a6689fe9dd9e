# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""AIACC filters for scc.training: ``aiacc_input_problems``, a thin wrapper over
plugins/module_utils/aiacc.py. Its documentation lives in the sidecar ``aiacc_input_problems.yml``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.module_utils import aiacc
from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import require_settings


def aiacc_input_problems(settings):
    """aiacc's variables -> one readable line per problem (empty when all is well)."""
    return aiacc.aiacc_input_problems(require_settings(settings, "aiacc_input_problems"))


class FilterModule(object):
    """scc.training AIACC filters."""

    def filters(self):
        return {"aiacc_input_problems": aiacc_input_problems}
