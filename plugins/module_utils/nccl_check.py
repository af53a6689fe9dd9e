# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""nccl_check's thresholds and verdicts, as pure functions over parse_nccl_tests' output.

Thresholds (declared fractions of declared link rates, never a measured figure taken as truth):

- single node: ``single_fraction x nvlink_links x nvlink_gbs_per_link`` GB/s of all_reduce busbw.
  V100 SXM2: 6 NVLink2 links per GPU, 25 GB/s per link per direction (Alibaba's "What is SCC"
  instance table: NVLink2, 300 GB/s; hardware_facts.md sections 5 and 7.3; ``nvidia-smi nvlink -s``
  on an 8x V100 SXM2 host prints 6 links x 25.781 GB/s). Published 8x V100 SXM2 all_reduce busbw
  for large messages: 129.14 GB/s at 128 MiB (github.com/konnase/konnase.github.io,
  source/_posts/deep_learning/NCCL.md) and 135.50 GB/s at 1 GiB (OCI BM.GPU3.8,
  github.com/oracle-japan/ocitutorials, tutorials/_hpc/spinup-ml-instance-cntnd.md); the "~130 GB/s"
  of hardware_facts 7.3 stays UNCONFIRMED as a vendor figure, and
  sjeaugey's rule of ~20 GB/s effective per NVLink (NVIDIA/nccl-tests#149) gives ~120 GB/s, i.e.
  0.8 of 6 x 25. The default fraction 0.7 (105 GB/s) sits below all of these.
- multi node: ``multi_fraction x link_rate_gbps / 8`` GB/s, link_rate_gbps the per-node RDMA
  rate (sccgn6: RoCE v2 2 x 25 Gb/s, hardware_facts section 5). NVIDIA/nccl-tests#119 (sjeaugey):
  ~12 GB/s busbw per 100 Gb/s NIC, i.e. 0.96 of the line rate in GB/s; the sccgn6 figure
  (~6 GB/s) is derived by that rule, UNCONFIRMED by a measurement.

The build: ``tests_build`` names the directory nccl-tests is built in after a hash of make's variables, so a
changed gencode, CUDA, NCCL or MPI home builds anew instead of keeping a binary built for other inputs.

A run's verdict: the out-of-place busbw at the largest message size against its threshold; any
``#wrong`` (nccl-tests >= 2.13, a count) or ``Out of bounds values`` above 0 fails it, and so does
a run without rows or without its summary (it did not finish). The busbw-by-size curve is kept.
No Ansible imports: the filters in plugins/filter/nccl.py and the module nccl_bisect use it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib

from ansible_collections.scc.training.plugins.module_utils import instance_families
from ansible_collections.scc.training.plugins.module_utils.input_checks import (
    ABSOLUTE,
    INTERFACE,
    MIRROR,
    SHA256,
    env_value_problems,
    fraction,
    group_problems,
    minimum,
    pattern,
    positive,
    rule_problems,
)

_BYTES = r"^[0-9]+[KMG]?$"


def _optional(check):
    """A check that also accepts null or empty (the value is resolved: hardware_defaults)."""
    return lambda value: value is None or str(value).strip() == "" or check(value)


_VALIDATE_RULES = (
    ("nccl_check_tests_version", pattern(r"^[0-9]+\.[0-9]+\.[0-9]+$"), "X.Y.Z"),
    ("nccl_check_tests_sha256", pattern(SHA256.pattern), "64 lowercase hex digits"),
    ("nccl_check_tests_url", pattern(r"^((https?|file)://|/)"), "an http(s)://, file:// URL or absolute path"),
    ("nccl_check_mirror", pattern(r"^$|" + MIRROR.pattern), "empty, an http(s):// URL or an absolute path"),
    ("nccl_check_build_dir", pattern(ABSOLUTE.pattern), "absolute"),
    ("nccl_check_tests_dir", pattern(r"^$|^/"), "absolute or empty"),
    ("nccl_check_gpus", _optional(minimum(1)), "null (resolved) or >= 1"),
    ("nccl_check_min_bytes", pattern(_BYTES), "a number of bytes with an optional K, M or G"),
    ("nccl_check_max_bytes", pattern(_BYTES), "a number of bytes with an optional K, M or G"),
    ("nccl_check_step_factor", minimum(2), ">= 2"),
    ("nccl_check_nvlink_links", _optional(minimum(0)), "null (resolved) or >= 0 (0: no NVLink, the PCIe basis)"),
    ("nccl_check_nvlink_gbs_per_link", _optional(positive), "null (resolved) or > 0"),
    ("nccl_check_intra_node_gbs", _optional(positive), "null (resolved) or > 0"),
    ("nccl_check_link_rate_gbps", _optional(positive), "null (resolved) or > 0"),
    ("nccl_check_single_min_fraction", fraction, "in (0, 1]"),
    ("nccl_check_pcie_min_fraction", fraction, "in (0, 1]"),
    ("nccl_check_multi_min_fraction", fraction, "in (0, 1]"),
    ("nccl_check_tcp_interface", pattern(INTERFACE.pattern), "an interface name"),
    ("nccl_check_interface", pattern(r"^$|" + INTERFACE.pattern), "an interface name or empty"),
    ("nccl_check_timeout_s", minimum(1), ">= 1"),
    ("nccl_check_results_dir", pattern(r"^."), "set"),
)


def nccl_check_input_problems(settings):
    """nccl_check's variables -> one sentence per problem, naming the variable and its value ([] when all is well).

    ``settings``: the ``nccl_check_*`` variables, ``group_hosts`` (the hosts of nccl_check_group) and
    ``scc_instance_type`` as given (its type judged on it: see instance_families.declared_problems).
    """
    problems = (
        group_problems(settings, "nccl_check_group")
        + rule_problems(settings, _VALIDATE_RULES)
        + env_value_problems("nccl_check_env", settings["nccl_check_env"])
    )
    return problems + instance_families.declared_problems(settings.get("scc_instance_type"), "scc_instance_type")


# The variables nccl_check gives nccl-tests' make besides MPI=1 (tasks/build.yml), in that order, each with the role
# variable it comes from: the inputs a build depends on, beside the source release (its version names the tree).
MAKE_VARIABLES = (
    ("MPI_HOME", "nccl_check_mpi_home"),
    ("CUDA_HOME", "nccl_check_cuda_home"),
    ("NCCL_HOME", "nccl_check_nccl_home"),
    ("NVCC_GENCODE", "nccl_check_nvcc_gencode"),
)
BUILD_KEY_LENGTH = 12


def tests_build(values):
    """``{MPI_HOME, CUDA_HOME, NCCL_HOME, NVCC_GENCODE}`` -> ``{make, key}``: make's variables (``MPI=1`` first)
    and the first 12 hex digits of their sha256, which name the build directory: any change of a variable is
    another directory, built anew; the same variables, the same directory, built once. ValueError naming the role
    variable of a value that is missing, empty or holds a line break."""
    make = ["MPI=1"]
    for name, variable in MAKE_VARIABLES:
        value = values.get(name)
        if value is None or not str(value).strip() or "\n" in str(value):
            raise ValueError("%s (make's %s) must be set, on one line, got %r" % (variable, name, value))
        make.append("%s=%s" % (name, value))
    key = hashlib.sha256("\n".join(make).encode("utf-8")).hexdigest()[:BUILD_KEY_LENGTH]
    return {"make": make, "key": key}


def _positive(name, value):
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError("%s must be a number > 0, got %r" % (name, value)) from None
    if number <= 0:
        raise ValueError("%s must be > 0, got %r" % (name, value))
    return number


def _fraction(name, value):
    number = _positive(name, value)
    if number > 1:
        raise ValueError("%s must be in (0, 1], got %r" % (name, value))
    return number


def thresholds(limits):
    """``limits``: ``nvlink_links``, ``nvlink_gbs_per_link`` (GB/s per link and direction),
    ``single_fraction``, ``link_rate_gbps`` (per node, Gb/s), ``multi_fraction`` ->
    ``{single_node_gbps, multi_node_gbps}`` (busbw, GB/s, rounded to 0.01).

    Optional ``intra_node_gbs``: the per-GPU, per-direction bandwidth of a node without NVLink (its
    PCIe x16 link, hardware_defaults.py); when set (not None) it is the single-node basis instead of
    links x GB/s, and ``nvlink_links`` may be 0."""
    if not isinstance(limits, dict):
        raise ValueError("input must be a dict of the links and fractions, got %s" % type(limits).__name__)
    try:
        if limits.get("intra_node_gbs") is not None:
            nvlink = _positive("intra_node_gbs", limits["intra_node_gbs"])
        else:
            nvlink = _positive("nvlink_links", limits["nvlink_links"]) * _positive(
                "nvlink_gbs_per_link", limits["nvlink_gbs_per_link"]
            )
        network = _positive("link_rate_gbps", limits["link_rate_gbps"]) / 8.0
        return {
            "single_node_gbps": round(_fraction("single_fraction", limits["single_fraction"]) * nvlink, 2),
            "multi_node_gbps": round(_fraction("multi_fraction", limits["multi_fraction"]) * network, 2),
        }
    except KeyError as exc:
        raise ValueError("missing key %s" % exc) from None


def run_verdict(parsed, threshold_gbps):
    """parse_nccl_tests' output of one run -> ``{busbw_gbps, threshold_gbps, ok, wrong,
    out_of_bounds, curve: [{size_bytes, busbw_gbps}], problems}``. ``wrong``: the sum of the
    ``#wrong`` counts (null in the pre-2.13 layout, whose error column is a float delta)."""
    if not isinstance(parsed, dict):
        raise ValueError("input must be parse_nccl_tests' output (a dict), got %s" % type(parsed).__name__)
    threshold = _positive("threshold_gbps", threshold_gbps)
    rows = parsed.get("rows") or []
    counts = [row.get("wrong") for row in rows] + [(row.get("in_place") or {}).get("wrong") for row in rows]
    wrong = sum(int(c) for c in counts if c is not None) if parsed.get("layout") != "pre-2.13" else None
    busbw = rows[-1]["busbw_gbs"] if rows else None
    problems = []
    if not rows:
        problems.append("no result rows (the run failed or printed no table)")
    elif busbw is None or busbw < threshold:
        problems.append(
            "busbw %s GB/s at %d bytes below the threshold %.2f GB/s" % (busbw, rows[-1]["size_bytes"], threshold)
        )
    if wrong:
        problems.append("%d wrong values (#wrong)" % wrong)
    if parsed.get("out_of_bounds"):
        problems.append("%d values out of bounds" % parsed["out_of_bounds"])
    elif rows and parsed.get("out_of_bounds") is None:
        problems.append("no 'Out of bounds values' summary (the run did not finish)")
    return {
        "busbw_gbps": busbw,
        "threshold_gbps": threshold,
        "ok": not problems,
        "wrong": wrong,
        "out_of_bounds": parsed.get("out_of_bounds"),
        "curve": [{"size_bytes": row["size_bytes"], "busbw_gbps": row["busbw_gbs"]} for row in rows],
        "problems": problems,
    }


def node_report(single, bisection=None, host=None, failure=None):
    """One node's ``nccl_check_report``: ``{status, ok, problems, single_node}``.

    ``single``: run_verdict of its all_reduce alone (null when it could not run at all);
    ``failure``: why the run failed (its exit code and error), empty when it exited 0.
    ``bisection``: the cluster's bisection summary (or null), whose ``bad_nodes`` name ``host``
    (red) or whose ``unresolved`` hold it (amber: slow in every group it ran in, not proven).
    red: the node's own run failed, or the bisection named it; green otherwise."""
    problems = []
    if failure:
        problems.append("all_reduce_perf alone failed: %s" % failure)
    if single is not None:
        problems += ["alone: %s" % p for p in single["problems"]]
    bisection = bisection or {}
    named = host is not None and host in (bisection.get("bad_nodes") or [])
    unresolved = host is not None and host in (bisection.get("unresolved") or [])
    if named:
        problems.append("slow in the cluster run: named by the bisection")
    elif unresolved:
        problems.append("slow in the cluster run: a suspect the bisection could not clear")
    status = (
        "red" if failure or named or (single is not None and not single["ok"]) else "amber" if unresolved else "green"
    )
    summary = None
    if single is not None:
        summary = {key: single[key] for key in ("busbw_gbps", "threshold_gbps", "ok", "wrong")}
    return {"status": status, "ok": status != "red", "problems": problems, "single_node": summary}


def cluster_report(multi, hosts, bisection=None):
    """The cluster's ``nccl_check_cluster``: ``{ok, threshold_gbps, multi_node: {hosts,
    busbw_gbps, ok, curve}, bisection}`` from the cluster run's run_verdict."""
    return {
        "ok": multi["ok"],
        "threshold_gbps": multi["threshold_gbps"],
        "multi_node": {
            "hosts": list(hosts),
            "busbw_gbps": multi["busbw_gbps"],
            "ok": multi["ok"],
            "curve": multi["curve"],
            "problems": multi["problems"],
        },
        "bisection": bisection,
    }


def cluster_verdict(bisect, node_count, threshold_gbps):
    """The cluster's ``nccl_check_cluster``: the nccl_bisect module's ``cluster`` when the cluster ran
    (two nodes or more); a one-node cluster has no cluster run to judge: ok, no multi-node figure."""
    if int(node_count) > 1:
        return bisect["cluster"]
    return {"ok": True, "threshold_gbps": threshold_gbps, "multi_node": None, "bisection": None}
