# -*- coding: utf-8 -*-
"""The sysfs reader and the rdma_info module, on /sys/class/infiniband trees built from real
published outputs (rdma_sysfs_tree.py says how)."""

from __future__ import annotations

import importlib.util
import pathlib
import shutil

from ansible_collections.scc.training.plugins.module_utils import rdma
from ansible_collections.scc.training.plugins.modules import rdma_info
from tests.unit.plugins.modules.module_runner import run_module

_spec = importlib.util.spec_from_file_location(
    "rdma_sysfs_tree", pathlib.Path(__file__).resolve().parent / "rdma_sysfs_tree.py"
)
_tree = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_tree)
build_tree = _tree.build_tree
FIXTURES = _tree.FIXTURES


def test_read_sysfs_roce_and_ib_ports(tmp_path):
    root = build_tree(tmp_path / "infiniband", "show_gids_mlx5_roce.txt", "ibstat_roce_active_ib_down.txt")
    devices = rdma.annotate_gid_index(rdma.read_sysfs(str(root)))
    assert [d["name"] for d in devices] == ["mlx5_0", "mlx5_1"]
    roce = devices[0]["ports"][0]
    assert (roce["port"], roce["state"], roce["phys_state"], roce["link_layer"], roce["rate_gbps"]) == (
        1,
        "PORT_ACTIVE",
        "LinkUp",
        "Ethernet",
        100,
    )
    assert roce["netdev"] == "ens11f0"
    assert [(g["index"], g["type"], g["netdev"]) for g in roce["gids"]] == [
        (0, "RoCE v1", "ens11f0"),
        (1, "RoCE v2", "ens11f0"),
    ]
    assert roce["roce_v2_gid_index"] == 1
    assert devices[0]["fw_ver"] == "12.28.1002"
    ib = devices[1]["ports"][0]
    assert (ib["state"], ib["link_layer"], ib["rate_gbps"], ib["netdev"], ib["roce_v2_gid_index"]) == (
        "PORT_DOWN",
        "InfiniBand",
        10,
        None,
        None,
    )


def test_read_sysfs_skips_unset_gids_and_finds_index_7(tmp_path):
    root = build_tree(tmp_path / "infiniband", "show_gids_mlx5_macvlan_index7.txt", unset_gids=(0, 1, 2, 3))
    devices = rdma.annotate_gid_index(rdma.read_sysfs(str(root)))
    assert [d["name"] for d in devices] == ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]
    assert [g["index"] for g in devices[0]["ports"][0]["gids"]] == [4, 5, 6, 7]
    assert [d["ports"][0]["roce_v2_gid_index"] for d in devices] == [7, 7, 7, 5]
    assert [d["ports"][0]["netdev"] for d in devices] == ["net1", "net2", "net3", "net4"]


def test_read_sysfs_absent_or_empty(tmp_path):
    assert rdma.read_sysfs(str(tmp_path / "missing")) == []
    (tmp_path / "empty").mkdir()
    assert rdma.read_sysfs(str(tmp_path / "empty")) == []


def test_merge_completes_ibv_devinfo_from_sysfs_and_ibstat(tmp_path):
    # ibv_devinfo without -v has no GIDs or rate: sysfs (and ibstat) fill them in.
    tool = [
        {"name": "mlx5_0", "ports": [{"port": 1, "state": "PORT_ACTIVE", "link_layer": "Ethernet", "gids": []}]},
        {"name": "mlx5_1", "ports": [{"port": 1, "state": "PORT_DOWN", "link_layer": "InfiniBand", "gids": []}]},
    ]
    root = build_tree(tmp_path / "infiniband", "show_gids_mlx5_roce.txt")
    cas = rdma.parse_ibstat((FIXTURES / "ibstat_roce_active_ib_down.txt").read_text())
    merged = rdma.annotate_gid_index(rdma.merge_devices(tool, rdma.read_sysfs(str(root)), cas))
    assert [p["rate_gbps"] for d in merged for p in d["ports"]] == [100, 10]
    assert merged[0]["ports"][0]["netdev"] == "ens11f0"
    assert merged[0]["ports"][0]["roce_v2_gid_index"] == 1


def test_read_sysfs_bonded_port_lists_its_slaves(tmp_path):
    root = build_tree(
        tmp_path / "infiniband",
        "show_gids_mlx5_bond_roce.txt",
        "ibstat_mlx5_bond_roce.txt",
        bonds={"bond0": ["eth0", "eth1"]},
    )
    (device,) = rdma.annotate_gid_index(rdma.read_sysfs(str(root)))
    (port,) = device["ports"]
    assert (device["name"], port["netdev"], port["bond_slaves"], port["rate_gbps"]) == (
        "mlx5_bond_0",
        "bond0",
        ["eth0", "eth1"],
        25,
    )
    # The IPv4 RoCE v2 GID, not the link-local one.
    assert port["roce_v2_gid_index"] == 3
    assert rdma.port_problems([device], 2, "Ethernet", 25) == []
    # Without the bond in the net class directory the port is one link.
    (tmp_path / "net" / "bond0" / "bonding" / "slaves").unlink()
    assert rdma.read_sysfs(str(root))[0]["ports"][0]["bond_slaves"] == []


def _stack(devices, source="ibv_devinfo"):
    return {"rdma_present": bool(devices), "source": source, "devices": devices}


def test_stack_problems_on_sysfs_trees(tmp_path):
    bond = rdma.annotate_gid_index(
        rdma.read_sysfs(
            str(build_tree(tmp_path / "b" / "infiniband", "show_gids_mlx5_bond_roce.txt", "ibstat_mlx5_bond_roce.txt"))
        )
    )
    assert rdma.stack_problems(_stack(bond)) == []
    # rdma_info fell back to sysfs: the userspace did not list the device.
    assert rdma.stack_problems(_stack(bond, source="sysfs")) == [
        "the userspace lists no device while the kernel has mlx5_bond_0: ibv_devinfo is missing or libibverbs has no "
        "provider for this NIC"
    ]
    # sysfs has no MTU: only ibv_devinfo tells it.
    assert rdma.stack_problems(_stack(bond), mtu=4096) == ["mlx5_bond_0 port 1 (bond0): active MTU None, expected 4096"]
    bond[0]["ports"][0]["active_mtu"] = 4096
    assert rdma.stack_problems(_stack(bond), mtu=4096) == []
    # A RoCE port whose GID table has no RoCE v2 entry (only v1 GIDs kept).
    root = build_tree(tmp_path / "v1" / "infiniband", "show_gids_mlx5_bond_roce.txt", "ibstat_mlx5_bond_roce.txt")
    for index in (1, 3):
        for sub in ("gids", "gid_attrs/types", "gid_attrs/ndevs"):
            (root / "mlx5_bond_0" / "ports" / "1" / sub / str(index)).unlink()
    v1_only = rdma.annotate_gid_index(rdma.read_sysfs(str(root)))
    assert rdma.stack_problems(_stack(v1_only)) == [
        "mlx5_bond_0 port 1 (bond0): no RoCE v2 entry in its GID table (GID types: RoCE v1)"
    ]


def test_stack_problems_without_devices_or_active_ports(tmp_path):
    assert rdma.stack_problems(_stack([], source="none")) == [
        "no RDMA device: the kernel lists none (load the NIC's RDMA driver: mlx5_ib for ConnectX, erdma for an "
        "Alibaba Elastic RDMA Interface)"
    ]
    root = build_tree(tmp_path / "infiniband", "show_gids_mlx5_roce.txt", "ibstat_roce_active_ib_down.txt")
    devices = rdma.annotate_gid_index(rdma.read_sysfs(str(root)))
    # mlx5_0 (RoCE, active, RoCE v2 at index 1) is fine; mlx5_1 (InfiniBand) is down: not a stack problem.
    assert rdma.stack_problems(_stack(devices)) == []
    shutil.rmtree(root / "mlx5_0")
    assert rdma.stack_problems(_stack(rdma.read_sysfs(str(root)))) == ["no active port on mlx5_1"]


def test_stack_problems_on_ibv_devinfo_without_gid_types():
    # An rdma-core that prints no GID types, and no sysfs to complete it: no RoCE v2 entry can be shown.
    devices = rdma.annotate_gid_index(rdma.parse_ibv_devinfo((FIXTURES / "ibv_devinfo_v_rxe_roce.txt").read_text()))
    assert rdma.stack_problems(_stack(devices), mtu=1024) == [
        "rxe0 port 1: no RoCE v2 entry in its GID table (GID types: None)"
    ]


def run(**args):
    result = run_module(rdma_info, args)
    assert not result["failed"], result
    return result


def test_module_on_a_host_without_rdma(tmp_path):
    result = run(sysfs_path=str(tmp_path / "no-such-dir"), use_tools=False)
    assert result["changed"] is False
    assert result["rdma_present"] is False
    assert result["source"] == "none"
    assert result["devices"] == []
    assert result["active_ports"] == []


def test_module_reads_a_sysfs_tree(tmp_path):
    root = build_tree(tmp_path / "infiniband", "show_gids_mlx5_roce.txt", "ibstat_roce_active_ib_down.txt")
    result = run(sysfs_path=str(root), use_tools=False)
    assert result["rdma_present"] is True
    assert result["source"] == "sysfs"
    assert result["active_ports"] == ["mlx5_0:1"]
    port = result["devices"][0]["ports"][0]
    assert (port["roce_v2_gid_index"], port["netdev"], port["rate_gbps"]) == (1, "ens11f0", 100)


def test_module_uses_ibv_devinfo_when_present(tmp_path, monkeypatch):
    """A stand-in ibv_devinfo on PATH that prints a real published output."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    tool = bindir / "ibv_devinfo"
    tool.write_text("#!/bin/sh\ncat '%s'\n" % (FIXTURES / "ibv_devinfo_v_rxe_roce.txt"))
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", "%s:/usr/bin:/bin" % bindir)
    result = run(sysfs_path=str(tmp_path / "none"), use_tools=True)
    assert result["source"] == "ibv_devinfo"
    assert result["active_ports"] == ["rxe0:1"]
    port = result["devices"][0]["ports"][0]
    assert port["link_layer"] == "Ethernet"
    # No sysfs and no GID types in this output: no index is guessed.
    assert port["roce_v2_gid_index"] is None
