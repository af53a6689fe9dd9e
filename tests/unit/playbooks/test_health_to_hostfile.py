"""cluster_health's verdict reaches mpi_hostfile through the tasks themselves (four local hosts, connection local,
one of them with a red gpu_health report, one with no gate's report): the red node and the unjudged one are not
published as healthy, not written to cluster-health.json as healthy, and left out of the hostfile every node
writes."""

from __future__ import annotations

import json
import sys

import pytest
import yaml

from tests.lab_runner import failed, run_playbook

HOSTS = ("node1", "node2", "node3", "node4")
# No gate reported on it (its gates skipped there): unjudged, not healthy.
UNJUDGED = "node4"


def _report(status, problems=()):
    return {"status": status, "problems": list(problems), "verdicts": []}


@pytest.fixture(scope="module")
def outcome(tmp_path_factory):
    work = tmp_path_factory.mktemp("health_to_hostfile")
    hosts = {
        name: {
            "ansible_connection": "local",
            "ansible_python_interpreter": sys.executable,
            "gpu_health_report": _report("red", ["GPU 0: ecc_volatile_uncorrectable"])
            if name == "node2"
            else _report("green"),
            "nccl_check_report": _report("green"),
            "mpi_hostfile_path": str(work / name / "mpihosts"),
        }
        for name in HOSTS
    }
    for gate in ("gpu_health_report", "nccl_check_report"):
        del hosts[UNJUDGED][gate]
    inventory = {"scc_cluster": {"hosts": hosts, "vars": {"mpi_hostfile_slots": 2, "mpi_hostfile_verify": False}}}
    (work / "inventory.yml").write_text(yaml.safe_dump(inventory))
    play = [
        {
            "name": "Judge, then write the hostfile",
            "hosts": "scc_cluster",
            # mpi_hostfile reads the vCPU count (its slots are given, so only as an argument).
            "gather_facts": True,
            "gather_subset": ["!all", "hardware"],
            "roles": [
                {"role": "scc.training.cluster_health", "vars": {"cluster_health_results_dir": str(work / "results")}},
                {"role": "scc.training.mpi_hostfile"},
            ],
        }
    ]
    (work / "play.yml").write_text(yaml.safe_dump(play))
    run = run_playbook(work / "play.yml", work / "inventory.yml", work, envvars={"ANSIBLE_FORKS": "4"})
    assert run.rc == 0, failed(run.events)
    return work


def test_the_red_node_is_not_published_healthy(outcome):
    verdict = json.loads((outcome / "results" / "cluster-health.json").read_text())
    assert verdict["healthy"] == ["node1", "node3"] and list(verdict["unhealthy"]) == ["node2"]
    assert verdict["unjudged"] == [UNJUDGED] and verdict["job_nodes"] == ["node1", "node3"]


@pytest.mark.parametrize("host", HOSTS)
def test_the_hostfile_leaves_the_red_and_the_unjudged_node_out(outcome, host):
    lines = (outcome / host / "mpihosts").read_text().splitlines()
    assert [line.split()[0] for line in lines if line and not line.startswith("#")] == ["node1", "node3"]
