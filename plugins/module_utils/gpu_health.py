# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""GPU health verdicts of one node, and the node's status (the gpu_health role).

``verdicts(smi, xid_events=None, nvlink=None, expected_gpus=None, expected_nvlinks=None, thresholds=None,
smi_error=None, dcgm=None, dcgm_error=None) -> [{"gpu", "check", "ok", "detail", "remedy"}, ...]``:

- ``smi``: ``nvidia_smi.parse()`` of ``nvidia-smi -q -x`` (None when it could not run: ``smi_error`` says why);
- ``xid_events``: ``xid.parse_xid()`` of the kernel log since boot (None: the log could not be read);
- ``nvlink``: ``nvidia_smi.parse_nvlink_status()`` of ``nvidia-smi nvlink -s`` (None: not read);
- ``expected_gpus``: the GPU count the node must show (declared, or counted on the PCI bus); None: not judged;
- ``expected_nvlinks``: active NVLinks per GPU; None: from the GPU's name (``expected_nvlinks_for``);
- ``declared_gpus``: the GPU count the cluster declares (``scc_gpu_count``, named by ``declared_name``); above what
  nvidia-smi shows the node fails ``gpu_count_declared`` (``reboot``): ranks would share GPUs. None or 0: not declared;
- ``dcgm``: ``dcgm.parse_dcgm_diag()`` of ``dcgmi diag -r 1 -j`` (None: DCGM not run, no verdict);
  ``dcgm_error``: why it could not run or be read (a ``dcgm`` warning verdict instead).

``gpu`` is ``"GPU <index>"`` for a GPU's own checks, ``"node"`` for the node's (``nvidia_smi``,
``gpu_count``, ``kernel_log``, ``nvlink_status``) and ``"PCI <address>"`` for Xid events of a device
nvidia-smi does not list (a GPU that fell off the bus). Every GPU gets every check; a healthy GPU's
verdicts are all ``ok: true`` with ``remedy: "none"``. A failing check carries the remedy class of
xid.py (``none`` < ``restart_app`` < ``reset_gpu`` < ``reboot`` < ``isolate``); ``none`` on a failing
check is a warning (nothing to recover; look at it).

Checks and their remedies when they fail:

- ``ecc_mode``: ECC enabled (GPUs without ECC report N/A: not judged). ``reset_gpu``: ``nvidia-smi -e 1``
  takes effect at the next reset.
- ``ecc_volatile_uncorrectable``: uncorrectable errors since the driver loaded above the threshold (0).
  ``reset_gpu``: the Xid 48 (DBE) workflow.
- ``ecc_aggregate_uncorrectable``: over the GPU's life, above the threshold (0). ``none``: history (its
  pages are retired/rows remapped); a warning.
- ``retired_pages_pending``: a page waits for retirement, applied at the next driver reload ("reload the
  driver to activate", NVIDIA Dynamic Page Retirement guide). ``reset_gpu``.
- ``row_remap_pending`` / ``row_remap_failure`` (Ampere and later; not judged where nvidia-smi has no row
  remapper): pending -> ``reset_gpu`` ("reset gpu to activate", Xid 63 on A100); failure -> ``isolate`` (RMA;
  ``nvidia-smi -q -d ROW_REMAPPER`` "Remapping Failure Occurred").
- ``pcie_link_width``: current below max. ``reboot`` (the link trains again at boot).
- ``pcie_link_gen``: current below max while the GPU is busy. The nvidia-smi manual (GPU Link Info):
  the current link generation and width "may be reduced when the GPU is not in use" -- so a lower
  generation is only a fault when the ``gpu_idle`` clock event reason is not active. ``reboot``.
- ``clocks_hw_slowdown``, ``clocks_hw_thermal_slowdown``, ``clocks_hw_power_brake_slowdown``,
  ``clocks_sw_thermal_slowdown``: the clock event reason active. ``none`` (a warning: cooling or power).
- ``persistence_mode``: enabled (when ``require_persistence``). ``none`` (a warning: a setting).
- ``nvlink``: active links at least the expected count. ``reboot``.
- ``xid``: the worst remedy of the GPU's Xid events since boot; ok when none of them needs more than
  ``none`` (an Xid not in the catalogue is a ``none`` warning to look up).
- node ``gpu_count``: nvidia-smi lists the expected count. ``reboot`` (a GPU the driver lost, Xid 79).
- node ``gpu_count_declared``: the declared count is not above the count nvidia-smi lists. ``reboot``.
- node ``nvidia_smi``: nvidia-smi ran and parsed. ``reboot``.
- node ``kernel_log`` / ``nvlink_status``: the output could be read (``none``: not judged then).
- DCGM, last and only when ``dcgm`` or ``dcgm_error`` is given: each failing DCGM result a verdict
  ``dcgm_<test>`` (``dcgm.check_name``) on its GPU (``node`` for a test-wide result) with the remedy of its
  DCGM error severities (``dcgm.remedy``: RESET -> reset_gpu, ISOLATE -> isolate, MONITOR/CONFIG -> none, other
  or none -> reset_gpu, as level 1 is NVIDIA's readiness metric); a ``Warn`` result -> ``none``; no failing
  result -> one ok node verdict ``dcgm``. A diagnostic that could not run or complete -> a ``dcgm`` node
  verdict failing with ``none`` (not judged, like ``kernel_log``).

``node_status(verdicts)``: ``red`` when a failing check's remedy is ``reset_gpu`` or worse, ``amber`` when
checks fail with milder remedies only, else ``green``. ``report(verdicts)`` is the ``gpu_health_report``
fact: ``{"status", "ok" (status != red), "verdicts", "problems": ["<gpu> <check>: <detail> (remedy: <r>)"]}``.
"""

from __future__ import annotations

from ansible_collections.scc.training.plugins.module_utils import dcgm as dcgm_diag
from ansible_collections.scc.training.plugins.module_utils import hardware_defaults
from ansible_collections.scc.training.plugins.module_utils.xid import REMEDY_ORDER, bus_key, worst_remedy, xid_remedy

DEFAULT_THRESHOLDS = {
    "ecc_volatile_uncorrectable_max": 0,
    "ecc_aggregate_uncorrectable_max": 0,
    "require_ecc": True,
    "require_persistence": True,
    "xid_ignore": (),
}

# Active NVLinks per GPU by product name: hardware_defaults.GPU_MODELS, first match wins (V100 SXM2 6, A100 SXM4
# 12, H100/H200 SXM 18, H800 8 and H20 18 (UNCONFIRMED counts: bandwidth / 50 GB/s), PCIe boards, L20 and the
# Blackwell professional GPUs 0; NVIDIA datasheets cited there). Other names: None (set gpu_health_expected_nvlinks).
NVLINKS_BY_NAME = tuple((model.pattern, model.links) for model in hardware_defaults.GPU_MODELS)

CLOCK_CHECKS = ("hw_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown", "sw_thermal_slowdown")


def expected_nvlinks_for(name):
    """Active NVLinks a GPU of this product name has (NVLINKS_BY_NAME), or None when not known."""
    for pattern, links in NVLINKS_BY_NAME:
        if name and pattern.search(name):
            return links
    return None


def _verdict(gpu, check, ok, detail, remedy):
    return {"gpu": gpu, "check": check, "ok": bool(ok), "detail": detail, "remedy": "none" if ok else remedy}


def _over(value, limit):
    return value is not None and value > limit


# (check, parse() key, threshold, what the count covers, remedy above the threshold)
_ECC_COUNTS = (
    (
        "ecc_volatile_uncorrectable",
        "ecc_errors_uncorrected",
        "ecc_volatile_uncorrectable_max",
        "since the driver loaded",
        "reset_gpu",
    ),
    (
        "ecc_aggregate_uncorrectable",
        "ecc_errors_uncorrected_aggregate",
        "ecc_aggregate_uncorrectable_max",
        "over the GPU's life",
        "none",
    ),
)


def _ecc_verdicts(label, gpu, limits):
    mode = gpu.get("ecc_mode")
    verdicts = [
        _verdict(
            label,
            "ecc_mode",
            mode is None or mode == "Enabled" or not limits["require_ecc"],
            "ECC %s" % (mode or "not supported (N/A)"),
            "reset_gpu",
        )
    ]
    for check, key, limit, period, remedy in _ECC_COUNTS:
        count = gpu.get(key)
        verdicts.append(
            _verdict(
                label,
                check,
                not _over(count, limits[limit]),
                "%s uncorrectable ECC errors %s (max %d)" % ("n/a" if count is None else count, period, limits[limit]),
                remedy,
            )
        )
    return verdicts


def _memory_repair_verdicts(label, gpu):
    pages = gpu.get("retired_pages") or {}
    verdicts = [
        _verdict(
            label,
            "retired_pages_pending",
            not pages.get("pending"),
            "retired pages: %s single-bit, %s double-bit, pending %s"
            % (pages.get("single_bit"), pages.get("double_bit"), "yes" if pages.get("pending") else "no")
            if pages
            else "no page retirement reported",
            "reset_gpu",
        )
    ]
    rows = gpu.get("remapped_rows")
    if rows is not None:  # Ampere and later: a pending remap needs a reset, a failed one RMA
        for key, remedy in (("pending", "reset_gpu"), ("failure", "isolate")):
            verdicts.append(
                _verdict(
                    label,
                    "row_remap_" + key,
                    not rows.get(key),
                    "row remapping %s: %s" % (key, "yes" if rows.get(key) else "no"),
                    remedy,
                )
            )
    return verdicts


def _pcie_verdicts(label, gpu):
    pcie = gpu.get("pcie") or {}
    reasons = gpu.get("clocks_event_reasons") or {}
    width, width_max = pcie.get("width_current"), pcie.get("width_max")
    gen, gen_max = pcie.get("gen_current"), pcie.get("gen_max")
    idle = bool(reasons.get("gpu_idle"))
    gen_low = gen is not None and gen_max is not None and gen < gen_max
    return [
        _verdict(
            label,
            "pcie_link_width",
            width is None or width_max is None or width >= width_max,
            "PCIe x%s of x%s" % (width, width_max),
            "reboot",
        ),
        _verdict(
            label,
            "pcie_link_gen",
            not gen_low or idle,
            "PCIe gen %s of %s%s"
            % (gen, gen_max, " (idle: the generation may be reduced when the GPU is not in use)" if gen_low else ""),
            "reboot",
        ),
    ]


def _clock_verdicts(label, gpu):
    reasons = gpu.get("clocks_event_reasons") or {}
    return [
        _verdict(
            label,
            "clocks_" + reason,
            not reasons.get(reason),
            "clock event reason %s %s" % (reason, "active" if reasons.get(reason) else "not active"),
            "none",
        )
        for reason in CLOCK_CHECKS
    ]


def _expected_links(gpu, expected_nvlinks):
    return expected_nvlinks if expected_nvlinks is not None else expected_nvlinks_for(gpu.get("name"))


def _nvlink_verdict(label, gpu, nvlink, expected_nvlinks):
    expected = _expected_links(gpu, expected_nvlinks)
    if expected is None:
        return _verdict(label, "nvlink", True, "no known NVLink count for %s: not judged" % gpu.get("name"), "none")
    if expected == 0:
        return _verdict(label, "nvlink", True, "no NVLink expected", "none")
    if nvlink is None:
        return _verdict(label, "nvlink", True, "nvidia-smi nvlink -s not read: not judged", "none")
    links = next((entry for entry in nvlink if entry["index"] == gpu["index"]), None)
    up = links["links_up"] if links else 0
    down = links["links_down"] if links else []
    detail = "%d of %d NVLinks active" % (up, expected)
    if down:
        detail += ", inactive: %s" % ", ".join("link %d" % link for link in down)
    return _verdict(label, "nvlink", up >= expected, detail, "reboot")


def _xid_verdict(label, events):
    remedies = [xid_remedy(event["xid"]) or "none" for event in events]
    unknown = sorted({event["xid"] for event in events if xid_remedy(event["xid"]) is None})
    worst = worst_remedy(remedies)
    if not events:
        return _verdict(label, "xid", True, "no Xid since boot", "none")
    first = {}
    for event in events:
        first.setdefault(event["xid"], event["message"])
    detail = "; ".join(
        "Xid %d x%d (%s)" % (xid, sum(1 for e in events if e["xid"] == xid), message) for xid, message in first.items()
    )
    if unknown:
        detail += "; not in the catalogue: %s" % ", ".join(str(x) for x in unknown)
    return _verdict(label, "xid", worst == "none" and not unknown, detail, worst)


def _dcgm_verdicts(results, error):
    if error is not None:
        return [_verdict("node", "dcgm", False, "dcgmi diag -r 1 not read: %s; not judged" % error, "none")]
    if results is None:
        return []
    result = []
    for entry in results:
        if entry["test"] == "runtime_error":
            detail = "dcgmi diag -r 1 could not complete: %s; not judged" % entry["detail"]
            result.append(_verdict("node", "dcgm", False, detail, "none"))
        elif entry["result"] in ("fail", "warn"):
            remedy = dcgm_diag.remedy(entry.get("severities")) if entry["result"] == "fail" else "none"
            label = "node" if entry["gpu"] is None else "GPU %d" % entry["gpu"]
            result.append(_verdict(label, dcgm_diag.check_name(entry["test"]), False, entry["detail"], remedy))
    if not result:
        counts = {name: sum(1 for e in results if e["result"] == name) for name in ("pass", "skip")}
        result.append(
            _verdict(
                "node",
                "dcgm",
                bool(results),
                "dcgmi diag -r 1: %(pass)d results passed, %(skip)d skipped" % counts
                if results
                else "dcgmi diag -r 1 reported no test: not judged",
                "none",
            )
        )
    return result


def verdicts(smi, dcgm=None, dcgm_error=None, cpu_only=False, **options):
    """The node's verdicts: see the module docstring (``options``: the nvidia-smi and kernel log inputs).
    ``cpu_only``: the node is declared to have no GPU (gpu_health_cpu_only): one passing verdict saying
    so, nothing else judged."""
    if cpu_only:
        return [_verdict("node", "cpu_only", True, "declared CPU-only (gpu_health_cpu_only): no GPU judged", "none")]
    return _smi_verdicts(smi, **options) + _dcgm_verdicts(dcgm, dcgm_error)


def _declared_count(declared, declared_name):
    """The declared GPU count as an int (None: not declared, also for 0 and ""); refused (ValueError naming the
    variable) when it is not an integer >= 0: a negative count is never above what a node shows, so it would pass
    every node as if declared (issue 27)."""
    if declared is None or (isinstance(declared, str) and declared.strip() == ""):
        return None
    text = str(declared).strip()
    if isinstance(declared, bool) or not text.isdigit():
        raise ValueError(
            "%s (%s) must be an integer >= 0 (unset or 0: not declared): the GPUs each node gives its ranks"
            % (declared_name, text)
        )
    return int(text) or None


def _declared_verdict(seen, declared, declared_name):
    """A declared GPU count above what nvidia-smi shows: mpirun would wrap ranks two per GPU (issue 27)."""
    if declared is None:
        return []
    ok = int(declared) <= seen
    detail = "%s=%d, %d GPUs seen by nvidia-smi" % (declared_name, int(declared), seen)
    if not ok:
        detail += ": more ranks than GPUs would share a GPU; set %s to %d, or find the lost GPUs" % (
            declared_name,
            seen,
        )
    return [_verdict("node", "gpu_count_declared", ok, detail, "reboot")]


def _smi_verdicts(
    smi,
    xid_events=None,
    nvlink=None,
    expected_gpus=None,
    expected_nvlinks=None,
    thresholds=None,
    smi_error=None,
    declared_gpus=None,
    declared_name="scc_gpu_count",
):
    declared_gpus = _declared_count(declared_gpus, declared_name)
    limits = dict(DEFAULT_THRESHOLDS, **(thresholds or {}))
    ignored = {int(x) for x in limits["xid_ignore"] or ()}
    events = [event for event in xid_events or [] if event["xid"] not in ignored]
    gpus = (smi or {}).get("gpus") or []
    result = [
        _verdict(
            "node",
            "nvidia_smi",
            smi is not None,
            "nvidia-smi -q -x read: driver %s" % smi.get("driver_version")
            if smi is not None
            else "nvidia-smi -q -x failed: %s" % (smi_error or "no output"),
            "reboot",
        )
    ]
    if expected_gpus is not None:
        result.append(
            _verdict(
                "node",
                "gpu_count",
                len(gpus) == int(expected_gpus),
                "%d GPUs seen by nvidia-smi, %d expected" % (len(gpus), int(expected_gpus)),
                "reboot",
            )
        )
    if smi is not None:
        result += _declared_verdict(len(gpus), declared_gpus, declared_name)
    result.append(
        _verdict(
            "node",
            "kernel_log",
            xid_events is not None,
            "kernel log read" if xid_events is not None else "kernel log not readable: Xid events not judged",
            "none",
        )
    )
    if any((_expected_links(gpu, expected_nvlinks) or 0) > 0 for gpu in gpus):
        result.append(
            _verdict(
                "node",
                "nvlink_status",
                nvlink is not None,
                "nvidia-smi nvlink -s read"
                if nvlink is not None
                else "nvidia-smi nvlink -s failed: NVLinks not judged",
                "none",
            )
        )
    known = set()
    for gpu in gpus:
        label = "GPU %d" % gpu["index"]
        key = bus_key(gpu.get("pci_bus_id"))
        known.add(key)
        persistence = gpu.get("persistence_mode")
        result += _ecc_verdicts(label, gpu, limits)
        result += _memory_repair_verdicts(label, gpu)
        result += _pcie_verdicts(label, gpu)
        result += _clock_verdicts(label, gpu)
        result.append(
            _verdict(
                label,
                "persistence_mode",
                persistence != "Disabled" or not limits["require_persistence"],
                "persistence mode %s" % (persistence or "n/a"),
                "none",
            )
        )
        result.append(_nvlink_verdict(label, gpu, nvlink, expected_nvlinks))
        result.append(_xid_verdict(label, [event for event in events if bus_key(event["pci_bus_id"]) == key]))
    orphans = {}
    for event in events:
        if bus_key(event["pci_bus_id"]) not in known:
            orphans.setdefault(bus_key(event["pci_bus_id"]), []).append(event)
    for key, orphan_events in orphans.items():
        result.append(_xid_verdict("PCI %s" % key, orphan_events))
    return result


def node_status(verdict_list):
    """``red`` if a failing verdict's remedy is reset_gpu or worse, ``amber`` if any fails, else ``green``."""
    failing = [v["remedy"] for v in verdict_list if not v["ok"]]
    if not failing:
        return "green"
    if REMEDY_ORDER.index(worst_remedy(failing)) >= REMEDY_ORDER.index("reset_gpu"):
        return "red"
    return "amber"


def report(verdict_list):
    """The ``gpu_health_report`` fact of one node (see the module docstring)."""
    status = node_status(verdict_list)
    return {
        "status": status,
        "ok": status != "red",
        "verdicts": list(verdict_list),
        "problems": [
            "%s %s: %s (remedy: %s)" % (v["gpu"], v["check"], v["detail"], v["remedy"])
            for v in verdict_list
            if not v["ok"]
        ],
    }


def gpu_health_input_problems(settings):
    """The gpu_health role's variables (its validate.yml) -> one sentence per bad variable, naming it, its value and
    the one rule it broke (empty when all is well). Types are the argument spec's; these are the rules no spec holds."""
    from ansible_collections.scc.training.plugins.module_utils import input_checks, instance_families

    show = input_checks.show
    problems = []
    smi = settings["gpu_health_nvidia_smi_path"]
    if not input_checks.is_text(smi) or not smi:
        problems.append("gpu_health_nvidia_smi_path (%s) must name the nvidia-smi command." % show(smi))
    command = settings["gpu_health_kernel_log_command"]
    if not isinstance(command, list) or not command or not input_checks.is_text(command[0]) or not command[0]:
        problems.append(
            "gpu_health_kernel_log_command (%s) must be a command as a list, its program first (e.g. [dmesg])."
            % show(command)
        )
    pci = settings["gpu_health_pci_devices_path"]
    if not input_checks.is_text(pci) or not pci.startswith("/"):
        problems.append("gpu_health_pci_devices_path (%s) must be an absolute path." % show(pci))
    for name, least in (("gpu_health_expected_gpus", 1), ("gpu_health_expected_nvlinks", 0)):
        value = settings[name]
        count = input_checks.whole_number(value)
        if value is not None and (count is None or count < least):
            problems.append("%s (%s) must be unset or a whole number >= %d." % (name, show(value), least))
    declared = settings["gpu_health_declared_gpus"]
    count = input_checks.whole_number(declared)
    if declared not in (None, "") and (count is None or count < 0):
        problems.append(
            "gpu_health_declared_gpus (scc_gpu_count) (%s) must be unset or a whole number >= 0." % show(declared)
        )
    # The hardware has one route in: scc_instance_type (the fact scc_hardware), judged as the user gave it.
    problems.extend(instance_families.declared_problems(settings.get("scc_instance_type"), "scc_instance_type"))
    for name in ("gpu_health_ecc_volatile_uncorrectable_max", "gpu_health_ecc_aggregate_uncorrectable_max"):
        count = input_checks.whole_number(settings[name])
        if count is None or count < 0:
            problems.append("%s (%s) must be a whole number >= 0." % (name, show(settings[name])))
    if not input_checks.text(settings["gpu_health_results_dir"]):
        problems.append("gpu_health_results_dir (%s) must be set." % show(settings["gpu_health_results_dir"]))
    return problems
