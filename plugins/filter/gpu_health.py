# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""GPU health filters, thin wrappers: ``gpu_health_verdicts`` and ``gpu_health_report`` over
plugins/module_utils/gpu_health.py, ``parse_xid`` over plugins/module_utils/xid.py, ``parse_dcgm_diag`` and ``dcgm_diag_outcome``
over plugins/module_utils/dcgm.py. Documentation: the sidecars gpu_health_verdicts.yml, gpu_health_report.yml,
parse_xid.yml, parse_dcgm_diag.yml and dcgm_diag_outcome.yml."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
    require_text,
)

dcgm = lazy_module_utils("dcgm")
gpu_health = lazy_module_utils("gpu_health")
xid = lazy_module_utils("xid")


def gpu_health_verdicts(smi, **options):
    """gpu_info's result (None when nvidia-smi failed) -> [{gpu, check, ok, detail, remedy}];
    ``options``: the keyword arguments of module_utils/gpu_health.py's verdicts()."""
    if smi is not None and not isinstance(smi, dict):
        raise AnsibleFilterError(
            "gpu_health_verdicts: input must be gpu_info's result (a dict) or None, got %s" % type(smi).__name__
        )
    return filter_call(
        "gpu_health_verdicts",
        lambda: gpu_health.verdicts(smi, **options),
        errors=(ValueError, TypeError, KeyError),
    )


def gpu_health_report(verdicts):
    """A node's verdicts -> {status, ok, verdicts, problems} (the gpu_health_report fact)."""
    if not isinstance(verdicts, list):
        raise AnsibleFilterError(
            "gpu_health_report: input must be gpu_health_verdicts' list, got %s" % type(verdicts).__name__
        )
    return filter_call("gpu_health_report", gpu_health.report, verdicts, errors=(ValueError, KeyError))


def parse_xid(text):
    """A kernel log -> [{pci_bus_id, xid, message}] in log order."""
    return xid.parse_xid(require_text(text, "parse_xid", "the kernel log as a string"))


def parse_dcgm_diag(text):
    """``dcgmi diag -r 1 -j`` output -> [{test, result, gpu, detail, severities}]."""
    return filter_call(
        "parse_dcgm_diag",
        dcgm.parse_dcgm_diag,
        require_text(text, "parse_dcgm_diag", "dcgmi diag -j output as a string"),
        errors=(ValueError, TypeError, KeyError),
    )


def dcgm_diag_outcome(diag, mode="auto", found=True):
    """The registered result of ``dcgmi diag -r 1 -j`` -> {results, error}, the inputs ``dcgm`` and ``dcgm_error``
    of gpu_health_verdicts; ``mode``: gpu_health_dcgm; ``found``: whether dcgmi was found."""
    if not isinstance(diag, dict):
        raise AnsibleFilterError(
            "dcgm_diag_outcome: input must be a registered command result, got %s" % type(diag).__name__
        )
    return filter_call(
        "dcgm_diag_outcome",
        lambda: dcgm.diag_outcome(mode, found, diag.get("stdout"), diag.get("stderr"), diag.get("rc")),
        errors=(ValueError,),
    )


class FilterModule(object):
    """scc.training GPU health filters."""

    def filters(self):
        return {
            "gpu_health_verdicts": gpu_health_verdicts,
            "gpu_health_report": gpu_health_report,
            "parse_xid": parse_xid,
            "parse_dcgm_diag": parse_dcgm_diag,
            "dcgm_diag_outcome": dcgm_diag_outcome,
        }
