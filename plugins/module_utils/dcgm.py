# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The results of NVIDIA DCGM's diagnostic, ``dcgmi diag -r 1 -j`` (the gpu_health role).

``parse_dcgm_diag(text) -> [{"test", "result", "gpu", "detail", "severities"}, ...]``, one entry per test and
entity in output order: ``result`` is ``pass``, ``fail``, ``warn`` or ``skip``; ``gpu`` the GPU index (None for
a test-wide result or another entity, named in ``detail``); ``detail`` the error messages (``warning`` fields)
joined, else the status; ``severities`` the DCGM error severities of those messages (dcgmErrorSeverity_t).
A diagnostic that could not complete (the JSON's ``runtime_error``) is one entry ``{"test": "runtime_error",
"result": "fail", "gpu": None, ...}``. Text that is not the JSON object raises ValueError.

The layout, read from dcgmi's JSON writer in github.com/NVIDIA/DCGM (no document gives a schema: NVIDIA's
"Diagnostic Errors" page, https://docs.nvidia.com/datacenter/dcgm/latest/reference/diagnostics/errors.html,
says "That JSON has no published stable schema, so release-pin and test CLI consumers"):

- DCGM 4.x (commit 72fa3fe "DCGM 4.6.0", dcgmi/Diag.cpp HelperJsonBuildOutput/HelperJsonAddResult, keys in
  nvvs/include/NvvsJsonStrings.h; testing/python3/dcgm_diag_schema.json): ``{"DCGM Diagnostic":
  {"test_categories": [{"category", "tests": [{"name", "results": [{"entity_group", "entity_group_id",
  "entity_id", "status", "warnings": [{"warning", "error_id", "error_category", "error_severity"}], "info"}],
  "test_summary": {"status", "warnings"}}]}]}, "entity_groups": [...], "metadata": {"version",
  "Driver Version Detected"}}``. Level 1 is the test ``software`` (category ``Deployment``) with one result
  per GPU (nvvs/src/DcgmNvvsResponseWrapper.cpp SetSoftwareTestResult).
- DCGM 3.x (commit b0ec3c6 "DCGM 3.3.9", dcgmi/Diag.cpp HelperJsonAddBasicTests/HelperJsonAddResult): root key
  ``"DCGM GPU Diagnostic"``, the same ``test_categories``; a result carries ``gpu_id`` (a string such as
  ``"0"``) instead of the entity fields, and level 1 is one test per software check ("Denylist", "NVML Library",
  "Persistence Mode", "Page Retirement/Row Remap", ...) with a single result, whose ``gpu_id`` is set only when
  it has an error and whose error message sits under ``warnings`` (not ``warning``) inside each entry.
- Status strings (Diag.cpp HelperDisplayDiagResult): ``Pass``, ``Fail``, ``Skip``, ``Not Run``; ``Warn`` only in
  the table's per-test line, so in the JSON of both versions a warning-level result reads ``Fail`` -- its
  error's severity says how grave it is. ``Not Run`` entries are left out by dcgmi (and here).

Severities (dcgmlib/dcgm_errors.h, dcgmErrorSeverity_t, same values in 3.3.9 and 4.6.0): 0 NONE, 1 MONITOR
("Can perform workload, but needs to be monitored"), 2 ISOLATE ("Cannot perform workload. GPU should be
isolated"), 3 UNKNOWN, 4 TRIAGE ("This error should be triaged"), 5 CONFIG ("This error can be configured"),
6 RESET ("Drain and reset GPU"). ``remedy(severities)`` maps them to the remedy classes of xid.py:

- ISOLATE -> ``isolate``; RESET -> ``reset_gpu`` (dcgmlib/src/dcgm_errors.c gives RESET to pending page
  retirements and row remaps, the same class gpu_health judges them with);
- MONITOR, CONFIG, NONE -> ``none`` (a warning: the GPU can run work, or a setting is wrong -- e.g.
  DCGM_FR_PERSISTENCE_MODE is CONFIG, as gpu_health's own ``persistence_mode`` check is a warning);
- TRIAGE, UNKNOWN, or no severity given -> ``reset_gpu``: NVIDIA's DCGM Diagnostics guide names level 1 "a
  readiness metric" (to run "before a workload is deployed"), so a failed test keeps the node out of the job
  (red); ``reset_gpu`` is the mildest red class and the only recovery action DCGM's severities name short of
  isolation ("Drain and reset GPU"). This default is our choice, not NVIDIA's wording.

The worst class of a result's severities wins.

``diag_outcome(mode, found, stdout=None, stderr=None, rc=None) -> {"results", "error"}``: what the gpu_health role
hands to ``gpu_health.verdicts(dcgm=..., dcgm_error=...)`` for ``gpu_health_dcgm`` ``mode`` (``auto``, ``true``,
``false``): no DCGM (mode false, or dcgmi not found in auto) -> both None (no verdict); dcgmi not found in mode
true -> an error; otherwise the parsed JSON, or an error naming the exit status and first line when the output is
not dcgmi's JSON (dcgmi prints plain text, even with -j, when it cannot start a host engine: Diag.cpp
StartDiag::DoExecuteConnectionFailure). dcgmi exits non-zero when a test fails (Diag::GetFailureResult), so the
exit status alone decides nothing. UNCONFIRMED: no real ``dcgmi diag -r 1 -j`` output of a V100
node was available; the fixtures under tests/fixtures/dcgm/ are re-typed from the writer's code.
"""

from __future__ import annotations

import json
import re

from ansible_collections.scc.training.plugins.module_utils.xid import worst_remedy

RESULTS = {"pass": "pass", "fail": "fail", "warn": "warn", "skip": "skip"}

# dcgmErrorSeverity_t -> remedy class (see the module docstring); a severity not listed -> UNLISTED_REMEDY.
SEVERITY_REMEDY = {0: "none", 1: "none", 2: "isolate", 5: "none", 6: "reset_gpu"}
UNLISTED_REMEDY = "reset_gpu"

_ROOTS = ("DCGM Diagnostic", "DCGM GPU Diagnostic")


def _load(text):
    if isinstance(text, dict):
        return text
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValueError("dcgmi diag output is not JSON (run it with -j): %s" % exc) from None
    if not isinstance(data, dict):
        raise ValueError("dcgmi diag output is not a JSON object")
    return data


def _gpu(result):
    if "entity_group" in result:
        return int(result["entity_id"]) if result["entity_group"] == "GPU" else None
    gpu_id = result.get("gpu_id")
    return int(gpu_id) if gpu_id not in (None, "") else None


def _entry(test, result):
    status = str(result.get("status", "")).strip().lower()
    if status not in RESULTS:
        raise ValueError("dcgmi diag: test %r has an unknown status %r" % (test, result.get("status")))
    warnings = [w for w in result.get("warnings") or [] if isinstance(w, dict)]
    # 3.x level-1 tests put the message under "warnings" inside each entry (HelperJsonAddBasicTests).
    messages = [str(w.get("warning", w.get("warnings", ""))).strip() for w in warnings]
    detail = "; ".join(m for m in messages if m) or result.get("status")
    if "entity_group" in result and result["entity_group"] != "GPU":
        detail = "%s %s: %s" % (result["entity_group"], result.get("entity_id"), detail)
    return {
        "test": test,
        "result": RESULTS[status],
        "gpu": _gpu(result),
        "detail": detail,
        "severities": sorted({int(w["error_severity"]) for w in warnings if w.get("error_severity") is not None}),
    }


def parse_dcgm_diag(text):
    """``dcgmi diag -j`` output (text, or the loaded dict) -> the results: see the module docstring."""
    data = _load(text)
    root = next((data[key] for key in _ROOTS if isinstance(data.get(key), dict)), None)
    if root is None:
        raise ValueError("dcgmi diag: no %s object in the output" % " or ".join(repr(k) for k in _ROOTS))
    entries = []
    if root.get("runtime_error"):
        entries.append(
            {
                "test": "runtime_error",
                "result": "fail",
                "gpu": None,
                "detail": str(root["runtime_error"]).strip(),
                "severities": [],
            }
        )
    for category in root.get("test_categories") or []:
        for test in category.get("tests") or []:
            name = test.get("name", "")
            results = test.get("results") or []
            if not results and test.get("test_summary"):
                results = [test["test_summary"]]
            entries += [_entry(name, result) for result in results if result.get("status") != "Not Run"]
    return entries


def diag_outcome(mode, found, stdout=None, stderr=None, rc=None):
    """The DCGM inputs of gpu_health.verdicts(): see the module docstring."""
    mode = str(mode).lower()
    if mode not in ("auto", "true", "false"):
        raise ValueError("mode must be auto, true or false, got %r" % mode)
    if mode == "false" or (not found and mode == "auto"):
        return {"results": None, "error": None}
    if not found:
        return {"results": None, "error": "dcgmi not found on this node (gpu_health_dcgm: true)"}
    text = (stdout or "").strip()
    if text.startswith("{"):
        try:
            return {"results": parse_dcgm_diag(text), "error": None}
        except ValueError as exc:
            return {"results": None, "error": str(exc)}
    first = (text or (stderr or "").strip() or "no output").splitlines()[0]
    return {"results": None, "error": "exit %s: %s" % (rc, first)}


def check_name(test):
    """The gpu_health check of a DCGM test: ``dcgm_`` + its name in lower case, non-alphanumerics as ``_``."""
    return "dcgm_" + re.sub(r"[^a-z0-9]+", "_", test.lower()).strip("_")


def remedy(severities):
    """The remedy class of a failing result from its DCGM error severities (see the module docstring)."""
    if not severities:
        return UNLISTED_REMEDY
    return worst_remedy([SEVERITY_REMEDY.get(int(severity), UNLISTED_REMEDY) for severity in severities])
