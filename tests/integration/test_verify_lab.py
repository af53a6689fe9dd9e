"""playbooks/verify.yml on a 3-host lab: the iperf3 all-pairs matrix (both directions) and heatmap for real, the fabric's
traffic sampled while it runs, one cluster report (JSON + HTML); a re-run and --check change nothing;
and rdma_bandwidth in mode rdma fails on hosts without RDMA devices with its documented message."""

import base64
import itertools
import json
import os
import re
from pathlib import Path

import pytest

from tests.lab_runner import changed, failed, lab_fixture, run_playbook

ROOT = Path(__file__).resolve().parents[2]
ADDRESSES = ("127.0.11.21", "127.0.11.22", "127.0.11.23")
# The lab has no RDMA devices: TCP over loopback with a declared rate loopback easily exceeds.
LAB_VARS = {
    "rdma_bandwidth_mode": "tcp",
    "rdma_bandwidth_link_rate_gbps": 2,
    "rdma_bandwidth_duration_s": 1,
    "fabric_monitor_interfaces": ["lo"],
    # The lab's own CPFS stand-in (a bind mount of DIR/shared in every host).
    "cluster_report_cpfs_path": "/mnt/cpfs",
    # No ssh_trust in this test (cluster.yml's job): the SSH ring is not checked here.
    "cluster_report_ssh_check": False,
    # No hosts_file in this test (cluster.yml's job): the node names do not resolve on the nodes.
    "mpi_hostfile_verify": False,
    # validate.yml checks the roles of this stage only (the other stages' tests check theirs).
    "scc_validate_roles": [
        "scc.training.rdma_bandwidth",
        "scc.training.fabric_monitor",
        "scc.training.gpu_health",
        "scc.training.cluster_health",
        "scc.training.mpi_hostfile",
        "scc.training.cluster_report",
    ],
}

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the lab needs root")


lab = lab_fixture(3, ADDRESSES[0], name="verify")


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("runner")


def run(lab, workdir, playbook, extravars=None, check=False):
    """(status, rc, events) of one run; every stage's results go to workdir/results."""
    envvars = {"SCC_TRAINING_RESULTS_DIR": str(workdir / "results")}
    return run_playbook(playbook, lab.inventory, workdir, extravars, check=check, envvars=envvars)


def test_verify_measures_all_pairs_samples_traffic_and_reports(lab, workdir):
    status, rc, events = run(lab, workdir, ROOT / "playbooks" / "verify.yml", LAB_VARS)
    assert (status, rc) == ("successful", 0), failed(events)
    results = workdir / "results"

    matrix = json.loads((results / "bandwidth-tcp.json").read_text())
    nodes = ["node1", "node2", "node3"]
    assert matrix["nodes"] == nodes and matrix["ok"] is True
    # 3 nodes: 3 rounds of one pair (one node sits out each round), then the same rounds the other way:
    # every pair once in each direction, on TCP's one rail.
    assert [(r["rail"], len(r["pairs"])) for r in matrix["rounds"]] == [(1, 1)] * 6
    assert sorted((p["client"], p["server"]) for p in matrix["pairs"]) == sorted(itertools.permutations(nodes, 2))
    assert matrix["missing"] == [] and matrix["min_gbps"] == 1.0
    assert [(r["rail"], r["ports"]) for r in matrix["rails"]] == [(1, dict.fromkeys(nodes))]
    for p in matrix["pairs"]:
        # Each client really talked to its server's own address, and measured more than the threshold.
        detail = p["detail"]
        assert detail["local_host"] == ADDRESSES[nodes.index(p["client"])]
        assert detail["remote_host"] == ADDRESSES[nodes.index(p["server"])]
        assert p["gbps"] == detail["received_gbps"] > 1.0
        assert (p["link_rate_gbps"], p["min_gbps"], p["ok"]) == (2.0, 1.0, True)
    # Rows send, columns receive: each cell is its own direction's measurement.
    m = matrix["matrix_gbps"]
    assert all(m[i][i] is None for i in range(3))
    assert {(nodes[i], nodes[j]): m[i][j] for i in range(3) for j in range(3) if i != j} == {
        (p["client"], p["server"]): p["gbps"] for p in matrix["pairs"]
    }
    assert (results / "bandwidth-tcp.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # No iperf3 server outlived its round, and no sampler its window.
    for address in ADDRESSES:
        procs = lab.ssh(address, "ps -eo args").stdout
        assert "iperf3" not in procs and "fabric_sample.py" not in procs, procs

    traffic = json.loads((results / "traffic.json").read_text())
    assert sorted(traffic["nodes"]) == nodes
    for node in nodes:
        lo = traffic["nodes"][node]["counters"]["net:lo"]
        assert len(lo["series"]) >= 3
        # The iperf3 rounds ran while it sampled: loopback carried more than the 1 Gb/s threshold at its peak.
        assert lo["peak_gbps"] > 1.0

    # The lab declares scc_cpu_only: gpu_health finds no GPU to judge (green, saying so), every node
    # stays in the hostfile. (Faults and exclusion: tests/integration/test_gpu_health.py.)
    health = json.loads((results / "cluster-health.json").read_text())
    assert health["healthy"] == nodes and health["unhealthy"] == {} and health["judged_by"] == ["gpu_health"]
    assert [(c["status"], c["gates"]) for c in health["cards"]] == [("green", {"gpu_health": "green"})] * 3
    gpu = json.loads((results / "gpu-health.json").read_text())
    assert [v["check"] for v in gpu["node1"]["verdicts"]] == ["cpu_only"]
    for address in ADDRESSES:
        assert lab.ssh(address, "cat /etc/scc-training/mpihosts").stdout.split()[::2] == nodes

    report = json.loads((results / "cluster-report.json").read_text())
    assert [n["host"] for n in report["nodes"]] == nodes and report["not_reached"] == []
    assert report["health"]["healthy"] == nodes
    for n in report["nodes"]:
        assert n["gpu"]["count"] == 0 and n["rdma"]["present"] is False
        assert n["cpfs"]["mounted"] is True and n["cpfs"]["path"] == "/mnt/cpfs"
        assert n["ssh"]["ok"] is None
    assert report["bandwidth"]["tcp"]["ok"] is True and report["traffic"]["nodes"]
    page = (results / "cluster-report.html").read_text()
    embedded = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert len(embedded) == 2 and all(base64.b64decode(e)[:8] == b"\x89PNG\r\n\x1a\n" for e in embedded)
    assert "node1" in page and "all pairs above threshold" in page

    # Re-run: measures anew, changes nothing; --check: no change, no error.
    for check in (False, True):
        status, rc, events = run(lab, workdir, ROOT / "playbooks" / "verify.yml", LAB_VARS, check=check)
        assert (status, rc) == ("successful", 0), failed(events)
        assert changed(events) == [], f"verify.yml {'--check' if check else 're-run'} changed tasks"


def test_rdma_mode_fails_on_hosts_without_rdma_devices(lab, workdir, tmp_path):
    playbook = tmp_path / "rdma.yml"
    playbook.write_text(
        "- hosts: scc_cluster\n  gather_facts: false\n  tasks:\n"
        "    - ansible.builtin.setup: {gather_subset: [min]}\n"
        "    - ansible.builtin.include_role: {name: scc.training.rdma_bandwidth}\n"
    )
    status, rc, events = run(lab, workdir, playbook, {"rdma_bandwidth_mode": "rdma"})
    assert status == "failed" and rc != 0
    messages = {host: msg for host, dummy_task, msg in failed(events)}
    assert sorted(messages) == ["node1", "node2", "node3"]
    for host, msg in messages.items():
        assert f"rdma_bandwidth: {host} has no active RDMA port" in msg
        assert "rdma_bandwidth_mode: tcp" in msg
    # It failed before installing anything (perftest is not installed on a host without RDMA).
    assert changed(events) == []
    for address in ADDRESSES:
        assert lab.ssh(address, "command -v ib_write_bw || echo absent").stdout.strip() == "absent"
