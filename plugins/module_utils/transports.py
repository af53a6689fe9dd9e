# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The same training job over tcp and over rdma, compared (playbooks/compare_transports.yml, the first
manual's section 5.4): ``transport_legs_problems`` refuses a leg the cluster cannot run before anything
starts; ``transport_comparison`` makes the one report: each leg's throughput and the NCCL transport that
proves it (scc.training.parse_nccl_log of its ranks' output), and the speedup of rdma over tcp.

Pure Python, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

TRANSPORTS = ("tcp", "rdma")
# What must match for two legs to be the same job.
_SAME_JOB = ("model", "world_size", "global_batch", "image_size", "steps", "warmup_steps", "precision", "framework")
# The NCCL transport each leg must show (parse_nccl_log's "transport"): sockets over tcp, NET/IB over rdma.
_EXPECTED = {"tcp": ("Socket", "NCCL_IB_DISABLE=1: sockets only"), "rdma": ("IB", "NET/IB channels")}


def transport_legs_problems(legs, declared):
    """The legs asked for and the cluster's scc_transport -> one sentence per problem ([] when they can run)."""
    problems = []
    unknown = [leg for leg in legs if leg not in TRANSPORTS]
    if not legs or unknown or len(set(legs)) != len(legs):
        problems.append(
            "compare_transports_legs (%s) must list tcp and/or rdma, each once." % ", ".join(str(leg) for leg in legs)
        )
    if "rdma" in legs and declared == "tcp":
        problems.append(
            "compare_transports_legs has rdma, but this cluster declares scc_transport: tcp (no RDMA fabric, as in the "
            "lab): the rdma leg cannot run. Compare on a cluster with RoCE/InfiniBand (scc_transport: rdma), or set "
            "compare_transports_legs: [tcp]."
        )
    return problems


def _proof(transport, results):
    """The NCCL evidence of one leg: what the ranks' log shows, and whether it is the transport asked for."""
    nccl = results.get("nccl")
    if not nccl:
        # gloo (CPUs, the lab): NCCL never ran, so tcp is the only path there is.
        ok = transport == "tcp" and results.get("backend") == "gloo"
        return {
            "nccl_transport": None,
            "ok": ok,
            "evidence": "no NCCL line logged (backend %s)" % results.get("backend"),
        }
    kind, what = _EXPECTED[transport]
    connections = nccl.get("connections") or {}
    evidence = "NCCL %s%s, %s channel(s), connections %s" % (
        nccl.get("transport"),
        " (RoCE)" if nccl.get("roce") else "",
        nccl.get("channels", 0),
        ", ".join("%s=%s" % item for item in sorted(connections.items())) or "none",
    )
    devices = [d.get("name") for d in nccl.get("ib_devices") or []]
    if devices and nccl.get("transport") == "IB":
        evidence += " on " + ", ".join(devices)
    return {
        "nccl_transport": nccl.get("transport"),
        "ok": nccl.get("transport") == kind,
        "evidence": evidence,
        "expected": what,
    }


def _leg(transport, results):
    throughput = results.get("throughput") or {}
    top1 = results.get("top1") or {}
    model = results.get("model") or {}
    return {
        "run_id": results.get("run_id"),
        "status": results.get("status"),
        "images_per_s": throughput.get("images_per_s"),
        "step_time_s": throughput.get("step_time_s"),
        "world_size": results.get("world_size"),
        "num_hosts": results.get("num_hosts"),
        "global_batch": results.get("global_batch"),
        "model": model.get("name"),
        "backend": results.get("backend"),
        "precision": results.get("precision"),
        "loss_first": results.get("loss_first"),
        "loss_last": results.get("loss_last"),
        "top1": top1.get("accuracy"),
        "proof": _proof(transport, results),
    }


def _differences(runs):
    if len(runs) < 2:
        return []
    first, second = (runs[t] for t in TRANSPORTS)
    values = {
        key: [(r.get("model") or {}).get("name") if key == "model" else r.get(key) for r in (first, second)]
        for key in _SAME_JOB
    }
    return ["%s: tcp %s, rdma %s" % (key, a, b) for key, (a, b) in values.items() if a != b]


def _fmt(value, form):
    return form % value if isinstance(value, (int, float)) else "n/a"


def transport_comparison(runs):
    """``runs``: {transport: the leg's results (train_resnet.py's results.json plus ``nccl``, parse_nccl_log's
    summary or null)} -> {legs, speedup (rdma images/s over tcp's, null unless both ran), summary (one line per
    leg, then the speedup), same_job, differences, problems (a leg whose NCCL log does not prove its transport, a failed leg)}."""
    if not isinstance(runs, dict) or not runs or any(t not in TRANSPORTS for t in runs):
        raise ValueError("input must be a dict of tcp and/or rdma -> that leg's results, got %r" % (runs,))
    legs = {transport: _leg(transport, results) for transport, results in runs.items()}
    problems = []
    for transport, leg in sorted(legs.items()):
        if leg["status"] != "ok":
            problems.append("%s leg (run %s) ended %s." % (transport, leg["run_id"], leg["status"]))
        if not leg["proof"]["ok"]:
            problems.append(
                "%s leg (run %s): the NCCL log does not prove %s (%s)."
                % (transport, leg["run_id"], transport, leg["proof"]["evidence"])
            )
    differences = _differences(runs)
    speeds = [legs.get(t, {}).get("images_per_s") for t in TRANSPORTS]
    speedup = speeds[1] / speeds[0] if all(speeds) else None
    summary = [
        "%s: %s images/s (run %s); %s" % (t, _fmt(leg["images_per_s"], "%.1f"), leg["run_id"], leg["proof"]["evidence"])
        for t, leg in sorted(legs.items())
    ]
    summary.append("speedup rdma/tcp: %s" % _fmt(speedup, "%.2fx"))
    return {
        "legs": legs,
        "speedup": speedup,
        "summary": summary,
        "same_job": not differences,
        "differences": differences,
        "problems": problems,
    }
