# -*- coding: utf-8 -*-
"""The nccl_bisect module: round 1 over every node, then rounds of group runs started at once,
through the STAND-IN mpirun and all_reduce_perf (tests/standins, nothing measured) and a fake runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ansible_collections.scc.training.plugins.modules import nccl_bisect
from tests.standins.nccl_tests_standin import table
from tests.unit.plugins.modules.module_runner import run_module

STANDIN = Path(__file__).resolve().parents[3] / "standins" / "nccl_tests_standin.py"
NODES = [{"host": "node%d" % i, "address": "127.0.22.%d" % (10 + i), "names": []} for i in range(1, 5)]


@pytest.fixture
def standin(tmp_path, monkeypatch):
    """mpirun and all_reduce_perf STAND-INs in tmp_path; node3 (127.0.22.13) injected slow."""
    for name in ("mpirun", "all_reduce_perf"):
        (tmp_path / name).symlink_to(STANDIN)
    busbw = {"busbw": {n["address"]: 6.0 for n in NODES}}
    busbw["busbw"]["127.0.22.13"] = 1.5
    (tmp_path / "busbw.json").write_text(json.dumps(busbw))
    monkeypatch.setenv("SCC_STANDIN_BUSBW", str(tmp_path / "busbw.json"))
    return tmp_path


def args(standin, **changes):
    base = {
        "nodes": NODES,
        "slots": 8,
        "mpirun": [str(standin / "mpirun"), "--allow-run-as-root", "--mca", "pml", "ob1", "-x", "NCCL_DEBUG=WARN"],
        "command": [str(standin / "all_reduce_perf"), "-b", "1M", "-e", "64M", "-f", "2", "-g", "1"],
        "threshold_gbps": 4.38,
        "timeout": 60,
    }
    return {**base, **changes}


@pytest.mark.skipif(not os.access("/usr/bin/env", os.X_OK) or sys.platform != "linux", reason="runs the stand-in")
def test_the_injected_slow_node_is_named_through_the_stand_in(standin):
    result = run_module(nccl_bisect, args(standin))
    cluster = result["cluster"]
    assert (result["changed"], cluster["ok"], cluster["threshold_gbps"]) == (False, False, 4.38)
    assert cluster["multi_node"]["hosts"] == ["node1", "node2", "node3", "node4"]
    assert [p["size_bytes"] for p in cluster["multi_node"]["curve"]] == [2**20 * 2**k for k in range(7)]
    assert cluster["bisection"]["bad_nodes"] == ["node3"]
    assert [[g["hosts"] for g in r["groups"]] for r in cluster["bisection"]["rounds"]] == [
        [["node1", "node2", "node3", "node4"]],
        [["node1", "node2"], ["node3", "node4"]],
        [["node3", "node1"], ["node4", "node2"]],
    ]
    assert [g["ok"] for g in cluster["bisection"]["rounds"][2]["groups"]] == [False, True]


def test_a_fast_cluster_runs_round_1_only(standin):
    (standin / "busbw.json").write_text(json.dumps({"busbw": {n["address"]: 6.0 for n in NODES}}))
    result = run_module(nccl_bisect, args(standin))
    assert result["cluster"]["ok"] and result["cluster"]["bisection"] is None
    assert [r["round"] for r in result["runs"]] == [1]


def local_run(argv):
    """run_command's contract, without a module: (rc, stdout, stderr); OSError when it cannot start."""
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    return proc.returncode, proc.stdout, proc.stderr


def fake_runner(slow, seen):
    """Judges a group by the addresses in its hostfile, as a round's mpiruns would; records each round."""

    def run(argvs):
        seen.append(argvs)
        results = []
        for argv in argvs:
            hostfile = argv[argv.index("--hostfile") + 1]
            addresses = [line.split()[0] for line in Path(hostfile).read_text().splitlines()]
            assert all(line.endswith(" slots=8") for line in Path(hostfile).read_text().splitlines())
            assert argv[argv.index("-np") + 1] == str(8 * len(addresses))
            peak = 1.0 if set(addresses) & slow else 6.0
            results.append((0, table(peak, 8 * len(addresses), 1 << 20, 1 << 22, 2), ""))
        return results

    return run


def test_each_round_starts_its_groups_together_with_their_own_hostfiles():
    seen = []
    cluster, runs = nccl_bisect.bisect_cluster(args(Path("/opt/nccl")), fake_runner({"127.0.22.12"}, seen))
    assert cluster["bisection"]["bad_nodes"] == ["node2"]
    assert [len(argvs) for argvs in seen] == [1, 2, 2]
    assert [(r["round"], r["hosts"], r["rc"], bool(r["problems"])) for r in runs] == [
        (1, ["node1", "node2", "node3", "node4"], 0, True),
        (2, ["node1", "node2"], 0, True),
        (2, ["node3", "node4"], 0, False),
        (3, ["node1", "node3"], 0, False),
        (3, ["node2", "node4"], 0, True),
    ]


def test_a_run_that_cannot_start_or_fails_is_slow_with_its_reason(standin):
    params = args(standin, mpirun=[str(standin / "no-such-mpirun")])
    cluster, runs = nccl_bisect.bisect_cluster(params, nccl_bisect.round_runner(local_run))
    assert not cluster["ok"]
    assert runs[0]["rc"] == 127 and "no-such-mpirun" in runs[0]["problems"][0]
    assert cluster["bisection"]["bad_nodes"] == [] and cluster["bisection"]["unresolved"] == [n["host"] for n in NODES]


def test_judge_names_the_exit_code_and_the_timeout():
    assert nccl_bisect.judge(1, "", "mpirun: host unreachable\n", 1.0)["problems"][0] == (
        "exit code 1: mpirun: host unreachable"
    )
    assert nccl_bisect.judge(124, "", "", 1.0)["problems"][0] == "timed out (killed by timeout)"


def test_the_groups_of_a_round_run_at_the_same_time():
    """Three 0.3 s runs end in well under 0.9 s."""
    started = time.monotonic()
    results = nccl_bisect.round_runner(local_run)([["sleep", "0.3"]] * 3)
    assert [rc for rc, _out, _err in results] == [0, 0, 0]
    assert time.monotonic() - started < 0.8
    assert nccl_bisect.round_runner(local_run)([["/no/such/program"]])[0][0] == 127


def test_bad_nodes_argument(standin):
    result = run_module(nccl_bisect, args(standin, nodes=[{"host": "node1"}, {"host": "node2", "address": "x"}]))
    assert result["failed"] and "every node needs a host and an address" in result["msg"]
