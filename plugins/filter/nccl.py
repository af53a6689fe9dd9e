# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""NCCL filters for scc.training, thin wrappers: ``parse_nccl_log`` over
plugins/module_utils/nccl_log.py, ``parse_nccl_tests`` over plugins/module_utils/nccl_tests.py,
``nccl_run_verdict``, ``nccl_node_report``, ``nccl_cluster_verdict`` and
``nccl_tests_build`` over plugins/module_utils/nccl_check.py, ``nccl_check_resolve`` over
plugins/module_utils/hardware_defaults.py. Their documentation lives in the sidecar ``<filter name>.yml``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
    require_mapping,
    require_settings,
    require_text,
)

hardware_defaults = lazy_module_utils("hardware_defaults")
nccl_check = lazy_module_utils("nccl_check")
nccl_log = lazy_module_utils("nccl_log")
nccl_tests = lazy_module_utils("nccl_tests")


def parse_nccl_log(text):
    """An NCCL_DEBUG=INFO log -> which transport NCCL used, its devices and channels."""
    return nccl_log.parse_nccl_log(require_text(text, "parse_nccl_log", "the log as a string"))


def parse_nccl_tests(text):
    """nccl-tests output (all_reduce_perf, ...) -> rows, avg_busbw_gbs, out_of_bounds, passed."""
    return nccl_tests.parse_nccl_tests(require_text(text, "parse_nccl_tests", "the output as a string"))


def nccl_cluster_verdict(bisect, node_count, threshold_gbps):
    """The nccl_bisect module's result (skipped on one node), the node count, the multi-node threshold ->
    the cluster's verdict."""
    return filter_call("nccl_cluster_verdict", nccl_check.cluster_verdict, bisect, node_count, threshold_gbps)


def nccl_run_verdict(parsed, threshold_gbps):
    """parse_nccl_tests' output of one run and its threshold -> the run's verdict and curve."""
    return filter_call("nccl_run_verdict", nccl_check.run_verdict, parsed, threshold_gbps)


def nccl_node_report(single, bisection=None, host=None, failure=None):
    """A node's verdict of its run alone, the cluster's bisection -> its nccl_check_report."""
    return filter_call("nccl_node_report", nccl_check.node_report, single, bisection, host, failure)


def nccl_check_resolve(hardware, settings, node_count=1):
    """hardware_defaults' result and nccl_check's variables (a hand-set one wins) -> GPUs, gencode, thresholds."""
    return filter_call(
        "nccl_check_resolve",
        hardware_defaults.nccl_check_settings,
        hardware,
        require_settings(settings, "nccl_check_resolve"),
        node_count,
    )


def nccl_tests_build(values):
    """make's variables for nccl-tests -> ``{make, key}``: the make arguments and the build directory's hash."""
    values = require_mapping(values, "nccl_tests_build", "input must be a dict of make's variables")
    return filter_call("nccl_tests_build", nccl_check.tests_build, values)


class FilterModule(object):
    """scc.training NCCL filters."""

    def filters(self):
        return {
            "parse_nccl_log": parse_nccl_log,
            "parse_nccl_tests": parse_nccl_tests,
            "nccl_run_verdict": nccl_run_verdict,
            "nccl_node_report": nccl_node_report,
            "nccl_cluster_verdict": nccl_cluster_verdict,
            "nccl_check_resolve": nccl_check_resolve,
            "nccl_tests_build": nccl_tests_build,
        }
