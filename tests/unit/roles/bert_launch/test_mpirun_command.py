"""bert_launch's mpirun command, rendered by ansible-playbook from the role's own defaults and
vars (roles/bert_launch/{defaults,vars}/main.yml) on localhost, in tcp and in rdma mode.

In rdma mode the registered rdma_info result comes from the real sysfs reader on a tree built
from a real published capture (tests/fixtures/rdma: show_gids + ibstat of a host with mlx5_0 RoCE
active and mlx5_1 InfiniBand down), so the test follows the same path as a real node. One
ansible-playbook run renders every case (one play each): it is the slow part.

For the aiacc framework, the registered slurp of /etc/scc-training/aiacc.env holds the file as the
aiacc role writes it (its configure.yml template, with the aiacc role's default aiacc_env)."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[4]
_spec = importlib.util.spec_from_file_location(
    "rdma_sysfs_tree", ROOT / "tests" / "unit" / "plugins" / "modules" / "rdma_sysfs_tree.py"
)
_tree = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_tree)

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
}
# The aiacc role's defaults: what its configure.yml writes to /etc/scc-training/aiacc.env.
AIACC_ENV = yaml.safe_load((ROOT / "roles" / "aiacc" / "defaults" / "main.yml").read_text())["aiacc_env"]
AIACC_ENV_FILE = "# Managed by scc.training.aiacc\n" + "".join(
    "%s=%s\n" % (name, AIACC_ENV[name]) for name in sorted(AIACC_ENV)
)
PLAY = """
- name: Render bert_launch's mpirun command ({case})
  hosts: localhost
  gather_facts: false
  vars_files:
    - {root}/roles/bert_launch/defaults/main.yml
    - {root}/roles/bert_launch/vars/main.yml
    # The case's variables last: vars_files override play vars, and later files earlier ones.
    - {tmp}/{case}.vars.json
  vars:
    __bert_launch_run_id: unit-run
    __bert_launch_hostfile:
      content: "{{{{ 'node1 slots=8\\nnode2 slots=8\\n' | b64encode }}}}"
    __bert_launch_getent:
      stdout_lines: ["192.168.10.11    STREAM node1"]
    __bert_launch_rdma: "{{{{ lookup('ansible.builtin.file', rdma_info_json) | from_json }}}}"
    __bert_launch_aiacc_env_file:
      content: "{{{{ aiacc_env_file | b64encode }}}}"
  tasks:
    - name: Write the command to a file
      ansible.builtin.copy:
        content: "{{{{ _bert_launch_mpirun_argv | to_json }}}}"
        dest: "{{{{ out_dir }}}}/{case}.json"
        mode: "0644"
"""


@pytest.fixture(scope="module")
def argvs(tmp_path_factory):
    """{case: argv}, from one ansible-playbook run."""
    tmp = tmp_path_factory.mktemp("mpirun")
    rdma = _tree.rdma
    devices = rdma.annotate_gid_index(
        rdma.read_sysfs(
            str(_tree.build_tree(tmp / "infiniband", "show_gids_mlx5_roce.txt", "ibstat_roce_active_ib_down.txt"))
        )
    )
    rdma_info_json = tmp / "rdma_info.json"
    rdma_info_json.write_text(
        json.dumps({"rdma_present": True, "source": "sysfs", "devices": devices, "active_ports": ["mlx5_0:1"]})
    )
    for case, case_vars in CASES.items():
        (tmp / ("%s.vars.json" % case)).write_text(json.dumps(case_vars))
    play = tmp / "play.yml"
    play.write_text("---" + "".join(PLAY.format(root=ROOT, tmp=tmp, case=case) for case in CASES))
    env = dict(
        os.environ,
        ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"),
        ANSIBLE_COLLECTIONS_PATH=str(ROOT / ".collections"),
        ANSIBLE_LOCALHOST_WARNING="false",
        ANSIBLE_INVENTORY_UNPARSED_WARNING="false",
    )
    proc = subprocess.run(
        [
            str(Path(sys.executable).parent / "ansible-playbook"),
            "-i",
            "localhost,",
            "-c",
            "local",
            str(play),
            "-e",
            json.dumps(
                {
                    "out_dir": str(tmp),
                    "rdma_info_json": str(rdma_info_json),
                    "aiacc_env_file": AIACC_ENV_FILE,
                    "ansible_python_interpreter": sys.executable,
                }
            ),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return {case: json.loads((tmp / ("%s.json" % case)).read_text()) for case in CASES}


def env_of(argv):
    """The -x NAME=value pairs of an mpirun argv, as a dict."""
    return dict(argv[i + 1].split("=", 1) for i, arg in enumerate(argv) if arg == "-x")


def without_nccl(argv):
    """The argv without its -x NCCL_*=... pairs."""
    out = []
    for arg in argv:
        if arg.startswith("NCCL_") and out and out[-1] == "-x":
            out.pop()
        else:
            out.append(arg)
    return out


def test_tcp_mode_sets_nothing_rdma(argvs):
    argv = argvs["tcp"]
    env = env_of(argv)
    assert env["NCCL_IB_DISABLE"] == "1"
    assert env["NCCL_SOCKET_IFNAME"] == "eth0"
    assert env["GLOO_SOCKET_IFNAME"] == "eth0"
    assert not {"NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "NCCL_DEBUG"} & set(env)
    assert argv[argv.index("-np") + 1] == "16"
    assert env["MASTER_ADDR"] == "192.168.10.11"


def test_rdma_mode_uses_the_detected_ports_and_gid_index(argvs):
    argv = argvs["rdma"]
    env = env_of(argv)
    assert env["NCCL_IB_DISABLE"] == "0"
    # Only the active port; mlx5_1 (down) is left out.
    assert env["NCCL_IB_HCA"] == "=mlx5_0:1"
    assert env["NCCL_IB_GID_INDEX"] == "1"
    assert env["NCCL_SOCKET_IFNAME"] == "eth0"
    assert env["NCCL_DEBUG"] == "INFO"
    # MPI's own traffic stays on TCP, and the program is still the pretraining script.
    assert argv[argv.index("--mca") + 1 : argv.index("--mca") + 3] == ["pml", "ob1"]
    assert argv[argv.index("/opt/scc-training/venv/bin/python") + 1] == "/opt/scc-training/bert/pretrain_bert.py"
    # The rest of the command is the tcp one: only the NCCL variables differ.
    assert without_nccl(argv) == without_nccl(argvs["tcp"])


def test_rdma_mode_user_env_overrides(argvs):
    env = env_of(argvs["rdma_user_env"])
    assert (env["NCCL_IB_GID_INDEX"], env["NCCL_DEBUG"], env["NCCL_IB_HCA"]) == ("3", "WARN", "=mlx5_0:1")


def script_args(argv):
    """pretrain_bert.py's arguments: everything after the script."""
    return argv[argv.index("/opt/scc-training/bert/pretrain_bert.py") + 1 :]


def test_torch_is_the_default_framework_and_exports_no_aiacc_setting(argvs):
    args = script_args(argvs["tcp"])
    assert args[args.index("--framework") + 1] == "torch"
    assert not [name for name in env_of(argvs["tcp"]) if name.startswith("PERSEUS_")]


def test_aiacc_exports_the_aiacc_role_settings(argvs):
    argv = argvs["aiacc"]
    env = env_of(argv)
    assert AIACC_ENV and {n: v for n, v in env.items() if n.startswith("PERSEUS_")} == {
        n: str(v) for n, v in AIACC_ENV.items()
    }
    args = script_args(argv)
    assert args[args.index("--framework") + 1] == "aiacc"
    assert args[args.index("--backend") + 1] == "auto"
    # Apart from the AIACC variables and the framework, the command is the torch one.
    strip = [
        a
        for i, a in enumerate(argv)
        if not a.startswith("PERSEUS_") and not (a == "-x" and argv[i + 1].startswith("PERSEUS_"))
    ]
    torch_argv = list(argvs["tcp"])
    torch_argv[torch_argv.index("--framework") + 1] = "aiacc"
    assert strip == torch_argv


def test_aiacc_user_env_overrides_the_file(argvs):
    env = env_of(argvs["aiacc_user_env"])
    assert env["PERSEUS_ALLREDUCE_STREAMS"] == "4"
    assert env["PERSEUS_ALLREDUCE_FUSION"] == str(AIACC_ENV["PERSEUS_ALLREDUCE_FUSION"])


def test_horovod_exports_no_aiacc_setting(argvs):
    argv = argvs["horovod"]
    args = script_args(argv)
    assert args[args.index("--framework") + 1] == "horovod"
    assert not [name for name in env_of(argv) if name.startswith("PERSEUS_")]
