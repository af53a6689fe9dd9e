# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""BERT data filters for scc.training, a thin wrapper over plugins/module_utils/bert_prep.py: ``bert_prepared_dir``
(where bert_prep writes a corpus's shards and bert_launch reads them). Its documentation lives in the sidecar
``bert_prepared_dir.yml``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
    require_settings,
)

bert_prep = lazy_module_utils("bert_prep")


def bert_prepared_dir(settings):
    """{data_dir, corpus, vocab, seq_len, seed} -> the corpus's prepared directory."""
    return filter_call(
        "bert_prepared_dir", bert_prep.bert_prepared_dir, require_settings(settings, "bert_prepared_dir")
    )


class FilterModule(object):
    """scc.training BERT data filters."""

    def filters(self):
        return {f.__name__: f for f in (bert_prepared_dir,)}
