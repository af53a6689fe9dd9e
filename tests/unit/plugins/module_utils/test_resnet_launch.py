"""plugins/module_utils/resnet_launch.py and the launchers' shared pieces of mpi.py that resnet_launch uses:
the rules across its variables, the framework's modules, and the mpirun command with its own program."""

import pytest

from ansible_collections.scc.training.plugins.module_utils import mpi
from ansible_collections.scc.training.plugins.module_utils.resnet_launch import resnet_launch_input_problems
from tests.unit.plugins.module_utils.test_mpi_argv import job

GOOD = {
    "resnet_launch_group": "scc_cluster", "group_hosts": ["node1", "node2"], "resnet_launch_min_nodes": 2,
    "resnet_launch_steps": 20, "resnet_launch_batch_size": 8, "resnet_launch_np": 0, "resnet_launch_warmup_steps": 2,
    "resnet_launch_image_size": 64, "resnet_launch_num_classes": 4, "resnet_launch_learning_rate": None,
    "resnet_launch_seed": 1, "resnet_launch_workers": 0, "resnet_launch_omp_num_threads": 1,
    "resnet_launch_timeout": 600, "resnet_launch_framework": "torch", "resnet_launch_backend": "auto",
    "resnet_launch_transport": "tcp", "resnet_launch_tcp_interface": "lo", "resnet_launch_master_port": 29501,
    "resnet_launch_data_dir": "/mnt/cpfs/imagenet/tfrecord", "resnet_launch_run_id": "", "resnet_launch_cpu_only": True,
    "resnet_launch_env": {"OMP_PROC_BIND": "close"}, "resnet_launch_secret_env": {}, "resnet_launch_master_addr": "",
}  # fmt: skip


def test_the_lab_settings_have_no_problem():
    assert resnet_launch_input_problems(GOOD) == []


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"group_hosts": []}, "resnet_launch_group (scc_cluster) must name a non-empty inventory group."),
        ({"resnet_launch_min_nodes": 3}, "resnet_launch_min_nodes (3) must be at most the 2 node(s) of group"),
        ({"resnet_launch_warmup_steps": 20}, "resnet_launch_warmup_steps (20) must be >= 0 and < resnet_launch_steps"),
        ({"resnet_launch_image_size": 16}, "resnet_launch_image_size (16) must be >= 32"),
        ({"resnet_launch_num_classes": 1}, "resnet_launch_num_classes (1) must be >= 2"),
        ({"resnet_launch_learning_rate": 0}, "resnet_launch_learning_rate (0) must be null"),
        ({"resnet_launch_data_dir": "tfrecord"}, "resnet_launch_data_dir (tfrecord) must be an absolute path"),
        ({"resnet_launch_master_port": 70000}, "resnet_launch_master_port (70000) must be a port"),
        ({"resnet_launch_run_id": "a b"}, "resnet_launch_run_id (a b) must be empty or letters"),
        ({"resnet_launch_framework": "aiacc"}, "resnet_launch_framework aiacc needs GPUs"),
        ({"resnet_launch_transport": "rdma"}, "resnet_launch_transport rdma needs NCCL on GPUs"),
        ({"resnet_launch_framework": "horovod", "resnet_launch_backend": "gloo"}, "resnet_launch_backend must be auto"),
        # The launcher judges the names it consumes itself (issue 27): --tags resnet_launch skips playbooks/validate.yml.
        (
            {"group_hosts": ["node1", "-oProxyCommand=x"]},
            "resnet_launch_group (scc_cluster): '-oProxyCommand=x' is not an RFC 1123 host name",
        ),
        ({"group_hosts": ["node1", "gpu_node2"]}, "resnet_launch_group (scc_cluster): 'gpu_node2' is not an RFC 1123"),
        ({"resnet_launch_master_addr": "-v"}, "resnet_launch_master_addr must be empty, an IP address or an RFC 1123"),
        ({"resnet_launch_master_addr": "a" * 64}, "resnet_launch_master_addr must be empty, an IP address"),
    ],
)
def test_each_problem_names_its_variable(changes, expected):
    problems = resnet_launch_input_problems(dict(GOOD, **changes))
    assert any(expected in p for p in problems), problems


@pytest.mark.parametrize("address", ["10.0.0.5", "fe80::1%eth0", "node1.cluster.local", "node1"])
def test_a_master_address_or_host_name_passes(address):
    assert resnet_launch_input_problems(dict(GOOD, resnet_launch_master_addr=address)) == []


def test_the_framework_modules_are_those_the_ranks_import():
    assert [mpi.framework_modules(f) for f in ("torch", "horovod", "aiacc", "acspeed")] == [
        [], ["horovod.torch"], ["perseus.torch.horovod"], ["torch", "acspeed"]
    ]  # fmt: skip
    with pytest.raises(ValueError, match="framework must be one of"):
        mpi.framework_modules("deepspeed")


def test_a_program_replaces_pretrain_bert_after_the_same_mpirun():
    bert = mpi.mpirun_argv(job())
    resnet = mpi.mpirun_argv(
        job(program=["/opt/resnet/train_resnet.py", "--model", "resnet18"], script_extra_args=["--x"])
    )
    cut = bert.index("/venv/bin/python") + 1
    assert resnet[:cut] == bert[:cut]
    assert resnet[cut:] == ["/opt/resnet/train_resnet.py", "--model", "resnet18", "--x"]
    assert bert[cut] == "/opt/bert/pretrain_bert.py"


def test_the_node_count_names_the_callers_variable():
    with pytest.raises(ValueError, match=r"fewer than resnet_launch_min_nodes \(2\)"):
        mpi.hostfile_node_count("node1 slots=1\n", 2, "resnet_launch_min_nodes")
