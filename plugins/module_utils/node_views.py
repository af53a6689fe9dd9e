# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Every node's own view of the collection's variables, judged once per distinct view.

validate.yml judges every role's variables before anything changes. Judging them on every node would cost a
role's checks N times; judging them on the first node only let a host_vars value of another node (a batch size of
0 on node7) through. A node's view is the set of values it has for the collection's variables (the names that
start with ``scc_`` or a role's name, set by the inventory, group_vars, host_vars or extra vars, as written, not
templated) and its instance type from the inventory plugin; nodes with the same view are judged once, on the first of them. One pass over
the nodes: linear in their number.
"""

from __future__ import annotations

import hashlib
import json

# What the scc.training.ecs inventory plugin sets per node; a node's type decides the roles' hardware defaults.
INVENTORY_INSTANCE_TYPE = "ecs_instance_type"
DECLARED_INSTANCE_TYPE = "scc_instance_type"
_NODES_SHOWN = 3


def view_digest(values):
    """A digest of one node's values (a mapping name -> value); equal views have equal digests."""
    text = json.dumps(values, sort_keys=True, default=repr, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def nodes_to_judge(views, order):
    """The first node, in ``order``, of each distinct view (``views``: node -> digest)."""
    seen = set()
    judged = []
    for node in order:
        digest = views[node]
        if digest not in seen:
            seen.add(digest)
            judged.append(node)
    return judged


def _nodes_text(nodes):
    if len(nodes) <= _NODES_SHOWN:
        return ", ".join(nodes)
    return "%s and %d more" % (", ".join(nodes[:_NODES_SHOWN]), len(nodes) - _NODES_SHOWN)


def instance_type_problems(types_by_node, order):
    """One problem when the nodes declare (or the inventory reports) more than one instance type, naming them.

    ``types_by_node``: node -> (declared scc_instance_type or None, the inventory's ecs_instance_type or None).
    A node's type is the declared one, else the inventory's; a node with neither has no type and mixes with none.
    The roles resolve one set of hardware defaults for the cluster (thresholds, counts, NCCL environment), so a
    cluster of several types is refused rather than judged by one node's type.
    """
    by_type = {}
    for node in order:
        declared, reported = types_by_node.get(node, (None, None))
        kind = declared if declared not in (None, "") else reported
        if kind not in (None, ""):
            by_type.setdefault(str(kind), []).append(node)
    if len(by_type) <= 1:
        return []
    parts = ["%s (%s)" % (kind, _nodes_text(nodes)) for kind, nodes in sorted(by_type.items())]
    return [
        "%s: the cluster mixes instance types: %s; the roles resolve one set of hardware defaults for the whole "
        "cluster, so run each type as its own cluster group (scc_cluster_group)"
        % (DECLARED_INSTANCE_TYPE, "; ".join(parts))
    ]
