"""End to end on the lab, driven through ansible-runner's Python API as other tools would.

The whole life of a cluster of today's family, once: provision.yml makes an ebmgn8v cluster (a UEFI image, two
Elastic RDMA Interfaces per node, jumbo frames) in the offline API emulator (lab/cloud), whose instances are backed
by the hosts of a 2-host lab; the scc.training.ecs inventory plugin finds them; bad inputs fail before any host is
touched; site.yml, with the lab's declarations (no GPU, scc_transport tcp), runs BERT over mpirun on the two
instances; the configuration stages then report changed=0 (also in --check). Then the ebmgn8v leg on the same
instances, declared as what they are (scc_instance_type ebmgn8v, scc_transport rdma) over STAND-INs of an eRDMA node
(tests/standins/README.md): rdma_stack's eRDMA path, the MTU set, ib_check, nccl_check, the report, and BERT whose
ranks carry the family's NCCL environment, read from a rank's own environment. teardown.yml then leaves nothing of
ours in the cloud. (sccgn6's HPC cluster and BIOS image: tests/integration/test_cloud_playbooks.py.)"""

import importlib.util
import json
import os
import secrets
from pathlib import Path

import pytest

# The collection's own resolution of the family: the eRDMA NCCL settings the ranks must carry are read from it.
from ansible_collections.scc.training.plugins.module_utils import hardware_fact
from lab.cloud.demo import write_files
from lab.cloud.server import CloudEmulator
from lab.cloud.store import Timings
from tests.lab_runner import changed, failed, gathered_facts, lab_fixture, ok_runs, run_playbook, warnings
from tests.standins import erdma_node_standin

_spec = importlib.util.spec_from_file_location(
    "rdma_sysfs_tree", Path(__file__).resolve().parents[1] / "unit" / "plugins" / "modules" / "rdma_sysfs_tree.py"
)
_tree = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_tree)

ROOT = Path(__file__).resolve().parents[2]
PLAYBOOKS = ROOT / "playbooks"
# The emulator checks every request's signature: a key pair of this run only.
CLOUD_KEY_ID, CLOUD_SECRET = "LTAI" + secrets.token_hex(8), secrets.token_hex(15)
CLOUD_NAME = "e2e"
# Today's family (inventories/cloud/cloud.example.yml): UEFI images only, ERIs, no HPC cluster. The emulator reads the
# boot mode from the image name as Alibaba Cloud Linux 3 names its UEFI editions (lab/cloud/ecs.py image_boot_mode).
INSTANCE_TYPE = "ecs.ebmgn8v.48xlarge"
UEFI_IMAGE = "aliyun_3_x64_20G_uefi_alibase_20250101.vhd"

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
        # The example's family, ERIs and jumbo frames (the demo provisions sccgn6): ebmgn8v on a UEFI image.
        settings.update(scc_cloud_instance_type=INSTANCE_TYPE, scc_cloud_image_id=UEFI_IMAGE)
        assert settings["scc_cloud_eri_count"] == "auto" and settings["scc_jumbo_frames"] is True

        status, rc, events = run(lab_hosts, workdir, "provision.yml", settings)
        assert (status, rc) == ("successful", 0), failed(events)
        nodes = [i for i in emu.store.instances.values() if i["InstanceName"] == f"{CLOUD_NAME}-node"]
        assert sorted(i["VpcAttributes"]["PrivateIpAddress"]["IpAddress"][0] for i in nodes) == [
            "127.0.8.11",
            "127.0.8.12",
        ]
        for node in nodes:
            assert (node["InstanceType"], node["ImageId"], node["_jumbo_frames"]) == (INSTANCE_TYPE, UEFI_IMAGE, True)
            # Two Elastic RDMA Interfaces (auto: ebmgn8v's two, instance_families.py) on network cards 0 and 1.
            nics = node["NetworkInterfaces"]["NetworkInterface"]
            assert [(n.get("NetworkInterfaceTrafficMode"), n.get("NetworkCardIndex")) for n in nics[1:]] == [
                ("HighPerformance", 0),
                ("HighPerformance", 1),
            ], nics
        assert list(emu.store.hpc_clusters.values()) == []
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


# The ebmgn8v leg: where the STAND-INs live in the lab's shared storage (every host sees it at /mnt/cpfs).
ERDMA_STANDIN = "erdma-standin"
NCCL_STANDIN = ROOT / "tests" / "standins" / "nccl_tests_standin.py"


def test_ebmgn8v_leg_erdma_path_checks_report_and_bert_ranks_carry_the_family_nccl_env(lab, workdir, cloud):
    """The provisioned instances declared as what they are (scc_instance_type ebmgn8v, scc_transport rdma), over the
    STAND-INs of an eRDMA node (tests/standins/README.md): rdma_stack installs the eRDMA stack from an offline mirror
    (the stand-in installer), sets the driver mode (stand-in modprobe) and the ERIs' MTU 8500 in the stand-in sysfs
    trees, and checks the devices; verify.yml's ib_check passes both ERIs, nccl_check (stand-in nccl-tests) judges the
    nodes green, the cluster report is written; BERT's ranks (gloo on CPUs) start with the family's NCCL settings,
    read back from a rank's own environment, and bert_launch's NET/IB check reads the stand-in NCCL line."""
    shared = lab.shared / ERDMA_STANDIN
    where = "/mnt/cpfs/" + ERDMA_STANDIN
    instances = sorted(cloud["instance_ids"])
    for instance in instances:
        # eth1 at 1500 (rdma_stack sets it), eth2 already at 8500.
        _tree.build_erdma_tree(shared / instance / "class" / "infiniband")
    mpirun = erdma_node_standin.launcher(shared, where)
    (lab.shared / "nccl-standin").mkdir(exist_ok=True)
    for name in ("all_reduce_perf", "mpirun"):
        (lab.shared / "nccl-standin" / name).write_bytes(NCCL_STANDIN.read_bytes())
        (lab.shared / "nccl-standin" / name).chmod(0o755)
    # Above ebmgn8v's thresholds (315 GB/s alone, 14 GB/s across nodes: hardware_fact's), as a healthy node measures.
    addresses = [h.address for h in lab.load()]
    (lab.shared / "nccl-standin" / "busbw.json").write_text(
        json.dumps({"busbw": dict.fromkeys(addresses, 20.0), "alone": dict.fromkeys(addresses, 400.0)})
    )
    name, sha256 = erdma_node_standin.installer(workdir / "erdma-mirror")
    sysfs = where + "/{{ inventory_hostname }}/class/infiniband"
    extravars = {
        "scc_instance_type": INSTANCE_TYPE,
        "scc_transport": "rdma",
        "rdma_stack_mirror": str(workdir / "erdma-mirror"),
        "rdma_stack_artifact_name": name,
        "rdma_stack_artifact_sha256": sha256,
        # This run's controller cache, not the user's (~/.cache/scc-training).
        "rdma_stack_cache_dir": str(workdir / "artifact-cache"),
        "rdma_stack_sysfs_path": sysfs,
        "ib_check_sysfs_path": sysfs,
        # No ERI for ib_write_bw: the pairs' bandwidth over loopback (iperf3), the lab's rate.
        "rdma_bandwidth_mode": "tcp",
        "nccl_check_cpu_only": False,
        "nccl_check_tests_dir": "/mnt/cpfs/nccl-standin",
        "nccl_check_mpirun_path": "/mnt/cpfs/nccl-standin/mpirun",
        "nccl_check_min_bytes": "1M",
        "nccl_check_max_bytes": "64M",
        "nccl_check_env": {"SCC_STANDIN_NODE": "{{ ansible_host }}"},
        "bert_launch_mpirun_path": mpirun,
        # The lab's STAND-IN switch: transport rdma on CPUs (gloo); the NET/IB check reads the stand-in rank's line.
        "bert_launch_standin_rdma_on_cpu": True,
        "bert_launch_steps": 10,
        "bert_launch_warmup_steps": 2,
        "bert_launch_batch_size": 8,
    }
    # An absolute path: run() joins it to PLAYBOOKS as pathlib does, leaving it as it is.
    status, rc, events = run(lab, workdir, ROOT / "tests" / "integration" / "playbooks" / "e2e_erdma.yml", extravars)
    assert (status, rc) == ("successful", 0), failed(events)
    ran = {e["event_data"].get("task") for e in events if e["event"] == "runner_on_ok"}

    # rdma_stack's eRDMA path: the installer ran, the driver mode was set (compat_mode=Y: ofed, Alibaba's ACK guide
    # for GPU instances), eth1's MTU set to 8500 now and at boot.
    assert "Run the eRDMA installer (install.sh --batch)" in ran
    for host in lab.load():
        shown = lab.ssh(host.address, f"cat /etc/modprobe.d/erdma.conf {erdma_node_standin.MODPROBE_LOG}")
        assert shown.returncode == 0 and "options erdma compat_mode=Y" in shown.stdout, shown
        assert "erdma compat_mode=Y" in shown.stdout.splitlines()[-1], shown.stdout
        assert (
            lab.ssh(host.address, "grep -x MTUBytes=8500 /etc/systemd/network/05-scc-training-mtu-eth1.link").returncode
            == 0
        )
    for instance in instances:
        for netdev in ("eth1", "eth2"):
            assert (shared / instance / "class" / "net" / netdev / "mtu").read_text().strip() == "8500"
    # ib_check judged both ERIs of every node.
    ib = [r["msg"] for _h, r in ok_runs(events, "Report the RDMA ports") if "msg" in r]
    assert len(ib) == 2 and all("erdma_0:1, erdma_1:1 active, Ethernet" in str(m) for m in ib), ib
    # nccl_check: every node green against ebmgn8v's thresholds (stand-in nccl-tests).
    results = workdir / "results"
    nccl = json.loads((results / "nccl-check.json").read_text())
    assert {r["status"] for r in nccl["nodes"].values()} == {"green"} and set(nccl["nodes"]) == set(instances), nccl

    # BERT: the run's results, its NCCL key from the (stand-in) NET/IB line, and this run in the cluster report.
    runs = sorted(results.glob("bert-*.json"), key=lambda p: p.stat().st_mtime)
    report = json.loads(runs[-1].read_text())
    assert report["status"] == "ok" and report["steps_completed"] == 10 and report["world_size"] >= 2
    assert report["nccl"]["transport"] == "IB", report["nccl"]
    assert [d["name"] for d in report["nccl"]["ib_devices"]] == ["erdma_0", "erdma_1"], report["nccl"]
    page = (results / "cluster-report.html").read_text()
    assert f"Training: BERT run {report['run_id']}" in page

    # Every rank's own environment (/proc/<pid>/environ of the process that became the rank) carries the family's
    # NCCL settings: PAI's eRDMA presets (plugins/module_utils/instance_families.py, source ali-pai-erdma, through
    # hardware_fact), where the ports discovered on the first node set nothing (NCCL_IB_HCA, NCCL_SOCKET_IFNAME).
    family = hardware_fact.cluster_fact(INSTANCE_TYPE, True)["nccl_env"]
    discovered = {"NCCL_IB_HCA": "=erdma_0:1,erdma_1:1", "NCCL_SOCKET_IFNAME": "lo", "NCCL_IB_DISABLE": "0"}
    expected = {**family, **discovered}
    assert {"NCCL_IB_QPS_PER_CONNECTION", "NCCL_MIN_NCHANNELS", "NCCL_NET_PLUGIN", "NCCL_IB_GID_INDEX"} <= set(family)
    dumps = sorted((shared / "environ").iterdir())
    assert len(dumps) == report["world_size"], [p.name for p in dumps]
    assert {p.name.split("-rank")[0] for p in dumps} == {"node1", "node2"}
    for dump in dumps:
        env = erdma_node_standin.environ(dump)
        assert env.get("SCC_TRAINING_RUN_ID") == report["run_id"], dump.name
        wrong = {k: (env.get(k), v) for k, v in expected.items() if env.get(k) != v}
        assert wrong == {}, f"{dump.name}: (rank's, expected) {wrong}"


def test_teardown_leaves_nothing_in_the_cloud(lab, workdir, cloud):
    # teardown.yml deletes every resource provision.yml made: nothing of ours is left in the cloud.
    status, rc, events = run(lab, workdir, "teardown.yml", cloud["settings"])
    assert (status, rc) == ("successful", 0), failed(events)
    store = cloud["emu"].store
    for table in ("instances", "file_systems", "mount_targets", "security_groups", "hpc_clusters", "vswitches", "vpcs"):
        assert list(getattr(store, table).values()) == [], table
