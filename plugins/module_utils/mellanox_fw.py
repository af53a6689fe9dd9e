# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Parsers for NVIDIA/Mellanox NIC firmware queries, shared by the ``nic_firmware_info`` module
and the ``scc.training.parse_nic_firmware`` filter, plus the comparison with targets per PSID.

``parse_fwmanager(text) -> list of devices``: the text of ``mlxfwmanager --query`` (MFT),
``mstfwmanager --query`` (mstflint package) and ``mlxup`` (same format). Each device::

    {"device_type": "ConnectX6DX", "part_number": "MCX623106AN-CDA_Ax", "description": "...",
     "psid": "MT_0000000359", "device": "/dev/mst/mt4125_pciconf0", "base_guid": ..., "base_mac": ...,
     "versions": {"FW": {"current": "22.32.0498", "available": "22.32.0498"}, "PXE": {...}, ...},
     "fw_current": "22.32.0498", "fw_available": "22.32.0498" | None, "status": "Forced update required"}

``parse_flint_query(text, device=None) -> device``: the text of ``mstflint -d <dev> query`` (or
``flint``), as one device in the same shape (``fw_available`` None, ``status`` None).

``compare(devices, targets) -> list``: targets are ``[{"psid": ..., "version": ..., "image": ..., "sha256": ...}]``; one
entry per device: ``{"device", "psid", "current", "target", "image", "sha256", "action"}`` with action ``ok``
(current == target), ``burn`` (differs) or ``none`` (no target for its PSID: left alone); ``image`` is
the target's image (None without one).

``differences(plan) -> list``: ``"<psid> <current> (target <target>)"`` per device to burn.

``nic_firmware_input_problems(settings) -> list``: the role nic_firmware's rules across its variables.

"N/A" becomes None.
"""

from __future__ import annotations

import re

from ansible_collections.scc.training.plugins.module_utils import input_checks

_DEVICE_HEADER = re.compile(r"^\s*Device #(\d+):\s*$")
_FIELD = re.compile(r"^\s*([A-Za-z][A-Za-z ]*?):\s+(.*?)\s*$")
_VERSION_ROW = re.compile(r"^\s+([A-Z][A-Za-z0-9_]*)\s+(\S+)(?:\s+(\S+))?\s*$")
_FW_FIELDS = {
    "Device Type": "device_type",
    "Part Number": "part_number",
    "Description": "description",
    "PSID": "psid",
    "PCI Device Name": "device",
    "Base GUID": "base_guid",
    "Base MAC": "base_mac",
    "Status": "status",
}


class MellanoxFwParseError(ValueError):
    """The text is not a firmware query output."""


def _value(text):
    text = (text or "").strip()
    return None if text in ("", "N/A") else text


def parse_fwmanager(text):
    """Devices from mlxfwmanager / mstfwmanager / mlxup query text (see the module docstring)."""
    devices = []
    current = None
    in_versions = False
    for line in (text or "").splitlines():
        if _DEVICE_HEADER.match(line):
            current = {"versions": {}}
            devices.append(current)
            in_versions = False
            continue
        if current is None:
            continue
        if line.strip().startswith("---------") and current.get("status"):
            current = None  # the end of the query part (an update log may follow)
            continue
        field = _FIELD.match(line)
        if field and field.group(1) in _FW_FIELDS:
            current[_FW_FIELDS[field.group(1)]] = _value(field.group(2))
            in_versions = False
            continue
        if field and field.group(1) == "Versions":
            in_versions = True
            continue
        if in_versions:
            row = _VERSION_ROW.match(line)
            if row:
                current["versions"][row.group(1)] = {"current": _value(row.group(2)), "available": _value(row.group(3))}
            elif line.strip():
                in_versions = False
    if not devices:
        raise MellanoxFwParseError("no 'Device #N:' block found")
    for dev in devices:
        for key in _FW_FIELDS.values():
            dev.setdefault(key, None)
        dev["image_type"] = None
        fw = dev["versions"].get("FW", {})
        dev["fw_current"] = fw.get("current")
        dev["fw_available"] = fw.get("available")
        if not dev["psid"]:
            raise MellanoxFwParseError("a device block has no PSID")
    return devices


def _first_word(value):
    words = (value or "").split()
    return _value(words[0]) if words else None


def parse_flint_query(text, device=None):
    """One device from ``mstflint -d <device> query`` text (see the module docstring)."""
    fields = {}
    for line in (text or "").splitlines():
        match = _FIELD.match(line)
        if match and match.group(1) not in fields:
            fields[match.group(1)] = match.group(2)
    if "PSID" not in fields or "FW Version" not in fields:
        raise MellanoxFwParseError("no 'FW Version:' and 'PSID:' lines")
    return {
        "device_type": None,
        "part_number": None,
        "description": None,
        "psid": _value(fields["PSID"]),
        "device": device,
        "base_guid": _first_word(fields.get("Base GUID")),
        "base_mac": _first_word(fields.get("Base MAC")),
        "versions": {"FW": {"current": _value(fields["FW Version"]), "available": None}},
        "fw_current": _value(fields["FW Version"]),
        "fw_available": None,
        "status": None,
        "image_type": _value(fields.get("Image type")),
    }


def compare(devices, targets):
    """Each device against the target version for its PSID (see the module docstring)."""
    wanted = {}
    images = {}
    digests = {}
    for target in targets or []:
        wanted[target["psid"]] = str(target["version"])
        images[target["psid"]] = target.get("image")
        digests[target["psid"]] = target.get("sha256")
    result = []
    for dev in devices:
        target = wanted.get(dev["psid"])
        if target is None:
            action = "none"
        elif dev["fw_current"] == target:
            action = "ok"
        else:
            action = "burn"
        result.append(
            {
                "device": dev["device"],
                "psid": dev["psid"],
                "current": dev["fw_current"],
                "target": target,
                "image": images.get(dev["psid"]),
                "sha256": digests.get(dev["psid"]),
                "action": action,
            }
        )
    return result


def differences(plan):
    """The devices of a ``compare`` plan to burn, as ``"<psid> <current> (target <target>)"``."""
    return ["%s %s (target %s)" % (p["psid"], p["current"], p["target"]) for p in plan if p["action"] == "burn"]


_TARGET_PSID = re.compile(r"^[A-Z]{2,4}_[0-9]{10}$")
_TARGET_VERSION = re.compile(r"^[0-9]+\.[0-9]+\.[0-9]+$")
_NIC_FIRMWARE_RULES = (
    ("nic_firmware_reboot_timeout", input_checks.minimum(60), ">= 60"),
    ("nic_firmware_image_dir", input_checks.pattern(input_checks.ABSOLUTE.pattern), "absolute"),
)


def nic_firmware_input_problems(settings):
    """nic_firmware's variables -> one sentence per problem, naming the variable and its value ([] when all is well).

    ``settings``: the ``nic_firmware_*`` variables, ``nic_firmware_burn`` a bool.
    """
    targets = settings["nic_firmware_targets"]
    if not isinstance(targets, list) or any(not isinstance(target, dict) for target in targets):
        return [
            "nic_firmware_targets (%s) must be a list of mappings, each with psid and version."
            % input_checks.show(targets)
        ]
    psids = [input_checks.text(target.get("psid")) for target in targets]
    problems = []
    if (
        any(not _TARGET_PSID.match(psid) for psid in psids)
        or any(not _TARGET_VERSION.match(input_checks.text(target.get("version"))) for target in targets)
        or len(set(psids)) != len(psids)
    ):
        problems.append(
            "nic_firmware_targets must name each PSID once, such as MT_0000000359, with a version such as 22.39.1002 "
            "(got %s)." % input_checks.show(targets)
        )
    without_image = [target.get("psid") for target in targets if not target.get("image")]
    if settings["nic_firmware_burn"] and without_image:
        problems.append(
            "nic_firmware_burn is true, so every target of nic_firmware_targets needs an image (no image: %s)."
            % input_checks.show(without_image)
        )
    # The image's sha256 comes from the inventory, never from where the image was found: it is checked on the
    # controller before the image reaches a host.
    unchecked = [
        target.get("psid")
        for target in targets
        if target.get("image") and not input_checks.SHA256.match(input_checks.text(target.get("sha256")))
    ]
    if unchecked:
        problems.append(
            "nic_firmware_targets: every target with an image needs the image's sha256 (64 lowercase hex digits), "
            "missing or malformed for %s." % input_checks.show(unchecked)
        )
    tool_path = input_checks.text(settings["nic_firmware_tool_path"])
    if tool_path and (settings["nic_firmware_tool"] == "auto" or not tool_path.startswith("/")):
        problems.append(
            "nic_firmware_tool_path (%s) must be empty, or absolute with nic_firmware_tool (%s) naming the tool."
            % (tool_path, settings["nic_firmware_tool"])
        )
    return problems + input_checks.rule_problems(settings, _NIC_FIRMWARE_RULES)
