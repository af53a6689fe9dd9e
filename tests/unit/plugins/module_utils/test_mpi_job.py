# -*- coding: utf-8 -*-
"""plugins/module_utils/mpi_job.py: which recorded pids are still ours, the launcher's command (run
for real with /bin/sh and a stand-in mpirun), the ranks' tagged output and a failed run's partial results."""

from __future__ import annotations

import base64
import json
import subprocess

import pytest

from ansible_collections.scc.training.plugins.module_utils import mpi_job

# proc(5) layout; a comm holding ") " and spaces must not shift the fields.
STAT = "4242 (py) thon x) S 1 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987654 1000 10 0"


def stat_of(pid, start, state="S"):
    return "%d (mpirun) %s 1 2 3 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 %d 0 0" % (pid, state, start)


def test_proc_starttime_reads_field_22_after_the_comm():
    assert mpi_job.proc_starttime(STAT) == 987654
    with open("/proc/self/stat", encoding="utf-8") as handle:
        assert mpi_job.proc_starttime(handle.read()) > 0
    with pytest.raises(ValueError, match="not a /proc"):
        mpi_job.proc_starttime("garbage")


def test_only_a_running_pid_with_its_recorded_start_time_is_ours():
    records = [
        {"pid": 100, "starttime": 5, "rank": 0},  # running, same start: ours
        {"pid": 101, "starttime": 5, "rank": 1},  # pid reused by another process
        {"pid": 102, "starttime": 5, "rank": 2},  # gone
        {"pid": 103, "starttime": 5, "rank": 3},  # a zombie: exited
        {"pid": "104", "starttime": 5},  # not a record
        {"pid": 1, "starttime": 5},  # init is never ours
        {"pid": 105},
    ]
    stats = {100: stat_of(100, 5), 101: stat_of(101, 6), 102: None, "103": stat_of(103, 5, "Z")}
    verdicts = mpi_job.processes_to_stop(records, stats)
    assert [r["pid"] for r in verdicts["ours"]] == [100]
    assert [r["pid"] for r in verdicts["reused"]] == [101]
    assert [r["pid"] for r in verdicts["gone"]] == [102, 103]
    assert len(verdicts["invalid"]) == 3


def job(**changes):
    base = {
        "argv": ["/usr/bin/timeout", "--kill-after=60", "600", "/usr/bin/mpirun", "-np", "2", "prog", "--x"],
        "mpirun_path": "/usr/bin/mpirun",
        "state_dir": "/var/lib/scc-training/mpi_job/bert",
        "run_id": "r1",
        "env": {"SCC_MPI_JOB_PID_DIR": "/var/lib/scc-training/mpi_job/bert"},
    }
    base.update(changes)
    return base


def test_the_launcher_inserts_tagging_and_the_environment_right_after_mpirun():
    argv = mpi_job.launcher_argv(job())
    assert argv[:6] == ["/bin/sh", "-c", mpi_job.LAUNCHER_SCRIPT, "mpi_job", "/var/lib/scc-training/mpi_job/bert", "r1"]
    assert argv[6:] == [
        "/usr/bin/timeout", "--kill-after=60", "600", "/usr/bin/mpirun",
        "--tag-output", "-x", "SCC_MPI_JOB_PID_DIR=/var/lib/scc-training/mpi_job/bert",
        "-np", "2", "prog", "--x",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"mpirun_path": "/opt/mpirun"}, "mpirun_path /opt/mpirun is not in the command"),
        ({"run_id": "a b"}, "run_id must be"),
        ({"env": {"BAD-NAME": "1"}}, "env names must be shell variable names, got BAD-NAME"),
        ({"argv": None}, "not iterable|NoneType"),
    ],
)
def test_the_launcher_refuses(changes, message):
    with pytest.raises((ValueError, TypeError), match=message):
        mpi_job.launcher_argv(job(**changes))
    with pytest.raises(ValueError, match="missing key 'run_id'"):
        mpi_job.launcher_argv({k: v for k, v in job().items() if k != "run_id"})


def test_the_launcher_records_the_pid_that_becomes_mpirun(tmp_path):
    """Run for real: a stand-in mpirun prints its own /proc stat and arguments; the record names that
    very process (same pid, same start time), written atomically."""
    standin = tmp_path / "mpirun"
    standin.write_text('#!/bin/sh\ncat /proc/$$/stat\necho "ARGS $*"\n')
    standin.chmod(0o755)
    argv = mpi_job.launcher_argv(
        job(argv=[str(standin), "-np", "1", "prog"], mpirun_path=str(standin), state_dir=str(tmp_path))
    )
    out = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=10).stdout.splitlines()
    records = [json.loads(p.read_text()) for p in tmp_path.glob("*.json")]
    assert len(records) == 1 and not list(tmp_path.glob("*.tmp"))
    assert records[0]["pid"] == int(out[0].split()[0])
    assert records[0]["starttime"] == mpi_job.proc_starttime(out[0])
    assert (records[0]["run_id"], records[0]["role"]) == ("r1", "launcher")
    assert out[1] == "ARGS --tag-output -x SCC_MPI_JOB_PID_DIR=/var/lib/scc-training/mpi_job/bert -np 1 prog"


OUTPUT = """\
[1,0]<stdout>:[rank 0] step 10/30 loss=7.1
[1,1]<stderr>:Traceback (most recent call last):
[1,1]<stderr>:  File "pretrain_bert.py", line 1
[1,1]<stderr>:mpi_job_rank.TestOnlyInjectedFailure: test-only failure injected at rank 1, step 12
--------------------------------------------------------------------------
Primary job  terminated normally, but 1 process returned
a non-zero exit code. Per user-direction, the job has been aborted.
--------------------------------------------------------------------------
mpirun detected that one or more processes exited with non-zero status, thus causing
the job to be terminated. The first process to do so was:

  Process name: [[47733,1],1]
  Exit code:    1
"""


def test_split_rank_output_and_the_rank_mpirun_names():
    split = mpi_job.split_rank_output(OUTPUT)
    assert split["ranks"][0] == ["[rank 0] step 10/30 loss=7.1"]
    assert split["ranks"][1][0] == "Traceback (most recent call last):"
    assert split["plain"].splitlines()[1] == "Traceback (most recent call last):"
    assert mpi_job.mpirun_failed_rank(OUTPUT) == 1
    assert (
        mpi_job.mpirun_failed_rank("mpirun noticed that process rank 3 with PID 77 on node n2 exited on signal 9") == 3
    )
    assert mpi_job.mpirun_failed_rank("all well") is None


def slurped(record):
    return {"content": base64.b64encode(json.dumps(record).encode()).decode(), "source": "x"}


PROGRESS = [
    {"rank": 0, "host": "node1", "step": 11, "steps": 30, "loss": 6.9, "status": "running", "updated_at": 10.0},
    {"rank": 1, "host": "node2", "step": 11, "steps": 30, "loss": 7.0, "status": "failed", "updated_at": 9.0,
     "error": "TestOnlyInjectedFailure: test-only failure injected at rank 1, step 12"},
]  # fmt: skip


def test_a_failed_rank_gives_partial_results():
    results = mpi_job.job_results(
        {
            "run_id": "r1",
            "rc": 1,
            "output": OUTPUT,
            "progress": [slurped(p) for p in reversed(PROGRESS)],
            "tail_lines": 2,
        }
    )
    assert results["status"] == "failed" and results["reason"] == "rank_failed"
    assert (results["failed_rank"], results["failed_host"]) == (1, "node2")
    assert results["steps_completed"] == 11 and results["last_loss"] == 6.9
    assert results["failed_rank_log_tail"] == [
        '  File "pretrain_bert.py", line 1',
        "mpi_job_rank.TestOnlyInjectedFailure: test-only failure injected at rank 1, step 12",
    ]
    assert [r["rank"] for r in results["ranks"]] == [0, 1]
    assert "[1,1]" not in results["output"]
    assert results["message"].startswith("run r1 failed (rank_failed, exit status 1): rank 1 on node2;")
    assert "11 step(s) done by every rank, last loss 6.9" in results["message"]


def test_without_a_failed_progress_file_the_rank_comes_from_mpirun_or_the_slowest():
    running = [dict(p, status="running") for p in PROGRESS]
    assert mpi_job.job_results({"rc": 1, "output": OUTPUT, "progress": running})["failed_rank"] == 1
    slow = [dict(running[0], step=20), running[1]]
    timed_out = mpi_job.job_results({"rc": 124, "output": "", "progress": slow})
    assert (timed_out["reason"], timed_out["failed_rank"], timed_out["steps_completed"]) == ("timeout", 1, 11)
    assert mpi_job.job_results({"rc": None, "output": "", "progress": []})["reason"] == "timeout"


def test_a_launch_that_never_started_a_rank_keeps_the_output_tail():
    results = mpi_job.job_results(
        {"run_id": "r2", "rc": 2, "output": "mpirun: cannot open hostfile\n", "tail_lines": 5}
    )
    assert (results["reason"], results["failed_rank"], results["steps_completed"]) == ("launch_failed", None, 0)
    assert results["failed_rank_log_tail"] == ["mpirun: cannot open hostfile"]
    assert results["last_loss"] is None


def test_a_successful_run_names_no_failure():
    ok = [dict(p, status="ok", step=30) for p in PROGRESS]
    results = mpi_job.job_results({"run_id": "r3", "rc": 0, "output": OUTPUT, "progress": ok})
    assert (results["status"], results["reason"], results["failed_rank"]) == ("ok", None, None)
    assert results["steps_completed"] == 30 and results["message"] == ""
    assert mpi_job.job_results({"rc": 0, "progress": [{"content": "bm90IGpzb24="}, "junk"]})["ranks"] == []


def test_job_results_refuses_a_non_dict():
    with pytest.raises(ValueError, match="input must be a dict"):
        mpi_job.job_results([])


def test_collected_run_directories_give_the_progress_and_the_files():
    collected = [
        dict(slurped(PROGRESS[0]), source="/opt/bert/runs/r1/progress-rank0.json"),
        dict(slurped(dict(PROGRESS[1], status="ok")), source="/opt/bert/runs/r1/progress-rank1.json"),
        {"source": "/opt/bert/runs/r1/results.json", "content": base64.b64encode(b'{"status": "ok"}').decode()},
    ]
    results = mpi_job.job_results({"run_id": "r1", "rc": 0, "output": "", "collected": collected})
    assert [r["rank"] for r in results["ranks"]] == [0, 1]
    assert results["files"] == {"results.json": '{"status": "ok"}'}
