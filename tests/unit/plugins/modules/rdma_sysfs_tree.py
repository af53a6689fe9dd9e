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


# eRDMA: the published `ibv_devinfo` of an H20 node (tests/fixtures/rdma/ibv_devinfo_erdma_h20_stepmesh.txt,
# stepfun-ai/StepMesh PR 32) gives erdma_0's state, link layer, firmware and node GUID; its excerpt ends at erdma_1's
# node_guid, so erdma_1 is a STAND-IN copy of erdma_0 on the next MAC. The MAC is the node GUID's EUI-64 origin
# (0216:3eff:fe2f:3775 -> 00:16:3e:2f:37:75: the U/L bit flipped back, ff:fe removed; 00:16:3e is Alibaba's ECS OUI).
# In the RoCE-compatible driver modes (compat, ofed) a port carries a RoCE v2 GID at index 1, the index PAI presets
# (NCCL_IB_GID_INDEX=1, instance_families.py source ali-pai-erdma); its address (10.0.5.x) is made up for the stand-in.
# NOT a capture of a real eRDMA sysfs tree (no public one was found): the layout is the kernel's (as build_tree).
ERDMA_MAC = "00:16:3e:2f:37:75"


def build_erdma_tree(root, netdevs=("eth1", "eth2"), mtus=(1500, 8500)):
    """A STAND-IN /sys/class/infiniband at ``root`` with erdma_<i> on ``netdevs[i]`` (the published erdma_0 and
    stand-in copies), and their interfaces' ``mtu`` and ``address`` in the ``net`` directory next to it."""
    devices = rdma.parse_ibv_devinfo((FIXTURES / "ibv_devinfo_erdma_h20_stepmesh.txt").read_text())
    published = devices[0]
    first = int(ERDMA_MAC.replace(":", ""), 16)
    for i, (netdev, mtu) in enumerate(zip(netdevs, mtus)):
        mac = "%012x" % (first + i)
        mac = ":".join(mac[j : j + 2] for j in range(0, 12, 2))
        eui = "%02x%s:%sff:fe%s:%s" % (int(mac[0:2], 16) ^ 2, mac[3:5], mac[6:8], mac[9:11], mac[12:14] + mac[15:17])
        dev_dir = root / ("erdma_%d" % i)
        _write(dev_dir / "fw_ver", published["fw_ver"])
        _write(dev_dir / "node_guid", eui)
        port = published["ports"][0]
        port_dir = dev_dir / "ports" / str(port["port"])
        _write(port_dir / "state", "4: ACTIVE" if port["state"] == "PORT_ACTIVE" else "1: DOWN")
        _write(port_dir / "phys_state", "5: LinkUp")
        _write(port_dir / "link_layer", port["link_layer"])
        _write(port_dir / "gids" / "0", "fe80:0000:0000:0000:%s" % eui)
        _write(port_dir / "gid_attrs" / "types" / "0", "IB/RoCE v1")
        _write(port_dir / "gid_attrs" / "ndevs" / "0", netdev)
        _write(port_dir / "gids" / "1", "0000:0000:0000:0000:0000:ffff:0a00:05%02x" % (76 + i))
        _write(port_dir / "gid_attrs" / "types" / "1", "RoCE v2")
        _write(port_dir / "gid_attrs" / "ndevs" / "1", netdev)
        _write(root.parent / "net" / netdev / "mtu", str(mtu))
        _write(root.parent / "net" / netdev / "address", mac)
    return root
