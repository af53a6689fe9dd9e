# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""NIC firmware filters, thin wrappers over module_utils/mellanox_fw.py (the parsers the
``nic_firmware_info`` module uses). Documentation: the sidecars
nic_firmware_compare.yml and nic_firmware_differences.yml.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    lazy_module_utils,
)

mellanox_fw = lazy_module_utils("mellanox_fw")


def nic_firmware_compare(devices, targets):
    """Each device against the target version for its PSID: action ok, burn or none."""
    if not isinstance(devices, list) or not isinstance(targets, list):
        raise AnsibleFilterError("nic_firmware_compare: devices and targets must be lists")
    for index, target in enumerate(targets):
        if not isinstance(target, dict) or not target.get("psid") or not target.get("version"):
            raise AnsibleFilterError(
                "nic_firmware_compare: target %d needs 'psid' and 'version', got %r" % (index, target)
            )
    return mellanox_fw.compare(devices, targets)


def nic_firmware_differences(plan):
    """A ``nic_firmware_compare`` plan -> ``"<psid> <current> (target <target>)"`` per device to burn."""
    if not isinstance(plan, list):
        raise AnsibleFilterError(
            "nic_firmware_differences: input must be a nic_firmware_compare plan, got %r" % (plan,)
        )
    return mellanox_fw.differences(plan)


class FilterModule(object):
    """scc.training NIC firmware filters."""

    def filters(self):
        return {f.__name__: f for f in (nic_firmware_compare, nic_firmware_differences)}
