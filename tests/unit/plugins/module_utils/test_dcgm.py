# -*- coding: utf-8 -*-
"""DCGM's diagnostic: the dcgmi diag -j parser (dcgm.py), its remedies, its verdicts in gpu_health.verdicts() and the
filter. Fixtures: re-typed samples in the layouts dcgmi's JSON writer prints (sources in their headers)."""

from __future__ import annotations

import json

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.filter import gpu_health as gpu_health_filters
from ansible_collections.scc.training.plugins.module_utils import dcgm, gpu_health, nvidia_smi
from ansible_collections.scc.training.plugins.plugin_utils import role_plans
from tests.unit.plugins.nvidia_fixtures import dcgm_diag, v100_nvlink, v100_xml

PASS_4 = "diag-r1-8xv100-pass-4.x-layout.txt"
FAIL_4 = "diag-r1-8xv100-fail-4.x-layout.txt"
WARN_3 = "diag-r1-8xv100-warn-3.x-layout.txt"


def _verdicts(**dcgm_options):
    return gpu_health.verdicts(
        nvidia_smi.parse(v100_xml()),
        xid_events=[],
        nvlink=nvidia_smi.parse_nvlink_status(v100_nvlink()),
        expected_gpus=8,
        **dcgm_options,
    )


def _dcgm_part(verdict_list):
    return [v for v in verdict_list if v["check"].startswith("dcgm")]


# parse_dcgm_diag()


def test_a_passing_4x_run_has_one_pass_per_gpu():
    results = dcgm.parse_dcgm_diag(dcgm_diag(PASS_4))
    assert [(r["test"], r["gpu"], r["result"]) for r in results] == [("software", i, "pass") for i in range(8)]
    assert all(r["severities"] == [] and r["detail"] == "Pass" for r in results)


def test_a_failing_4x_run_names_the_gpu_its_message_and_severity():
    failing = [r for r in dcgm.parse_dcgm_diag(dcgm_diag(FAIL_4)) if r["result"] != "pass"]
    assert failing == [
        {
            "test": "software",
            "result": "fail",
            "gpu": 5,
            "detail": "A pending retired page has been detected in GPU 5.",
            "severities": [6],
        }
    ]


def test_a_3x_run_has_one_result_per_software_check_and_its_message_under_warnings():
    results = dcgm.parse_dcgm_diag(dcgm_diag(WARN_3))
    assert len(results) == 9 and results[0] == {
        "test": "Denylist",
        "result": "pass",
        "gpu": None,
        "detail": "Pass",
        "severities": [],
    }
    assert [r for r in results if r["result"] != "pass"] == [
        {
            "test": "Persistence Mode",
            "result": "fail",
            "gpu": 2,
            "detail": "Persistence mode for GPU 2 is disabled.",
            "severities": [5],
        }
    ]


def _v4(results, summary=None):
    test = {"name": "software", "results": results}
    if summary:
        test["test_summary"] = summary
    return json.dumps({"DCGM Diagnostic": {"test_categories": [{"category": "Deployment", "tests": [test]}]}})


def test_warn_skip_other_entities_and_a_summary_only_test():
    text = _v4(
        [
            {"entity_group": "GPU", "entity_group_id": 1, "entity_id": 0, "status": "Warn"},
            {"entity_group": "GPU", "entity_group_id": 1, "entity_id": 1, "status": "Skip"},
            {"entity_group": "CPU", "entity_group_id": 7, "entity_id": 0, "status": "Pass"},
            {"entity_group": "GPU", "entity_group_id": 1, "entity_id": 2, "status": "Not Run"},
        ]
    )
    assert [(r["result"], r["gpu"], r["detail"]) for r in dcgm.parse_dcgm_diag(text)] == [
        ("warn", 0, "Warn"),
        ("skip", 1, "Skip"),
        ("pass", None, "CPU 0: Pass"),
    ]
    summary_only = _v4([], summary={"status": "Fail", "warnings": [{"warning": "x", "error_severity": 2}]})
    assert dcgm.parse_dcgm_diag(summary_only) == [
        {"test": "software", "result": "fail", "gpu": None, "detail": "x", "severities": [2]}
    ]


def test_a_runtime_error_is_one_failing_entry():
    text = json.dumps({"DCGM Diagnostic": {"version": "4.6.0", "runtime_error": "Error: DCGM is paused.\n"}})
    assert dcgm.parse_dcgm_diag(text) == [
        {"test": "runtime_error", "result": "fail", "gpu": None, "detail": "Error: DCGM is paused.", "severities": []}
    ]


@pytest.mark.parametrize(
    "text, message",
    [
        ("Error: Unable to start an embedded host engine. Host engine connection invalid/disconnected.", "not JSON"),
        ("[]", "not a JSON object"),
        ('{"other": {}}', "no 'DCGM Diagnostic'"),
        (_v4([{"entity_group": "GPU", "entity_id": 0, "status": "Maybe"}]), "unknown status"),
    ],
)
def test_bad_output_raises(text, message):
    with pytest.raises(ValueError, match=message):
        dcgm.parse_dcgm_diag(text)


# check_name(), remedy()


def test_check_names():
    assert dcgm.check_name("software") == "dcgm_software"
    assert dcgm.check_name("Page Retirement/Row Remap") == "dcgm_page_retirement_row_remap"


@pytest.mark.parametrize(
    "severities, remedy",
    [
        ([6], "reset_gpu"),  # RESET: "Drain and reset GPU"
        ([2], "isolate"),  # ISOLATE
        ([1], "none"),  # MONITOR: can perform workload
        ([5], "none"),  # CONFIG: a setting
        ([0], "none"),
        ([4], "reset_gpu"),  # TRIAGE: readiness failed, mildest red class
        ([3], "reset_gpu"),  # UNKNOWN
        ([], "reset_gpu"),  # no severity given
        ([1, 6, 2], "isolate"),  # the worst wins
    ],
)
def test_remedy_from_severities(severities, remedy):
    assert dcgm.remedy(severities) == remedy


# gpu_health.verdicts() with DCGM


def test_without_dcgm_nothing_changes():
    assert _dcgm_part(_verdicts()) == []
    assert _verdicts() == _verdicts(dcgm=None, dcgm_error=None)


def test_a_passing_run_is_one_ok_verdict_and_the_node_stays_green():
    verdict_list = _verdicts(dcgm=dcgm.parse_dcgm_diag(dcgm_diag(PASS_4)))
    assert _dcgm_part(verdict_list) == [
        {
            "gpu": "node",
            "check": "dcgm",
            "ok": True,
            "detail": "dcgmi diag -r 1: 8 results passed, 0 skipped",
            "remedy": "none",
        }
    ]
    assert gpu_health.node_status(verdict_list) == "green"


def test_a_failing_run_is_a_verdict_on_its_gpu_and_the_node_is_red():
    verdict_list = _verdicts(dcgm=dcgm.parse_dcgm_diag(dcgm_diag(FAIL_4)))
    assert [(v["gpu"], v["check"], v["ok"], v["remedy"]) for v in _dcgm_part(verdict_list)] == [
        ("GPU 5", "dcgm_software", False, "reset_gpu")
    ]
    report = gpu_health.report(verdict_list)
    assert report["status"] == "red" and report["problems"] == [
        "GPU 5 dcgm_software: A pending retired page has been detected in GPU 5. (remedy: reset_gpu)"
    ]


def test_a_config_severity_failure_is_a_warning_and_the_node_amber():
    verdict_list = _verdicts(dcgm=dcgm.parse_dcgm_diag(dcgm_diag(WARN_3)))
    assert [(v["gpu"], v["check"], v["ok"], v["remedy"]) for v in _dcgm_part(verdict_list)] == [
        ("GPU 2", "dcgm_persistence_mode", False, "none")
    ]
    assert gpu_health.node_status(verdict_list) == "amber"


def test_a_warn_result_is_a_warning():
    text = _v4([{"entity_group": "GPU", "entity_group_id": 1, "entity_id": 3, "status": "Warn"}])
    assert _dcgm_part(_verdicts(dcgm=dcgm.parse_dcgm_diag(text))) == [
        {"gpu": "GPU 3", "check": "dcgm_software", "ok": False, "detail": "Warn", "remedy": "none"}
    ]


@pytest.mark.parametrize(
    "options, detail",
    [
        ({"dcgm_error": "dcgmi not found (gpu_health_dcgm: true)"}, "dcgmi diag -r 1 not read: dcgmi not found"),
        (
            {"dcgm": [{"test": "runtime_error", "result": "fail", "gpu": None, "detail": "paused", "severities": []}]},
            "dcgmi diag -r 1 could not complete: paused",
        ),
        ({"dcgm": []}, "dcgmi diag -r 1 reported no test"),
    ],
)
def test_a_diag_that_could_not_run_is_a_node_warning(options, detail):
    (verdict,) = _dcgm_part(_verdicts(**options))
    assert (verdict["gpu"], verdict["check"], verdict["ok"], verdict["remedy"]) == ("node", "dcgm", False, "none")
    assert verdict["detail"].startswith(detail)


# the filter


def test_filter_parses_and_refuses_non_text_and_non_json():
    filters = gpu_health_filters.FilterModule().filters()
    assert filters["parse_dcgm_diag"](dcgm_diag(PASS_4))[0]["result"] == "pass"
    with pytest.raises(AnsibleFilterError, match="parse_dcgm_diag: input must be"):
        filters["parse_dcgm_diag"]({"DCGM Diagnostic": {}})
    with pytest.raises(AnsibleFilterError, match="parse_dcgm_diag: dcgmi diag output is not JSON"):
        filters["parse_dcgm_diag"]("Error: Unable to start an embedded host engine.")
    verdict_list = filters["gpu_health_verdicts"](
        nvidia_smi.parse(v100_xml()), dcgm=filters["parse_dcgm_diag"](dcgm_diag(FAIL_4))
    )
    assert verdict_list[-1]["check"] == "dcgm_software"


# diag_outcome(): what the role hands to gpu_health_verdicts


@pytest.mark.parametrize(
    "mode, found, run, expected",
    [
        ("false", True, {"stdout": "{}", "rc": 0}, {"results": None, "error": None}),
        (False, True, {"stdout": "{}", "rc": 0}, {"results": None, "error": None}),
        ("auto", False, {"skipped": True}, {"results": None, "error": None}),
        (
            True,
            False,
            {"skipped": True},
            {"results": None, "error": "dcgmi not found on this node (gpu_health_dcgm: true)"},
        ),
        (
            "auto",
            True,
            {"stdout": "Error: Unable to start an embedded host engine. Host engine connection invalid.\n", "rc": 226},
            {
                "results": None,
                "error": "exit 226: Error: Unable to start an embedded host engine. Host engine connection invalid.",
            },
        ),
        ("true", True, {"stdout": "", "stderr": "", "rc": 1}, {"results": None, "error": "exit 1: no output"}),
        (
            "auto",
            True,
            {"stdout": '{"x": 1}', "rc": 0},
            {
                "results": None,
                "error": "dcgmi diag: no 'DCGM Diagnostic' or 'DCGM GPU Diagnostic' object in the output",
            },
        ),
    ],
)
def test_diag_outcome(mode, found, run, expected):
    assert dcgm.diag_outcome(mode, found, run.get("stdout"), run.get("stderr"), run.get("rc")) == expected


def test_diag_outcome_of_a_failing_run_parses_it_whatever_the_exit_status():
    outcome = role_plans.dcgm_diag_outcome({"stdout": dcgm_diag(FAIL_4), "stderr": "", "rc": 226}, mode="true")
    assert outcome["error"] is None and [r["gpu"] for r in outcome["results"] if r["result"] == "fail"] == [5]
    with pytest.raises(AnsibleFilterError, match="dcgm_diag_outcome: mode must be"):
        role_plans.dcgm_diag_outcome({}, mode="sometimes")
    with pytest.raises(AnsibleFilterError, match="dcgm_diag_outcome: input must be"):
        role_plans.dcgm_diag_outcome("text")


def test_a_clean_diag_counts_passed_and_skipped_results_apart():
    entry = {"test": "memory", "gpu": 0, "detail": "", "severities": []}
    results = [dict(entry, result="pass"), dict(entry, result="skip"), dict(entry, result="skip", gpu=1)]
    assert _dcgm_part(_verdicts(dcgm=results)) == [
        {
            "gpu": "node",
            "check": "dcgm",
            "ok": True,
            "detail": "dcgmi diag -r 1: 1 results passed, 2 skipped",
            "remedy": "none",
        }
    ]
