# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""``nvidia-smi topo -m``: its matrix parsed (``parse_topo_matrix``), and mpirun's placement of a node's ranks
chosen from it (``mpirun_placement``): each rank next to its GPU's NUMA node when the GPUs allow it.

The matrix, as drivers print it (fixtures in tests/fixtures/nvidia_topo/ name their sources): a header of device
columns (``GPU0`` .. ``GPUn``, NICs as ``NIC0`` or ``mlx5_0``) then ``CPU Affinity``, ``NUMA Affinity`` (drivers
since about R450; older ones print no such column) and ``GPU NUMA ID``; one row per device, its link to every
column (``X`` itself, ``NV#``, ``PIX``, ``PXB``, ``PHB``, ``NODE``, ``SYS``), then for GPUs the CPU list and NUMA node.

The bytes as nvidia-smi writes them, into a file too (as Ansible captures them): driver 590 wraps the header in the
terminal's underline sequence (``\t\x1b[4mGPU0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m``), separates cells
with tabs (with an empty cell before ``GPU NUMA ID``), and follows the matrix with ``Legend:`` and, with NICs,
``NIC Legend:`` blocks (tests/fixtures/nvidia_topo/h200-1gpu-590.48.01-raw.txt, a real H200's, and its .source).

Pure Python, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.scc.training.plugins.module_utils.nvidia_smi import strip_terminal_codes

_GPU = re.compile(r"^GPU(\d+)$")
_AFFINITY_COLUMNS = ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID")


def parse_topo_matrix(text):
    """``nvidia-smi topo -m`` -> {"gpus": [{index, links: {column: link}, cpu_affinity, numa}], "columns": [...],
    "has_numa_column": bool}. ``numa`` is an int, or None where the driver printed none (or N/A)."""
    lines = []
    for line in strip_terminal_codes(text).splitlines():
        if line.strip().startswith(("Legend:", "NIC Legend:")):
            break  # the legends follow the matrix
        if line.strip() and not line.lstrip().startswith("#"):
            lines.append(line)
    header = next((line for line in lines if line.strip().startswith("GPU0")), None)
    if header is None:
        return {"gpus": [], "columns": [], "has_numa_column": False}
    names = [name.strip() for name in re.split(r"\t|\s{2,}", header.strip()) if name.strip()]
    columns = [name for name in names if name not in _AFFINITY_COLUMNS]
    has_numa = "NUMA Affinity" in names
    gpus = []
    for line in lines:
        cells = line.split()
        match = _GPU.match(cells[0]) if cells else None
        if not match or line is header:
            continue
        links = dict(zip(columns, cells[1 : 1 + len(columns)]))
        rest = cells[1 + len(columns) :]
        numa = rest[1] if has_numa and len(rest) > 1 else None
        gpus.append(
            {
                "index": int(match.group(1)),
                "links": links,
                "cpu_affinity": rest[0] if rest else None,
                "numa": int(numa) if numa is not None and numa.isdigit() else None,
            }
        )
    return {"gpus": sorted(gpus, key=lambda gpu: gpu["index"]), "columns": columns, "has_numa_column": has_numa}


def mpirun_placement(topology, ranks_per_node):
    """A node's topology (``parse_topo_matrix``) and its ranks -> {"map_by", "bind_to", "reason"}.

    Rank i of a node drives GPU i (local rank -> device). Open MPI's ``--map-by ppr:K:numa`` places K ranks on each
    NUMA node in turn and ``--bind-to numa`` keeps them there (Open MPI's mpirun(1): "ppr:N:resource"), so local
    rank i lands on NUMA node i // K: that is GPU i's own node exactly when the GPUs, in index order, fill NUMA nodes
    0, 1, ... K at a time and every GPU has a rank. Otherwise no binding (the previous default), with the reason.
    """
    gpus = topology.get("gpus") or []
    unbound = {"map_by": "slot", "bind_to": "none"}
    if not gpus:
        return dict(unbound, reason="no GPU in nvidia-smi topo -m (a CPU node, or nvidia-smi absent): ranks unbound")
    if not topology.get("has_numa_column") or any(gpu["numa"] is None for gpu in gpus):
        return dict(
            unbound, reason="nvidia-smi topo -m names no NUMA node for every GPU (an older driver): ranks unbound"
        )
    if ranks_per_node != len(gpus):
        return dict(
            unbound,
            reason="%d rank(s) per node for %d GPU(s): ranks unbound (a rank per GPU is bound)"
            % (ranks_per_node, len(gpus)),
        )
    nodes = [gpu["numa"] for gpu in gpus]
    per_node = nodes.count(nodes[0])
    expected = [i // per_node for i in range(len(nodes))]
    if nodes != expected:
        return dict(
            unbound,
            reason="the GPUs' NUMA nodes in index order are %s, not %d per node from node 0 up, so mpirun's ppr mapping "
            "cannot follow them: ranks unbound" % (nodes, per_node),
        )
    return {
        "map_by": "ppr:%d:numa" % per_node,
        "bind_to": "numa",
        "reason": "GPUs %s on NUMA nodes %s: %d rank(s) per NUMA node, each bound to its GPU's node"
        % ([gpu["index"] for gpu in gpus], nodes, per_node),
    }


def launch_placement(topo_text, np, nodes, bind_to="auto", map_by="auto"):
    """A launcher's placement: ``bind_to`` and ``map_by`` as set, each ``auto`` one from the first node's
    ``nvidia-smi topo -m`` (``topo_text``, '' when not read) for ``np`` ranks on ``nodes`` nodes of the same type.
    -> {"bind_to", "map_by", "reason"}."""
    if int(nodes) < 1 or int(np) < 1:
        raise ValueError("np (%s) and nodes (%s) must be at least 1" % (np, nodes))
    if bind_to != "auto" and map_by != "auto":
        return {"bind_to": bind_to, "map_by": map_by, "reason": "set by the launcher's bind_to and map_by"}
    per_node, remainder = divmod(int(np), int(nodes))
    if remainder:
        chosen = {"map_by": "slot", "bind_to": "none", "reason": "%s ranks on %s nodes: ranks unbound" % (np, nodes)}
    else:
        chosen = mpirun_placement(parse_topo_matrix(topo_text), per_node)
    return {
        "bind_to": chosen["bind_to"] if bind_to == "auto" else bind_to,
        "map_by": chosen["map_by"] if map_by == "auto" else map_by,
        "reason": chosen["reason"],
    }
