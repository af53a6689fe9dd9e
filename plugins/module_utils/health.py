# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The cluster's verdict from its acceptance gates, as pure functions.

Each gate role (gpu_health, nccl_check) publishes one report per node, the fact
``<gate>_report``::

    {"status": "green" | "amber" | "red", "ok": bool, "problems": ["...", ...],
     "verdicts": [{"gpu", "check", "ok", "detail", "remedy"}, ...]}   # verdicts: gpu_health only

``judge(nodes, reports, reached)`` turns them into the cluster's verdict, once for the cluster::

    {"healthy": ["node1", ...],                    # judged green or amber; inventory order: rank 0's node first
     "unhealthy": {"node3": ["gpu_health: ...", ...]},
     "unjudged": ["node4", ...],                   # reached, but no gate reported on them
     "job_nodes": ["node1", ...] | None,           # scc_healthy_nodes: the healthy ones; when no gate judged any
                                                   # node, the ones still reached, or None when that is every node
                                                   # (the cluster was not judged: every node, as without verify.yml)
     "judged_by": ["gpu_health", ...],             # the gates that reported on at least one node
     "cards": [{"host", "status", "gates": {gate: status}, "problems": [...],
                "remedy": "reboot" | None}, ...],
     "summary": ["3 of 4 node(s) healthy (judged by gpu_health, nccl_check)",
                 "node3 red (remedy: reboot): gpu_health: ...", ...]}

A node is unhealthy when a gate says red, or when it dropped out of the verify play (it failed a
check that stops the host, or was unreachable): a node nobody could judge is not trusted with a
rank. A gate that did not run on a node (a tag left out, a condition that skipped it) reports nothing there;
a node no gate judged is "unjudged": not healthy, and left out of the job while the gates judged other nodes.
When no gate reported on any node the cluster was not judged at all: the job takes the nodes still reached (a node
that dropped out of verify never gets a rank), ``job_nodes`` None when that is every node, so the hostfile takes
every node as after a run without verify.yml; the summary says so.
"""

from __future__ import annotations

STATUSES = ("green", "amber", "red")
# The remedy classes of gpu_health's verdicts, least to most severe (plugins/module_utils/gpu_health.py
# documents where each comes from); the card shows the most severe one among the failing checks.
REMEDIES = ("none", "restart_app", "reset_gpu", "reboot", "isolate")
NOT_REACHED = "not reached at the end of verify (a check failed the host, or it was unreachable)"


def _report(gate, host, report):
    """Check one gate's report on one node; return it, or raise ValueError naming both."""
    if not isinstance(report, dict):
        raise ValueError("%s_report of %s must be a dict, got %s" % (gate, host, type(report).__name__))
    status = report.get("status")
    if status not in STATUSES:
        raise ValueError(
            "%s_report of %s: status must be one of %s, got %r" % (gate, host, ", ".join(STATUSES), status)
        )
    problems = report.get("problems", [])
    if not isinstance(problems, list):
        raise ValueError("%s_report of %s: problems must be a list" % (gate, host))
    return report


def _worst_remedy(reports):
    remedies = [
        v.get("remedy")
        for report in reports
        for v in report.get("verdicts", [])
        if isinstance(v, dict) and not v.get("ok", True) and v.get("remedy") in REMEDIES
    ]
    return max(remedies, key=REMEDIES.index) if remedies else None


def judge(nodes, reports, reached):
    """The cluster's verdict; see the module docstring.

    nodes: the cluster's nodes in inventory order. reports: ``{node: {gate: report | None}}``
    (a missing node or gate: not judged). reached: the nodes still in the play.
    """
    if isinstance(nodes, (str, dict)) or not hasattr(nodes, "__iter__"):
        raise ValueError("nodes must be a list of host names, got %s" % type(nodes).__name__)
    nodes, reached = list(nodes), set(reached)
    if len(set(nodes)) != len(nodes):
        raise ValueError("nodes must not repeat a host")
    cards, healthy, unhealthy, unjudged, judged_by = [], [], {}, [], []
    for host in nodes:
        gates = {gate: report for gate, report in (reports.get(host) or {}).items() if report is not None}
        for gate in gates:
            _report(gate, host, gates[gate])
            if gate not in judged_by:
                judged_by.append(gate)
        problems = [
            "%s: %s" % (gate, problem)
            for gate, report in gates.items()
            if report["status"] != "green"
            for problem in report.get("problems", [])
        ]
        statuses = [report["status"] for report in gates.values()]
        status = max(statuses, key=STATUSES.index) if statuses else "unjudged"
        if host not in reached:
            status = "red"
            problems.insert(0, NOT_REACHED)
        cards.append(
            {
                "host": host,
                "status": status,
                "gates": {gate: report["status"] for gate, report in gates.items()},
                "problems": problems,
                "remedy": _worst_remedy(gates.values()),
            }
        )
        if status == "red":
            unhealthy[host] = problems
        elif status == "unjudged":
            unjudged.append(host)
        else:
            healthy.append(host)
    if judged_by:
        job_nodes = healthy
    else:
        # Not judged: every node still reached (all unjudged); None, "every node", when none dropped out.
        job_nodes = unjudged if unhealthy else None
    verdict = {
        "healthy": healthy,
        "unhealthy": unhealthy,
        "unjudged": unjudged,
        "job_nodes": job_nodes,
        "judged_by": judged_by,
        "cards": cards,
    }
    verdict["summary"] = _summary(verdict)
    return verdict


def _summary(verdict):
    """A count, then one line per red, amber or unjudged node: the message the judging step prints."""
    unjudged = ", %d unjudged" % len(verdict["unjudged"]) if verdict["unjudged"] else ""
    lines = [
        "%d of %d node(s) healthy%s (judged by %s)"
        % (
            len(verdict["healthy"]),
            len(verdict["cards"]),
            unjudged,
            ", ".join(verdict["judged_by"])
            or "no gate: the cluster was not judged, the job takes every node %sas without verify.yml"
            % ("still reached " if verdict["job_nodes"] is not None else ""),
        )
    ]
    for card in verdict["cards"]:
        if card["status"] == "unjudged" and verdict["judged_by"]:
            lines.append("%s unjudged: no gate reported on it, left out of the job" % card["host"])
        elif card["status"] in ("red", "amber"):
            remedy = " (remedy: %s)" % card["remedy"] if card["remedy"] else ""
            lines.append("%s %s%s: %s" % (card["host"], card["status"], remedy, "; ".join(card["problems"])))
    return lines
