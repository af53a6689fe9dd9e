# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The data-prep ECS filter for scc.training, a thin wrapper over plugins/module_utils/data_prep.py:
``data_prep_input_problems`` (documented in the sidecar ``data_prep_input_problems.yml``)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.module_utils import data_prep
from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import require_settings


def data_prep_input_problems(settings):
    """provision.yml's ``scc_cloud_data_prep_*`` variables -> one readable line per problem."""
    return data_prep.data_prep_input_problems(require_settings(settings, "data_prep_input_problems"))


class FilterModule(object):
    """scc.training data-prep ECS filters."""

    def filters(self):
        return {"data_prep_input_problems": data_prep_input_problems}
