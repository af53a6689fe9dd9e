# -*- coding: utf-8 -*-
"""plugins/module_utils/mpi.py: hostfile parsing, the rank count, NAME=value files and the
pieces of bert_launch's mpirun command (the role-level cases are in
tests/unit/roles/bert_launch/test_mpirun_command.py)."""

from __future__ import annotations

import pytest

from ansible_collections.scc.training.plugins.module_utils import mpi

HOSTFILE = """\
# Managed by scc.training.mpi_hostfile
node1 slots=8 max_slots=8
node2\tslots = 4   # the second node

"""


def job(**changes):
    """A tcp torch job as training_job.build gives it for bert_launch's defaults (its program cut short), with
    ``changes`` applied."""
    base = {
        "timeout": 3600,
        "mpirun_path": "/usr/bin/mpirun",
        "hostfile": "/etc/scc-training/mpihosts",
        "np": 2,
        "bind_to": "none",
        "map_by": "slot",
        "tcp_interface": "lo",
        "transport": "tcp",
        "rdma_devices": [],
        "master_addr": "",
        "master_getent": "127.0.3.11      STREAM node1\n127.0.3.11      DGRAM\n",
        "master_port": 29500,
        "omp_num_threads": 4,
        "path": "/venv/bin:/usr/bin",
        "run_id": "r1",
        "framework": "torch",
        "aiacc_env_file_content": "",
        "env": {},
        "mpirun_extra_args": [],
        "python": "/venv/bin/python",
        "program": ["/opt/bert/pretrain_bert.py", "--model-size", "tiny"],
        "script_extra_args": [],
    }
    base.update(changes)
    return base


def test_parse_hostfile_skips_comments_and_reads_slots_not_max_slots():
    assert mpi.parse_hostfile(HOSTFILE) == [{"host": "node1", "slots": 8}, {"host": "node2", "slots": 4}]
    assert mpi.parse_hostfile("node1 max_slots=8\nnode2\n") == [
        {"host": "node1", "slots": None},
        {"host": "node2", "slots": None},
    ]
    assert mpi.parse_hostfile("") == mpi.parse_hostfile(None) == []


def test_render_and_parse_round_trip():
    entries = [{"host": "node1", "slots": 8}, {"host": "node2", "slots": 1}]
    assert mpi.parse_hostfile(mpi.render_hostfile(entries)) == entries


def test_hostfile_ranks_sums_the_slots_unless_np_is_given():
    assert mpi.hostfile_ranks(HOSTFILE) == 12
    assert mpi.hostfile_ranks(HOSTFILE, "3") == 3
    # With np given, lines without slots are Open MPI's business.
    assert mpi.hostfile_ranks("node1\nnode2\n", 2) == 2


# Hostfile text, np, and the words of the refusal.
HOSTFILE_REFUSALS = [
    ("# nothing\n\n", 0, "lists no host"),
    ("# nothing\n", 4, "lists no host"),
    ("node1 slots=8\nnode2\nnode3 max_slots=2\n", 0, "2 of 3 have none: node2, node3"),
    ("node1 slots=0\n", 0, "give 0 slots"),
    ("node1 slots=8\n", -1, "np must be >= 0"),
]


@pytest.mark.parametrize("text, np, message", HOSTFILE_REFUSALS)
def test_hostfile_ranks_refusals(text, np, message):
    with pytest.raises(ValueError, match=message):
        mpi.hostfile_ranks(text, np)


def test_parse_env_file():
    text = "# Managed by scc.training.aiacc\n\nPERSEUS_ALLREDUCE_STREAMS=2\n  A_B=x=y \nnot a line\n1BAD=3\nEMPTY=\n"
    assert mpi.parse_env_file(text) == {"PERSEUS_ALLREDUCE_STREAMS": "2", "A_B": "x=y", "EMPTY": ""}
    assert mpi.parse_env_file(None) == {}


def test_rank_env_layers_in_order():
    env = mpi.rank_env(
        job(framework="aiacc", aiacc_env_file_content="A=file\nB=file\n", env={"B": "user", "OMP_NUM_THREADS": 1})
    )
    assert list(env) == [
        "MASTER_ADDR",
        "MASTER_PORT",
        "OMP_NUM_THREADS",
        "PATH",
        "GLOO_SOCKET_IFNAME",
        "NCCL_SOCKET_IFNAME",
        "NCCL_IB_DISABLE",
        "TOKENIZERS_PARALLELISM",
        "SCC_TRAINING_RUN_ID",
        "A",
        "B",
    ]
    assert (env["A"], env["B"], env["OMP_NUM_THREADS"], env["MASTER_ADDR"]) == ("file", "user", "1", "127.0.3.11")
    # The aiacc file counts only for the aiacc framework.
    assert "A" not in mpi.rank_env(job(framework="horovod", aiacc_env_file_content="A=file\n"))


def test_the_family_nccl_env_fills_in_under_the_discovered_ports_and_the_hand_set_env():
    """eRDMA (ebmgn8v): PAI's preset values reach every rank with the rdma transport; the ports rdma_info found on
    the first node decide NCCL_IB_HCA and the socket interface, and bert_launch_env wins over both."""
    from ansible_collections.scc.training.plugins.module_utils.hardware_fact import cluster_fact

    family = cluster_fact("ecs.ebmgn8v.48xlarge")["nccl_env"]
    devices = [
        {
            "name": "erdma_0",
            "driver": "erdma",
            "ports": [{"port": 1, "state": "PORT_ACTIVE", "link_layer": "Ethernet", "roce_v2_gid_index": 1}],
        }
    ]
    env = mpi.rank_env(
        job(transport="rdma", tcp_interface="eth0", rdma_devices=devices, nccl_env=family,
            env={"NCCL_MIN_NCHANNELS": "4"})
    )  # fmt: skip
    assert env["NCCL_IB_HCA"] == "=erdma_0:1"
    assert env["NCCL_IB_QPS_PER_CONNECTION"] == "8"
    assert env["NCCL_NET_PLUGIN"] == "none"
    assert env["NCCL_IB_GID_INDEX"] == "1"
    assert env["NCCL_MIN_NCHANNELS"] == "4"  # hand-set wins
    # tcp: none of the family's IB settings.
    tcp = mpi.rank_env(job(nccl_env=family))
    assert "NCCL_IB_QPS_PER_CONNECTION" not in tcp and tcp["NCCL_IB_DISABLE"] == "1"
    # A family whose only setting the ports already decide adds nothing (sccgn6: NCCL_SOCKET_IFNAME).
    roce = mpi.rank_env(job(transport="rdma", rdma_devices=devices, nccl_env={"NCCL_SOCKET_IFNAME": "eth0"}))
    assert roce["NCCL_SOCKET_IFNAME"] == "lo"


def test_master_addr_given_wins_over_getent():
    argv = mpi.mpirun_argv(job(master_addr="10.0.0.5"))
    assert "MASTER_ADDR=10.0.0.5" in argv and "MASTER_ADDR=127.0.3.11" not in argv


def test_the_program_then_the_script_extra_args_end_the_command():
    argv = mpi.mpirun_argv(job(script_extra_args=["--num-layers", 6]))
    assert argv[-6:] == ["/venv/bin/python", "/opt/bert/pretrain_bert.py", "--model-size", "tiny", "--num-layers", "6"]


def test_mpirun_extra_args_come_before_the_program():
    argv = mpi.mpirun_argv(job(mpirun_extra_args=["--report-bindings"], timeout="600"))
    assert argv[:3] == ["/usr/bin/timeout", "--kill-after=60", "600"]
    assert argv[argv.index("--report-bindings") + 1 :][:2] == ["/venv/bin/python", "/opt/bert/pretrain_bert.py"]


# Changes to a good job, and the words of the refusal.
JOB_REFUSALS = [
    ({"np": 0}, "np must be >= 1"),
    ({"transport": "ib"}, "transport must be tcp or rdma"),
    ({"transport": "rdma"}, "no active RDMA port"),
    ({"master_getent": ""}, "master_addr is empty"),
]


@pytest.mark.parametrize("changes, message", JOB_REFUSALS)
def test_mpirun_argv_refusals(changes, message):
    with pytest.raises(ValueError, match=message):
        mpi.mpirun_argv(job(**changes))


def test_mpirun_argv_names_a_missing_key_and_a_wrong_input():
    incomplete = job()
    del incomplete["hostfile"]
    with pytest.raises(ValueError, match="missing key 'hostfile'"):
        mpi.mpirun_argv(incomplete)
    with pytest.raises(ValueError, match="must be a dict"):
        mpi.mpirun_argv(["mpirun"])


def test_nccl_tests_mpirun_shares_bert_launch_mpi_options():
    nccl = {"mpirun_path": "/usr/bin/mpirun", "bind_to": "none", "map_by": "slot", "tcp_interface": "lo"}
    argv = mpi.nccl_tests_mpirun(dict(nccl, transport="tcp", env={"NCCL_DEBUG": "WARN"}, mpirun_extra_args=["-v"]))
    assert argv == [
        "/usr/bin/mpirun",
        "--allow-run-as-root",
        "--bind-to",
        "none",
        "--map-by",
        "slot",
        "--mca",
        "pml",
        "ob1",
        "--mca",
        "btl",
        "tcp,self",
        "--mca",
        "btl_tcp_if_include",
        "lo",
        "--mca",
        "oob_tcp_if_include",
        "lo",
        "-x",
        "NCCL_SOCKET_IFNAME=lo",
        "-x",
        "NCCL_IB_DISABLE=1",
        "-x",
        "NCCL_DEBUG=WARN",
        "-v",
    ]
    bert = mpi.mpirun_argv(job())
    assert bert[bert.index("--bind-to") : bert.index("--bind-to") + 14] == argv[2:16]
    with pytest.raises(ValueError, match="no active RDMA port"):
        mpi.nccl_tests_mpirun(dict(nccl, transport="rdma", rdma_devices=[]))
    with pytest.raises(ValueError, match="missing key 'transport'"):
        mpi.nccl_tests_mpirun(nccl)
