# -*- coding: utf-8 -*-
"""Builds a /sys/class/infiniband tree from real published outputs (a STAND-IN for RDMA hardware).

There is no public capture of a whole /sys/class/infiniband tree, so the tree is BUILT from a
real published output: `show_gids` prints exactly the files ports/<n>/gids/<i>,
gid_attrs/types/<i> and gid_attrs/ndevs/<i>, and `ibstat` of the same host gives state, rate and
link layer. File contents use the kernel's formats (drivers/infiniband/core/sysfs.c: state
"4: ACTIVE", phys_state "5: LinkUp", rate "100 Gb/sec (4X EDR)"; gid_attrs/types "IB/RoCE v1" or
"RoCE v2"; unset GIDs read as zeros). A bond's slaves go to the `net` class directory next to the
tree (`<net>/<bond>/bonding/slaves`, the bonding driver's space-separated list). Used by the unit
tests of rdma_info and by the lab test of ib_check.
"""

from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[4] / ".collections"))

from ansible_collections.scc.training.plugins.module_utils import rdma

FIXTURES = pathlib.Path(__file__).resolve().parents[3] / "fixtures" / "rdma"
_STATE = {"Active": "4: ACTIVE", "Down": "1: DOWN"}
_PHYS = {"LinkUp": "5: LinkUp", "Disabled": "3: Disabled"}


def _show_gids(name):
    """Rows (dev, port, index, gid, version, netdev) of a show_gids fixture."""
    rows = []
    for line in (FIXTURES / name).read_text().splitlines():
        fields = line.split()
        if len(fields) < 5 or not fields[1].isdigit():
            continue
        netdev = fields[-1] if fields[-1] not in ("v1", "v2") else None
        version = fields[-2] if netdev else fields[-1]
        rows.append((fields[0], int(fields[1]), int(fields[2]), fields[3], version, netdev))
    return rows


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n")


def build_tree(root, gids_fixture, ibstat_fixture=None, unset_gids=(), bonds=None):
    for bond, slaves in (bonds or {}).items():
        _write(root.parent / "net" / bond / "bonding" / "slaves", " ".join(slaves))
    cas = rdma.parse_ibstat((FIXTURES / ibstat_fixture).read_text()) if ibstat_fixture else {}
    for dev, port, index, gid, version, netdev in _show_gids(gids_fixture):
        port_dir = root / dev / "ports" / str(port)
        _write(port_dir / "gids" / str(index), gid)
        _write(port_dir / "gid_attrs" / "types" / str(index), "RoCE v2" if version == "v2" else "IB/RoCE v1")
        if netdev:
            _write(port_dir / "gid_attrs" / "ndevs" / str(index), netdev)
        for unset in unset_gids:
            _write(port_dir / "gids" / str(unset), "0000:0000:0000:0000:0000:0000:0000:0000")
        ca = cas.get(dev)
        if ca:
            _write(root / dev / "fw_ver", ca["firmware_version"])
            info = ca["ports"][port]
            _write(port_dir / "state", _STATE[info["state"]])
            _write(port_dir / "phys_state", _PHYS[info["physical_state"]])
            _write(port_dir / "rate", "%s Gb/sec (4X EDR)" % info["rate_gbps"])
            _write(port_dir / "link_layer", info["link_layer"])
    return root
