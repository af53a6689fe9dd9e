# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""OpenPGP filters for scc.training, thin wrappers over plugins/module_utils/openpgp.py:
``openpgp_key_problems`` (documented in its sidecar .yml file)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
    require_text,
)

openpgp = lazy_module_utils("openpgp")


def openpgp_key_problems(text, pinned):
    """[] when the key file holds exactly the pinned primary keys, else the sentence that says what differs."""
    return filter_call("openpgp_key_problems", openpgp.key_problems, require_text(text, "openpgp_key_problems"), pinned)


class FilterModule(object):
    """scc.training OpenPGP filters."""

    def filters(self):
        return {"openpgp_key_problems": openpgp_key_problems}
