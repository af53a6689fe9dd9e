# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""NVIDIA devices on the PCI bus, from sysfs: the one rule nvidia_driver (preflight) and gpu_health
(the expected GPU count) share.

``nvidia_pci_devices(lines) -> {"gpus": ["0000:1a:00.0", ...], "nvswitches": [...]}`` over lines
``"<address> <vendor> <class>"`` as ``/sys/bus/pci/devices/<address>/{vendor,class}`` give them
(``0000:1a:00.0 0x10de 0x030200``). NVIDIA's PCI vendor id is 0x10de; a GPU has the display class
0x03 with subclass 0x00 (VGA controller: consumer and some data-centre boards) or 0x02 (3D controller:
Tesla/data-centre GPUs such as V100, nvidia-smi's ``pci_base_class`` 3 / ``pci_sub_class`` 2); an
NVSwitch is a bridge, class 0x0680 (PCI Code and ID Assignment Specification, class codes 03h and 06h).
Sysfs is read without pciutils and before any driver loads.
"""

from __future__ import annotations

NVIDIA_VENDOR = "0x10de"
_GPU_CLASSES = ("0x0300", "0x0302")
_NVSWITCH_CLASS = "0x0680"


def nvidia_pci_devices(lines):
    """Sort ``"<address> <vendor> <class>"`` lines into NVIDIA GPUs and NVSwitches (see the module docstring)."""
    devices = {"gpus": [], "nvswitches": []}
    for line in lines or []:
        fields = str(line).split()
        if len(fields) != 3 or fields[1].lower() != NVIDIA_VENDOR:
            continue
        address, pci_class = fields[0], fields[2].lower()
        if pci_class.startswith(_GPU_CLASSES):
            devices["gpus"].append(address)
        elif pci_class.startswith(_NVSWITCH_CLASS):
            devices["nvswitches"].append(address)
    return devices
