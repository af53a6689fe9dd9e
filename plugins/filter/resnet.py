# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Image-training filters for scc.training, thin wrappers: ``transport_legs_problems`` and
``transport_comparison`` over plugins/module_utils/transports.py (playbooks/compare_transports.yml).
Their documentation lives in the sidecar ``<filter name>.yml`` files."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
)

resnet_launch = lazy_module_utils("resnet_launch")
transports = lazy_module_utils("transports")


def transport_legs_problems(legs, declared):
    """The legs asked for and scc_transport -> one line per leg the cluster cannot run (empty when all can)."""
    return filter_call("transport_legs_problems", transports.transport_legs_problems, list(legs or []), declared)


def transport_comparison(runs):
    """{tcp, rdma: that leg's results with its NCCL summary} -> the report: legs, proofs, speedup."""
    return filter_call("transport_comparison", transports.transport_comparison, runs)


class FilterModule(object):
    """scc.training image-training filters."""

    def filters(self):
        return {f.__name__: f for f in (transport_legs_problems, transport_comparison)}
