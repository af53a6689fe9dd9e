"""rdma_info and ib_check on lab hosts, which have no RDMA devices: rdma_info reports none,
ib_check fails with its documented message (or skips when the cluster is declared TCP), a bad
variable fails in validate before any host is contacted, and on a STAND-IN sysfs tree (built
from real published show_gids + ibstat outputs) ib_check passes, or fails naming the one bad port;
on a stand-in bonded layout (one mlx5_bond_0 on a bond of two slaves, re-typed in the same
layouts) the same two-link expectation passes."""

import importlib.util
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.lab_runner import changed, lab_fixture, results_by_host, run_playbook

ROOT = Path(__file__).resolve().parents[2]
ADDRESSES = ("127.0.10.11", "127.0.10.12")
_spec = importlib.util.spec_from_file_location(
    "rdma_sysfs_tree", ROOT / "tests" / "unit" / "plugins" / "modules" / "rdma_sysfs_tree.py"
)
_tree = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_tree)

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the lab needs root")

PLAY_RDMA_INFO = """
- name: Read the RDMA devices
  hosts: scc_cluster
  gather_facts: false
  tasks:
    - name: Run rdma_info
      scc.training.rdma_info:
"""
PLAY_IB_CHECK = """
- name: Check the RDMA fabric
  hosts: scc_cluster
  gather_facts: false
  roles:
    - scc.training.ib_check
"""


lab = lab_fixture(len(ADDRESSES), ADDRESSES[0], name="ibcheck")


def run(lab, workdir, playbook_text=None, playbook=None, extravars=None, check=False):
    """(status, events) of one run on the lab's hosts; playbook_text is written to a file first."""
    if playbook_text is not None:
        playbook = Path(tempfile.mkdtemp(dir=workdir, prefix="play-")) / "play.yml"
        playbook.write_text(playbook_text)
    # The lab declares scc_transport: tcp (no RDMA); these tests exercise ib_check's RDMA checks.
    extravars = {"scc_transport": "rdma", **(extravars or {})}
    status, _rc, events = run_playbook(playbook, lab.inventory, workdir, extravars, check=check)
    return status, events


def reports(events):
    """ib_check's closing report of each node, sorted."""
    return sorted(
        e["event_data"]["res"]["msg"]
        for e in events
        if e["event"] == "runner_on_ok" and e["event_data"]["task"] == "Report the RDMA ports"
    )


def test_rdma_info_reports_no_devices_on_lab_hosts(lab, tmp_path):
    status, events = run(lab, tmp_path, PLAY_RDMA_INFO)
    assert status == "successful"
    results = results_by_host(events, "runner_on_ok")
    assert sorted(results) == ["node1", "node2"]
    for res in results.values():
        assert (res["rdma_present"], res["source"], res["devices"], res["active_ports"], res["changed"]) == (
            False,
            "none",
            [],
            [],
            False,
        )


def test_ib_check_fails_with_the_documented_message_without_rdma(lab, tmp_path):
    status, events = run(lab, tmp_path, PLAY_IB_CHECK)
    assert status == "failed"
    failures = results_by_host(events, "runner_on_failed")
    assert sorted(failures) == ["node1", "node2"]
    for host, res in failures.items():
        assert res["msg"] == (
            f"ib_check: {host} has no RDMA device (/sys/class/infiniband is missing or empty): load the "
            "NIC's RDMA driver (mlx5_ib for ConnectX), or set ib_check_transport: tcp for a cluster without RDMA."
        )
    assert changed(events) == []


def test_ib_check_skips_when_declared_tcp(lab, tmp_path):
    status, events = run(lab, tmp_path, PLAY_IB_CHECK, extravars={"ib_check_transport": "tcp"})
    assert status == "successful"
    messages = [e["event_data"]["res"].get("msg") for e in events if e["event"] == "runner_on_ok"]
    for host in ("node1", "node2"):
        assert f"ib_check: skipped on {host}: ib_check_transport is tcp (no RDMA fabric declared)." in messages
    # rdma_info never ran.
    assert not [
        e
        for e in events
        if e["event_data"].get("task") == "Read the RDMA devices and ports" and e["event"] == "runner_on_ok"
    ]


def test_bad_variable_fails_in_validate_before_any_host(lab, tmp_path):
    status, events = run(
        lab,
        tmp_path,
        playbook=ROOT / "playbooks" / "validate.yml",
        extravars={"ib_check_transport": "roce", "scc_validate_roles": ["scc.training.ib_check"]},
    )
    assert status == "failed"
    failures = results_by_host(events, "runner_on_failed")
    # The role's argument spec (choices) or its validate.yml: either way the message names the variable.
    assert failures and all("ib_check_transport" in res["msg"] and "roce" in res["msg"] for res in failures.values()), (
        failures
    )
    assert changed(events) == []
    assert not [e for e in events if e["event_data"].get("task") == "Read the RDMA devices and ports"]


def test_ib_check_on_a_stand_in_sysfs_tree(lab, tmp_path):
    """The lab's shared directory is /mnt/cpfs on every host: a stand-in /sys/class/infiniband
    with mlx5_0 (RoCE, active, 100 Gb/s) and mlx5_1 (InfiniBand, down), from the fixtures."""
    tree = _tree.build_tree(
        lab.shared / "stand-in-infiniband", "show_gids_mlx5_roce.txt", "ibstat_roce_active_ib_down.txt"
    )
    expect = {
        "ib_check_sysfs_path": "/mnt/cpfs/stand-in-infiniband",
        "ib_check_expected_links": 2,
        "ib_check_expected_link_layer": "Ethernet",
        "ib_check_expected_rate_gbps": 100,
    }
    try:
        status, events = run(lab, tmp_path, PLAY_IB_CHECK, extravars=expect)
        assert status == "failed"
        failures = results_by_host(events, "runner_on_failed")
        assert sorted(failures) == ["node1", "node2"]
        for host, res in failures.items():
            assert res["msg"] == [
                f"ib_check: {host}: 1 problem(s), expected 2 link(s) with ports PORT_ACTIVE, link layer "
                "Ethernet, 100 Gb/s:",
                "mlx5_1 port 1: state PORT_DOWN, expected PORT_ACTIVE; link layer InfiniBand, expected Ethernet; "
                "rate 10 Gb/s, expected 100 Gb/s",
            ]

        # Without the down device, the same tree passes, also in --check, and nothing changes.
        shutil.rmtree(tree / "mlx5_1")
        for check in (False, True):
            status, events = run(
                lab, tmp_path, PLAY_IB_CHECK, check=check, extravars={**expect, "ib_check_expected_links": 1}
            )
            assert status == "successful", results_by_host(events, "runner_on_failed")
            assert changed(events) == []
            assert reports(events) == [
                f"ib_check: {h}: mlx5_0:1 active, Ethernet, 100 Gb/s (RoCE v2 GID index 1)." for h in ("node1", "node2")
            ]
    finally:
        shutil.rmtree(tree, ignore_errors=True)


def test_ib_check_nodes_must_match_the_first(lab, tmp_path):
    """Per-node stand-in trees: node1's from the fixtures, node2's the same without the RoCE v2
    GID of mlx5_0 (so NCCL_IB_GID_INDEX from node1 would be wrong there). Each node passes its own
    checks; the cluster check, run once, names node2."""
    base = lab.shared / "stand-in-per-node"
    try:
        for host in ("node1", "node2"):
            tree = _tree.build_tree(base / host, "show_gids_mlx5_roce.txt", "ibstat_roce_active_ib_down.txt")
            shutil.rmtree(tree / "mlx5_1")
        for sub in ("gids", "gid_attrs/types", "gid_attrs/ndevs"):
            (base / "node2" / "mlx5_0" / "ports" / "1" / sub / "1").unlink()
        status, events = run(
            lab,
            tmp_path,
            PLAY_IB_CHECK,
            extravars={
                "ib_check_sysfs_path": "/mnt/cpfs/stand-in-per-node/{{ inventory_hostname }}",
                "ib_check_expected_links": 1,
                "ib_check_expected_rate_gbps": 100,
            },
        )
        assert status == "failed"
        failures = results_by_host(events, "runner_on_failed")
        assert list(failures) == ["node1"]
        assert failures["node1"]["msg"] == [
            "ib_check: the nodes differ from node1 (NCCL would be given its ports):",
            "node2: RoCE v2 GID index mlx5_0:1=None, node1 has mlx5_0:1=1",
        ]
        assert changed(events) == []
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_ib_check_accepts_a_bonded_layout(lab, tmp_path):
    """sccgn6's two 25 Gb/s links as one RoCE LAG port: mlx5_bond_0 on bond0 (slaves eth0, eth1) passes
    the default expectation of two links; with one slave left it fails naming the count."""
    base = lab.shared / "stand-in-bond"
    try:
        _tree.build_tree(
            base / "infiniband",
            "show_gids_mlx5_bond_roce.txt",
            "ibstat_mlx5_bond_roce.txt",
            bonds={"bond0": ["eth0", "eth1"]},
        )
        extravars = {"ib_check_sysfs_path": "/mnt/cpfs/stand-in-bond/infiniband"}
        status, events = run(lab, tmp_path, PLAY_IB_CHECK, extravars=extravars)
        assert status == "successful", results_by_host(events, "runner_on_failed")
        assert reports(events) == [
            f"ib_check: {h}: mlx5_bond_0:1 active, Ethernet, 25 Gb/s (RoCE v2 GID index 3)." for h in ("node1", "node2")
        ]
        (base / "net" / "bond0" / "bonding" / "slaves").write_text("eth0\n")
        status, events = run(lab, tmp_path, PLAY_IB_CHECK, extravars=extravars)
        assert status == "failed"
        failures = results_by_host(events, "runner_on_failed")
        assert sorted(failures) == ["node1", "node2"]
        assert {res["msg"][1] for res in failures.values()} == {
            "1 link(s) found (mlx5_bond_0 port 1 (bond0 of eth0)), expected 2"
        }
        assert changed(events) == []
    finally:
        shutil.rmtree(base, ignore_errors=True)


PLAY_RDMA_STACK_CONFIGURE = """
- name: Configure the RDMA stack
  hosts: scc_cluster
  gather_facts: false
  tasks:
    - name: Run rdma_stack's configure step
      ansible.builtin.include_role:
        name: scc.training.rdma_stack
        tasks_from: configure
"""


def test_rdma_stack_sets_the_erdma_interface_mtu_now_and_at_boot(lab, tmp_path):
    """Issue 35: on an ebmgn8v cluster with jumbo frames rdma_stack gives each eRDMA port's interface MTU 8500 (the
    value resolved from scc_instance_type and scc_jumbo_frames, as provision.yml asks RunInstances for it). Per-node
    STAND-IN sysfs trees (rdma_sysfs_tree.build_erdma_tree: the published erdma_0 and a stand-in copy) with eth1 at
    1500 and eth2 already at 8500: eth1's sysfs mtu file is written, eth2's not, each gets its systemd.link file; the
    second run changes nothing; --check on a node set back predicts the .link file and writes nothing."""
    base = lab.shared / "stand-in-erdma"
    settings = {
        "scc_instance_type": "ecs.ebmgn8v.48xlarge",
        "scc_jumbo_frames": True,
        # The eRDMA installer and the erdma driver's mode need a real ERI: the distribution's userspace here.
        "rdma_stack_source": "distro",
        "rdma_stack_sysfs_path": "/mnt/cpfs/stand-in-erdma/{{ inventory_hostname }}/class/infiniband",
    }
    links = "/etc/systemd/network/05-scc-training-mtu-eth1.link /etc/systemd/network/05-scc-training-mtu-eth2.link"
    try:
        for host in ("node1", "node2"):
            _tree.build_erdma_tree(base / host / "class" / "infiniband")
        status, events = run(lab, tmp_path, PLAY_RDMA_STACK_CONFIGURE, extravars=settings)
        assert status == "successful", results_by_host(events, "runner_on_failed")
        wrote = [
            (e["event_data"]["host"], e["event_data"]["res"]["item"]["netdev"])
            for e in events
            if e["event"] == "runner_item_on_ok"
            and e["event_data"]["task"] == "Set the MTU of the RDMA interfaces now"
            and e["event_data"]["res"].get("changed")
        ]
        assert sorted(wrote) == [("node1", "eth1"), ("node2", "eth1")]
        for host in lab.load():
            for netdev in ("eth1", "eth2"):
                assert (base / host.name / "class" / "net" / netdev / "mtu").read_text().strip() == "8500"
            shown = lab.ssh(host.address, f"cat {links.split()[0]}")
            assert shown.returncode == 0, shown
            assert "[Match]\nMACAddress=00:16:3e:2f:37:75\n\n[Link]\nName=eth1\nMTUBytes=8500\n" in shown.stdout
            assert lab.ssh(host.address, f"grep -x MTUBytes=8500 {links.split()[1]}").returncode == 0

        status, events = run(lab, tmp_path, PLAY_RDMA_STACK_CONFIGURE, extravars=settings)
        assert status == "successful" and changed(events) == []

        # node1 set back (its eth1 at 1500, its .link file gone): --check predicts the file and writes nothing.
        (base / "node1" / "class" / "net" / "eth1" / "mtu").write_text("1500\n")
        address = next(h.address for h in lab.load() if h.name == "node1")
        assert lab.ssh(address, f"rm {links.split()[0]}").returncode == 0
        status, events = run(lab, tmp_path, PLAY_RDMA_STACK_CONFIGURE, extravars=settings, check=True)
        assert status == "successful", results_by_host(events, "runner_on_failed")
        assert changed(events) == [("node1", "Set the MTU of the RDMA interfaces at every boot")]
        assert (base / "node1" / "class" / "net" / "eth1" / "mtu").read_text().strip() == "1500"
        assert lab.ssh(address, f"test ! -e {links.split()[0]}").returncode == 0
    finally:
        shutil.rmtree(base, ignore_errors=True)
        for host in lab.load():
            lab.ssh(host.address, f"rm -f {links}")


def test_ib_check_on_a_stand_in_erdma_node(lab, tmp_path):
    """An ebmgn8v node as the lab imitates it: the STAND-IN eRDMA tree (rdma_sysfs_tree.build_erdma_tree, from the
    published H20 erdma_0) judged against what scc_instance_type alone gives (two ERIs per node, Ethernet; no rate: the
    eRDMA sysfs rate is unconfirmed): it passes; with erdma_1's port down it fails naming it and the count."""
    base = lab.shared / "stand-in-erdma-ib"
    try:
        tree = _tree.build_erdma_tree(base / "class" / "infiniband", mtus=(8500, 8500))
        extravars = {
            "scc_instance_type": "ecs.ebmgn8v.48xlarge",
            "ib_check_sysfs_path": "/mnt/cpfs/stand-in-erdma-ib/class/infiniband",
        }
        status, events = run(lab, tmp_path, PLAY_IB_CHECK, extravars=extravars)
        assert status == "successful", results_by_host(events, "runner_on_failed")
        (line,) = {m.split(": ", 2)[2] for m in reports(events)}
        assert line.startswith("erdma_0:1, erdma_1:1 active, Ethernet") and "RoCE v2 GID index 1" in line, line
        (tree / "erdma_1" / "ports" / "1" / "state").write_text("1: DOWN\n")
        status, events = run(lab, tmp_path, PLAY_IB_CHECK, extravars=extravars)
        assert status == "failed"
        failures = results_by_host(events, "runner_on_failed")
        assert sorted(failures) == ["node1", "node2"]
        for res in failures.values():
            assert res["msg"][1:] == ["erdma_1 port 1 (eth2): state PORT_DOWN, expected PORT_ACTIVE"], res["msg"]
            # The ERI's rate is not judged (UNCONFIRMED in sysfs): the header says so, never "None Gb/s".
            assert res["msg"][0].endswith("link layer Ethernet, rate not judged:"), res["msg"][0]
        assert changed(events) == []
    finally:
        shutil.rmtree(base, ignore_errors=True)
