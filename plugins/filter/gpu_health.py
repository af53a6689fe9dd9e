# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""GPU health filters, thin wrappers: ``gpu_health_verdicts`` over plugins/module_utils/gpu_health.py, ``parse_xid``
over plugins/module_utils/xid.py, ``parse_dcgm_diag`` over plugins/module_utils/dcgm.py. Documentation: the sidecars
gpu_health_verdicts.yml, parse_xid.yml and parse_dcgm_diag.yml."""

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


class FilterModule(object):
    """scc.training GPU health filters."""

    def filters(self):
        return {f.__name__: f for f in (gpu_health_verdicts, parse_xid, parse_dcgm_diag)}
