"""The training job built once (plugins/module_utils/training_job.py, issue 26) renders the same commands and
manifests as the two builders it replaced: bert_launch's and resnet_launch's YAML job dicts and k8s_jobs.py's own.

tests/fixtures/training_job/pinned.json holds what the code before the change rendered (commit 144270e) for the cases
it names: bert_launch's mpirun argv (tcp, rdma, each framework, a placement, every optional option set, a CPU-only
cluster without CPFS), resnet_launch's (tcp; rdma with horovod and every option), and the MPIJob and Arena line of
BERT and ResNet over tcp and rdma and of BERT with its options set. Each is rebuilt here through the roles' own
variables and the new builder, and must be equal, item for item. One change since the pin: bert_launch_batch_size's
default became auto (issue 22), so the pinned BERT commands carry --batch-size auto; and the MPIJob carries the
scc.training/spec-sha256 annotation (mpijob_conflict's), the sha256 of its spec, which is compared to the pin's; and the
programs are modules of the runtime wheel in the venv (`-m scc_training_runtime.pretrain_bert`, `...train_resnet`, no
PYTHONPATH of the install directory, BERT's shipped corpus the package's default: no --corpus), edited into the pin."""

import hashlib
import json
from pathlib import Path

import pytest

from ansible_collections.scc.training.plugins.module_utils import k8s_jobs
from tests.unit.plugins.module_utils.test_k8s_jobs import job_settings
from tests.unit.roles.launch_render import render_argv

PINNED = json.loads((Path(__file__).resolve().parents[2] / "fixtures/training_job/pinned.json").read_text())
# The cases whose `mountpoint -q` of CPFS failed (the others: mounted).
CPFS_NOT_MOUNTED = ("options", "cpu_local")
K8S_CHANGES = {
    "bert_options": (
        "bert",
        "tcp",
        {
            "bert_launch_learning_rate": 0.0002,
            "bert_launch_resume": True,
            "bert_launch_checkpoint_every": 10,
            "bert_launch_data_dir": "/data",
            "bert_launch_script_extra_args": ["--x"],
        },
    )
}


@pytest.mark.parametrize("case", sorted(PINNED["bert"]))
def test_bert_launch_renders_the_pinned_command(case):
    rc = 1 if case in CPFS_NOT_MOUNTED else 0
    argv = render_argv("bert_launch", PINNED["bert_cases"][case], PINNED["resolved"], cpfs_rc=rc)
    assert argv == PINNED["bert"][case]


@pytest.mark.parametrize("case", sorted(PINNED["resnet"]))
def test_resnet_launch_renders_the_pinned_command(case):
    argv = render_argv("resnet_launch", PINNED["resnet_cases"][case], PINNED["resolved"])
    assert argv == PINNED["resnet"][case]


@pytest.mark.parametrize("case", sorted(PINNED["k8s"]))
def test_the_mpijob_and_arena_line_are_the_pinned_ones(case):
    workload, transport, changes = K8S_CHANGES.get(case, (*case.split("_"), {}))
    job = k8s_jobs.training_job(job_settings(workload, transport, **changes))
    manifest = k8s_jobs.mpijob_manifest(job)
    annotations = manifest["metadata"].pop("annotations")
    assert manifest == PINNED["k8s"][case]["manifest"]
    spec = json.dumps(PINNED["k8s"][case]["manifest"]["spec"], sort_keys=True, separators=(",", ":"))
    assert annotations == {k8s_jobs.SPEC_ANNOTATION: hashlib.sha256(spec.encode()).hexdigest()}
    assert k8s_jobs.arena_command(job) == PINNED["k8s"][case]["arena"]
