"""plugins/module_utils/k8s_jobs.py: the CPFS PV/PVC, the MPIJob of BERT and ResNet over tcp and rdma, the Arena
line, the input problems; every manifest validated against the real schemas:

- Kubernetes' OpenAPI schemas as kubernetes-validate 1.37.0 ships them (requirements-dev.txt), strict (no field the
  API does not know), for Kubernetes 1.36 and 1.35: the versions ACK managed clusters offer (Alibaba Cloud,
  "Kubernetes versions supported by ACK", https://www.alibabacloud.com/help/en/ack/product-overview/release-notes-for-kubernetes-versions:
  1.36 released May 2026, 1.35 February 2026; 1.34 supported until 30 September 2026).
- The MPIJob CRD's openAPIV3Schema (v2beta1) from kubeflow/mpi-operator v0.8.0, pinned in
  tests/fixtures/k8s/kubeflow.org_mpijobs-v0.8.0.yaml (its header names repository, tag, commit and path), with
  jsonschema; its launcher's and workers' pod templates also against Kubernetes' own PodTemplateSpec (strict).
"""

import copy
import json
import shlex
from pathlib import Path

import jsonschema
import kubernetes_validate
import pytest
import yaml

from ansible_collections.scc.training.plugins.module_utils import k8s_jobs

ROOT = Path(__file__).resolve().parents[4]
CRD = ROOT / "tests/fixtures/k8s/kubeflow.org_mpijobs-v0.8.0.yaml"
K8S_VERSIONS = ["1.36.0", "1.35.0"]


def _defaults(role):
    return yaml.safe_load((ROOT / "roles" / role / "defaults/main.yml").read_text())


@pytest.fixture(scope="module")
def mpijob_schema():
    crd = yaml.safe_load(CRD.read_text())
    (version,) = [v for v in crd["spec"]["versions"] if v["name"] == "v2beta1"]
    return version["schema"]["openAPIV3Schema"]


def validate_k8s(manifest):
    for version in K8S_VERSIONS:
        kubernetes_validate.validate(manifest, version, strict=True)


def validate_mpijob(manifest, schema):
    jsonschema.validate(manifest, schema, cls=jsonschema.Draft7Validator)
    for kind in ("Launcher", "Worker"):
        template = {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "t"}}
        template["template"] = manifest["spec"]["mpiReplicaSpecs"][kind]["template"]
        validate_k8s(template)


VOLUME = {
    "k8s_cpfs_volume_server": "cpfs-0123abcd-abc12.cn-shanghai.cpfs.aliyuncs.com",
    "k8s_cpfs_volume_path": "/share/scc-training",
    "k8s_cpfs_volume_size": "1Ti",
    "k8s_cpfs_volume_namespace": "default",
    "k8s_cpfs_volume_pv_name": "scc-cpfs",
    "k8s_cpfs_volume_pvc_name": "scc-cpfs",
    "k8s_cpfs_volume_access_mode": "ReadWriteMany",
    "k8s_cpfs_volume_reclaim_policy": "Retain",
    "k8s_cpfs_volume_mount_options": [],
}

# bert_launch's and resnet_launch's defaults with the templated ones resolved as a GPU cluster resolves them.
BERT = {
    **_defaults("bert_launch"),
    "bert_launch_transport": "tcp",
    "bert_launch_cpu_only": "False",
    "bert_launch_gpu_compute_capability": "7.0",
    "bert_launch_mpirun_path": "/usr/bin/mpirun",
    # lookup('scc.training.hardware', 'nccl_env') without an instance type: sccgn6's.
    "bert_launch_nccl_env": {"NCCL_SOCKET_IFNAME": "eth0"},
}
RESNET = {
    **_defaults("resnet_launch"),
    "resnet_launch_transport": "tcp",
    "resnet_launch_cpu_only": False,
    "resnet_launch_nccl_env": {"NCCL_SOCKET_IFNAME": "eth0"},
}
DEVICES = [
    {
        "name": "mlx5_0",
        "ports": [{"port": 1, "state": "PORT_ACTIVE", "link_layer": "Ethernet", "roce_v2_gid_index": 3}],
    },
    {
        "name": "mlx5_1",
        "ports": [{"port": 1, "state": "PORT_ACTIVE", "link_layer": "Ethernet", "roce_v2_gid_index": 3}],
    },
]


def job_settings(workload="bert", transport="tcp", **changes):
    launcher = copy.deepcopy(BERT if workload == "bert" else RESNET)
    launcher[("bert_launch" if workload == "bert" else "resnet_launch") + "_transport"] = transport
    settings = {
        "scc_launcher": "mpijob",
        **{k: v for k, v in _defaults("k8s_training_job").items() if not str(v).startswith("{{")},
        "k8s_training_job_workload": workload,
        "k8s_training_job_image": "registry-vpc.cn-shanghai.aliyuncs.com/scc/training:0.4.0",
        "k8s_training_job_pvc_name": "scc-cpfs",
        "k8s_training_job_namespace": "default",
        "k8s_training_job_run_id": "20261203T220000Z-abcd",
        "k8s_training_job_workers": 2,
        "k8s_training_job_slots_per_worker": 8,
        "k8s_training_job_rdma_devices": DEVICES if transport == "rdma" else [],
        **launcher,
    }
    settings.update(changes)
    return settings


def container(manifest, kind):
    return manifest["spec"]["mpiReplicaSpecs"][kind]["template"]["spec"]["containers"][0]


# ---- the CPFS volume ----


def test_cpfs_volume_manifests_follow_the_nas_csi_plugin_and_pass_the_kubernetes_schemas():
    pv, pvc = k8s_jobs.cpfs_volume_manifests(VOLUME)
    assert pv["spec"]["csi"] == {
        "driver": "nasplugin.csi.alibabacloud.com",
        "volumeHandle": "scc-cpfs",
        "volumeAttributes": {
            "server": VOLUME["k8s_cpfs_volume_server"],
            "path": "/share/scc-training",
            "vers": "3",
            "mountProtocol": "cpfs-nfs",
        },
    }
    assert pv["spec"]["capacity"] == {"storage": "1Ti"} == pvc["spec"]["resources"]["requests"]
    assert pv["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
    assert pvc["spec"]["volumeName"] == "scc-cpfs" and pvc["spec"]["storageClassName"] == ""
    assert pvc["metadata"]["namespace"] == "default" and "namespace" not in pv["metadata"]
    assert "mountOptions" not in pv["spec"]
    for manifest in (pv, pvc):
        validate_k8s(manifest)


def test_cpfs_volume_mount_options_go_to_the_pv():
    pv, _pvc = k8s_jobs.cpfs_volume_manifests({**VOLUME, "k8s_cpfs_volume_mount_options": ["nolock", "noresvport"]})
    assert pv["spec"]["mountOptions"] == ["nolock", "noresvport"]
    validate_k8s(pv)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"k8s_cpfs_volume_size": ""}, "k8s_cpfs_volume_size is required"),
        ({"k8s_cpfs_volume_size": None}, "k8s_cpfs_volume_size is required"),
        ({"k8s_cpfs_volume_size": "1 TB"}, "k8s_cpfs_volume_size (\"1 TB\") must be a positive Kubernetes quantity"),
        ({"k8s_cpfs_volume_size": "0Gi"}, "k8s_cpfs_volume_size (\"0Gi\") must be a positive"),
        ({"k8s_cpfs_volume_server": ""}, "k8s_cpfs_volume_server is required"),
        ({"k8s_cpfs_volume_server": "nfs://x.cpfs.aliyuncs.com"}, "k8s_cpfs_volume_server (\"nfs://"),
        ({"k8s_cpfs_volume_path": "/data"}, "k8s_cpfs_volume_path (\"/data\") must be /share"),
        ({"k8s_cpfs_volume_path": "/share/../etc"}, "k8s_cpfs_volume_path (\"/share/../etc\")"),
        ({"k8s_cpfs_volume_namespace": "Prod"}, "k8s_cpfs_volume_namespace (\"Prod\") must be a DNS label"),
        ({"k8s_cpfs_volume_pvc_name": "a_b"}, "k8s_cpfs_volume_pvc_name (\"a_b\") must be a DNS subdomain"),
        ({"k8s_cpfs_volume_mount_options": ["vers=4"]}, "must not set the NFS version"),
        ({"k8s_cpfs_volume_mount_options": "nolock"}, "k8s_cpfs_volume_mount_options (\"nolock\") must be a list"),
    ],
)
def test_cpfs_volume_problems_name_the_variable(changes, expected):
    problems = k8s_jobs.cpfs_volume_problems({**VOLUME, **changes})
    assert len(problems) == 1 and expected in problems[0], problems
    with pytest.raises(ValueError, match="k8s_cpfs_volume: "):
        k8s_jobs.cpfs_volume_manifests({**VOLUME, **changes})


def test_cpfs_volume_problems_come_all_at_once():
    problems = k8s_jobs.cpfs_volume_problems({**VOLUME, "k8s_cpfs_volume_size": "", "k8s_cpfs_volume_server": ""})
    assert [p.split(" ")[0] for p in problems] == ["k8s_cpfs_volume_server", "k8s_cpfs_volume_size"]


# ---- the launcher choice ----


@pytest.mark.parametrize("launcher", ["mpirun", "mpijob"])
def test_known_launchers_pass(launcher):
    assert k8s_jobs.launcher_problems(launcher) == []


@pytest.mark.parametrize("launcher", ["slurm", "", None, "MPIJob"])
def test_unknown_launcher_is_refused_naming_scc_launcher(launcher):
    (problem,) = k8s_jobs.launcher_problems(launcher)
    assert problem.startswith("scc_launcher (%s) must be one of mpirun, mpijob" % json.dumps(launcher))


# ---- the MPIJob ----


@pytest.mark.parametrize("workload", ["bert", "resnet"])
@pytest.mark.parametrize("transport", ["tcp", "rdma"])
def test_every_mpijob_passes_the_crd_and_the_kubernetes_schemas(workload, transport, mpijob_schema):
    manifest = k8s_jobs.mpijob_manifest(k8s_jobs.training_job(job_settings(workload, transport)))
    validate_mpijob(manifest, mpijob_schema)
    assert manifest["apiVersion"] == "kubeflow.org/v2beta1" and manifest["kind"] == "MPIJob"
    assert manifest["metadata"]["name"] == "scc-%s-20261203t220000z-abcd" % workload
    assert manifest["spec"]["slotsPerWorker"] == 8
    assert manifest["spec"]["mpiReplicaSpecs"]["Worker"]["replicas"] == 2
    assert manifest["spec"]["mpiReplicaSpecs"]["Launcher"]["replicas"] == 1


def test_the_crd_schema_rejects_what_is_wrong(mpijob_schema):
    """The pinned schema is strict enough to catch a bad manifest (the validation above can fail)."""
    manifest = k8s_jobs.mpijob_manifest(k8s_jobs.training_job(job_settings()))
    bad = copy.deepcopy(manifest)
    bad["spec"]["slotsPerWorker"] = "eight"
    with pytest.raises(jsonschema.ValidationError):
        validate_mpijob(bad, mpijob_schema)
    bad = copy.deepcopy(manifest)
    bad["spec"]["mpiImplementation"] = "LAM"
    with pytest.raises(jsonschema.ValidationError):
        validate_mpijob(bad, mpijob_schema)
    bad = copy.deepcopy(manifest)
    container(bad, "Worker")["volumeMount"] = []
    with pytest.raises(kubernetes_validate.ValidationError):
        validate_mpijob(bad, mpijob_schema)


def test_tcp_bert_job_runs_the_bare_metal_command_in_the_launcher():
    job = k8s_jobs.training_job(job_settings("bert", "tcp"))
    manifest = k8s_jobs.mpijob_manifest(job)
    launcher, worker = container(manifest, "Launcher"), container(manifest, "Worker")
    args = launcher["args"]
    assert launcher["command"] == ["/bin/sh"] and args[0] == "-c" and args[1] == k8s_jobs.LAUNCHER_SCRIPT
    results = "/mnt/cpfs/scc-training/bert/runs/20261203T220000Z-abcd/results.json"
    assert args[3] == results
    argv = args[4:]
    assert argv[:4] == ["mpirun", "--allow-run-as-root", "-np", "16"]
    assert "-x" in argv and "NCCL_IB_DISABLE=1" in argv and "NCCL_SOCKET_IFNAME=eth0" in argv
    assert "MASTER_ADDR=scc-bert-20261203t220000z-abcd-worker-0.scc-bert-20261203t220000z-abcd.default.svc" in argv
    assert "/opt/scc-training/venv/bin/python" in argv
    # The image's venv runs the runtime wheel's module (docs/k8s.md: the same wheel as python_env's).
    script = argv.index("scc_training_runtime.pretrain_bert")
    assert argv[script - 2 : script] == ["/opt/scc-training/venv/bin/python", "-m"]
    assert argv[script + 1 : script + 3] == ["--framework", "torch"]
    assert argv[argv.index("--output-dir") + 1] == "/mnt/cpfs/scc-training/bert/runs/20261203T220000Z-abcd"
    assert argv[argv.index("--data-dir") + 1] == "/mnt/cpfs/scc-training/bert/data"
    assert "--vocab-multiple" in argv  # the GPU generation's levers, resolved as bert_launch resolves them
    # tcp: the pod network, no RDMA resource, no hostNetwork.
    spec = manifest["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]
    assert "hostNetwork" not in spec and worker["resources"] == {"limits": {"nvidia.com/gpu": 8}}
    assert worker["command"] == ["/usr/sbin/sshd", "-De"]
    assert {"name": "cpfs", "persistentVolumeClaim": {"claimName": "scc-cpfs"}} in spec["volumes"]
    assert {"name": "cpfs", "mountPath": "/mnt/cpfs"} in worker["volumeMounts"]
    assert {"name": "cpfs", "mountPath": "/mnt/cpfs"} in launcher["volumeMounts"]


def test_rdma_job_uses_the_host_network_the_rdma_resource_and_ncclib():
    job = k8s_jobs.training_job(job_settings("resnet", "rdma"))
    manifest = k8s_jobs.mpijob_manifest(job)
    worker = container(manifest, "Worker")
    spec = manifest["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]
    assert spec["hostNetwork"] is True and spec["dnsPolicy"] == "ClusterFirstWithHostNet"
    assert worker["resources"]["limits"] == {"nvidia.com/gpu": 8, "rdma/hca": 1}
    assert worker["securityContext"]["capabilities"]["add"] == ["IPC_LOCK", "SYS_RESOURCE"]
    assert worker["command"] == ["/usr/sbin/sshd", "-De", "-p", "2222"]
    argv = container(manifest, "Launcher")["args"][4:]
    assert argv[4:7] == ["--mca", "plm_rsh_args", "-p 2222"]
    assert "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1" in argv and "NCCL_IB_GID_INDEX=3" in argv and "NCCL_IB_DISABLE=0" in argv
    program = argv[argv.index("scc_training_runtime.train_resnet") :]
    assert program[program.index("--data-dir") + 1] == "/mnt/cpfs/imagenet/tfrecord"
    assert program[program.index("--output-dir") + 1] == "/mnt/cpfs/scc-training/resnet/runs/20261203T220000Z-abcd"
    assert argv[argv.index("scc_training_runtime.train_resnet") - 1] == "-m"
    assert not any(arg.startswith("PYTHONPATH=") for arg in argv)  # the runtime is the image venv's wheel


def test_rdma_without_an_active_port_is_refused_naming_the_variable():
    with pytest.raises(ValueError, match="k8s_training_job_rdma_devices has no active RDMA port"):
        k8s_jobs.training_job(job_settings("bert", "rdma", k8s_training_job_rdma_devices=[]))


def test_the_job_name_and_resources_can_be_set():
    settings = job_settings(
        k8s_training_job_name="bert-v100", k8s_training_job_cpu="32", k8s_training_job_memory="256Gi"
    )
    manifest = k8s_jobs.mpijob_manifest(k8s_jobs.training_job(settings))
    assert manifest["metadata"]["name"] == "bert-v100"
    assert container(manifest, "Worker")["resources"]["limits"] == {"nvidia.com/gpu": 8, "cpu": "32", "memory": "256Gi"}
    validate_k8s({"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "t"},
                  "template": manifest["spec"]["mpiReplicaSpecs"]["Worker"]["template"]})  # fmt: skip


# ---- Arena ----


def test_arena_line_submits_the_same_job():
    job = k8s_jobs.training_job(job_settings("bert", "rdma"))
    argv = k8s_jobs.arena_argv(job)
    assert argv[:3] == ["arena", "submit", "mpijob"]
    assert "--name=scc-bert-20261203t220000z-abcd" in argv and "--namespace=default" in argv
    assert "--workers=2" in argv and "--gpus=8" in argv
    assert "--image=registry-vpc.cn-shanghai.aliyuncs.com/scc/training:0.4.0" in argv
    assert "--data=scc-cpfs:/mnt/cpfs" in argv and "--mounts-on-launcher" in argv
    assert "--rdma" in argv and "--hostNetwork" in argv
    # The command is the launcher's mpirun, one string that a shell splits back into the same argv.
    assert shlex.split(argv[-1]) == k8s_jobs.launcher_argv(job)
    line = k8s_jobs.arena_command(job)
    assert shlex.split(line) == argv


def test_erdma_job_requests_aliyun_erdma_on_the_host_network_as_acks_guide_does():
    """ACK's eRDMA guide (hardware_facts 4.6): workers request aliyun/erdma, hostNetwork; Arena --device=aliyun/erdma=1."""
    settings = job_settings("bert", "rdma", k8s_training_job_rdma_resource="aliyun/erdma")
    job = k8s_jobs.training_job(settings)
    manifest = k8s_jobs.mpijob_manifest(job)
    spec = manifest["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]
    assert spec["hostNetwork"] is True and spec["dnsPolicy"] == "ClusterFirstWithHostNet"
    assert container(manifest, "Worker")["resources"]["limits"] == {"nvidia.com/gpu": 8, "aliyun/erdma": 1}
    argv = k8s_jobs.arena_argv(job)
    assert "--device=aliyun/erdma=1" in argv and "--hostNetwork" in argv and "--rdma" not in argv
    assert shlex.split(k8s_jobs.arena_command(job)) == argv
    two = k8s_jobs.training_job(dict(settings, k8s_training_job_rdma_resource_count=2))
    assert container(k8s_jobs.mpijob_manifest(two), "Worker")["resources"]["limits"]["aliyun/erdma"] == 2
    assert "--device=aliyun/erdma=2" in k8s_jobs.arena_argv(two)
    # rdma/hca more than once cannot be said with --rdma (one rdma/hca): by name as well
    hca = k8s_jobs.training_job(job_settings("bert", "rdma", k8s_training_job_rdma_resource_count=2))
    assert "--device=rdma/hca=2" in k8s_jobs.arena_argv(hca) and "--rdma" not in k8s_jobs.arena_argv(hca)


def test_erdma_family_nccl_env_reaches_the_mpijob_and_arena_ranks():
    """The family's NCCL settings (scc_hardware's nccl_env for ebmgn8v: PAI's preset values) go into the ranks'
    environment of the MPIJob's launcher and of Arena's line, as into mpirun's on bare metal; bert_launch_env wins."""
    from ansible_collections.scc.training.plugins.module_utils.hardware_fact import cluster_fact

    family = cluster_fact("ebmgn8v")["nccl_env"]
    settings = job_settings(
        "bert", "rdma", bert_launch_nccl_env=family, bert_launch_env={"NCCL_MIN_NCHANNELS": "4"},
        k8s_training_job_rdma_resource="aliyun/erdma",
    )  # fmt: skip
    job = k8s_jobs.training_job(settings)
    launcher = container(k8s_jobs.mpijob_manifest(job), "Launcher")
    for line in (" ".join(launcher["command"] + launcher.get("args", [])), " ".join(k8s_jobs.arena_argv(job))):
        assert "NCCL_IB_QPS_PER_CONNECTION=8" in line and "NCCL_NET_PLUGIN=none" in line
        assert "NCCL_MIN_NCHANNELS=4" in line and "NCCL_MIN_NCHANNELS=16" not in line


def test_arena_line_over_tcp_has_no_rdma():
    argv = k8s_jobs.arena_argv(k8s_jobs.training_job(job_settings("resnet", "tcp")))
    assert "--rdma" not in argv and "--hostNetwork" not in argv


# ---- input problems ----


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"k8s_training_job_image": ""}, "k8s_training_job_image (\"\") must name the training image"),
        ({"k8s_training_job_name": "BERT"}, "k8s_training_job_name (\"BERT\") must be a DNS label"),
        ({"k8s_training_job_name": "a" * 52}, "must be a DNS label of at most 51 characters"),
        ({"k8s_training_job_run_id": "run 1"}, "k8s_training_job_run_id (\"run 1\") must be at most 40 letters"),
        ({"k8s_training_job_namespace": "a.b"}, "k8s_training_job_namespace (\"a.b\") must be a DNS label"),
        ({"k8s_training_job_pvc_name": ""}, "k8s_training_job_pvc_name (\"\") must be a DNS subdomain"),
        ({"k8s_training_job_workers": 0}, "k8s_training_job_workers (0) must be an integer >= 1"),
        ({"k8s_training_job_slots_per_worker": "x"}, "k8s_training_job_slots_per_worker (x) must be an integer"),
        ({"k8s_training_job_ssh_port": 0}, "k8s_training_job_ssh_port (0) must be a port"),
        ({"k8s_training_job_mount_path": "cpfs"}, "k8s_training_job_mount_path (\"cpfs\") must be an absolute path"),
        ({"k8s_training_job_rdma_resource": "rdma hca"}, "k8s_training_job_rdma_resource (\"rdma hca\")"),
        (
            {"k8s_training_job_rdma_resource_count": 0},
            "k8s_training_job_rdma_resource_count (0) must be an integer >= 1",
        ),
        ({"k8s_training_job_memory": "lots"}, "k8s_training_job_memory (\"lots\") must be empty or a Kubernetes"),
        ({"bert_launch_framework": "aiacc"}, "bert_launch_framework aiacc reads its settings from a file"),
        ({"bert_launch_venv_path": k8s_jobs.UNDEFINED}, "missing bert_launch_venv_path"),
        (
            {"bert_launch_secret_env": {"HF_TOKEN": "hf_s3cret"}},
            "bert_launch_secret_env (HF_TOKEN) is not delivered with scc_launcher mpijob",
        ),
    ],
)
def test_training_job_problems_name_the_variable(changes, expected):
    problems = k8s_jobs.training_job_problems(job_settings(**changes))
    assert len(problems) == 1 and expected in problems[0], problems
    with pytest.raises(ValueError, match="k8s_training_job: "):
        k8s_jobs.training_job(job_settings(**changes))


def test_good_settings_have_no_problem():
    assert k8s_jobs.training_job_problems(job_settings()) == []
    # The validate entry point: no run id yet, the launcher's role not in the play.
    assert (
        k8s_jobs.training_job_problems({**job_settings(), "k8s_training_job_run_id": "", "check_launcher": False}) == []
    )
    without_launcher = {k: v for k, v in job_settings().items() if not k.startswith("bert_launch_")}
    assert k8s_jobs.training_job_problems({**without_launcher, "check_launcher": False}) == []
    assert k8s_jobs.training_job_problems(job_settings("resnet", "rdma")) == []


@pytest.mark.parametrize("workload", ["bert", "resnet"])
def test_a_secret_env_is_refused_with_mpijob_naming_the_variable_never_the_value(workload):
    """The MPIJob carries no secret (no file on its pods, no Secret rendered): refused, not silently dropped. The
    validate entry point gets the names only (the role's vars pass `| list`), the render the same."""
    variable = ("bert_launch" if workload == "bert" else "resnet_launch") + "_secret_env"
    for secret in ({"WANDB_API_KEY": "s3cret-value", "HF_TOKEN": "hf_s3cret"}, ["WANDB_API_KEY", "HF_TOKEN"]):
        settings = {**job_settings(workload), variable: secret}
        for problems in (
            k8s_jobs.training_job_problems(settings),
            k8s_jobs.training_job_problems({**settings, "k8s_training_job_run_id": "", "check_launcher": False}),
        ):
            assert len(problems) == 1, problems
            assert problems[0].startswith(
                "%s (HF_TOKEN, WANDB_API_KEY) is not delivered with scc_launcher mpijob" % variable
            )
            assert "Kubernetes Secret in namespace \"default\"" in problems[0] and "s3cret" not in problems[0]
    for empty in ({}, [], None, k8s_jobs.UNDEFINED):
        assert k8s_jobs.training_job_problems({**job_settings(workload), variable: empty}) == []


# ---- status and results ----


def test_mpijob_status_reads_the_conditions():
    assert k8s_jobs.mpijob_status(None)["finished"] is False
    running = {"status": {"conditions": [{"type": "Created", "status": "True"}, {"type": "Running", "status": "True"}]}}
    assert k8s_jobs.mpijob_status(running) == {"finished": False, "succeeded": False, "reason": None, "message": ""}
    done = {"status": {"conditions": [{"type": "Succeeded", "status": "True", "reason": "MPIJobSucceeded"}]}}
    assert k8s_jobs.mpijob_status(done)["succeeded"] is True
    failed = {"status": {"conditions": [{"type": "Failed", "status": "True", "message": "BackoffLimitExceeded"}]}}
    assert k8s_jobs.mpijob_status(failed) == {
        "finished": True,
        "succeeded": False,
        "reason": "Failed",
        "message": "BackoffLimitExceeded",
    }


def test_mpijob_results_read_rank_0s_json_from_the_launcher_log():
    log = "step 10 loss 7.1\n%s\n%s\n\n%s\n" % (
        k8s_jobs.RESULTS_BEGIN,
        json.dumps({"samples_per_second": 1234.5, "world_size": 16}),
        k8s_jobs.RESULTS_END,
    )
    results = k8s_jobs.mpijob_results(log, "r1", True)
    assert results == {
        "samples_per_second": 1234.5,
        "world_size": 16,
        "run_id": "r1",
        "launcher": "mpijob",
        "nccl": None,
        "status": "ok",
    }
    # rdma: bert_launch's proof, a channel over NET/IB in NCCL's log.
    no_ib = k8s_jobs.mpijob_results(log, "r1", True, "rdma")
    assert no_ib["status"] == "failed" and "no channel over NET/IB" in no_ib["message"]
    ib = "node1:12:34 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0\n" + log
    ok = k8s_jobs.mpijob_results(ib, "r1", True, "rdma")
    assert ok["status"] == "ok" and ok["nccl"]["transport"] == "IB"
    failed = k8s_jobs.mpijob_results("rank 3 died\n", "r1", False)
    assert failed["status"] == "failed" and "rank 3 died" in failed["message"]
    missing = k8s_jobs.mpijob_results(log.replace(k8s_jobs.RESULTS_END, ""), "r1", True)
    assert missing["status"] == "failed" and "printed no results.json" in missing["message"]


def printed(results):
    """A launcher's log that printed ``results`` as its results.json."""
    return "step 10 loss 7.1\n%s\n%s\n%s\n" % (k8s_jobs.RESULTS_BEGIN, json.dumps(results), k8s_jobs.RESULTS_END)


def test_mpijob_results_refuse_the_results_of_another_run():
    """An MPIJob of that name that finished in an earlier run is patched, not run again: its launcher's log holds the
    old run's results, which must never be reported under this run's id (the reviewer's reproduction)."""
    old = printed({"run_id": "20261201T000000Z-aaaa", "samples_per_second": 1234.5})
    with pytest.raises(ValueError) as refused:
        k8s_jobs.mpijob_results(old, "20261205T060000Z-bbbb", True, "tcp", "scc-bert-fixed")
    message = str(refused.value)
    for part in ("20261201T000000Z-aaaa", "20261205T060000Z-bbbb", "scc-bert-fixed", "delete", "k8s_training_job_name"):
        assert part in message, message
    # Also when the job failed: the old log is not this run's either.
    with pytest.raises(ValueError, match="20261201T000000Z-aaaa"):
        k8s_jobs.mpijob_results(old, "20261205T060000Z-bbbb", False)
    # This run's own results pass as they are.
    mine = k8s_jobs.mpijob_results(printed({"run_id": "r1", "samples_per_second": 1.0}), "r1", True, None, "j")
    assert (mine["run_id"], mine["status"], mine["samples_per_second"]) == ("r1", "ok", 1.0)


def test_an_existing_mpijob_of_another_run_or_other_settings_is_refused_before_apply():
    manifest = k8s_jobs.mpijob_manifest(k8s_jobs.training_job(job_settings(k8s_training_job_name="scc-bert-fixed")))
    assert k8s_jobs.mpijob_conflict(None, manifest) == ""
    # The same run with the same settings (a re-run of the play, the job running or done): its results are this run's.
    same = copy.deepcopy(manifest)
    same["status"] = {"conditions": [{"type": "Succeeded", "status": "True"}]}
    same["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] = "{}"
    assert k8s_jobs.mpijob_conflict(same, manifest) == ""

    older = copy.deepcopy(same)
    older["metadata"]["labels"]["scc.training/run-id"] = "20261201T000000Z-aaaa"
    problem = k8s_jobs.mpijob_conflict(older, manifest)
    for part in (
        "default/scc-bert-fixed",
        "20261201T000000Z-aaaa",
        manifest["metadata"]["labels"]["scc.training/run-id"],
    ):
        assert part in problem, problem
    assert "kubectl delete mpijob -n default scc-bert-fixed" in problem and "k8s_training_job_name" in problem

    # The same run id reused with other settings: mpi-operator would not rerun the patched job.
    changed = k8s_jobs.mpijob_manifest(
        k8s_jobs.training_job(job_settings(k8s_training_job_name="scc-bert-fixed", bert_launch_batch_size=64))
    )
    assert changed["metadata"]["annotations"] != manifest["metadata"]["annotations"]
    problem = k8s_jobs.mpijob_conflict(same, changed)
    assert "other settings" in problem and "k8s_training_job_run_id" in problem, problem

    # An MPIJob nothing of this collection made (no run-id label, no settings hash).
    foreign = {"metadata": {"name": "scc-bert-fixed", "namespace": "default"}, "spec": {}}
    assert "not made by scc.training" in k8s_jobs.mpijob_conflict(foreign, manifest)


def test_the_launcher_of_a_workload_comes_from_the_job_builders_table(monkeypatch):
    """k8s_jobs.py names a workload's launcher variables from training_job.py's table (its ``role``), not a mapping of
    its own: a workload added to the table is checked under its own launcher's names."""
    from ansible_collections.scc.training.plugins.module_utils import training_job as job_builder

    assert k8s_jobs.WORKLOADS == tuple(job_builder.SCRIPTS)
    monkeypatch.setitem(job_builder.SCRIPTS, "gpt", dict(job_builder.SCRIPTS["bert"], role="gpt_launch"))
    problems = k8s_jobs._secret_env_problems({"gpt_launch_secret_env": ["HF_TOKEN"]}, "gpt")
    assert len(problems) == 1 and problems[0].startswith("gpt_launch_secret_env (HF_TOKEN) is not delivered"), problems
    assert job_builder.launcher_role("resnet") == "resnet_launch"
