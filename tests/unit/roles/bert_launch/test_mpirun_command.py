"""bert_launch's mpirun command, rendered by ansible-playbook from the role's own defaults and
vars (roles/bert_launch/{defaults,vars}/main.yml) on localhost, in tcp and in rdma mode.

In rdma mode the registered rdma_info result comes from the real sysfs reader on a tree built
from a real published capture (tests/fixtures/rdma: show_gids + ibstat of a host with mlx5_0 RoCE
active and mlx5_1 InfiniBand down), so the test follows the same path as a real node. One
ansible-playbook run renders every case (one play each): it is the slow part."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[4]
_spec = importlib.util.spec_from_file_location(
    "rdma_sysfs_tree", ROOT / "tests" / "unit" / "plugins" / "modules" / "rdma_sysfs_tree.py")
_tree = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_tree)

CASES = {
    "tcp": {"bert_launch_transport": "tcp", "bert_launch_tcp_interface": "eth0"},
    "rdma": {"bert_launch_transport": "rdma", "bert_launch_tcp_interface": "eth0"},
    "rdma_user_env": {"bert_launch_transport": "rdma",
                      "bert_launch_env": {"NCCL_IB_GID_INDEX": "3", "NCCL_DEBUG": "WARN"}},
}
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
    devices = rdma.annotate_gid_index(rdma.read_sysfs(str(_tree.build_tree(
        tmp / "infiniband", "show_gids_mlx5_roce.txt", "ibstat_roce_active_ib_down.txt"))))
    rdma_info_json = tmp / "rdma_info.json"
    rdma_info_json.write_text(json.dumps({"rdma_present": True, "source": "sysfs", "devices": devices,
                                          "active_ports": ["mlx5_0:1"]}))
    for case, case_vars in CASES.items():
        (tmp / ("%s.vars.json" % case)).write_text(json.dumps(case_vars))
    play = tmp / "play.yml"
    play.write_text("---" + "".join(PLAY.format(root=ROOT, tmp=tmp, case=case) for case in CASES))
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"),
               ANSIBLE_COLLECTIONS_PATH=str(ROOT / ".collections"),
               ANSIBLE_LOCALHOST_WARNING="false", ANSIBLE_INVENTORY_UNPARSED_WARNING="false")
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "ansible-playbook"), "-i", "localhost,", "-c", "local", str(play),
         "-e", json.dumps({"out_dir": str(tmp), "rdma_info_json": str(rdma_info_json),
                           "ansible_python_interpreter": sys.executable})],
        capture_output=True, text=True, env=env, timeout=180, check=False)
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
    assert argv[argv.index("--mca") + 1:argv.index("--mca") + 3] == ["pml", "ob1"]
    assert argv[argv.index("/opt/scc-training/venv/bin/python") + 1] == "/opt/scc-training/bert/pretrain_bert.py"
    # The rest of the command is the tcp one: only the NCCL variables differ.
    assert without_nccl(argv) == without_nccl(argvs["tcp"])


def test_rdma_mode_user_env_overrides(argvs):
    env = env_of(argvs["rdma_user_env"])
    assert (env["NCCL_IB_GID_INDEX"], env["NCCL_DEBUG"], env["NCCL_IB_HCA"]) == ("3", "WARN", "=mlx5_0:1")
