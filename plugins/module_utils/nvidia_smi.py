# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Parser for ``nvidia-smi -q -x`` (the nvidia_smi_log XML), shared by the ``gpu_info`` module
and the ``scc.training.parse_nvidia_smi`` filter.

``parse(xml_text) -> dict``::

    {"driver_version": "460.73.01" | None, "cuda_version": "11.2" | None, "gpu_count": 8,
     "gpus": [{"index": 0, "name": "Tesla V100S-PCIE-32GB", "uuid": "GPU-...",
               "pci_bus_id": "00000000:00:0D.0", "memory_total_mib": 32510,
               "ecc_mode": "Enabled" | "Disabled" | None,
               "ecc_errors_uncorrected": 0 | None,   # volatile, since the driver loaded
               "temperature_c": 66 | None, "power_limit_w": 250.0 | None,
               "persistence_mode": "Enabled" | "Disabled" | None,
               "compute_capability": "7.0" | None,  # by product name (version matrix)
               "architecture": "Volta" | None}, ...]}

"N/A" and missing fields become None. The XML schema changed over driver releases; the
uncorrected volatile ECC count is read from whichever form is present:
``volatile/double_bit/total`` (dtd v10/v11, e.g. 460.x), the sum of
``volatile/{sram_uncorrectable,dram_uncorrectable}`` (v11/v12, e.g. 515.x) or of
``volatile/{sram_uncorrectable_parity,sram_uncorrectable_secded,dram_uncorrectable}`` (v13).
The power limit is ``power_readings/power_limit`` (old) or ``gpu_power_readings/current_power_limit``.
GPUs are listed in the order nvidia-smi prints them, which is the nvidia-smi index order.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from ansible_collections.scc.training.plugins.module_utils._gpu_matrix import compute_capability_for_name

_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?)")
_UNCORRECTED_SUMMED = (
    "sram_uncorrectable",
    "sram_uncorrectable_parity",
    "sram_uncorrectable_secded",
    "dram_uncorrectable",
)


class NvidiaSmiParseError(ValueError):
    """The text is not nvidia-smi -q -x output."""


def _text(node, path):
    if node is None:
        return None
    found = node.find(path)
    if found is None or found.text is None:
        return None
    value = found.text.strip()
    if (
        not value
        or value in ("N/A", "[N/A]", "Unknown Error", "[Unknown Error]")
        or value.startswith("Requested functionality")
    ):
        return None
    return value


def _number(value, kind=int):
    """'32510 MiB' -> 32510; '250.00 W' -> 250.0 (kind=float); None or junk -> None."""
    if value is None:
        return None
    match = _NUMBER.match(value)
    if not match:
        return None
    return kind(float(match.group(1))) if kind is int else kind(match.group(1))


def _ecc_uncorrected(gpu):
    volatile = gpu.find("ecc_errors/volatile")
    if volatile is None:
        return None
    total = _text(volatile, "double_bit/total")
    if total is not None:
        return _number(total)
    values = [_number(_text(volatile, name)) for name in _UNCORRECTED_SUMMED if volatile.find(name) is not None]
    values = [v for v in values if v is not None]
    return sum(values) if values else None


def _power_limit(gpu):
    for path in (
        "power_readings/power_limit",
        "gpu_power_readings/current_power_limit",
        "power_readings/enforced_power_limit",
        "gpu_power_readings/enforced_power_limit",
    ):
        value = _number(_text(gpu, path), float)
        if value is not None:
            return value
    return None


def parse(xml_text):
    """Parse ``nvidia-smi -q -x`` output; see the module docstring for the result."""
    if not xml_text or not xml_text.strip():
        raise NvidiaSmiParseError("empty output (is the NVIDIA driver loaded?)")
    try:
        root = ET.fromstring(xml_text.strip())
    except ET.ParseError as exc:
        raise NvidiaSmiParseError("not XML: %s" % exc) from exc
    if root.tag != "nvidia_smi_log":
        raise NvidiaSmiParseError("root element is <%s>, expected <nvidia_smi_log>" % root.tag)

    gpus = []
    for index, gpu in enumerate(root.findall("gpu")):
        name = _text(gpu, "product_name")
        gpus.append(
            {
                "index": index,
                "name": name,
                "uuid": _text(gpu, "uuid"),
                "pci_bus_id": _text(gpu, "pci/pci_bus_id") or gpu.get("id"),
                "memory_total_mib": _number(_text(gpu, "fb_memory_usage/total")),
                "ecc_mode": _text(gpu, "ecc_mode/current_ecc"),
                "ecc_errors_uncorrected": _ecc_uncorrected(gpu),
                "temperature_c": _number(_text(gpu, "temperature/gpu_temp")),
                "power_limit_w": _power_limit(gpu),
                "persistence_mode": _text(gpu, "persistence_mode"),
                "compute_capability": compute_capability_for_name(name),
                "architecture": _text(gpu, "product_architecture"),
            }
        )
    return {
        "driver_version": _text(root, "driver_version"),
        "cuda_version": _text(root, "cuda_version"),
        "gpu_count": len(gpus),
        "gpus": gpus,
    }
