# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Find the slow nodes of a cluster by bisection: rounds of parallel, disjoint group runs.

The oracle is a group run: two or more nodes run all_reduce together, and the group is slow when it
holds a bad node. Round 1 is the whole cluster. While a group is known slow ("positive": it holds at
least one bad node), the next round splits it in halves and runs every half of every positive group
at once. A half down to one suspect runs with a node already proven good (one partner per group, so
the groups of a round stay disjoint); before any node is proven good, two lone suspects of different
groups run together (a fast pair proves both good). Deductions save runs: when every other half of a
positive group is fast, the untested half is positive without a run, and a positive group of one
node is that bad node. One bad node among N takes 1 + ceil(log2 N) rounds; no bad node takes round
1 alone; never the N^2 pairs of all-pairs testing.

The planner is driven round by round by its caller (a module or a playbook runs each round's
groups in parallel) and keeps everything in a JSON-serialisable state:

    state = new_state(nodes)
    while not state["done"]:
        groups = next_round(state)              # [[host, ...], ...], disjoint
        state = record(state, [{"hosts": g, "ok": run(g), "busbw_gbps": x} for g in groups])
    state["bad"], state["unresolved"], state["rounds"]

``unresolved``: suspects that could not be told apart (no node proven good to pair them with, or a
next round that would only repeat groups already run: e.g. two nodes, slow together). ``unreproduced``: positive
groups whose halves were all fast (a slowness of the whole group only: a switch, or noise).
No Ansible imports; the module scc.training.nccl_bisect drives it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy


def new_state(nodes):
    """The state before round 1: every node a suspect of the one positive-or-not group, the cluster."""
    nodes = [str(n) for n in nodes]
    if len(nodes) < 2:
        raise ValueError("bisection needs at least 2 nodes (a group run is >= 2 nodes), got %d" % len(nodes))
    if len(set(nodes)) != len(nodes):
        raise ValueError("nodes must be unique, got %s" % ", ".join(nodes))
    return {
        "nodes": nodes,
        "good": [],
        "bad": [],
        # Positive groups (each holds >= 1 bad node), and suspects known to be in none of them.
        "positive": [],
        "unknown": [],
        "unresolved": [],
        "unreproduced": [],
        "rounds": [],
        "plan": [{"hosts": list(nodes), "suspects": list(nodes), "kind": "cluster"}],
        "done": False,
    }


def _halves(group):
    middle = (len(group) + 1) // 2
    return [group[:middle], group[middle:]]


def _key(hosts):
    return tuple(sorted(hosts))


def _tried(state):
    return {_key(group["hosts"]) for r in state["rounds"] for group in r["groups"]}


def _plan(state):
    """The tests of the next round: the halves of every positive group, then the lone suspects."""
    good = list(state["good"])
    tried = _tried(state)
    plan = []
    singles = []
    for parent, group in enumerate(state["positive"]):
        for half in _halves(group):
            if len(half) > 1:
                plan.append({"hosts": list(half), "suspects": list(half), "kind": "part"})
            else:
                singles.append((half[0], parent))
    singles += [(node, None) for node in state["unknown"]]
    waiting = []
    for node, parent in singles:
        if good:
            partner = good.pop(0)
            plan.append({"hosts": [node, partner], "suspects": [node], "kind": "partner"})
        else:
            waiting.append((node, parent))
    # No good node left to pair with: lone suspects of different groups run together, in a pair not
    # run before (a fast pair proves both good; a pair run before would tell nothing new).
    while waiting:
        first = waiting.pop(0)
        other = next(
            (w for w in waiting if (w[1] is None or w[1] != first[1]) and _key([first[0], w[0]]) not in tried), None
        )
        if other:
            waiting.remove(other)
            pair = [first[0], other[0]]
            plan.append({"hosts": pair, "suspects": list(pair), "kind": "cross"})
    return plan


def next_round(state):
    """The groups (lists of hosts) to run at once in the next round; [] when the search is done."""
    if state["done"]:
        return []
    return [list(test["hosts"]) for test in state["plan"]]


def _result_for(results, hosts):
    for result in results:
        if _key(str(h) for h in result["hosts"]) == _key(hosts):
            return result
    raise ValueError("no result for the group %s of this round" % ", ".join(hosts))


def record(state, results):
    """The state after this round's ``results`` (``[{hosts, ok, busbw_gbps}]``, one per group of
    ``next_round``, any order); appends the round to ``rounds`` and plans the next one."""
    if state["done"]:
        raise ValueError("the bisection is done; there is no round to record")
    state = copy.deepcopy(state)
    plan = state["plan"]
    groups = []
    for test in plan:
        result = _result_for(results, test["hosts"])
        test["ok"] = bool(result["ok"])
        groups.append({"hosts": list(test["hosts"]), "busbw_gbps": result.get("busbw_gbps"), "ok": test["ok"]})
    state["rounds"].append({"round": len(state["rounds"]) + 1, "groups": groups})

    good, bad = set(state["good"]), set(state["bad"])
    positive, unknown = [], []
    for test in plan:
        if test["ok"]:
            good.update(test["suspects"])
        elif test["kind"] in ("cluster", "part"):
            positive.append(list(test["suspects"]))
        elif test["kind"] == "partner":
            bad.update(test["suspects"])
    # What each old positive group's halves tell (a half of two or more nodes always ran alone).
    for group in state["positive"]:
        halves = _halves(group)
        slow = [h for h in halves if h in positive or set(h) & bad]
        open_halves = [h for h in halves if h not in slow and not set(h) <= good]
        if slow:
            # Lone suspects no run judged (a slow cross pair, or no partner): in no positive group now.
            unknown += [h[0] for h in open_halves]
        elif not open_halves:
            state["unreproduced"].append(list(group))
        elif len(open_halves) == 1:
            # The rest of a positive group is fast: the bad node is in the one half left.
            positive.append(list(open_halves[0]))
        else:
            positive.append(list(group))
    for node in state["unknown"]:
        if node not in good and node not in bad and node not in unknown:
            unknown.append(node)
    # Single-node positive groups are their bad node.
    for group in [g for g in positive if len(g) == 1]:
        bad.add(group[0])
    positive = [g for g in positive if len(g) > 1]
    order = {node: i for i, node in enumerate(state["nodes"])}
    state["good"] = sorted(good, key=order.get)
    state["bad"] = sorted(bad, key=order.get)
    state["positive"] = positive
    state["unknown"] = [n for n in unknown if n not in good and n not in bad]
    state["plan"] = _plan(state) if positive or state["unknown"] else []
    # A round made only of groups already run would tell nothing new (the suspects left cannot be
    # told apart: every pair of them is slow).
    tried = _tried(state)
    stuck = all(_key(test["hosts"]) in tried for test in state["plan"])
    if not state["plan"] or stuck:
        left = {n for g in positive for n in g} | set(state["unknown"])
        state["unresolved"] = sorted(left, key=order.get)
        state["plan"] = []
        state["done"] = True
    return state


def bisect(nodes, run_group, max_rounds=None):
    """Drive the planner to the end: ``run_group(hosts) -> (ok, busbw_gbps)``; returns the final
    state. ``max_rounds`` guards a caller against a planner bug (it is never reached: every round
    makes progress or ends the search)."""
    state = new_state(nodes)
    limit = max_rounds or 4 * len(state["nodes"])
    while not state["done"]:
        if len(state["rounds"]) >= limit:
            raise RuntimeError("bisection did not end in %d rounds" % limit)
        results = []
        for hosts in next_round(state):
            ok, busbw = run_group(hosts)
            results.append({"hosts": hosts, "ok": ok, "busbw_gbps": busbw})
        state = record(state, results)
    return state


def summary(state):
    """The contract's ``bisection``: ``{rounds, bad_nodes, unresolved, unreproduced}``."""
    return {
        "rounds": state["rounds"],
        "bad_nodes": list(state["bad"]),
        "unresolved": list(state["unresolved"]),
        "unreproduced": list(state["unreproduced"]),
    }
