# -*- coding: utf-8 -*-
"""The mpi_job_stop module on real processes: a recorded process is stopped (TERM, then KILL when it
ignores TERM), an unrelated process of the same name survives, a recorded pid held by another
process (another start time) survives, check mode signals nothing, and a re-run changes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ansible_collections.scc.training.plugins.module_utils.mpi_job import proc_starttime
from ansible_collections.scc.training.plugins.modules import mpi_job_stop
from tests.unit.plugins.modules.module_runner import run_module

# The same command line for ours and the unrelated one: only the record tells them apart.
SLEEPER = [
    sys.executable,
    "-c",
    "import signal, sys, time\n"
    "if sys.argv[1:]: signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "print('ready', flush=True)\n"
    "time.sleep(60)",
]


def start(*extra):
    proc = subprocess.Popen([*SLEEPER, *extra], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "ready\n"
    return proc


def record(path, proc, **changes):
    with open("/proc/%d/stat" % proc.pid, encoding="utf-8") as handle:
        data = {"pid": proc.pid, "starttime": proc_starttime(handle.read()), "rank": 0, "run_id": "old"}
    data.update(changes)
    (path / ("%d.json" % proc.pid)).write_text(json.dumps(data))


@pytest.fixture
def procs():
    started = []
    yield started
    for proc in started:
        proc.kill()
        proc.wait()


def test_stops_exactly_the_recorded_processes(tmp_path, procs):
    ours, stubborn, unrelated, reused = (start(), start("ignore-term"), start(), start())
    procs += [ours, stubborn, unrelated, reused]
    record(tmp_path, ours)
    record(tmp_path, stubborn, rank=1)
    record(tmp_path, reused, starttime=1)  # the pid now belongs to another process
    (tmp_path / "999999999.json").write_text(json.dumps({"pid": 999999999, "starttime": 1}))
    (tmp_path / "junk.json").write_text("{")

    checked = run_module(mpi_job_stop, {"path": str(tmp_path), "grace_s": 1, "_ansible_check_mode": True})
    assert checked["changed"] and sorted(r["pid"] for r in checked["stopped"]) == sorted([ours.pid, stubborn.pid])
    assert ours.poll() is None and stubborn.poll() is None and len(list(tmp_path.iterdir())) == 5

    result = run_module(mpi_job_stop, {"path": str(tmp_path), "grace_s": 1})
    assert result["changed"]
    assert sorted(r["pid"] for r in result["stopped"]) == sorted([ours.pid, stubborn.pid])
    assert result["killed"] == [stubborn.pid]
    assert [r["pid"] for r in result["reused"]] == [reused.pid]
    assert [r["pid"] for r in result["gone"]] == [999999999]
    assert result["invalid"] == [str(tmp_path / "junk.json")]
    assert ours.wait(5) == -15 and stubborn.wait(5) == -9
    assert unrelated.poll() is None and reused.poll() is None
    assert not list(tmp_path.iterdir())

    again = run_module(mpi_job_stop, {"path": str(tmp_path), "grace_s": 1})
    assert not again["changed"] and again["stopped"] == []


def test_a_missing_directory_is_nothing_recorded(tmp_path):
    result = run_module(mpi_job_stop, {"path": str(tmp_path / "none")})
    assert not result["changed"] and not result["failed"]
    assert os.path.isdir(tmp_path)


def test_records_of_ended_processes_are_removed_without_a_change(tmp_path, procs):
    ended = start()
    record(tmp_path, ended)
    ended.kill()
    ended.wait()
    checked = run_module(mpi_job_stop, {"path": str(tmp_path), "_ansible_check_mode": True})
    assert not checked["changed"] and [r["pid"] for r in checked["gone"]] == [ended.pid]
    result = run_module(mpi_job_stop, {"path": str(tmp_path)})
    assert not result["changed"] and result["stopped"] == []
    assert not list(tmp_path.iterdir())
