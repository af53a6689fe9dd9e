"""nccl_check on 4 lab hosts, which have no GPU, no CUDA and no MPI: STAND-INs (tests/standins/
nccl_tests_standin.py, in the lab's shared /mnt/cpfs) replace the built all_reduce_perf (through
nccl_check_tests_dir, so the build is skipped) and mpirun (nccl_check_mpirun_path: it runs the
program once, on the first node, with the group's hosts; no MPI launch). Their busbw is injected
per node: node2 slow alone (its NVLink), node3 slow on the network. The role must judge node2 red
from its run alone, name node3 by bisection in 3 rounds, publish the facts and nccl-check.json,
fail nothing, and change nothing in --check, where the measurements still run."""

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.lab_runner import changed, failed, lab_fixture, ok_results, run_playbook

ROOT = Path(__file__).resolve().parents[2]
ADDRESSES = ("127.0.22.11", "127.0.22.12", "127.0.22.13", "127.0.22.14")
STANDIN = ROOT / "tests" / "standins" / "nccl_tests_standin.py"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the lab needs root")

PLAY = """
- name: Judge NCCL on the lab (stand-ins)
  hosts: scc_cluster
  gather_facts: false
  roles:
    - scc.training.nccl_check
    # As verify.yml: the nodes judged once from nccl_check's reports.
    - scc.training.cluster_health
"""

lab = lab_fixture(len(ADDRESSES), ADDRESSES[0], name="ncclcheck")


@pytest.fixture(scope="module")
def standin(lab):
    """The stand-ins in /mnt/cpfs/nccl-standin: node3's network at 1.5 GB/s, node2 alone at 60 GB/s."""
    where = lab.shared / "nccl-standin"
    where.mkdir()
    for name in ("all_reduce_perf", "mpirun"):
        shutil.copy(STANDIN, where / name)
        (where / name).chmod(0o755)
    busbw = dict.fromkeys(ADDRESSES, 6.0)
    busbw["127.0.22.13"] = 1.5
    alone = dict.fromkeys(ADDRESSES, 120.0)
    alone["127.0.22.12"] = 60.0
    (where / "busbw.json").write_text(json.dumps({"busbw": busbw, "alone": alone}))
    return "/mnt/cpfs/nccl-standin"


def extravars(standin, results):
    return {
        "nccl_check_cpu_only": False,
        "nccl_check_tests_dir": standin,
        "nccl_check_mpirun_path": standin + "/mpirun",
        "nccl_check_transport": "tcp",
        "nccl_check_tcp_interface": "lo",
        "nccl_check_min_bytes": "1M",
        "nccl_check_max_bytes": "256M",
        "nccl_check_env": {"NCCL_ALGO": "Ring", "SCC_STANDIN_NODE": "{{ ansible_host }}"},
        "nccl_check_results_dir": str(results),
        "cluster_health_results_dir": str(results),
        # The one declaration the GPU count, gencode and thresholds are resolved from (the lab has no GPU to read).
        "scc_instance_type": "ecs.sccgn6.24xlarge",
    }


def facts(events, task, name):
    return {host: res["ansible_facts"][name] for host, res in ok_results(events, task).items()}


def test_the_slow_nodes_are_judged_and_named_and_check_mode_changes_nothing(lab, standin, tmp_path):
    playbook = tmp_path / "play.yml"
    playbook.write_text(PLAY)
    results = tmp_path / "results"
    run = run_playbook(playbook, lab.inventory, tmp_path, extravars(standin, results))
    assert run.status == "successful", failed(run.events)
    reports = facts(run.events, "Publish each node's verdict", "nccl_check_report")
    assert {host: r["status"] for host, r in reports.items()} == {
        "node1": "green",
        "node2": "red",
        "node3": "red",
        "node4": "green",
    }
    assert reports["node2"]["single_node"]["ok"] is False and "alone: busbw" in reports["node2"]["problems"][0]
    assert reports["node3"]["problems"] == ["slow in the cluster run: named by the bisection"]
    assert reports["node1"]["single_node"]["threshold_gbps"] == 105.0

    clusters = facts(run.events, "Publish the cluster's verdict", "nccl_check_cluster")
    cluster = clusters["node1"]
    assert (cluster["ok"], cluster["threshold_gbps"], cluster["multi_node"]["hosts"]) == (
        False,
        4.38,
        ["node1", "node2", "node3", "node4"],
    )
    assert cluster["multi_node"]["curve"][-1]["size_bytes"] == 256 * 2**20
    bisection = cluster["bisection"]
    assert (bisection["bad_nodes"], bisection["unresolved"]) == (["node3"], [])
    assert [[g["hosts"] for g in r["groups"]] for r in bisection["rounds"]] == [
        [["node1", "node2", "node3", "node4"]],
        [["node1", "node2"], ["node3", "node4"]],
        [["node3", "node1"], ["node4", "node2"]],
    ]
    written = json.loads((results / "nccl-check.json").read_text())
    assert written["cluster"] == cluster and written["nodes"] == reports
    # cluster_health: the two red nodes out of scc_healthy_nodes, each with nccl_check's reason.
    health = json.loads((results / "cluster-health.json").read_text())
    assert (health["healthy"], health["judged_by"]) == (["node1", "node4"], ["nccl_check"])
    assert health["unhealthy"]["node3"] == ["nccl_check: slow in the cluster run: named by the bisection"]
    assert (
        health["unhealthy"]["node2"][0].startswith("nccl_check: ") and "alone: busbw" in health["unhealthy"]["node2"][0]
    )

    # Only the controller's results directory is new; the measurements change nothing.
    assert changed(run.events) == [("node1", "Create the results directory")]

    # --check: the measurements still run (check_mode: false), nothing changes, the same verdicts.
    check = run_playbook(playbook, lab.inventory, tmp_path, extravars(standin, results), check=True)
    assert check.status == "successful", failed(check.events)
    assert changed(check.events) == []
    again = facts(check.events, "Publish the cluster's verdict", "nccl_check_cluster")["node1"]
    assert again["bisection"]["bad_nodes"] == ["node3"]


def test_an_8_x_l20_family_is_judged_on_its_pcie_basis(lab, standin, tmp_path):
    """scc_instance_type ebmgn8is (8 x L20, PCIe only, 2 ERIs x 80 Gb/s): the role reads the resolved thresholds,
    0.35 x 31.5 GB/s alone and 0.7 x 160 / 8 across nodes; node2's 60 GB/s alone now passes."""
    playbook = tmp_path / "play.yml"
    playbook.write_text(PLAY)
    results = tmp_path / "results"
    run = run_playbook(
        playbook, lab.inventory, tmp_path, dict(extravars(standin, results), scc_instance_type="ecs.ebmgn8is.32xlarge")
    )
    assert run.status == "successful", failed(run.events)
    reports = facts(run.events, "Publish each node's verdict", "nccl_check_report")
    assert {r["single_node"]["threshold_gbps"] for r in reports.values()} == {11.02}
    assert reports["node2"]["single_node"]["ok"] is True
    cluster = facts(run.events, "Publish the cluster's verdict", "nccl_check_cluster")["node1"]
    assert (cluster["ok"], cluster["threshold_gbps"]) == (False, 14.0)
