"""scc.training.mpi_job_wait on a real run: pretrain_bert.py (tiny, one CPU process) started asynchronously by a
playbook on localhost, as mpi_job's run.yml starts a job, then waited for by the action. The run's own rank helper
writes the progress file the action reads; ansible-runner's events carry the lines (as AWX shows them).

Asserted: one line per poll with the steps of the total, the loss, sequences/s and the time left; no
``FAILED - RETRYING``; the job's exit status and output come back as async_status returned them; under a machine-readable
stdout callback (oneline, as ``ansible -o``) no line is printed. The lab test of the same wait over mpirun:
tests/integration/test_imagenet_prep.py (the compare_transports tcp leg)."""

from __future__ import annotations

import json
import re
import sys

from tests.lab_runner import changed, failed, local_play, ok_results, run_playbook, stdout_lines
from tests.unit.bert.small_run import RUNTIME, small_run
from tests.unit.rank_scripts import free_port

STEPS = 150
# A line with the rank's step, loss and rate; the time left while steps remain, "ended" on the last. How many polls
# fall while the job still runs depends on the machine's speed: the last poll's line always has them all.
LINE = re.compile(
    r"^bert run t1: step (\d+)/%d \(\d+%%\), loss (\d+\.\d{4}), ([\d.]+) sequences/s"
    r"(?:, about \S+ left)?(?:, ended)? \(1 rank\(s\) read\)$" % STEPS
)
LAST = re.compile(
    r"^bert run t1: step %d/%d \(100%%\), loss (\d+\.\d{4}), .*ended \(1 rank\(s\) read\)$" % (STEPS, STEPS)
)


def _playbook(tmp_path):
    run_dir = tmp_path / "run"
    argv = [sys.executable, "-m", "scc_training_runtime.pretrain_bert"]
    argv += small_run(run_dir, STEPS) + ["--master-port", str(free_port()), "--log-every", "50"]
    return local_play(
        tmp_path,
        "A short real run, waited for as mpi_job waits for its jobs",
        [
            {
                "name": "Start the run",
                "ansible.builtin.command": {"argv": argv},
                "environment": {"PYTHONPATH": str(RUNTIME)},
                "async": 300,
                "poll": 0,
                "register": "started",
                "changed_when": True,
            },
            {
                "name": "Wait for it",
                "scc.training.mpi_job_wait": {
                    "jid": "{{ started.ansible_job_id }}",
                    "run_dir": str(run_dir),
                    "label": "bert run t1",
                    "poll_s": 1,
                    "timeout_s": 300,
                },
                "register": "polled",
            },
            {
                "name": "Remove the job's status file",
                "ansible.builtin.async_status": {"jid": "{{ started.ansible_job_id }}", "mode": "cleanup"},
            },
        ],
    )


def _waited(events):
    return ok_results(events, "Wait for it")["node1"]


def test_a_real_run_shows_one_progress_line_per_poll_and_never_failed_retrying(tmp_path):
    playbook, inventory = _playbook(tmp_path)
    run = run_playbook(playbook, inventory, tmp_path)
    assert run.status == "successful", failed(run.events)
    lines = stdout_lines(run.events)
    assert not [line for line in lines if "FAILED - RETRYING" in line]
    waited = _waited(run.events)
    shown = [line for line in lines if line.startswith("bert run t1: ")]
    # One line per poll, in order; the result keeps the last 50.
    assert len(shown) == waited["polls"] and shown[-50:] == waited["progress_lines"]
    running = [LINE.match(line) for line in shown]
    running = [m for m in running if m]
    assert running, shown
    steps = [int(m.group(1)) for m in running]
    assert steps == sorted(steps) and 0 < steps[0] <= STEPS, shown
    # While steps remain, the line says the time left.
    assert all("left" in m.group(0) for m, step in zip(running, steps) if step < STEPS), shown
    assert all(float(m.group(3)) > 0 for m in running)
    assert LAST.match(shown[-1]), shown
    # The progress file and the job's end, as the role's collect.yml reads them.
    assert waited["rc"] == 0 and waited["finished"] and not waited["job_failed"]
    assert "status=ok" in waited["stdout"] + waited["stderr"]
    assert waited["progress"]["step"] == STEPS and waited["progress"]["unit"] == "sequences"
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert float(LAST.match(shown[-1]).group(1)) == round(results["loss_last"], 4)
    # The throughput of each logged interval after the warm-up (the report's throughput curve).
    assert [i["step"] for i in results["throughput"]["intervals"]] == [50, 100, 150]
    assert all(i["sequences_per_s"] > 0 for i in results["throughput"]["intervals"])
    # Waiting changes nothing; only the start is a change.
    assert changed(run.events) == [("node1", "Start the run")]


def test_a_machine_readable_callback_gets_no_progress_line(tmp_path):
    # minimal: what ad-hoc ``ansible`` prints by default, a JSON document per task (ansible-core ships no json callback:
    # json and jsonl are ansible.posix's, which tests/unit/plugins/module_utils/test_job_progress.py covers by name).
    playbook, inventory = _playbook(tmp_path)
    run = run_playbook(playbook, inventory, tmp_path, envvars={"ANSIBLE_STDOUT_CALLBACK": "minimal"})
    assert run.status == "successful", failed(run.events)
    waited = _waited(run.events)
    assert waited["rc"] == 0 and waited["progress_lines"]
    lines = stdout_lines(run.events)
    # The lines are in the task's result (which the callback prints), never printed on their own.
    assert not set(lines) & set(waited["progress_lines"]), lines
    assert len([line for line in lines if "node1 | " in line]) == 3, lines
