# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""``redact_urls``: a value with every URL's credentials masked as pip masks them, a thin wrapper over
plugins/module_utils/redact.py. Documentation: the sidecar redact_urls.yml."""

from __future__ import annotations

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import lazy_module_utils

redact = lazy_module_utils("redact")


def redact_urls(value):
    """``value`` (a string, or lists and dicts of them) with each URL's ``user:password@`` shown ``user:****@``."""
    return redact.redact_data(value)


class FilterModule(object):
    """scc.training credential masking filter."""

    def filters(self):
        return {"redact_urls": redact_urls}
