# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""``parse_nvlink_status``: ``nvidia-smi nvlink -s`` -> list (module_utils/nvidia_smi.py);
``nvidia_pci_devices``: sysfs PCI lines -> NVIDIA GPUs and NVSwitches (module_utils/nvidia_pci.py).
Documentation: the sidecars parse_nvlink_status.yml and nvidia_pci_devices.yml.
"""

from __future__ import annotations

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    lazy_module_utils,
    require_list,
    require_text,
)

nvidia_pci = lazy_module_utils("nvidia_pci")
nvidia_smi = lazy_module_utils("nvidia_smi")


def parse_nvlink_status(text):
    """``nvidia-smi nvlink -s`` output -> [{index, name, uuid, links, links_up, links_down}]."""
    return nvidia_smi.parse_nvlink_status(require_text(text, "parse_nvlink_status", "the command's output as a string"))


def nvidia_pci_devices(lines):
    """``"<address> <vendor> <class>"`` lines -> {gpus: [...], nvswitches: [...]}."""
    return nvidia_pci.nvidia_pci_devices(require_list(lines, "nvidia_pci_devices", "input must be a list of lines"))


class FilterModule(object):
    """scc.training nvidia-smi and NVIDIA PCI filters."""

    def filters(self):
        return {
            "parse_nvlink_status": parse_nvlink_status,
            "nvidia_pci_devices": nvidia_pci_devices,
        }
