"""playbooks/train_bert.yml and train_resnet.yml with scc_launcher mpijob, on localhost (no lab host, no API server):
validate.yml, then k8s_cpfs_volume and k8s_training_job with their ``*_apply: false`` (the lab's stand-in) render
and validate their manifests; the files on the controller are read back and validated against the real schemas
(kubernetes-validate, the pinned MPIJob CRD). An unknown scc_launcher and a missing PVC size are refused before any
role runs, naming the variable.

What this cannot prove: that a real ACK cluster accepts and runs them (roles/k8s_training_job/README.md).
"""

import sys
from pathlib import Path

import pytest
import yaml

from tests.lab_runner import changed, failed, ok_messages, run_playbook, unreachable
from tests.unit.plugins.module_utils.test_k8s_jobs import validate_k8s, validate_mpijob

ROOT = Path(__file__).resolve().parents[3]
CRD = ROOT / "tests/fixtures/k8s/kubeflow.org_mpijobs-v0.8.0.yaml"
RUN_ID = "20261203T220000Z-c0de"


def inventory(tmp_path):
    path = tmp_path / "hosts.yml"
    path.write_text(
        yaml.safe_dump(
            {
                "scc_cluster": {
                    "hosts": {"node1": {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}}
                },
                "all": {
                    "vars": {
                        # The lab's own declarations (docs/DEVELOPING.md): CPU only, tcp.
                        "scc_cpu_only": True,
                        "scc_transport": "tcp",
                        "rdma_bandwidth_link_rate_gbps": 2,
                        "bert_launch_tcp_interface": "lo",
                        "resnet_launch_tcp_interface": "lo",
                        "bert_launch_model_size": "tiny",
                    }
                },
            }
        )
    )
    return path


def k8s_vars(results, **changes):
    return {
        "scc_launcher": "mpijob",
        "k8s_cpfs_volume_apply": False,
        "k8s_training_job_apply": False,
        "k8s_cpfs_volume_server": "cpfs-0123abcd-abc12.cn-shanghai.cpfs.aliyuncs.com",
        "k8s_cpfs_volume_path": "/share/scc-training",
        "k8s_cpfs_volume_size": "1Ti",
        "k8s_cpfs_volume_manifest_dir": str(results / "k8s"),
        "k8s_training_job_image": "registry-vpc.cn-shanghai.aliyuncs.com/scc/training:0.4.0",
        "k8s_training_job_workers": 2,
        "k8s_training_job_slots_per_worker": 4,
        "k8s_training_job_gpu_resource": "",
        "bert_launch_run_id": RUN_ID,
        "resnet_launch_run_id": RUN_ID,
        "bert_launch_results_dir": str(results),
        "resnet_launch_results_dir": str(results),
        **changes,
    }


@pytest.fixture(scope="module")
def mpijob_schema():
    crd = yaml.safe_load(CRD.read_text())
    return next(v for v in crd["spec"]["versions"] if v["name"] == "v2beta1")["schema"]["openAPIV3Schema"]


@pytest.mark.parametrize(("playbook", "workload"), [("train_bert.yml", "bert"), ("train_resnet.yml", "resnet")])
def test_mpijob_path_renders_and_validates(tmp_path, playbook, workload, mpijob_schema):
    results = tmp_path / "results"
    run = run_playbook(ROOT / "playbooks" / playbook, inventory(tmp_path), tmp_path, extravars=k8s_vars(results))
    assert run.rc == 0, failed(run.events)
    assert not unreachable(run.events)
    pv, pvc = yaml.safe_load_all((results / "k8s" / "cpfs-volume-scc-cpfs.yml").read_text())
    for manifest in (pv, pvc):
        validate_k8s(manifest)
    assert pv["spec"]["csi"]["volumeAttributes"]["mountProtocol"] == "cpfs-nfs"
    assert pvc["spec"]["resources"]["requests"]["storage"] == "1Ti"
    text = (results / "k8s" / ("%s-%s.mpijob.yml" % (workload, RUN_ID))).read_text()
    assert "&id" not in text  # plain YAML, no anchors or aliases
    mpijob = yaml.safe_load(text)
    validate_mpijob(mpijob, mpijob_schema)
    assert mpijob["metadata"]["name"] == "scc-%s-%s" % (workload, RUN_ID.lower())
    assert mpijob["spec"]["slotsPerWorker"] == 4
    launcher = mpijob["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]
    argv = launcher["args"][4:]
    # The launcher's variables reached the job as the bare-metal launcher reads them (the lab's tcp, CPU only).
    assert argv[:4] == ["mpirun", "--allow-run-as-root", "-np", "8"]
    assert "NCCL_IB_DISABLE=1" in argv
    module = "scc_training_runtime." + ("pretrain_bert" if workload == "bert" else "train_resnet")
    assert argv[argv.index(module) - 1] == "-m"
    arena = (results / "k8s" / ("%s-%s.arena.sh" % (workload, RUN_ID))).read_text()
    assert "arena submit mpijob" in arena and "--workers=2" in arena and "--data=scc-cpfs:/mnt/cpfs" in arena
    assert "The same job with Arena: arena submit mpijob" in ok_messages(run.events)
    # Nothing ran: no results file, and the role said so.
    assert not (results / ("%s-%s.json" % (workload, RUN_ID))).exists()
    assert "k8s_training_job_apply is false" in ok_messages(run.events)
    if workload == "bert":
        # Idempotent: the same run again changes nothing; check mode neither.
        again = run_playbook(ROOT / "playbooks" / playbook, inventory(tmp_path), tmp_path, extravars=k8s_vars(results))
        assert again.rc == 0 and changed(again.events) == [], changed(again.events)
        check = run_playbook(
            ROOT / "playbooks" / playbook, inventory(tmp_path), tmp_path, extravars=k8s_vars(results), check=True
        )
        assert check.rc == 0 and changed(check.events) == [], changed(check.events)


def test_check_mode_writes_nothing(tmp_path):
    results = tmp_path / "results"
    run = run_playbook(
        ROOT / "playbooks" / "train_resnet.yml", inventory(tmp_path), tmp_path, extravars=k8s_vars(results), check=True
    )
    assert run.rc == 0, failed(run.events)
    assert not (results / "k8s").exists()


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"scc_launcher": "slurm"}, 'scc_launcher ("slurm") must be one of mpirun, mpijob'),
        ({"k8s_cpfs_volume_size": ""}, "k8s_cpfs_volume_size is required"),
        # Never silently dropped: the MPIJob has no way to carry it (issue 27).
        ({"bert_launch_secret_env": {"HF_TOKEN": "hf_s3cret"}}, "bert_launch_secret_env (HF_TOKEN) is not delivered"),
    ],
)
def test_bad_input_is_refused_before_anything_runs(tmp_path, changes, expected):
    results = tmp_path / "results"
    run = run_playbook(
        ROOT / "playbooks" / "train_bert.yml", inventory(tmp_path), tmp_path, extravars=k8s_vars(results, **changes)
    )
    assert run.rc != 0
    messages = [msg for _host, _task, msg in failed(run.events)]
    assert any(expected in msg for msg in messages), messages
    assert not any("hf_s3cret" in msg for msg in messages), messages
    # Refused in validate.yml: nothing rendered.
    assert not (results / "k8s").exists()
