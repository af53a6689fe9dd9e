"""mpi_job_secret_env end to end on localhost (connection local): the role writes the secrets to a 0600 file, a
stand-in mpirun (a script that records its own argv, exports the -x pairs and runs the one rank) launches a rank
that reads them with mpi_job_rank.load_secret_env, and the secret is in the rank's environment but nowhere on
the launcher's command line, in any ansible-runner event (check mode too), nor left on the node afterwards."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest
import yaml

from tests.lab_runner import changed, failed, localhost_inventory, run_playbook

RUNTIME = Path(__file__).resolve().parents[4] / "runtime"
SECRET = "hf_S3cretTokenValue-0123456789"
# STAND-IN for Open MPI's mpirun (the unit tests have none): what the launcher runs, recording its argv.
MPIRUN = """#!{python}
import json, os, subprocess, sys
argv = sys.argv[1:]
with open(os.path.join({record!r}, "mpirun-argv.json"), "w") as handle:
    json.dump(sys.argv, handle)
env = dict(os.environ)
while argv and argv[0].startswith("-"):
    option = argv.pop(0)
    if option == "-x":
        name, _, value = argv.pop(0).partition("=")
        env[name] = value
sys.exit(subprocess.call(argv, env=env))
"""
RANK = """import hashlib, json, os, stat, sys
from scc_training_runtime import mpi_job_rank
names = mpi_job_rank.load_secret_env()
path = os.environ["SCC_MPI_JOB_SECRET_ENV_FILE"]
progress = mpi_job_rank.Progress(sys.argv[1], 0, 1)
with open(os.path.join(sys.argv[1], "results.json"), "w") as handle:
    json.dump({"names": names, "mode": stat.S_IMODE(os.stat(path).st_mode),
               "sha256": hashlib.sha256(os.environ.get("HF_TOKEN", "").encode()).hexdigest()}, handle)
progress.update(1, 0.5)
progress.finish("ok")
"""


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    """run(check) -> the run of the mpi_job role for one rank with a secret; and the work directory."""
    work = tmp_path_factory.mktemp("mpi_job_secret_env")
    mpirun = work / "mpirun"
    mpirun.write_text(MPIRUN.format(python=sys.executable, record=str(work)))
    mpirun.chmod(0o755)
    program = work / "program"
    program.mkdir()
    (program / "rank.py").write_text(RANK)
    inventory = localhost_inventory(work)

    def run(check=False, secret_env=None):
        play = [
            {
                "name": "One rank with a secret",
                "hosts": "localhost",
                "gather_facts": False,
                "roles": [
                    {
                        "role": "scc.training.mpi_job",
                        "vars": {
                            "mpi_job_register": "job",
                            "mpi_job_name": "secret_test",
                            "mpi_job_run_id": "r1",
                            "mpi_job_argv": [str(mpirun), sys.executable, "rank.py", str(work / "run")],
                            "mpi_job_mpirun_path": str(mpirun),
                            "mpi_job_first_host": "localhost",
                            "mpi_job_program_dir": str(program),
                            "mpi_job_run_dir": str(work / "run"),
                            "mpi_job_state_dir": str(work / "state"),
                            "mpi_job_timeout": 120,
                            "mpi_job_poll_s": 1,
                            "mpi_job_results_file": str(work / "results" / "failed.json"),
                            "mpi_job_collect_files": ["results.json"],
                            # The checkout's runtime package (python_env installs its wheel into the venv on a node).
                            "mpi_job_rank_env": {"NCCL_DEBUG": "INFO", "PYTHONPATH": str(RUNTIME)},
                            "mpi_job_secret_env": secret_env or {"HF_TOKEN": SECRET},
                        },
                    }
                ],
            }
        ]
        (work / "play.yml").write_text(yaml.safe_dump(play))
        return run_playbook(work / "play.yml", inventory, work, check=check)

    return run, work


def test_the_rank_gets_the_secret_and_nothing_else_does(job):
    run, work = job
    outcome = run()
    assert outcome.rc == 0, failed(outcome.events)
    results = json.loads((work / "run" / "results.json").read_text())
    assert results == {"names": ["HF_TOKEN"], "mode": 0o600, "sha256": hashlib.sha256(SECRET.encode()).hexdigest()}
    argv = json.loads((work / "mpirun-argv.json").read_text())
    assert (
        "NCCL_DEBUG=INFO" in argv
        and "SCC_MPI_JOB_SECRET_ENV_FILE=%s" % (work / "state" / "secret_test" / "secret.env") in argv
    )
    assert not any(SECRET in arg for arg in argv)
    assert SECRET not in json.dumps(outcome.events)
    assert not (work / "state" / "secret_test" / "secret.env").exists()


def test_check_mode_prints_the_command_without_the_secret(job):
    run, _work = job
    outcome = run(check=True)
    assert outcome.rc == 0, failed(outcome.events)
    text = json.dumps(outcome.events)
    assert "check mode: would launch secret_test run r1" in text and "SCC_MPI_JOB_SECRET_ENV_FILE=" in text
    assert SECRET not in text


# Issue 36: a value with a line end of str.splitlines other than \n (U+2028, U+0085) split the rank's NAME=value line,
# and a value that is not a string reached the file as Python rendered it. Both are refused by validate, naming the
# variable and the names, before the node's state directory exists; no value is shown.
def test_a_secret_of_two_lines_or_not_a_string_is_refused_before_anything_changes(job):
    run, work = job
    secrets = {"HF_TOKEN": SECRET + "\u2028INJECTED=1", "B_TOKEN": SECRET + "\x85X=1", "C_TOKEN": 12345}
    outcome = run(secret_env=secrets)
    assert outcome.rc != 0
    ((_host, task, lines),) = failed(outcome.events)
    message = lines if isinstance(lines, str) else " ".join(lines)
    assert "mpi_job_secret_env: the value of B_TOKEN, HF_TOKEN holds a control character" in message, message
    assert "mpi_job_secret_env: the value of C_TOKEN is not a string" in message, message
    assert SECRET not in json.dumps(outcome.events) and "12345" not in json.dumps(outcome.events)
    assert task == "Check mpi_job_secret_env's values (strings of one line)" and changed(outcome.events) == []
    assert not (work / "state" / "secret_test" / "secret.env").exists()
