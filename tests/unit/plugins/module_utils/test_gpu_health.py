# -*- coding: utf-8 -*-
"""GPU health: what nvidia_smi.parse() adds for judging, the nvidia-smi nvlink -s parser, the Xid parser
and catalogue (xid.py), the NVIDIA PCI rule (nvidia_pci.py), the verdicts and node status
(gpu_health.py) and their filters. Fixtures: re-typed samples in published layouts (sources in their headers)."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.filter import gpu_health as gpu_health_filters
from ansible_collections.scc.training.plugins.filter import nvidia_smi as nvidia_smi_filters
from ansible_collections.scc.training.plugins.module_utils import gpu_health, nvidia_pci, nvidia_smi, xid
from ansible_collections.scc.training.plugins.plugin_utils import role_plans
from tests.unit.plugins.nvidia_fixtures import (
    drop_gpu,
    link_down,
    replace_in_gpu,
    retirement_pending,
    v100_nvlink,
    v100_xml,
)
from tests.unit.plugins.source_fixture import FIXTURES, source_fixture


def _xml(name):
    text = (FIXTURES / "nvidia_smi" / name).read_text(encoding="utf-8")
    assert text.splitlines()[1].startswith("<!-- source: https://github.com/")
    return text


def _v100(edit=None):
    text = v100_xml()
    return nvidia_smi.parse(edit(text) if edit else text)


def _nvlink(edit=None):
    text = v100_nvlink()
    return nvidia_smi.parse_nvlink_status(edit(text) if edit else text)


def _row_remapper(text, uncorrectable, pending, failure):
    """GPU 0 (bus 1A) with a row remapper, its children as the nvsmi DTD names them (influxdata/telegraf
    plugins/inputs/nvidia_smi/schema_v11/types.go reads the same element names)."""
    rows = (
        "<remapped_rows><remapped_row_corr>0</remapped_row_corr><remapped_row_unc>%d</remapped_row_unc>"
        "<remapped_row_pending>%s</remapped_row_pending><remapped_row_failure>%s</remapped_row_failure>"
        "</remapped_rows>" % (uncorrectable, pending, failure)
    )
    return replace_in_gpu(text, "1A", "<remapped_rows>N/A</remapped_rows>", rows)


def _detail(verdicts, gpu, check):
    return next(v["detail"] for v in verdicts if v["gpu"] == gpu and v["check"] == check)


def _failing(verdicts):
    return sorted((v["gpu"], v["check"], v["remedy"]) for v in verdicts if not v["ok"])


# nvidia_smi.parse(): the fields gpu_health judges


def test_v100_layout_health_fields():
    r = _v100()
    assert r["gpu_count"] == 8 and [g["pci_bus_id"] for g in r["gpus"]][6] == "00000000:B1:00.0"
    g = r["gpus"][5]
    assert g["ecc_errors_uncorrected_aggregate"] == 0 and g["ecc_errors_uncorrected"] == 0
    assert g["retired_pages"] == {"single_bit": 0, "double_bit": 0, "pending": False}
    assert g["remapped_rows"] is None  # Volta: "N/A", page retirement instead
    assert g["pcie"] == {"gen_current": 3, "gen_max": 3, "width_current": 16, "width_max": 16}
    assert g["clocks_event_reasons"] == {
        "gpu_idle": True,
        "hw_slowdown": False,
        "hw_thermal_slowdown": False,
        "hw_power_brake_slowdown": False,
        "sw_thermal_slowdown": False,
    }
    assert g["persistence_mode"] == "Enabled"


def test_older_drivers_clocks_throttle_reasons_and_sram_dram_aggregate():
    # Driver 515 (dtd v11): clocks_throttle_reasons, aggregate sram/dram counters, PCIe x8 of x16 (a real output).
    g = nvidia_smi.parse(_xml("tesla-t4-515.xml"))["gpus"][0]
    assert g["clocks_event_reasons"]["hw_slowdown"] is False and g["clocks_event_reasons"]["gpu_idle"] is False
    assert g["ecc_errors_uncorrected_aggregate"] == 0
    assert g["pcie"] == {"gen_current": 3, "gen_max": 3, "width_current": 8, "width_max": 16}
    # A consumer card: no page retirement (all N/A), no ECC.
    g = nvidia_smi.parse(_xml("rtx-3080-595-na-ecc.xml"))["gpus"][0]
    assert g["retired_pages"] is None and g["ecc_errors_uncorrected_aggregate"] is None


def test_row_remapper_and_retired_pages_pending():
    r = _v100(lambda t: _row_remapper(t, uncorrectable=2, pending="Yes", failure="No"))
    assert r["gpus"][0]["remapped_rows"] == {"correctable": 0, "uncorrectable": 2, "pending": True, "failure": False}
    r = _v100(lambda t: replace_in_gpu(t, "3D", "<pending_retirement>No", "<pending_retirement>Yes"))
    assert r["gpus"][2]["retired_pages"]["pending"] is True


# nvidia-smi nvlink -s


def test_nvlink_status_all_up_and_one_down():
    links = _nvlink()
    assert [(g["index"], g["links"], g["links_up"], g["links_down"]) for g in links] == [
        (i, 6, 6, []) for i in range(8)
    ]
    assert links[0]["name"] == "Tesla V100-SXM2-32GB" and links[0]["uuid"].startswith("GPU-5c0f6e2a-")
    down = _nvlink(lambda t: link_down(t, 5, 3))
    assert [(g["links_up"], g["links_down"]) for g in down][4:7] == [(6, []), (5, [3]), (6, [])]
    assert nvidia_smi.parse_nvlink_status("") == []
    assert nvidia_smi.parse_nvlink_status("GPU 0: Tesla T4 (UUID: GPU-x)\n") == [
        {"index": 0, "name": "Tesla T4", "uuid": "GPU-x", "links": 0, "links_up": 0, "links_down": []}
    ]


# xid.py


def test_parse_xid_every_layout_in_log_order():
    events = xid.parse_xid(source_fixture("xid", "kernel_log_xid_layouts.txt"))
    assert [(e["pci_bus_id"], e["xid"]) for e in events] == [
        ("0000:b1:00", 79),
        ("0000:1b:00", 119),
        ("0000:88:00", 43),
        ("0000:3d:00", 13),
        ("0000:89:00", 63),
        ("0000:3e:00", 48),
        ("0000:1a:00", 63),
        ("0000:b2:00", 13),
    ]
    messages = [e["message"] for e in events]
    assert messages[0] == "GPU has fallen off the bus."  # pid='<unknown>', name=<unknown> removed
    assert messages[2] == "Ch 00000010"  # pid=51870, name=pt_main_thread removed
    assert messages[4].startswith("Dynamic Page Retirement: New retired page")  # old body: nothing to remove
    assert messages[6].startswith("Row Remapper: New row")  # pid without name
    assert xid.parse_xid("") == [] and xid.parse_xid(None) == []


@pytest.mark.parametrize(
    "number, remedy",
    [(13, "restart_app"), (31, "restart_app"), (43, "none"), (48, "reset_gpu"), (63, "none"), (64, "reset_gpu")]
    + [(74, "reset_gpu"), (79, "reboot"), (92, "none"), (94, "restart_app"), (95, "reset_gpu"), (61, "isolate")]
    + [(1, None)],
)
def test_xid_catalogue(number, remedy):
    assert xid.xid_remedy(number) == remedy


def test_bus_key_compares_nvidia_smi_and_xid_addresses():
    assert xid.bus_key("00000000:1A:00.0") == xid.bus_key("0000:1a:00") == "0000:1a:00"
    assert xid.bus_key(None) is None
    assert xid.worst_remedy(["none", "reboot", "reset_gpu"]) == "reboot" and xid.worst_remedy([]) == "none"


# nvidia_pci.py


def test_nvidia_pci_devices_counts_gpus_and_nvswitches():
    lines = [
        "0000:1a:00.0 0x10de 0x030200",  # 3D controller (Tesla)
        "0000:65:00.0 0x10de 0x030000",  # VGA controller
        "0000:05:00.0 0x10de 0x068000",  # NVSwitch (bridge)
        "0000:1a:00.1 0x10de 0x040300",  # audio function of a card: not a GPU
        "0000:3b:00.0 0x15b3 0x020000",  # Mellanox NIC
        "garbage",
    ]
    assert nvidia_pci.nvidia_pci_devices(lines) == {
        "gpus": ["0000:1a:00.0", "0000:65:00.0"],
        "nvswitches": ["0000:05:00.0"],
    }
    assert nvidia_pci.nvidia_pci_devices([]) == {"gpus": [], "nvswitches": []}


# gpu_health.py


def test_healthy_v100_node_is_green_with_every_check_ok():
    verdicts = gpu_health.verdicts(_v100(), xid_events=[], nvlink=_nvlink(), expected_gpus=8)
    assert all(v["ok"] and v["remedy"] == "none" for v in verdicts), _failing(verdicts)
    per_gpu = [v["check"] for v in verdicts if v["gpu"] == "GPU 0"]
    assert per_gpu == [
        "ecc_mode",
        "ecc_volatile_uncorrectable",
        "ecc_aggregate_uncorrectable",
        "retired_pages_pending",
        "pcie_link_width",
        "pcie_link_gen",
        "clocks_hw_slowdown",
        "clocks_hw_thermal_slowdown",
        "clocks_hw_power_brake_slowdown",
        "clocks_sw_thermal_slowdown",
        "persistence_mode",
        "nvlink",
        "xid",
    ]
    assert {v["gpu"] for v in verdicts} == {"node"} | {"GPU %d" % i for i in range(8)}
    assert [v["check"] for v in verdicts if v["gpu"] == "node"] == [
        "nvidia_smi",
        "gpu_count",
        "kernel_log",
        "nvlink_status",
    ]
    assert gpu_health.node_status(verdicts) == "green"
    assert gpu_health.report(verdicts) == {"status": "green", "ok": True, "verdicts": verdicts, "problems": []}


def test_one_volatile_uncorrectable_ecc_error_alone_makes_the_node_red():
    # GPU 2 (bus 3D): one double-bit error since the driver loaded, nothing else wrong anywhere.
    volatile = "<total>0</total>\n\t\t\t\t</double_bit>\n\t\t\t</volatile>"
    smi = _v100(lambda t: replace_in_gpu(t, "3D", volatile, volatile.replace(">0<", ">1<")))
    assert smi["gpus"][2]["ecc_errors_uncorrected"] == 1
    verdicts = gpu_health.verdicts(smi, xid_events=[], nvlink=_nvlink(), expected_gpus=8)
    assert _failing(verdicts) == [("GPU 2", "ecc_volatile_uncorrectable", "reset_gpu")]
    report = gpu_health.report(verdicts)
    assert report["status"] == "red" and report["ok"] is False
    assert report["problems"] == [
        "GPU 2 ecc_volatile_uncorrectable: 1 uncorrectable ECC errors since the driver loaded (max 0) (remedy: reset_gpu)"
    ]


def test_ecc_disabled_is_red_by_default():
    smi = _v100(lambda t: replace_in_gpu(t, "3D", "<current_ecc>Enabled<", "<current_ecc>Disabled<"))
    verdicts = gpu_health.verdicts(smi, xid_events=[], nvlink=_nvlink(), expected_gpus=8)
    assert _failing(verdicts) == [("GPU 2", "ecc_mode", "reset_gpu")]
    assert _detail(verdicts, "GPU 2", "ecc_mode") == "ECC Disabled" and gpu_health.node_status(verdicts) == "red"
    relaxed = gpu_health.verdicts(
        smi, xid_events=[], nvlink=_nvlink(), expected_gpus=8, thresholds={"require_ecc": False}
    )
    assert _failing(relaxed) == []


def test_more_gpus_than_expected_fails_the_count():
    verdicts = gpu_health.verdicts(_v100(), xid_events=[], nvlink=_nvlink(), expected_gpus=7)
    assert _failing(verdicts) == [("node", "gpu_count", "reboot")]
    assert _detail(verdicts, "node", "gpu_count") == "8 GPUs seen by nvidia-smi, 7 expected"


def test_a_gpu_missing_from_the_nvlink_status_has_no_active_link():
    # GPU 2's block gone from the middle of nvidia-smi nvlink -s: GPU 3's links are not GPU 2's.
    def without_gpu_2(text):
        return text[: text.index("GPU 2:")] + text[text.index("GPU 3:") :]

    verdicts = gpu_health.verdicts(_v100(), xid_events=[], nvlink=_nvlink(without_gpu_2), expected_gpus=8)
    assert _failing(verdicts) == [("GPU 2", "nvlink", "reboot")]
    assert _detail(verdicts, "GPU 2", "nvlink") == "0 of 6 NVLinks active"


def test_declared_nvlink_counts_zero_and_fewer_than_up_pass():
    none = gpu_health.verdicts(_v100(), xid_events=[], nvlink=_nvlink(), expected_gpus=8, expected_nvlinks=0)
    assert _failing(none) == [] and _detail(none, "GPU 3", "nvlink") == "no NVLink expected"
    fewer = gpu_health.verdicts(_v100(), xid_events=[], nvlink=_nvlink(), expected_gpus=8, expected_nvlinks=4)
    assert _failing(fewer) == [] and _detail(fewer, "GPU 3", "nvlink") == "6 of 4 NVLinks active"


def test_an_unknown_product_is_not_judged_on_nvlink():
    smi = _v100(lambda t: t.replace("Tesla V100-SXM2-32GB", "Acme Accelerator 9000"))
    verdicts = gpu_health.verdicts(smi, xid_events=[], nvlink=_nvlink(), expected_gpus=8)
    assert _failing(verdicts) == []
    assert _detail(verdicts, "GPU 0", "nvlink") == "no known NVLink count for Acme Accelerator 9000: not judged"


def test_counts_below_a_raised_threshold_pass_and_unread_inputs_are_named():
    verdicts = gpu_health.verdicts(
        _v100(), xid_events=None, nvlink=None, expected_gpus=8, thresholds={"ecc_volatile_uncorrectable_max": 1}
    )
    assert _failing(verdicts) == [("node", "kernel_log", "none"), ("node", "nvlink_status", "none")]
    assert _detail(verdicts, "node", "kernel_log") == "kernel log not readable: Xid events not judged"
    assert _detail(verdicts, "node", "nvlink_status") == "nvidia-smi nvlink -s failed: NVLinks not judged"


def test_xid_79_of_a_gpu_that_fell_off_the_bus_is_red():
    # The GPU at b1 is gone from nvidia-smi: the count fails and its Xid is reported under its PCI address.
    smi = _v100(lambda t: drop_gpu(t, "B1"))
    assert smi["gpu_count"] == 7
    events = xid.parse_xid(
        "[ 6102.317811] NVRM: Xid (PCI:0000:b1:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
    )
    verdicts = gpu_health.verdicts(smi, xid_events=events, nvlink=_nvlink(), expected_gpus=8)
    assert _failing(verdicts) == [("PCI 0000:b1:00", "xid", "reboot"), ("node", "gpu_count", "reboot")]
    report = gpu_health.report(verdicts)
    assert report["status"] == "red" and report["ok"] is False
    assert "PCI 0000:b1:00 xid: Xid 79 x1 (GPU has fallen off the bus.) (remedy: reboot)" in report["problems"]
    assert "node gpu_count: 7 GPUs seen by nvidia-smi, 8 expected (remedy: reboot)" in report["problems"]


def test_page_retirement_pending_dbe_and_nvlink_down_are_red():
    events = xid.parse_xid(
        "NVRM: Xid (PCI:0000:3d:00): 48, An uncorrectable double bit error (DBE) has been detected on GPU (0000:3d:00).\n"
        "NVRM: Xid (PCI:0000:3d:00): 63, Dynamic Page Retirement: New retired page, reload the driver to activate. (0x1)\n"
    )
    nvlink = _nvlink(lambda t: link_down(t, 5, 3))
    verdicts = gpu_health.verdicts(
        _v100(lambda t: retirement_pending(t, "3D")), xid_events=events, nvlink=nvlink, expected_gpus=8
    )
    assert _failing(verdicts) == [
        ("GPU 2", "ecc_aggregate_uncorrectable", "none"),
        ("GPU 2", "retired_pages_pending", "reset_gpu"),
        ("GPU 2", "xid", "reset_gpu"),
        ("GPU 5", "nvlink", "reboot"),
    ]
    by_check = {(v["gpu"], v["check"]): v["detail"] for v in verdicts}
    assert by_check[("GPU 5", "nvlink")] == "5 of 6 NVLinks active, inactive: link 3"
    assert by_check[("GPU 2", "xid")].startswith("Xid 48 x1 (An uncorrectable double bit error")
    assert gpu_health.node_status(verdicts) == "red"


def test_row_remapping_failure_isolates_and_pending_resets():
    smi = _v100(lambda t: _row_remapper(t, uncorrectable=5, pending="Yes", failure="Yes"))
    verdicts = gpu_health.verdicts(smi, xid_events=[], nvlink=_nvlink())
    assert _failing(verdicts) == [
        ("GPU 0", "row_remap_failure", "isolate"),
        ("GPU 0", "row_remap_pending", "reset_gpu"),
    ]


def test_pcie_generation_below_max_only_fails_when_busy_and_width_always():
    def gen2(text):
        return replace_in_gpu(
            text, "88", "<current_link_gen>3</current_link_gen>", "<current_link_gen>1</current_link_gen>"
        )

    idle = gpu_health.verdicts(_v100(gen2), xid_events=[], nvlink=_nvlink())
    assert _failing(idle) == []
    assert "(idle: the generation may be reduced" in _detail(idle, "GPU 4", "pcie_link_gen")

    def busy(text):
        text = gen2(text)
        text = replace_in_gpu(
            text, "88", "<clocks_event_reason_gpu_idle>Active<", "<clocks_event_reason_gpu_idle>Not Active<"
        )
        return replace_in_gpu(text, "88", "<current_link_width>16x<", "<current_link_width>8x<")

    verdicts = gpu_health.verdicts(_v100(busy), xid_events=[], nvlink=_nvlink())
    assert _failing(verdicts) == [("GPU 4", "pcie_link_gen", "reboot"), ("GPU 4", "pcie_link_width", "reboot")]


def test_warnings_only_make_the_node_amber():
    def warn(text):
        text = replace_in_gpu(
            text, "1B", "<clocks_event_reason_hw_slowdown>Not Active<", "<clocks_event_reason_hw_slowdown>Active<"
        )
        return replace_in_gpu(text, "1B", "<persistence_mode>Enabled<", "<persistence_mode>Disabled<")

    events = xid.parse_xid(
        "NVRM: Xid (PCI:0000:1b:00): 13, pid=1, name=python, Graphics Exception\nNVRM: Xid (PCI:0000:1b:00): 43, pid=1, name=python, Ch 00000010"
    )
    verdicts = gpu_health.verdicts(_v100(warn), xid_events=events, nvlink=_nvlink())
    assert _failing(verdicts) == [
        ("GPU 1", "clocks_hw_slowdown", "none"),
        ("GPU 1", "persistence_mode", "none"),
        ("GPU 1", "xid", "restart_app"),
    ]
    report = gpu_health.report(verdicts)
    assert (report["status"], report["ok"], len(report["problems"])) == ("amber", True, 3)
    # Thresholds are variables: persistence not required, Xid 13 ignored -> only the slowdown remains.
    relaxed = gpu_health.verdicts(
        _v100(warn), xid_events=events, nvlink=_nvlink(), thresholds={"require_persistence": False, "xid_ignore": [13]}
    )
    assert _failing(relaxed) == [("GPU 1", "clocks_hw_slowdown", "none")]


def test_unknown_xid_is_a_warning_and_informational_xid_is_ok():
    events = xid.parse_xid("NVRM: Xid (PCI:0000:1a:00): 1, something new\nNVRM: Xid (PCI:0000:1b:00): 43, Ch 1")
    verdicts = gpu_health.verdicts(_v100(), xid_events=events, nvlink=_nvlink())
    assert _failing(verdicts) == [("GPU 0", "xid", "none")]
    assert "not in the catalogue: 1" in _detail(verdicts, "GPU 0", "xid")
    assert gpu_health.node_status(verdicts) == "amber"


def test_nvidia_smi_that_cannot_run_is_red_with_its_reason():
    verdicts = gpu_health.verdicts(None, xid_events=[], smi_error="nvidia-smi: command not found", expected_gpus=8)
    assert _failing(verdicts) == [("node", "gpu_count", "reboot"), ("node", "nvidia_smi", "reboot")]
    assert "nvidia-smi: command not found" in gpu_health.report(verdicts)["problems"][0]
    # Unreadable kernel log and nvlink output: warnings, not judged.
    verdicts = gpu_health.verdicts(_v100(), xid_events=None, nvlink=None)
    assert _failing(verdicts) == [("node", "kernel_log", "none"), ("node", "nvlink_status", "none")]


@pytest.mark.parametrize(
    "name, links",
    [
        ("Tesla V100-SXM2-32GB", 6),
        ("Tesla V100-SXM2-16GB", 6),
        ("NVIDIA A100-SXM4-80GB", 12),
        ("Tesla V100S-PCIE-32GB", 0),
        ("Tesla T4", 0),
        ("NVIDIA H100 80GB HBM3", 18),
        ("NVIDIA H200", 18),
        ("NVIDIA H800", 8),
        ("NVIDIA H20", 18),
        ("NVIDIA L20", 0),
        ("NVIDIA RTX PRO 6000 Blackwell Server Edition", 0),
        ("NVIDIA GeForce RTX 3080", None),
        (None, None),
    ],
)
def test_expected_nvlinks_by_name(name, links):
    assert gpu_health.expected_nvlinks_for(name) == links


def test_pcie_v100s_needs_no_nvlink_and_declared_count_overrides_the_table():
    smi = nvidia_smi.parse(_xml("v100s-pcie-8gpu-460.xml"))
    verdicts = gpu_health.verdicts(smi, xid_events=[], nvlink=None, thresholds={"require_persistence": False})
    assert _failing(verdicts) == []  # no nvlink_status check either: no NVLink expected
    verdicts = gpu_health.verdicts(_v100(), xid_events=[], nvlink=_nvlink(), expected_nvlinks=8)
    assert len(_failing(verdicts)) == 8


# filters


def test_filters_wrap_module_utils():
    filters = gpu_health_filters.FilterModule().filters()
    assert set(filters) == {
        "gpu_health_verdicts",
        "parse_xid",
        "parse_dcgm_diag",
    }
    smi = _v100()
    verdicts = filters["gpu_health_verdicts"](smi, xid_events=[], nvlink=_nvlink(), expected_gpus=8)
    assert verdicts == gpu_health.verdicts(smi, xid_events=[], nvlink=_nvlink(), expected_gpus=8)
    assert role_plans.gpu_health_report(verdicts)["status"] == "green"
    assert filters["parse_xid"]("NVRM: Xid (PCI:0000:1a:00): 79, GPU has fallen off the bus.")[0]["xid"] == 79
    with pytest.raises(AnsibleFilterError, match="parse_xid: input must be the kernel log"):
        filters["parse_xid"](None)
    with pytest.raises(AnsibleFilterError, match="gpu_health_verdicts: input must be"):
        filters["gpu_health_verdicts"]("xml text")
    with pytest.raises(AnsibleFilterError, match="gpu_health_report: input must be"):
        role_plans.gpu_health_report({})
    smi_filters = nvidia_smi_filters.FilterModule().filters()
    assert smi_filters["parse_nvlink_status"]("GPU 0: X (UUID: U)\n\t Link 0: 25.781 GB/s\n")[0]["links_up"] == 1
    assert smi_filters["nvidia_pci_devices"](["0000:1a:00.0 0x10de 0x030200"])["gpus"] == ["0000:1a:00.0"]
    with pytest.raises(AnsibleFilterError, match="nvidia_pci_devices: input must be a list"):
        smi_filters["nvidia_pci_devices"]("0000:1a:00.0 0x10de 0x030200")


# The role's inputs (its validate.yml): one sentence per bad variable, naming it alone (issue 36: no catch-all).
INPUTS = {
    "gpu_health_nvidia_smi_path": "nvidia-smi",
    "gpu_health_kernel_log_command": ["dmesg"],
    "gpu_health_pci_devices_path": "/sys/bus/pci/devices",
    "gpu_health_expected_gpus": None,
    "gpu_health_expected_nvlinks": None,
    "gpu_health_declared_gpus": "0",
    "scc_instance_type": None,
    "gpu_health_ecc_volatile_uncorrectable_max": 0,
    "gpu_health_ecc_aggregate_uncorrectable_max": 0,
    "gpu_health_results_dir": "/var/tmp/scc",
}


@pytest.mark.parametrize(
    "name, value, rule",
    [
        ("gpu_health_nvidia_smi_path", "", "must name the nvidia-smi command"),
        ("gpu_health_nvidia_smi_path", None, "must name the nvidia-smi command"),
        ("gpu_health_kernel_log_command", [], "a command as a list"),
        ("gpu_health_kernel_log_command", [""], "a command as a list"),
        ("gpu_health_kernel_log_command", "dmesg", "a command as a list"),
        ("gpu_health_pci_devices_path", "sys/bus", "an absolute path"),
        ("gpu_health_expected_gpus", 0, "unset or a whole number >= 1"),
        ("gpu_health_expected_gpus", "eight", "unset or a whole number >= 1"),
        ("gpu_health_expected_nvlinks", -1, "unset or a whole number >= 0"),
        ("gpu_health_declared_gpus", "-8", "unset or a whole number >= 0"),
        ("gpu_health_declared_gpus", 2.5, "unset or a whole number >= 0"),
        # The one route in (issue 35): scc_instance_type itself, as given; the role has no copy of it.
        ("scc_instance_type", 8, "must be a string"),
        ("scc_instance_type", "ecs.gn6i-c4g1.xlarge", "not in the supported-instance table"),
        ("gpu_health_ecc_volatile_uncorrectable_max", -1, "a whole number >= 0"),
        ("gpu_health_ecc_aggregate_uncorrectable_max", None, "a whole number >= 0"),
        ("gpu_health_results_dir", "", "must be set"),
    ],
)
def test_gpu_health_input_problems_name_the_one_bad_variable(name, value, rule):
    assert gpu_health.gpu_health_input_problems(INPUTS) == []
    [problem] = gpu_health.gpu_health_input_problems({**INPUTS, name: value})
    assert problem.startswith(name) and rule in problem, problem


def test_cpu_only_node_is_one_passing_verdict_and_a_green_report():
    verdicts = gpu_health_filters.gpu_health_verdicts(None, cpu_only=True)
    assert [(v["gpu"], v["check"], v["ok"]) for v in verdicts] == [("node", "cpu_only", True)]
    report = role_plans.gpu_health_report(verdicts)
    assert (report["status"], report["ok"], report["problems"]) == ("green", True, [])
    # Without the declaration, no nvidia-smi output is a failing verdict, never a silent green.
    assert gpu_health.report(gpu_health.verdicts(None))["problems"]


def _renamed(name):
    """The 8 x V100 SXM2 nvidia-smi fixture with every GPU's product name replaced (the other fields kept)."""
    smi = _v100()
    for gpu in smi["gpus"]:
        gpu["name"] = name
    return smi


def test_h20_node_is_judged_against_18_links_not_left_unjudged():
    verdicts = gpu_health.verdicts(_renamed("NVIDIA H20"), xid_events=[], nvlink=_nvlink())
    nvlink = [v for v in verdicts if v["check"] == "nvlink"]
    assert len(nvlink) == 8 and not any(v["ok"] for v in nvlink)
    assert nvlink[0]["detail"].startswith("6 of 18 NVLinks active") and nvlink[0]["remedy"] == "reboot"


def test_pcie_only_l20_node_passes_without_nvlink():
    verdicts = gpu_health.verdicts(_renamed("NVIDIA L20"), xid_events=[], nvlink=None)
    assert _failing(verdicts) == []
    assert {v["detail"] for v in verdicts if v["check"] == "nvlink"} == {"no NVLink expected"}
    assert not [v for v in verdicts if v["check"] == "nvlink_status"]


@pytest.mark.parametrize("declared", [-1, "-8", "eight", 2.5, True])
def test_a_declared_gpu_count_that_is_not_a_count_is_refused_naming_the_variable(declared):
    """Issue 27: -1 is never above what a node shows, so it passed every node as declared."""
    smi = _v100()
    with pytest.raises(ValueError, match=r"^scc_gpu_count \(.*\) must be an integer >= 0"):
        gpu_health.verdicts(smi, xid_events=[], nvlink=_nvlink(), expected_gpus=8, declared_gpus=declared)
    # Refused before nvidia-smi's output is judged: also when nvidia-smi failed.
    with pytest.raises(ValueError, match=r"^gpu_health_declared_gpus \("):
        gpu_health.verdicts(None, smi_error="x", declared_gpus=declared, declared_name="gpu_health_declared_gpus")


def test_declared_gpu_count_above_what_the_node_shows_is_refused_naming_the_variable():
    """Issue 27: scc_gpu_count 8 on a 4-GPU node would wrap ranks two per GPU."""
    smi = _v100()
    smi["gpus"] = smi["gpus"][:4]
    verdicts = gpu_health.verdicts(smi, xid_events=[], nvlink=_nvlink(), expected_gpus=4, declared_gpus=8)
    declared = [v for v in verdicts if v["check"] == "gpu_count_declared"]
    assert [(v["ok"], v["remedy"]) for v in declared] == [(False, "reboot")]
    assert declared[0]["detail"].startswith("scc_gpu_count=8, 4 GPUs seen by nvidia-smi: ")
    assert "set scc_gpu_count to 4" in declared[0]["detail"]
    assert gpu_health.report(verdicts)["status"] == "red"
    ok = gpu_health.verdicts(smi, xid_events=[], nvlink=_nvlink(), expected_gpus=4, declared_gpus=4)
    assert [v["ok"] for v in ok if v["check"] == "gpu_count_declared"] == [True]
    for undeclared in (None, 0, ""):
        assert not [
            v
            for v in gpu_health.verdicts(smi, xid_events=[], declared_gpus=undeclared)
            if v["check"] == "gpu_count_declared"
        ]


def test_page_retirement_detail_names_the_counts_and_whether_a_retirement_is_pending():
    verdicts = gpu_health.verdicts(
        _v100(lambda t: retirement_pending(t, "3D")), xid_events=[], nvlink=_nvlink(), expected_gpus=8
    )
    assert (
        _detail(verdicts, "GPU 0", "retired_pages_pending") == "retired pages: 0 single-bit, 0 double-bit, pending no"
    )
    assert _detail(verdicts, "GPU 2", "retired_pages_pending") == (
        "retired pages: 0 single-bit, 1 double-bit, pending yes"
    )
    # A GPU that reports no page retirement at all (nvidia-smi N/A): nothing pending, and said so.
    bare = {"driver_version": "535.54.03", "gpus": [{"index": 0, "name": "Tesla V100-SXM2-32GB"}]}
    (verdict,) = [v for v in gpu_health.verdicts(bare, xid_events=[]) if v["check"] == "retired_pages_pending"]
    assert (verdict["ok"], verdict["detail"]) == (True, "no page retirement reported")


@pytest.mark.parametrize("links, status_checked", [(0, False), (1, True), (18, True)])
def test_the_nvlink_status_is_required_as_soon_as_one_link_is_expected(links, status_checked):
    smi = {"driver_version": "535.54.03", "gpus": [{"index": 0, "name": "Some GPU", "pci_bus_id": "00000000:1A:00.0"}]}
    node = [v for v in gpu_health.verdicts(smi, xid_events=[], expected_nvlinks=links) if v["gpu"] == "node"]
    status = [(v["ok"], v["detail"]) for v in node if v["check"] == "nvlink_status"]
    assert status == ([(False, "nvidia-smi nvlink -s failed: NVLinks not judged")] if status_checked else [])


def test_row_remapping_detail_says_yes_only_for_what_is_set():
    smi = _v100(lambda t: _row_remapper(t, uncorrectable=1, pending="Yes", failure="No"))
    verdicts = gpu_health.verdicts(smi, xid_events=[], nvlink=_nvlink())
    assert _detail(verdicts, "GPU 0", "row_remap_pending") == "row remapping pending: yes"
    assert _detail(verdicts, "GPU 0", "row_remap_failure") == "row remapping failure: no"


def test_declaring_fewer_gpus_than_the_node_shows_passes():
    """A job that uses 4 of 8 GPUs shares none of them: only a count above what is seen is refused."""
    verdicts = gpu_health.verdicts(_v100(), xid_events=[], nvlink=_nvlink(), expected_gpus=8, declared_gpus=4)
    declared = [(v["ok"], v["detail"]) for v in verdicts if v["check"] == "gpu_count_declared"]
    assert declared == [(True, "scc_gpu_count=4, 8 GPUs seen by nvidia-smi")]


def test_clock_event_detail_says_which_reasons_are_active():
    gpu = {"index": 0, "name": "Tesla V100-SXM2-32GB", "clocks_event_reasons": {"hw_slowdown": True}}
    verdicts = gpu_health.verdicts({"driver_version": "535.54.03", "gpus": [gpu]}, xid_events=[])
    assert _detail(verdicts, "GPU 0", "clocks_hw_slowdown") == "clock event reason hw_slowdown active"
    assert (
        _detail(verdicts, "GPU 0", "clocks_sw_thermal_slowdown") == "clock event reason sw_thermal_slowdown not active"
    )


def test_xid_detail_counts_each_xid_apart_with_its_first_message():
    events = xid.parse_xid(
        "NVRM: Xid (PCI:0000:1a:00): 79, GPU has fallen off the bus.\n"
        "NVRM: Xid (PCI:0000:1a:00): 13, Graphics Exception: ESR 0x404600=0x80000002\n"
        "NVRM: Xid (PCI:0000:1a:00): 79, GPU has fallen off the bus again.\n"
    )
    verdicts = gpu_health.verdicts(_v100(), xid_events=events, nvlink=_nvlink())
    assert _detail(verdicts, "GPU 0", "xid") == (
        "Xid 79 x2 (GPU has fallen off the bus.); Xid 13 x1 (Graphics Exception: ESR 0x404600=0x80000002)"
    )


def test_an_xid_that_calls_for_isolation_fails_the_gpu():
    events = xid.parse_xid("NVRM: Xid (PCI:0000:1a:00): 54, Auxiliary power is not connected to the GPU board\n")
    (verdict,) = [v for v in gpu_health.verdicts(_v100(), xid_events=events, nvlink=_nvlink()) if v["check"] == "xid"][
        :1
    ]
    assert (verdict["gpu"], verdict["ok"], verdict["remedy"]) == ("GPU 0", False, "isolate")


def test_an_unread_current_pcie_width_is_not_judged_and_persistence_detail_names_the_mode():
    gpu = {"index": 0, "name": "Tesla V100-SXM2-32GB", "pcie": {"width_current": None, "width_max": 16}}
    verdicts = gpu_health.verdicts({"driver_version": "535.54.03", "gpus": [gpu]}, xid_events=[])
    assert [v["ok"] for v in verdicts if v["check"] == "pcie_link_width"] == [True]
    assert _detail(verdicts, "GPU 0", "persistence_mode") == "persistence mode n/a"
    assert _detail(gpu_health.verdicts(_v100(), xid_events=[]), "GPU 0", "persistence_mode") == (
        "persistence mode Enabled"
    )
