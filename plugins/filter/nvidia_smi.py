# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""``parse_nvidia_smi``: ``nvidia-smi -q -x`` XML -> dict, over module_utils/nvidia_smi.py,
the same parser the ``gpu_info`` module uses. Documentation: the sidecar parse_nvidia_smi.yml.
"""

from __future__ import annotations

from ansible_collections.scc.training.plugins.module_utils import nvidia_smi
from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import filter_call, require_text


def parse_nvidia_smi(xml_text):
    """``nvidia-smi -q -x`` output -> dict (see module_utils/nvidia_smi.py)."""
    return filter_call("parse_nvidia_smi", nvidia_smi.parse, require_text(xml_text, "parse_nvidia_smi", "the XML text"))


class FilterModule(object):
    """scc.training nvidia-smi filter."""

    def filters(self):
        return {"parse_nvidia_smi": parse_nvidia_smi}
