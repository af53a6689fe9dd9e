# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""``parse_nvidia_smi``: ``nvidia-smi -q -x`` XML -> dict, over module_utils/nvidia_smi.py,
the same parser the ``gpu_info`` module uses. Documentation: the sidecar parse_nvidia_smi.yml.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.module_utils import nvidia_smi


def parse_nvidia_smi(xml_text):
    """``nvidia-smi -q -x`` output -> dict (see module_utils/nvidia_smi.py)."""
    if not isinstance(xml_text, str):
        raise AnsibleFilterError("parse_nvidia_smi: input must be the XML text, got %s" % type(xml_text).__name__)
    try:
        return nvidia_smi.parse(xml_text)
    except nvidia_smi.NvidiaSmiParseError as exc:
        raise AnsibleFilterError("parse_nvidia_smi: %s" % exc) from exc


class FilterModule(object):
    """scc.training nvidia-smi filter."""

    def filters(self):
        return {"parse_nvidia_smi": parse_nvidia_smi}
