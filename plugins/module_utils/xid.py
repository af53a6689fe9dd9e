# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""NVIDIA Xid events in a kernel log, and the remedy class of each Xid.

``parse_xid(text) -> [{"pci_bus_id": "0000:91:00", "xid": 79, "message": "GPU has fallen off the bus."}]``
in log order. The driver prints (NVIDIA/open-gpu-kernel-modules src/nvidia/src/kernel/gpu/rc/kernel_rc.c,
macro XID_PRINT_WITH_ATTR, commit 129479b1)::

    NVRM: Xid (PCI:<domain>:<bus>:<device>[ GPU-I:<n>[ GPU-CI:<n>]]): <xid>, pid=<pid>, name=<process>, <message>
    NVRM: Xid (PCI:<domain>:<bus>:<device>): <xid>, <message>

older drivers print no ``pid=``/``name=`` (or ``pid=`` alone) and the oldest no ``PCI:`` prefix:
``NVRM: Xid (0000:03:00): 14, Channel 00000001``. Whatever precedes ``NVRM:`` is ignored, so every
prefix reads the same: ``dmesg`` (``[6781741.548779] ``), ``dmesg -T`` (``[Sun Feb 23 16:24:18 2025] ``),
``dmesg --time-format iso`` (``kern  :warn  : 2025-01-21T04:41:44,283302+00:00 ``), ``journalctl -k``
(``Feb 23 16:24:18 node1 kernel: ``), a caller tag (``[ T1946]``) or none. ``pci_bus_id`` is the address
as printed (domain:bus:device, no function); ``bus_key`` compares it with nvidia-smi's
``00000000:91:00.0``. The message is the text after the pid/name fields.

Remedy classes, least to most severe (the contract of ``gpu_health_report``; module_utils/gpu_health.py
judges a node red from ``reset_gpu`` on):

- ``none``: informational, nothing to recover (catalogue/NVSentinel action IGNORE).
- ``restart_app``: the application faulted; the GPU is healthy (RESTART_APP).
- ``reset_gpu``: stop the GPU's processes and reset it (``nvidia-smi -r``) (RESET_GPU, WORKFLOW_XID_48,
  the NVLink workflows).
- ``reboot``: power-cycle the node (RESTART_BM, RESTART_VM).
- ``isolate``: keep the node out and open a case; hardware (CONTACT_SUPPORT, CHECK_MECHANICALS).

``XID_REMEDIES`` maps each Xid to its class from NVIDIA's "XID Errors" catalogue
(docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html, Ampere and later) and the machine-readable
mapping of NVIDIA/NVSentinel (distros/kubernetes/nvsentinel/charts/gpu-health-monitor/xiderrorsmapping.csv).
Volta (V100) specifics from NVIDIA's "Dynamic Page Retirement" guide
(docs.nvidia.com/deploy/dynamic-page-retirement/visibility.html): Xid 48 = a double-bit ECC error (DBE),
63 = a page retired ("reload the driver to activate": the pending retirement is judged from nvidia-smi, so
63 itself is informational), 64 = a page failed retirement (reset, then RMA if it persists). An Xid missing
from the table is ``None`` (gpu_health reports it as a warning to look up).
"""

from __future__ import annotations

import re

REMEDY_ORDER = ("none", "restart_app", "reset_gpu", "reboot", "isolate")

XID_REMEDIES = {
    13: "restart_app",  # graphics engine exception: RESTART_APP
    31: "restart_app",  # GPU memory page fault: RESTART_APP
    43: "none",  # GPU stopped processing (the application's context was killed): IGNORE
    45: "none",  # preemptive cleanup after an earlier error: the earlier Xid carries the action
    46: "reset_gpu",  # GPU stopped processing: RESET_GPU
    48: "reset_gpu",  # double-bit ECC error: WORKFLOW_XID_48 (reset; RMA past the SRAM threshold)
    54: "isolate",  # auxiliary power not connected: CHECK_MECHANICALS
    61: "isolate",  # internal micro-controller breakpoint: CONTACT_SUPPORT
    62: "reset_gpu",  # internal micro-controller halt: RESET_GPU
    63: "none",  # page retired / row remapped (pending retirement judged from nvidia-smi): IGNORE
    64: "reset_gpu",  # page retirement / row remapping failure: RESET_GPU, then RMA if it persists
    74: "reset_gpu",  # NVLink error: WORKFLOW_NVLINK_ERR (reset, then reboot)
    79: "reboot",  # GPU has fallen off the bus: RESTART_BM
    92: "none",  # high single-bit ECC rate: IGNORE
    94: "restart_app",  # contained ECC error: RESTART_APP
    95: "reset_gpu",  # uncontained ECC error: RESET_GPU
    109: "reset_gpu",  # context-switch timeout: RESET_GPU
    110: "reset_gpu",  # security fault: RESET_GPU
    119: "reset_gpu",  # GSP RPC timeout: RESET_GPU
    120: "reset_gpu",  # GSP error: RESET_GPU
    136: "reset_gpu",
    140: "reset_gpu",
    143: "reset_gpu",
    144: "reset_gpu",  # 144-150 NVLink5 errors: WORKFLOW_NVLINK5_ERR (reset)
    145: "reset_gpu",
    146: "reset_gpu",
    147: "reset_gpu",
    148: "reset_gpu",
    149: "reset_gpu",
    150: "reset_gpu",
    151: "reboot",  # RESTART_VM
    154: "none",  # recovery action changed: the accompanying Xid carries the action
}

_XID_LINE = re.compile(
    r"NVRM: Xid \((?:PCI:)?(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.[0-9A-Fa-f])?)"
    r"(?: GPU-I:\d+)?(?: GPU-CI:\d+)?\): (?P<xid>\d+),\s*(?P<body>.*?)\s*$"
)
# "pid=1896, name=python, " or "pid='<unknown>', name=<unknown>, " or "pid=1896, " (no name)
_PROCESS = re.compile(r"^pid=(?:'[^']*'|\S+?),\s*(?:name=.*?,\s*)?")


def parse_xid(text):
    """Every NVRM Xid line of ``text`` (a kernel log), in order: see the module docstring."""
    events = []
    for line in (text or "").splitlines():
        match = _XID_LINE.search(line)
        if match:
            events.append(
                {
                    "pci_bus_id": match.group("bus"),
                    "xid": int(match.group("xid")),
                    "message": _PROCESS.sub("", match.group("body"), count=1),
                }
            )
    return events


def bus_key(pci_bus_id):
    """'00000000:1A:00.0' (nvidia-smi) and '0000:1a:00' (Xid) -> '0000:1a:00': domain (last 4 digits), bus, device."""
    if not pci_bus_id:
        return None
    parts = str(pci_bus_id).lower().split(".", maxsplit=1)[0].split(":")
    if len(parts) != 3:
        return str(pci_bus_id).lower()
    domain, bus, device = parts
    return "%s:%s:%s" % (domain[-4:].rjust(4, "0"), bus, device)


def xid_remedy(xid):
    """The remedy class of an Xid, or None when the catalogue does not list it."""
    return XID_REMEDIES.get(int(xid))


def worst_remedy(remedies):
    """The most severe of ``remedies`` (names of REMEDY_ORDER); ``none`` for an empty list."""
    return max(remedies, key=REMEDY_ORDER.index, default="none")
