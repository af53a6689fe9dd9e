"""End to end on the lab, driven through ansible-runner's Python API as other tools would.

The whole life of a cluster, once: provision.yml makes the cloud resources in the offline API
emulator (lab/cloud), whose instances are backed by the hosts of a 2-host lab; the
scc.training.ecs inventory plugin finds them; bad inputs fail before any host is touched;
site.yml runs BERT over mpirun on the two instances; the configuration stages then report
changed=0 (also in --check); teardown.yml leaves nothing of ours in the cloud."""

import json
import os
import secrets
from pathlib import Path

import pytest

from lab.cloud.demo import write_files
from lab.cloud.server import CloudEmulator
from lab.cloud.store import Timings
from tests.lab_runner import changed, failed, gathered_facts, lab_fixture, run_playbook, warnings

ROOT = Path(__file__).resolve().parents[2]
PLAYBOOKS = ROOT / "playbooks"
# The emulator checks every request's signature: a key pair of this run only.
CLOUD_KEY_ID, CLOUD_SECRET = "LTAI" + secrets.token_hex(8), secrets.token_hex(15)
CLOUD_NAME = "e2e"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the lab needs root")


# The two lab hosts (127.0.8.11-12) that back the emulator's instances.
lab_hosts = lab_fixture(2, "127.0.8.11", name="e2e")


@pytest.fixture(scope="module")
def cloud(lab_hosts, workdir):
    """The emulator with the cluster provision.yml made, and workdir/inventory, the inventory
    directory every run uses (the scc.training.ecs plugin finds the instances there)."""
    timings = Timings(vpc=0.05, instance_pending=0.2, instance_starting=0.2, file_system=0.5, mount_target=0.1)
    with CloudEmulator(
        port=0,
        access_key_id=CLOUD_KEY_ID,
        access_key_secret=CLOUD_SECRET,
        timings=timings,
        host_addresses=[h.address for h in lab_hosts.load()],
    ) as emu:
        # workdir/inventory: the plugin config and the lab's group vars (as `make demo-cloud` writes them).
        settings = write_files(lab_hosts, emu.endpoint, workdir, CLOUD_NAME)[0]

        status, rc, events = run(lab_hosts, workdir, "provision.yml", settings)
        assert (status, rc) == ("successful", 0), failed(events)
        nodes = [i for i in emu.store.instances.values() if i["InstanceName"] == f"{CLOUD_NAME}-node"]
        assert sorted(i["VpcAttributes"]["PrivateIpAddress"]["IpAddress"][0] for i in nodes) == [
            "127.0.8.11",
            "127.0.8.12",
        ]
        yield dict(emu=emu, settings=settings, instance_ids={i["InstanceId"] for i in nodes})


@pytest.fixture(scope="module")
def lab(lab_hosts, cloud):
    """The lab, once its hosts are the provisioned instances the inventory plugin finds."""
    return lab_hosts


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("runner")


def run(lab, workdir, playbook, extravars=None, check=False):
    """One ansible-runner run; returns (status, rc, events)."""
    return run_playbook(
        PLAYBOOKS / playbook,
        # The hosts come from the scc.training.ecs plugin (see the cloud fixture), not lab.inventory.
        workdir / "inventory",
        workdir,
        # The cluster key pair belongs to this lab, not to the controller user's ~/.ssh.
        {"ssh_trust_key_dir": str(lab.dir / "ssh_trust"), **(extravars or {})},
        check=check,
        envvars={
            # Every stage's results (BERT, traffic, bandwidth, the cluster report) in one place.
            "SCC_TRAINING_RESULTS_DIR": str(workdir / "results"),
            # The inventory plugin and the cloud modules sign their calls to the emulator.
            "ALIBABA_CLOUD_ACCESS_KEY_ID": CLOUD_KEY_ID,
            "ALIBABA_CLOUD_ACCESS_KEY_SECRET": CLOUD_SECRET,
            "NO_PROXY": "127.0.0.1",
            "no_proxy": "127.0.0.1",
        },
    )


@pytest.mark.parametrize(
    "extravars,variable",
    [
        ({"mpi_hostfile_slots": 0}, "mpi_hostfile_slots"),
        ({"scc_cluster_group": "no_such_group"}, "scc_cluster_group"),
        ({"bert_launch_model_size": "huge"}, "bert_launch_model_size"),
    ],
)
def test_bad_input_fails_before_any_host_is_touched(lab, workdir, extravars, variable):
    status, rc, events = run(lab, workdir, "site.yml", extravars)
    assert status == "failed" and rc != 0
    failures = failed(events)
    assert failures, "the run failed without a failed task"
    assert any(variable in json.dumps(f) for f in failures), failures
    # Nothing changed anywhere, and the failing play never gathered facts on a host.
    assert changed(events) == []
    assert not gathered_facts(events)
    for address in ("127.0.8.11", "127.0.8.12"):
        assert lab.ssh(address, "test ! -e /etc/scc-training").returncode == 0


def test_site_trains_bert_across_two_hosts_then_reruns_unchanged(lab, workdir, cloud):
    # A short run: enough steps for the loss to fall, few enough for CI on 2 cores.
    status, rc, events = run(lab, workdir, "site.yml", {"bert_launch_steps": 40, "bert_launch_batch_size": 8})
    assert (status, rc) == ("successful", 0), failed(events)
    # Not one warning or deprecation from ansible-core in the converge (issue 37): e.g. a strategy plugin outside
    # ansible.builtin, deprecated in 2.19, warns on every run.
    assert warnings(events) == [], "\n".join(warnings(events))
    # The hosts site.yml configured are the provisioned instances, named by the inventory plugin.
    assert {e["event_data"]["host"] for e in events if e["event"] == "runner_on_ok"} - {"localhost"} == cloud[
        "instance_ids"
    ]

    results = sorted((workdir / "results").glob("bert-*.json"))
    assert results, "no results JSON came back to the controller"
    report = json.loads(results[-1].read_text())
    assert report["world_size"] >= 2
    assert report["status"] == "ok"
    assert {h["host"] for h in report["hosts"]} == {"node1", "node2"}
    assert sum(h["num_ranks"] for h in report["hosts"]) == report["world_size"]
    losses = report["loss"]
    assert len(losses) == report["steps"]
    first, last = sum(losses[:5]) / 5, sum(losses[-5:]) / 5
    assert last < first, f"loss did not fall: {first:.3f} -> {last:.3f}"
    assert report["throughput"]["sequences_per_s"] > 0 and report["throughput"]["tokens_per_s"] > 0

    # The configuration stages are idempotent: a second run changes nothing ...
    for playbook in ("prepare.yml", "cluster.yml"):
        status, rc, events = run(lab, workdir, playbook)
        assert (status, rc) == ("successful", 0), failed(events)
        assert changed(events) == [], f"{playbook} re-run changed tasks"
        assert warnings(events) == [], playbook + ":\n" + "\n".join(warnings(events))
    # ... and --check on the converged cluster predicts no change and reports no error.
    status, rc, events = run(lab, workdir, "site.yml", check=True)
    assert (status, rc) == ("successful", 0), failed(events)
    assert changed(events) == []

    # A hostfile of one node (as verify.yml leaves it when it judged the other unhealthy) and
    # bert_launch_min_nodes 2: refused before mpirun starts, naming the variable and the node left.
    hostfile = "/etc/scc-training/mpihosts"
    for host in lab.load():
        assert (
            lab.ssh(host.address, f"cp {hostfile} {hostfile}.bak && head -1 {hostfile}.bak > {hostfile}").returncode
            == 0
        )
    try:
        status, rc, events = run(lab, workdir, "train_bert.yml", {"bert_launch_min_nodes": 2})
    finally:
        for host in lab.load():
            lab.ssh(host.address, f"mv {hostfile}.bak {hostfile}")
    assert status == "failed" and rc != 0
    (message,) = [msg for _host, _task, msg in failed(events)]
    assert "lists 1 node(s)" in message and "fewer than bert_launch_min_nodes (2)" in message, message
    assert not any(
        e["event_data"].get("task", "").startswith("Run BERT pretraining") for e in events if "event_data" in e
    )

    # teardown.yml deletes every resource provision.yml made: nothing of ours is left in the cloud.
    status, rc, events = run(lab, workdir, "teardown.yml", cloud["settings"])
    assert (status, rc) == ("successful", 0), failed(events)
    store = cloud["emu"].store
    for table in ("instances", "file_systems", "mount_targets", "security_groups", "hpc_clusters", "vswitches", "vpcs"):
        assert list(getattr(store, table).values()) == [], table


def test_training_traffic_and_nccl_key_of_the_site_run(workdir, cloud):
    # Reads what the site test above left in workdir/results (pytest runs this file's tests in order).
    results = workdir / "results"
    runs = sorted(results.glob("bert-*.json"), key=lambda p: p.stat().st_mtime)
    assert runs, f"no bert-*.json in {results}"
    report = json.loads(runs[-1].read_text())
    # gloo in the lab: NCCL did not run, and the key says so with null.
    assert "nccl" in report and report["nccl"] is None, report.get("nccl")
    # train_bert.yml sampled the fabric during that run, under the run's name.
    traffic_file = results / f"traffic-bert-{report['run_id']}.json"
    assert traffic_file.is_file(), sorted(p.name for p in results.iterdir())
    assert (results / f"traffic-bert-{report['run_id']}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # verify.yml wrote the cluster report before training; train_bert.yml rendered it again with this run.
    page = (results / "cluster-report.html").read_text()
    assert f"Training: BERT run {report['run_id']}" in page
    traffic = json.loads(traffic_file.read_text())
    # The nodes are the provisioned instances, named by the inventory plugin.
    assert set(traffic["nodes"]) == cloud["instance_ids"]
    # The gradients crossed the wire, not only Ansible's SSH: DDP all-reduces params * 4 bytes (fp32,
    # gloo) every step, and each of the n ranks sends at least (n - 1) / n of them, so the lab's one
    # loopback interface (every lab host shares it) carried at least steps * params * 4 * (n - 1) bytes
    # during the run. Without the all-reduce this fails: SSH and mpirun's control traffic are ~1000x
    # less. (Another test's loopback traffic at the same time can only add to it.)
    gradient_bytes = report["steps_completed"] * report["model"]["params"] * 4 * (report["world_size"] - 1)
    for node, data in traffic["nodes"].items():
        series = data["counters"].get("net:lo", {}).get("series", [])
        assert len(series) > 1, f"{node}: no sampled interval on lo"
        sent = sum(p["tx_gbps"] * (p["t"] - q["t"]) * 1e9 / 8 for q, p in zip(series, series[1:]))
        assert sent >= 0.5 * gradient_bytes, (
            f"{node}: {sent / 1e6:.0f} MB sent on lo during the run, less than half of the "
            f"{gradient_bytes / 1e6:.0f} MB the all-reduce of {report['steps_completed']} steps needs"
        )
