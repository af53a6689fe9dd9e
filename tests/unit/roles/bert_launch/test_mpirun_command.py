"""bert_launch's mpirun command, in tcp and rdma mode and for each framework, in milliseconds.

Each case renders the role's own `_bert_launch_settings` and `_bert_launch_job_resolved`
(roles/bert_launch/vars/main.yml) from its defaults, the case's variables and what launch.yml
registers on the first node, with Ansible's templar in this process (tests/unit/roles/launch_render.py),
and hands them to scc.training.training_job's and scc.training.mpirun_argv's functions. That
covers the wiring of the role's variables to the job builder as well as the command it builds.

In rdma mode the registered rdma_info result comes from the real sysfs reader on a tree built
from a real published capture (tests/fixtures/rdma: show_gids + ibstat of a host with mlx5_0 RoCE
active and mlx5_1 InfiniBand down), so the test follows the same path as a real node.

For the aiacc framework, the registered slurp of /etc/scc-training/aiacc.env holds the file as the
aiacc role writes it (its configure.yml template, with the aiacc role's default aiacc_env).

The first node's `nvidia-smi topo -m` is a real published one (tests/fixtures/nvidia_topo: 8 GPUs, 4 per NUMA node):
the default placement (auto) binds each rank to its GPU's NUMA node."""

from pathlib import Path

import pytest
import yaml

from tests.unit.plugins.modules import rdma_sysfs_tree
from tests.unit.roles.launch_render import render_argv

ROOT = Path(__file__).resolve().parents[4]
ROLE = ROOT / "roles" / "bert_launch"
SCRIPT = "scc_training_runtime.pretrain_bert"

CASES = {
    "tcp": {"bert_launch_transport": "tcp", "bert_launch_tcp_interface": "eth0"},
    "rdma": {"bert_launch_transport": "rdma", "bert_launch_tcp_interface": "eth0"},
    "rdma_user_env": {
        "bert_launch_transport": "rdma",
        "bert_launch_env": {"NCCL_IB_GID_INDEX": "3", "NCCL_DEBUG": "WARN"},
    },
    "aiacc": {"bert_launch_transport": "tcp", "bert_launch_tcp_interface": "eth0", "bert_launch_framework": "aiacc"},
    "aiacc_user_env": {
        "bert_launch_transport": "tcp",
        "bert_launch_tcp_interface": "eth0",
        "bert_launch_framework": "aiacc",
        "bert_launch_env": {"PERSEUS_ALLREDUCE_STREAMS": "4"},
    },
    "horovod": {
        "bert_launch_transport": "tcp",
        "bert_launch_tcp_interface": "eth0",
        "bert_launch_framework": "horovod",
    },
    "placement_set": {"bert_launch_transport": "tcp", "bert_launch_bind_to": "core", "bert_launch_map_by": "node"},
}
TOPOLOGY = (ROOT / "tests" / "fixtures" / "nvidia_topo" / "8x4090-2numa-go-gpuallocator-17.txt").read_text()
# The aiacc role's defaults: what its configure.yml writes to /etc/scc-training/aiacc.env.
AIACC_ENV = yaml.safe_load((ROOT / "roles" / "aiacc" / "defaults" / "main.yml").read_text())["aiacc_env"]
AIACC_ENV_FILE = "# Managed by scc.training.aiacc\n" + "".join(
    "%s=%s\n" % (name, AIACC_ENV[name]) for name in sorted(AIACC_ENV)
)


@pytest.fixture(scope="module")
def argvs(tmp_path_factory):
    """{case: argv}, each from the role's job rendered with the case's variables."""
    rdma = rdma_sysfs_tree.rdma
    devices = rdma.annotate_gid_index(
        rdma.read_sysfs(
            str(
                rdma_sysfs_tree.build_tree(
                    tmp_path_factory.mktemp("infiniband"), "show_gids_mlx5_roce.txt", "ibstat_roce_active_ib_down.txt"
                )
            )
        )
    )
    # What launch.yml registers on the first node before it builds the command (mpi_job's resolve entry point).
    resolved = {
        "nodes": 2,
        "np": 16,
        "master_getent": "192.168.10.11    STREAM node1\n192.168.10.11    DGRAM\n",
        "rdma_devices": devices,
        "aiacc_env_file_content": AIACC_ENV_FILE,
        "topology": TOPOLOGY,
    }
    # `mountpoint -q` of CPFS as registered: mounted.
    argvs = {case: render_argv("bert_launch", case_vars, resolved, cpfs_rc=0) for case, case_vars in CASES.items()}
    return argvs


def env_of(argv):
    """The -x NAME=value pairs of an mpirun argv, as a dict."""
    return dict(argv[i + 1].split("=", 1) for i, arg in enumerate(argv) if arg == "-x")


def without(argv, prefix):
    """The argv without its -x <prefix>...=... pairs."""
    out = []
    for arg in argv:
        if arg.startswith(prefix) and out and out[-1] == "-x":
            out.pop()
        else:
            out.append(arg)
    return out


def subset(env, *names):
    return {name: env.get(name) for name in names}


def option(args, name):
    return args[args.index(name) + 1]


def script_args(argv):
    """pretrain_bert.py's arguments: everything after the script."""
    return argv[argv.index(SCRIPT) + 1 :]


def test_the_whole_tcp_command(argvs):
    assert argvs["tcp"] == [
        "/usr/bin/timeout", "--kill-after=60", "3600", "/usr/bin/mpirun", "--allow-run-as-root",
        "--hostfile", "/etc/scc-training/mpihosts", "-np", "16", "--bind-to", "numa", "--map-by", "ppr:4:numa",
        "--mca", "pml", "ob1", "--mca", "btl", "tcp,self",
        "--mca", "btl_tcp_if_include", "eth0", "--mca", "oob_tcp_if_include", "eth0",
        "-x", "MASTER_ADDR=192.168.10.11", "-x", "MASTER_PORT=29500", "-x", "OMP_NUM_THREADS=4",
        "-x", "PATH=/opt/scc-training/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "-x", "GLOO_SOCKET_IFNAME=eth0", "-x", "NCCL_SOCKET_IFNAME=eth0", "-x", "NCCL_IB_DISABLE=1",
        "-x", "TOKENIZERS_PARALLELISM=false", "-x", "SCC_TRAINING_RUN_ID=unit-run",
        "/opt/scc-training/venv/bin/python", "-m", SCRIPT,
        "--framework", "torch", "--model-size", "base", "--seq-len", "128", "--batch-size", "auto",
        "--steps", "100", "--warmup-steps", "10", "--backend", "auto", "--precision", "auto",
        "--threads", "4", "--seed", "1234", "--master-addr", "192.168.10.11", "--master-port", "29500",
        "--output-dir", "/opt/scc-training/bert/runs/unit-run",
        "--run-id", "unit-run",
        # CPFS mounted: the shards and checkpoints go there; then the levers of the default V100 (volta).
        "--data-dir", "/mnt/cpfs/scc-training/bert/data",
        "--checkpoint-dir", "/mnt/cpfs/scc-training/bert/checkpoints", "--checkpoint-every", "0",
        "--vocab-multiple", "64", "--mlm-head", "masked", "--attention", "sdpa", "--grad-accum", "1",
        "--optimizer", "auto",
        "--fused-adamw", "on", "--ddp-bucket-mb", "25", "--ddp-static-graph", "--ddp-grad-as-bucket-view",
        "--ddp-compression", "fp16", "--data", "shards", "--loader-workers", "2",
    ]  # fmt: skip
    assert all(isinstance(arg, str) for arg in argvs["tcp"])


def test_tcp_mode_sets_nothing_rdma(argvs):
    argv = argvs["tcp"]
    env = env_of(argv)
    assert subset(env, "NCCL_IB_DISABLE", "NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME", "MASTER_ADDR") == {
        "NCCL_IB_DISABLE": "1",
        "NCCL_SOCKET_IFNAME": "eth0",
        "GLOO_SOCKET_IFNAME": "eth0",
        "MASTER_ADDR": "192.168.10.11",
    }
    assert not {"NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "NCCL_DEBUG"} & set(env)
    assert option(argv, "-np") == "16"


def test_rdma_mode_uses_the_detected_ports_and_gid_index(argvs):
    argv = argvs["rdma"]
    # Only the active port; mlx5_1 (down) is left out.
    assert {name: value for name, value in env_of(argv).items() if name.startswith("NCCL_")} == {
        "NCCL_IB_DISABLE": "0",
        "NCCL_IB_HCA": "=mlx5_0:1",
        "NCCL_IB_GID_INDEX": "1",
        "NCCL_SOCKET_IFNAME": "eth0",
        "NCCL_DEBUG": "INFO",
    }
    # MPI's own traffic stays on TCP, and the program is still the pretraining script.
    assert argv[argv.index("--mca") + 1 : argv.index("--mca") + 3] == ["pml", "ob1"]
    assert argv[argv.index("/opt/scc-training/venv/bin/python") + 1 :][:2] == ["-m", SCRIPT]
    # The rest of the command is the tcp one: only the NCCL variables differ.
    assert without(argv, "NCCL_") == without(argvs["tcp"], "NCCL_")


def test_rdma_mode_user_env_overrides(argvs):
    env = env_of(argvs["rdma_user_env"])
    assert (env["NCCL_IB_GID_INDEX"], env["NCCL_DEBUG"], env["NCCL_IB_HCA"]) == ("3", "WARN", "=mlx5_0:1")


def test_torch_is_the_default_framework_and_exports_no_aiacc_setting(argvs):
    assert option(script_args(argvs["tcp"]), "--framework") == "torch"
    assert not [name for name in env_of(argvs["tcp"]) if name.startswith("PERSEUS_")]


def test_aiacc_exports_the_aiacc_role_settings(argvs):
    argv = argvs["aiacc"]
    env = env_of(argv)
    assert AIACC_ENV and {n: v for n, v in env.items() if n.startswith("PERSEUS_")} == {
        n: str(v) for n, v in AIACC_ENV.items()
    }
    args = script_args(argv)
    assert option(args, "--framework") == "aiacc"
    assert option(args, "--backend") == "auto"
    # Apart from the AIACC variables and the framework, the command is the torch one.
    torch_argv = list(argvs["tcp"])
    torch_argv[torch_argv.index("--framework") + 1] = "aiacc"
    assert without(argv, "PERSEUS_") == torch_argv


def test_aiacc_user_env_overrides_the_file(argvs):
    env = env_of(argvs["aiacc_user_env"])
    assert env["PERSEUS_ALLREDUCE_STREAMS"] == "4"
    assert env["PERSEUS_ALLREDUCE_FUSION"] == str(AIACC_ENV["PERSEUS_ALLREDUCE_FUSION"])


def test_horovod_exports_no_aiacc_setting(argvs):
    argv = argvs["horovod"]
    assert option(script_args(argv), "--framework") == "horovod"
    assert not [name for name in env_of(argv) if name.startswith("PERSEUS_")]


def test_placement_set_by_the_user_is_kept(argvs):
    args = argvs["placement_set"]
    assert (option(args, "--bind-to"), option(args, "--map-by")) == ("core", "node")
