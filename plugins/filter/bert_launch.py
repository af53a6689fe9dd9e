# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""BERT launch filters for scc.training: ``bert_launch_input_problems``, a thin wrapper over
plugins/module_utils/bert_launch.py. Its documentation lives in the sidecar ``bert_launch_input_problems.yml``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.module_utils import bert_launch
from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import require_settings


def bert_launch_input_problems(settings):
    """bert_launch's variables -> one readable line per problem (empty when all is well)."""
    return bert_launch.bert_launch_input_problems(require_settings(settings, "bert_launch_input_problems"))


class FilterModule(object):
    """scc.training BERT launch filters."""

    def filters(self):
        return {"bert_launch_input_problems": bert_launch_input_problems}
