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
               "architecture": "Volta" | None,
               # what gpu_health judges (module_utils/gpu_health.py):
               "ecc_errors_uncorrected_aggregate": 0 | None,  # over the GPU's life
               "retired_pages": {"single_bit": 0, "double_bit": 0, "pending": False} | None,
               "remapped_rows": {"correctable": 0, "uncorrectable": 0, "pending": False,
                                 "failure": False} | None,  # None on Volta/Turing ("N/A")
               "pcie": {"gen_current": 3, "gen_max": 3, "width_current": 16, "width_max": 16},
               "clocks_event_reasons": {"gpu_idle": True, "hw_slowdown": False,
                                        "hw_thermal_slowdown": False, "hw_power_brake_slowdown": False,
                                        "sw_thermal_slowdown": False}}, ...]}

"N/A" and missing fields become None. The XML schema changed over driver releases; the
uncorrected volatile ECC count is read from whichever form is present:
``volatile/double_bit/total`` (dtd v10/v11, e.g. 460.x), the sum of
``volatile/{sram_uncorrectable,dram_uncorrectable}`` (v11/v12, e.g. 515.x) or of
``volatile/{sram_uncorrectable_parity,sram_uncorrectable_secded,dram_uncorrectable}`` (v13).
The power limit is ``power_readings/power_limit`` (old) or ``gpu_power_readings/current_power_limit``.
The aggregate count is read the same way from ``aggregate`` instead of ``volatile``.

Retired pages (Kepler..Volta and later: ``retired_pages/{multiple_single_bit_retirement,
double_bit_retirement}/retired_count``, ``pending_blacklist`` (old name) or ``pending_retirement``,
"Yes"/"No") and row remapping (Ampere and later: ``remapped_rows/{remapped_row_corr,remapped_row_unc,
remapped_row_pending,remapped_row_failure}``; a bare ``<remapped_rows>N/A</remapped_rows>`` on Volta)
as NVIDIA's nvsmi DTD names them (the element names influxdata/telegraf's
plugins/inputs/nvidia_smi/schema_v11/types.go reads). PCIe: ``pci/pci_gpu_link_info/pcie_gen/
{current_link_gen,max_link_gen}`` and ``link_widths/{current,max}_link_width`` ("16x" -> 16). Clock
event reasons: ``clocks_event_reasons/clocks_event_reason_<name>`` (driver 535 and later) or the older
``clocks_throttle_reasons/clocks_throttle_reason_<name>``; "Active" -> True, "Not Active" -> False.
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


# The per-GPU keys gpu_health judges (module_utils/gpu_health.py), beyond the inventory above.
HEALTH_KEYS = ("ecc_errors_uncorrected_aggregate", "retired_pages", "remapped_rows", "pcie", "clocks_event_reasons")


# ECMA-48 control sequences (CSI: ESC [ parameters final byte; other escapes: ESC, intermediates, final byte, such as
# tput sgr0's ESC ( B) and carriage returns.
# nvidia-smi's text reports carry them even when written to a file: ``topo -m`` wraps its header in ESC[4m ...
# ESC[0m (underline) with driver 590 (tests/fixtures/nvidia_topo/h200-1gpu-590.48.01-raw.txt and its .source).
_TERMINAL_CODES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[ -/]*[0-~]|\r")


def strip_terminal_codes(text):
    """``text`` without terminal control sequences and carriage returns ('' for None): what a parser of
    nvidia-smi's text output reads, whether the output went to a terminal or a file."""
    return _TERMINAL_CODES.sub("", text or "")


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


def _ecc_uncorrected(gpu, counter="volatile"):
    """Uncorrectable ECC errors of ``ecc_errors/<counter>`` (volatile: since the driver loaded;
    aggregate: over the GPU's life)."""
    block = gpu.find("ecc_errors/" + counter)
    if block is None:
        return None
    total = _text(block, "double_bit/total")
    if total is not None:
        return _number(total)
    values = [_number(_text(block, name)) for name in _UNCORRECTED_SUMMED if block.find(name) is not None]
    values = [v for v in values if v is not None]
    return sum(values) if values else None


def _yes(value):
    """'Yes' -> True, 'No' -> False, None -> None."""
    return None if value is None else value.lower() == "yes"


def _retired_pages(gpu):
    pages = gpu.find("retired_pages")
    if pages is None or len(pages) == 0:  # absent, or a bare "N/A"
        return None
    pending = _text(pages, "pending_retirement") or _text(pages, "pending_blacklist")
    retired = {
        "single_bit": _number(_text(pages, "multiple_single_bit_retirement/retired_count")),
        "double_bit": _number(_text(pages, "double_bit_retirement/retired_count")),
        "pending": _yes(pending),
    }
    return None if all(value is None for value in retired.values()) else retired


def _remapped_rows(gpu):
    rows = gpu.find("remapped_rows")
    if rows is None or len(rows) == 0:  # absent, or a bare "N/A" (Volta and older: page retirement instead)
        return None
    return {
        "correctable": _number(_text(rows, "remapped_row_corr")),
        "uncorrectable": _number(_text(rows, "remapped_row_unc")),
        "pending": _yes(_text(rows, "remapped_row_pending")),
        "failure": _yes(_text(rows, "remapped_row_failure")),
    }


def _pcie(gpu):
    link = gpu.find("pci/pci_gpu_link_info")
    return {
        "gen_current": _number(_text(link, "pcie_gen/current_link_gen")),
        "gen_max": _number(_text(link, "pcie_gen/max_link_gen")),
        "width_current": _number(_text(link, "link_widths/current_link_width")),
        "width_max": _number(_text(link, "link_widths/max_link_width")),
    }


CLOCK_EVENT_REASONS = (
    "gpu_idle",
    "hw_slowdown",
    "hw_thermal_slowdown",
    "hw_power_brake_slowdown",
    "sw_thermal_slowdown",
)


def _clocks_event_reasons(gpu):
    for parent, prefix in (
        ("clocks_event_reasons", "clocks_event_reason_"),
        ("clocks_throttle_reasons", "clocks_throttle_reason_"),
    ):
        node = gpu.find(parent)
        if node is not None:
            return {
                name: (None if value is None else value.lower() == "active")
                for name, value in ((name, _text(node, prefix + name)) for name in CLOCK_EVENT_REASONS)
            }
    return dict.fromkeys(CLOCK_EVENT_REASONS)


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
                "ecc_errors_uncorrected_aggregate": _ecc_uncorrected(gpu, "aggregate"),
                "retired_pages": _retired_pages(gpu),
                "remapped_rows": _remapped_rows(gpu),
                "pcie": _pcie(gpu),
                "clocks_event_reasons": _clocks_event_reasons(gpu),
            }
        )
    return {
        "driver_version": _text(root, "driver_version"),
        "cuda_version": _text(root, "cuda_version"),
        "gpu_count": len(gpus),
        "gpus": gpus,
    }


_NVLINK_GPU = re.compile(r"^GPU (?P<index>\d+): (?P<name>.*?)(?: \(UUID: (?P<uuid>[^)]*)\))?\s*$")
_NVLINK_SPEED = re.compile(r"\d+(?:\.\d+)?\s*GB/s")
_NVLINK_LINK = re.compile(r"^\s+Link (?P<link>\d+): (?P<state>.*?)\s*$")


def parse_nvlink_status(text):
    """Parse ``nvidia-smi nvlink -s`` (``--status``): one block per GPU, one line per link::

        GPU 0: Tesla V100-SXM2-32GB (UUID: GPU-...)
        \t Link 0: 25.781 GB/s
        \t Link 1: <inactive>

    A link is up when its line gives a speed in GB/s; any other state counts as down (``-s`` displays
    "link state (active/inactive)" per ``nvidia-smi nvlink --help``; the exact text of a down link,
    ``<inactive>`` in tools' test data, is UNCONFIRMED from a real output). A GPU without NVLink prints
    no link line. Returns ``[{"index": 0, "name": ..., "uuid": ..., "links": 6, "links_up": 5, "links_down": [1]}]``
    in the order printed (the nvidia-smi index order).
    """
    gpus = []
    for line in strip_terminal_codes(text).splitlines():
        gpu = _NVLINK_GPU.match(line)
        if gpu:
            gpus.append(
                {
                    "index": int(gpu.group("index")),
                    "name": gpu.group("name"),
                    "uuid": gpu.group("uuid"),
                    "links": 0,
                    "links_up": 0,
                    "links_down": [],
                }
            )
            continue
        link = _NVLINK_LINK.match(line)
        if link and gpus:
            current = gpus[-1]
            current["links"] += 1
            if _NVLINK_SPEED.search(link.group("state")):
                current["links_up"] += 1
            else:
                current["links_down"].append(int(link.group("link")))
    return gpus
