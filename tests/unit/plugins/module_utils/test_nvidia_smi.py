# -*- coding: utf-8 -*-
"""The nvidia-smi -q -x parser (module_utils/nvidia_smi.py), its filter and the gpu_info module,
on real outputs published by other projects (tests/fixtures/nvidia_smi, source on line 2)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from ansible_collections.scc.training.plugins.module_utils import nvidia_smi
from ansible_collections.scc.training.plugins.modules import gpu_info
from tests.unit.plugins.modules.module_runner import run_module

ROOT = Path(__file__).resolve().parents[4]
FIXTURES = ROOT / "tests" / "fixtures" / "nvidia_smi"
KEYS = {
    "index",
    "name",
    "uuid",
    "pci_bus_id",
    "memory_total_mib",
    "ecc_mode",
    "ecc_errors_uncorrected",
    "temperature_c",
    "power_limit_w",
    "persistence_mode",
    "compute_capability",
    "architecture",
    "ecc_errors_uncorrected_aggregate",
    "retired_pages",
    "remapped_rows",
    "pcie",
    "clocks_event_reasons",
}


def _read(name):
    return (FIXTURES / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.xml")), ids=lambda p: p.name)
def test_every_fixture_names_its_public_source(path):
    second = path.read_text(encoding="utf-8").splitlines()[1]
    assert second.startswith("<!-- source: https://github.com/") and "/blob/" in second


def test_v100s_eight_gpus_driver_460():
    r = nvidia_smi.parse(_read("v100s-pcie-8gpu-460.xml"))
    assert (r["driver_version"], r["cuda_version"], r["gpu_count"]) == ("460.73.01", "11.2", 8)
    assert [g["index"] for g in r["gpus"]] == list(range(8))
    first = r["gpus"][0]
    assert set(first) == KEYS
    assert {key: first[key] for key in KEYS - set(nvidia_smi.HEALTH_KEYS)} == {
        "index": 0,
        "name": "Tesla V100S-PCIE-32GB",
        "uuid": "GPU-76098dc1-d3bc-9a1b-7ea6-f7b48837829e",
        "pci_bus_id": "00000000:00:0D.0",
        "memory_total_mib": 32510,
        "ecc_mode": "Enabled",
        "ecc_errors_uncorrected": 0,
        "temperature_c": 66,
        "power_limit_w": 250.0,
        "persistence_mode": "Disabled",
        "compute_capability": "7.0",
        "architecture": None,
    }
    assert len({g["uuid"] for g in r["gpus"]}) == 8
    assert len({g["pci_bus_id"] for g in r["gpus"]}) == 8
    assert {g["name"] for g in r["gpus"]} == {"Tesla V100S-PCIE-32GB"}


def test_v100_uncorrected_count_is_the_volatile_double_bit_total():
    # A real fixture with one value changed in the test (no fixture with a non-zero count was found):
    # the first GPU's volatile double-bit total becomes 3; the aggregate block stays 0.
    text = _read("v100s-pcie-8gpu-460.xml")
    volatile = text.index("<volatile>")
    dbit = text.index("<double_bit>", volatile)
    total = text.index("<total>0</total>", dbit)
    changed = text[:total] + "<total>3</total>" + text[total + len("<total>0</total>") :]
    r = nvidia_smi.parse(changed)
    assert r["gpus"][0]["ecc_errors_uncorrected"] == 3
    assert r["gpus"][1]["ecc_errors_uncorrected"] == 0


def test_t4_driver_515_sram_dram_schema():
    r = nvidia_smi.parse(_read("tesla-t4-515.xml"))
    assert (r["driver_version"], r["cuda_version"], r["gpu_count"]) == ("515.105.01", "11.7", 1)
    g = r["gpus"][0]
    assert g["name"] == "Tesla T4" and g["compute_capability"] == "7.5" and g["architecture"] == "Turing"
    assert (g["memory_total_mib"], g["ecc_mode"], g["ecc_errors_uncorrected"]) == (15360, "Enabled", 0)
    assert (g["temperature_c"], g["power_limit_w"], g["pci_bus_id"]) == (40, 70.0, "00000000:00:1E.0")


def test_rtx3080_driver_595_na_fields_become_none():
    r = nvidia_smi.parse(_read("rtx-3080-595-na-ecc.xml"))
    assert (r["driver_version"], r["cuda_version"], r["gpu_count"]) == ("595.58.03", "13.2", 1)
    g = r["gpus"][0]
    assert g["ecc_mode"] is None and g["ecc_errors_uncorrected"] is None
    assert g["power_limit_w"] == 320.0  # gpu_power_readings/current_power_limit (dtd v13)
    assert g["compute_capability"] == "8.6" and g["memory_total_mib"] == 10240 and g["temperature_c"] == 27


@pytest.mark.parametrize(
    "text, match",
    [
        ("", "empty output"),
        ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.", "not XML"),
        ("<?xml version='1.0'?><other/>", "expected <nvidia_smi_log>"),
    ],
)
def test_bad_output_is_an_error(text, match):
    with pytest.raises(nvidia_smi.NvidiaSmiParseError, match=match):
        nvidia_smi.parse(text)


def _run_module(args):
    """Run scc.training.gpu_info in this process; return its result."""
    return run_module(gpu_info, args)


def _fake_smi(tmp_path, body):
    """A stand-in nvidia-smi (this machine has no GPU): a script that prints a real fixture."""
    path = tmp_path / "nvidia-smi"
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_gpu_info_module(tmp_path):
    fake = _fake_smi(tmp_path, '[ "$1 $2" = "-q -x" ] || exit 9\ncat "%s"\n' % (FIXTURES / "v100s-pcie-8gpu-460.xml"))
    r = _run_module({"nvidia_smi_path": fake})
    assert r["failed"] is False, r
    assert r["changed"] is False and r["driver_loaded"] is True and r["nvidia_smi_path"] == fake
    assert r["gpu_count"] == 8 and r["gpus"][7]["index"] == 7 and r["driver_version"] == "460.73.01"

    broken = _fake_smi(
        tmp_path, "echo \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\"\nexit 9\n"
    )
    r = _run_module({"nvidia_smi_path": broken})
    assert r["failed"] is True and "couldn't communicate" in r["msg"]
    r = _run_module({"nvidia_smi_path": broken, "missing_ok": True})
    assert r["failed"] is False and r["driver_loaded"] is False and r["nvidia_smi_found"] is True
    assert r["gpu_count"] == 0

    r = _run_module({"nvidia_smi_path": str(tmp_path / "absent")})
    assert r["failed"] is True and "not found" in r["msg"]
    r = _run_module({"nvidia_smi_path": str(tmp_path / "absent"), "missing_ok": True})
    assert r["nvidia_smi_found"] is False and r["driver_loaded"] is False and r["gpus"] == []


def test_a_real_h200s_nvlink_status_bytes_parse():
    from ansible_collections.scc.training.plugins.module_utils.nvidia_smi import parse_nvlink_status

    raw = (FIXTURES / "nvlink-s-h200-590.48.01-raw.txt").read_bytes().decode()
    (gpu,) = parse_nvlink_status(raw)
    assert (gpu["index"], gpu["name"], gpu["links"], gpu["links_up"], gpu["links_down"]) == (
        0,
        "NVIDIA H200",
        18,
        18,
        [],
    )
    # The same bytes as a terminal would colour them, with CRLF endings: the same reading.
    dressed = "\x1b[1m" + raw.replace("\n", "\r\n").replace("GB/s", "GB/s\x1b[0m")
    assert parse_nvlink_status(dressed) == [gpu]


@pytest.mark.parametrize(
    "text,expected",
    [("\x1b[4mGPU0\tGPU1\x1b[0m", "GPU0\tGPU1"), ("a\x1b[1;31mb\x1b(B\r\n", "ab\n"), (None, ""), ("\tX ", "\tX ")],
)
def test_terminal_codes_are_stripped_and_tabs_kept(text, expected):
    from ansible_collections.scc.training.plugins.module_utils.nvidia_smi import strip_terminal_codes

    assert strip_terminal_codes(text) == expected
