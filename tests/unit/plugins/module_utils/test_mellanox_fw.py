# -*- coding: utf-8 -*-
"""NIC firmware query parsers (module_utils/mellanox_fw.py), their filters and the
nic_firmware_info module, on real outputs published in public threads (tests/fixtures/nic_firmware,
source on line 1)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.module_utils import mellanox_fw as m
from ansible_collections.scc.training.plugins.modules import nic_firmware_info
from ansible_collections.scc.training.plugins.plugin_utils import role_plans
from ansible_collections.scc.training.plugins.plugin_utils.role_plans import (
    nic_firmware_compare,
    nic_firmware_differences,
)
from tests.unit.plugins.modules.module_runner import run_module

ROOT = Path(__file__).resolve().parents[4]
FIXTURES = ROOT / "tests" / "fixtures" / "nic_firmware"


def _read(name):
    """The fixture without its source line."""
    return (FIXTURES / name).read_text(encoding="utf-8").split("\n", 1)[1]


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.txt")), ids=lambda p: p.name)
def test_every_fixture_names_its_public_source(path):
    assert path.read_text(encoding="utf-8").startswith("# source: https://github.com/")


def test_mlxfwmanager_connectx6dx_with_update_log_after_it():
    (dev,) = m.parse_fwmanager(_read("mlxfwmanager-connectx6dx-forced-update.txt"))
    assert dev["device_type"] == "ConnectX6DX" and dev["part_number"] == "MCX623106AN-CDA_Ax"
    assert dev["psid"] == "MT_0000000359" and dev["device"] == "/dev/mst/mt4125_pciconf0"
    assert (dev["fw_current"], dev["fw_available"]) == ("22.32.0498", "22.32.0498")
    assert dev["versions"] == {
        "FW": {"current": "22.32.0498", "available": "22.32.0498"},
        "PXE": {"current": "3.6.0500", "available": "3.6.0500"},
        "UEFI": {"current": "14.25.0015", "available": "14.25.0015"},
    }
    assert dev["status"] == "Forced update required"
    assert dev["base_mac"] == "0c42a17d22d4" and dev["description"].startswith("ConnectX-6 Dx EN adapter card")


def test_mlxup_connectx5_na_fields_become_none():
    (dev,) = m.parse_fwmanager(_read("mlxup-connectx5-no-matching-image.txt"))
    assert dev["psid"] == "MT_0000000158" and dev["device"] == "pci0:6:0:0"
    assert dev["fw_current"] == "16.24.4020" and dev["fw_available"] is None
    assert dev["base_guid"] is None and dev["base_mac"] is None
    assert dev["status"] == "No matching image found"


def test_mstflint_query_connectx5():
    dev = m.parse_flint_query(_read("mstflint-query-connectx5.txt"), "0000:06:00.0")
    assert dev["psid"] == "MT_0000000158" and dev["fw_current"] == "16.28.2006"
    assert dev["device"] == "0000:06:00.0" and dev["image_type"] == "FS4"
    assert dev["base_guid"] == "e41d2d0300e70f8e" and dev["base_mac"] == "e41d2de70f8e"


@pytest.mark.parametrize(
    "func, text, match",
    [
        (m.parse_fwmanager, "No devices found!", "Device #N"),
        (m.parse_fwmanager, "Device #1:\n  Device Type: ConnectX5\n", "no PSID"),
        (m.parse_flint_query, "-E- Cannot open Device: 0000:06:00.0", "FW Version"),
    ],
)
def test_bad_output_is_an_error(func, text, match):
    with pytest.raises(m.MellanoxFwParseError, match=match):
        func(text)


def test_compare_per_psid():
    devices = m.parse_fwmanager(_read("mlxfwmanager-connectx6dx-forced-update.txt")) + m.parse_fwmanager(
        _read("mlxup-connectx5-no-matching-image.txt")
    )
    plan = m.compare(
        devices,
        [{"psid": "MT_0000000359", "version": "22.39.1002"}, {"psid": "MT_0000000158", "version": "16.24.4020"}],
    )
    assert [(p["psid"], p["current"], p["target"], p["action"]) for p in plan] == [
        ("MT_0000000359", "22.32.0498", "22.39.1002", "burn"),
        ("MT_0000000158", "16.24.4020", "16.24.4020", "ok"),
    ]
    assert m.compare(devices, [])[0]["action"] == "none"


def test_compare_carries_the_image_and_differences_name_what_to_burn():
    devices = m.parse_fwmanager(_read("mlxfwmanager-connectx6dx-forced-update.txt"))
    image = "files/fw-ConnectX6Dx-rel-22_39_1002-MCX623106AN-CDA_Ax.bin"
    plan = m.compare(devices, [{"psid": "MT_0000000359", "version": "22.39.1002", "image": image}])
    assert plan[0]["image"] == image
    assert m.differences(plan) == ["MT_0000000359 22.32.0498 (target 22.39.1002)"]
    assert nic_firmware_differences(plan) == m.differences(plan)
    assert m.differences(m.compare(devices, [])) == [] and m.compare(devices, [])[0]["image"] is None
    with pytest.raises(AnsibleFilterError, match=r"^nic_firmware_differences: input must be"):
        nic_firmware_differences({"action": "burn"})


def test_filters_wrap_the_same_parsers():
    plans = role_plans.PLANS
    assert plans["nic_firmware_compare"] is nic_firmware_compare
    assert plans["nic_firmware_differences"] is nic_firmware_differences
    assert "parse_nic_firmware" not in plans
    assert m.parse_flint_query(_read("mstflint-query-connectx5.txt"))["fw_current"] == "16.28.2006"
    with pytest.raises(AnsibleFilterError, match="needs 'psid' and 'version'"):
        nic_firmware_compare([], [{"psid": "MT_0000000359"}])


def _run_module(args):
    """Run scc.training.nic_firmware_info in this process; return its result."""
    return run_module(nic_firmware_info, args)


def test_nic_firmware_info_module(tmp_path):
    # A stand-in mlxfwmanager (this machine has no ConnectX NIC) that prints a real published query.
    fake = tmp_path / "mlxfwmanager"
    fake.write_text(
        '#!/bin/sh\n[ "$1" = "--query" ] || exit 9\ntail -n +2 "%s"\n'
        % (FIXTURES / "mlxfwmanager-connectx6dx-forced-update.txt")
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    r = _run_module({"tool": "mlxfwmanager", "tool_path": str(fake)})
    assert r["failed"] is False, r
    assert r["changed"] is False and r["tool"] == "mlxfwmanager" and r["device_count"] == 1
    assert r["devices"][0]["psid"] == "MT_0000000359" and r["devices"][0]["fw_current"] == "22.32.0498"

    r = _run_module({"tool": "mlxfwmanager", "tool_path": str(tmp_path / "absent"), "missing_ok": True})
    assert r["failed"] is False and r["tool_found"] is False and r["devices"] == []
    r = _run_module({"tool": "mlxfwmanager", "tool_path": str(tmp_path / "absent")})
    assert r["failed"] is True and "no NIC firmware tool found" in r["msg"]
