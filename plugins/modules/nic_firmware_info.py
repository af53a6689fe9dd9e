#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: nic_firmware_info
short_description: Query the firmware of NVIDIA/Mellanox NICs (mlxfwmanager, mstfwmanager or mstflint)
version_added: 0.1.0
author: scc.training developers (@scc-training)
description:
  - Queries the firmware of the ConnectX NICs of a host and returns, per device, its PSID, part number,
    current firmware version and the version the tool's image would install.
  - With C(mlxfwmanager) (MFT) or C(mstfwmanager) (mstflint package) one C(--query) lists every device.
    With C(mstflint) each PCI function 0 of vendor 0x15b3 found in sysfs is queried (C(mstflint -d <pci> query)).
  - Read-only; it changes nothing, also outside check mode.
options:
  tool:
    description:
      - Which tool to run. V(auto) takes the first of C(mlxfwmanager), C(mstfwmanager), C(mstflint) found.
    type: str
    default: auto
    choices: [auto, mlxfwmanager, mstfwmanager, mstflint]
  tool_path:
    description: Absolute path of the tool's binary; empty means look it up on PATH. Requires O(tool) other than V(auto).
    type: str
    default: ""
  missing_ok:
    description:
      - When V(true), a host without any of the tools returns RV(tool_found) V(false) and no devices instead
        of failing. A tool that is found but fails is always an error.
    type: bool
    default: false
extends_documentation_fragment:
  - scc.training.read_only
notes:
"""

EXAMPLES = r"""
- name: Query the NIC firmware
  scc.training.nic_firmware_info:
  register: nic_fw

- name: Every ConnectX-6 Dx runs 22.39.1002
  ansible.builtin.assert:
    that: >-
      nic_fw.devices | selectattr('psid', 'eq', 'MT_0000000359')
      | map(attribute='fw_current') | unique == ['22.39.1002']
"""

RETURN = r"""
tool_found:
  description: Whether a query tool was found.
  returned: always
  type: bool
  sample: true
tool:
  description: The tool that ran (V(mlxfwmanager), V(mstfwmanager), V(mstflint)), or null.
  returned: always
  type: str
  sample: mlxfwmanager
tool_path:
  description: Its absolute path, or null.
  returned: always
  type: str
  sample: /usr/bin/mlxfwmanager
device_count:
  description: Number of devices found.
  returned: always
  type: int
  sample: 1
devices:
  description: One entry per NIC. Values the tool prints as N/A are null.
  returned: always
  type: list
  elements: dict
  contains:
    psid:
      description: Parameter-Set IDentification of the board (firmware targets are per PSID).
      type: str
      sample: MT_0000000359
    device:
      description: The device name the tool uses (C(/dev/mst/...) or a PCI address).
      type: str
      sample: /dev/mst/mt4125_pciconf0
    device_type:
      description: Device type (fwmanager tools only).
      type: str
      sample: ConnectX6DX
    part_number:
      description: Board part number (fwmanager tools only).
      type: str
      sample: MCX623106AN-CDA_Ax
    description:
      description: Board description (fwmanager tools only).
      type: str
    fw_current:
      description: Running firmware version.
      type: str
      sample: "22.32.0498"
    fw_available:
      description: Version in the tool's image, null if none matches (fwmanager tools only).
      type: str
      sample: "22.32.0498"
    versions:
      description: Every component (FW, PXE, UEFI) with its current and available version.
      type: dict
    status:
      description: The tool's status line (fwmanager tools only).
      type: str
      sample: Up to date
    base_guid:
      description: Base GUID.
      type: str
    base_mac:
      description: Base MAC.
      type: str
    image_type:
      description: Image type (mstflint only).
      type: str
"""

import glob
import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.scc.training.plugins.module_utils import mellanox_fw

_TOOLS = ("mlxfwmanager", "mstfwmanager", "mstflint")
_MELLANOX_VENDOR = "0x15b3"


def _mellanox_functions():
    """PCI function 0 of every Mellanox device in sysfs (ports share the firmware), no virtual functions."""
    found = []
    for dev in sorted(glob.glob("/sys/bus/pci/devices/*")):
        try:
            with open(os.path.join(dev, "vendor")) as f:
                vendor = f.read().strip()
        except OSError:
            continue
        name = os.path.basename(dev)
        if vendor == _MELLANOX_VENDOR and name.endswith(".0") and not os.path.exists(os.path.join(dev, "physfn")):
            found.append(name)
    return found


def _run(module, argv):
    rc, out, err = module.run_command(argv, environ_update={"LC_ALL": "C"})
    if rc != 0:
        module.fail_json(msg="%s failed (rc=%d): %s" % (" ".join(argv), rc, (err or out).strip()), rc=rc)
    return out


def main():
    module = AnsibleModule(
        argument_spec={
            "tool": {"type": "str", "default": "auto", "choices": ["auto"] + list(_TOOLS)},
            "tool_path": {"type": "str", "default": ""},
            "missing_ok": {"type": "bool", "default": False},
        },
        supports_check_mode=True,
    )
    tool, tool_path = module.params["tool"], module.params["tool_path"]
    if tool_path and tool == "auto":
        module.fail_json(msg="tool_path needs tool set to mlxfwmanager, mstfwmanager or mstflint")

    path = None
    if tool_path:
        path = tool_path if os.access(tool_path, os.X_OK) else None
    else:
        for name in _TOOLS if tool == "auto" else (tool,):
            path = module.get_bin_path(name, opt_dirs=["/usr/bin", "/usr/local/bin", "/opt/mellanox/bin"])
            if path:
                tool = name
                break
    if path is None:
        if module.params["missing_ok"]:
            module.exit_json(changed=False, tool_found=False, tool=None, tool_path=None, device_count=0, devices=[])
        module.fail_json(
            msg="no NIC firmware tool found (%s)" % (tool_path or ", ".join(_TOOLS if tool == "auto" else (tool,)))
        )

    try:
        if tool == "mstflint":
            devices = [
                mellanox_fw.parse_flint_query(_run(module, [path, "-d", pci, "query"]), pci)
                for pci in _mellanox_functions()
            ]
        else:
            out = _run(module, [path, "--query"])
            # No device: the tools print no "Device #" block (e.g. "No devices found!").
            devices = mellanox_fw.parse_fwmanager(out) if "Device #" in out else []
    except mellanox_fw.MellanoxFwParseError as exc:
        module.fail_json(msg="%s printed something unexpected: %s" % (path, exc))
    module.exit_json(
        changed=False, tool_found=True, tool=tool, tool_path=path, device_count=len(devices), devices=devices
    )


if __name__ == "__main__":
    main()
