"""The cuda, cudnn, nccl and aiacc roles refuse impossible inputs in validate (variables only,
before any host is contacted), each with a message naming the variables; the defaults pass.
Plus playbooks/validate.yml refusing cuDNN 9.11 on V100 for a host that does not even exist."""

from pathlib import Path

from tests.lab_runner import assert_outcomes, changed, failed, localhost_inventory, run_playbook, unreachable

ROOT = Path(__file__).resolve().parents[2]
PLAYBOOKS = Path(__file__).resolve().parent / "playbooks"
WHEEL = "perseus_torch-1.5.0-cp311-cp311-linux_x86_64.whl"

# (id, role, vars, words the refusal must contain; None = must be accepted)
CASES = [
    ("cuda-defaults", "scc.training.cuda", {}, None),
    ("cudnn-defaults", "scc.training.cudnn", {}, None),
    ("nccl-defaults", "scc.training.nccl", {}, None),
    ("aiacc-mirror", "scc.training.aiacc", {"aiacc_artifact_name": WHEEL, "aiacc_mirror": "/mnt/cpfs/mirror"}, None),
    ("cuda13-on-v100", "scc.training.cuda", {"cuda_version": "13.0"}, ["cuda_version=13.0", "9.0 to 12.9"]),
    ("cuda12.7-unknown", "scc.training.cuda", {"cuda_version": "12.7"}, ["cuda_version=12.7", "12.6, 12.8"]),
    (
        "cuda12.8-driver550",
        "scc.training.cuda",
        {"nvidia_driver_branch": "550"},
        ["cuda_version=12.8", "nvidia_driver_branch=550", "570.26"],
    ),
    (
        "cuda-wheel-of-another-version",
        "scc.training.cuda",
        {"cuda_source": "pypi", "cuda_pypi_packages": ["nvidia-cuda-runtime-cu12==12.9.79"]},
        ["cuda_pypi_packages", "12.8", "nvidia-cuda-runtime-cu12==12.9.79"],
    ),
    ("cudnn9.11-on-v100", "scc.training.cudnn", {"cudnn_version": "9.11.0.98"}, ["cudnn_version=9.11.0.98", "9.10.2"]),
    (
        "cudnn-for-cuda13-on-v100",
        "scc.training.cudnn",
        {"cudnn_cuda_version": "13.0"},
        ["cudnn_cuda_version=13.0", "9.0 to 12.9"],
    ),
    (
        "cudnn-3-part-version",
        "scc.training.cudnn",
        {"cudnn_version": "9.10.2"},
        ["cudnn_version (9.10.2) must be a cuDNN version W.X.Y.Z"],
    ),
    ("cudnn-mirror-without-location", "scc.training.cudnn", {"cudnn_source": "mirror"}, ["cudnn_mirror"]),
    (
        "nccl2.27-for-cuda11.8",
        "scc.training.nccl",
        {"nccl_cuda_version": "11.8"},
        ["nccl_version=2.27.5", "nccl_cuda_version=11.8", "2.21.5"],
    ),
    (
        "nccl-for-cuda13-on-v100",
        "scc.training.nccl",
        {"nccl_cuda_version": "13.0"},
        ["nccl_cuda_version=13.0", "2.27.7"],
    ),
    (
        "nccl-2.18-on-erdma",
        "scc.training.nccl",
        {"scc_instance_type": "ecs.ebmgn8v.48xlarge", "scc_gpu_compute_capability": "9.0", "nccl_version": "2.18.3"},
        ["nccl_version=2.18.3", "NCCL 2.19", "erdma"],
    ),
    (
        "nccl-default-on-erdma",
        "scc.training.nccl",
        {"scc_instance_type": "ecs.ebmgn8v.48xlarge", "scc_gpu_compute_capability": "9.0"},
        None,
    ),
    (
        "aiacc-release-without-sha256",
        "scc.training.aiacc",
        {"aiacc_source": "release", "aiacc_artifact_name": WHEEL},
        ["aiacc_artifact_sha256"],
    ),
    ("aiacc-without-artifact", "scc.training.aiacc", {"aiacc_mirror": "/mnt/cpfs/mirror"}, ["aiacc_artifact_name"]),
]


def run(playbook, inventory, extravars, workdir):
    status, _rc, events = run_playbook(playbook, inventory, workdir, extravars)
    return status, events


def test_refusals_through_the_roles_validate_entry_points(tmp_path):
    cases = [{"id": c[0], "role": c[1], "vars": c[2]} for c in CASES]
    status, events = run(
        PLAYBOOKS / "gpu_libs_refusals.yml", localhost_inventory(tmp_path), {"gpu_libs_cases": cases}, tmp_path
    )
    assert status == "successful"
    assert changed(events) == []
    assert_outcomes(CASES, events, min_refused=10)


def validate_ghost(tmp_path, extravars):
    """playbooks/validate.yml for one host that does not exist: nothing listens on its address, so a task that
    contacted it would be unreachable -> (status, events, the failure messages)."""
    inventory = tmp_path / "hosts.yml"
    inventory.write_text("scc_cluster:\n  hosts:\n    ghost:\n      ansible_host: 127.0.13.59\n")
    status, events = run(ROOT / "playbooks" / "validate.yml", inventory, extravars, tmp_path)
    assert not unreachable(events)
    return status, events, [msg for _host, _task, msg in failed(events)]


def test_validate_playbook_refuses_cudnn_9_11_on_v100_without_contacting_a_host(tmp_path):
    status, _events, messages = validate_ghost(tmp_path, {"cudnn_version": "9.11.0.98", "scc_cpu_only": False})
    assert status == "failed"
    assert any("cudnn_version=9.11.0.98" in m for m in messages), messages


def test_validate_playbook_checks_aiacc_only_when_bert_trains_with_it(tmp_path):
    # torch (the default): aiacc's variables are not asked for.
    status, events, _messages = validate_ghost(tmp_path, {"scc_cpu_only": False})
    assert status == "successful", failed(events)
    # aiacc: prepare.yml would install it, so validate refuses the missing artifact before any host is contacted.
    status, _events, messages = validate_ghost(tmp_path, {"scc_cpu_only": False, "bert_launch_framework": "aiacc"})
    assert status == "failed"
    assert any("aiacc_artifact_name" in m for m in messages), messages


def test_validate_playbook_refuses_a_bad_nvidia_repo_fingerprint_without_contacting_a_host(tmp_path):
    # The repository settings belong to the internal nvidia_repo role; validate.yml checks them too.
    status, _events, messages = validate_ghost(tmp_path, {"nvidia_repo_key_fingerprint": "3BF863CC"})
    assert status == "failed"
    assert any("nvidia_repo_key_fingerprint" in m for m in messages), messages


def test_validate_playbook_refuses_aiacc_with_the_default_torch_naming_the_variables(tmp_path):
    # python_env's validate resolves torch 2.13.0 (its CUDA 12.6 build on V100) and publishes it; the aiacc
    # role's validate, later in the same run, refuses AIACC-Training 1.5.0 with it: no host is contacted.
    aiacc = {"bert_launch_framework": "aiacc", "aiacc_artifact_name": WHEEL, "aiacc_mirror": "/mnt/cpfs/mirror"}
    status, events, _messages = validate_ghost(tmp_path, {"scc_cpu_only": False, **aiacc})
    refusals = [msg for _host, task, msg in failed(events) if "AIACC-Training or ACSpeed release" in task]
    assert status == "failed"
    assert len(refusals) == 1, failed(events)
    for name in (
        "aiacc_framework is aiacc (a launcher trains with it)",
        "aiacc_version=1.5.0",
        "torch 2.13.0 (python_env_requirements)",
    ):
        assert name in refusals[0]
