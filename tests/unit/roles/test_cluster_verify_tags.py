"""`--tags <role>` runs the whole role: the stage playbooks import the roles, and a role's dynamically
included task files carry its tags (include_tasks with apply), down to the files they include."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import ansible_runner
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
ENV = {
    "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
    "ANSIBLE_COLLECTIONS_PATH": str(ROOT / ".collections"),
    "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
}


@pytest.fixture(scope="module")
def inventory(tmp_path_factory):
    """One node, reached locally with this Python; only the tasks that look at the controller run on it."""
    path = tmp_path_factory.mktemp("tags") / "inventory.yml"
    node = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}
    path.write_text(yaml.safe_dump({"scc_cluster": {"hosts": {"node1": node}}}))
    return path


def listed_tasks(inventory, playbook, tags):
    proc = subprocess.run(
        [
            str(Path(sys.executable).parent / "ansible-playbook"),
            "-i",
            str(inventory),
            "--list-tasks",
            "--tags",
            tags,
            str(ROOT / "playbooks" / playbook),
        ],
        env={**os.environ, **ENV},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return [
        line.split("\t")[0].strip()
        for line in proc.stdout.splitlines()
        if "\tTAGS:" in line and " : " in line and "always" not in line.split("\tTAGS:")[1]
    ]


# The internal roles a role imports: their tasks are that role's steps, so its tag runs them.
INTERNAL_ROLES = {"nccl_check": ["artifact_fetch"]}


@pytest.mark.parametrize(
    ("playbook", "role", "task"),
    [
        ("verify.yml", "rdma_bandwidth", "Measure every pair of nodes, round by round, for each tool"),
        ("verify.yml", "ib_check", "Fail with every port that is not as expected"),
        ("verify.yml", "fabric_monitor", "Start the sampler in the background"),
        ("verify.yml", "cluster_report", "Render cluster-report.html from cluster-report.json"),
        ("verify.yml", "gpu_health", "Judge the GPUs of this node"),
        ("verify.yml", "nccl_check", "Run the cluster, then the bisection's rounds"),
        ("verify.yml", "cluster_health", "Judge every node from the gates' reports"),
        ("verify.yml", "mpi_hostfile", "Write the hostfile"),
        ("cluster.yml", "ssh_trust", "Reach every other node over ssh from this node"),
        ("prepare.yml", "nic_firmware", "Burn, reset and verify (only with nic_firmware_burn)"),
    ],
)
def test_a_roles_tag_lists_its_tasks_and_no_other_roles(inventory, playbook, role, task):
    tasks = listed_tasks(inventory, playbook, role)
    assert f"scc.training.{role} : {task}" in tasks, tasks
    # Besides the role and the internal roles it imports (its own steps), only the always-tagged
    # argument spec checks and input checks of the play's roles (left out by listed_tasks).
    own = [f"scc.training.{name} : " for name in [role, *INTERNAL_ROLES.get(role, [])]]
    others = [t for t in tasks if not t.startswith(tuple(own)) and "Validating arguments" not in t]
    assert others == [], others
    for internal in INTERNAL_ROLES.get(role, []):
        assert any(t.startswith(f"scc.training.{internal} : ") for t in tasks), f"{internal}'s tasks left out: {tasks}"


def test_tags_reach_the_dynamically_included_measurement(inventory, tmp_path):
    """rdma_bandwidth's measure.yml is included per tool, and includes round.yml and results.yml: with
    --tags rdma_bandwidth their tasks run. One node: no pair to measure, so no tool is needed (install skipped)."""
    results = tmp_path / "results"
    runner = ansible_runner.run(
        private_data_dir=str(tmp_path),
        playbook=str(ROOT / "playbooks" / "verify.yml"),
        inventory=str(inventory),
        extravars={
            "rdma_bandwidth_mode": "tcp",
            "rdma_bandwidth_link_rate_gbps": 2,
            "rdma_bandwidth_results_dir": str(results),
        },
        cmdline="--tags rdma_bandwidth --skip-tags rdma_bandwidth_install",
        envvars=ENV,
        quiet=True,
    )
    ran = [e["event_data"]["task"] for e in runner.events if e["event"] == "runner_on_ok"]
    assert runner.status == "successful", [
        e["event_data"]["res"] for e in runner.events if e["event"] == "runner_on_failed"
    ]
    for task in (
        "Plan the rounds, once, for tcp",  # measure.yml
        "Build the bandwidth matrix, once, for tcp",  # results.yml, included by measure.yml
        "Draw the heatmap PNG for tcp",
        "Check every pair reached the threshold",
    ):
        assert task in ran, ran
    assert json.loads((results / "bandwidth-tcp.json").read_text())["nodes"] == ["node1"]
    assert (results / "bandwidth-tcp.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
