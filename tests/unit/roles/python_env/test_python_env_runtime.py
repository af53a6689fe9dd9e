"""python_env's runtime step (tasks/runtime.yml) on localhost, for real: the runtime wheel built on the controller,
copied into a wheelhouse, installed into a venv from its own hash lock; a converged re-run and --check change nothing;
a venv whose lock differs (new bytes at the same version) gets the wheel again. The wheelhouse and the venv are this
test's own (venv.yml's facts stood in for by the play: the wheelhouse path, nothing pending)."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest
import yaml

from tests.lab_runner import changed, failed, localhost_inventory, run_playbook

RUNTIME_TASKS = [
    "Build the training runtime's wheel on the controller",
    "Put the runtime wheel into the wheelhouse",
    "Install the training runtime from the wheelhouse (no index, hash required)",
    "Write the runtime wheel's hash lock into the venv",
]


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    work = tmp_path_factory.mktemp("python_env_runtime")
    venv = work / "venv"
    # A venv with pip, as venv.yml leaves it (the pinned wheels are not needed: the runtime declares no dependency).
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    (work / "wheelhouse").mkdir()
    play = [
        {
            "name": "python_env's runtime step",
            "hosts": "localhost",
            "gather_facts": False,
            "tasks": [
                {
                    "name": "Stand in for wheelhouse.yml's result",
                    "ansible.builtin.set_fact": {
                        "__python_env_wheelhouse": {"wheelhouse": str(work / "wheelhouse"), "pending": False},
                        "__python_env_venv_create": {"changed": False},
                    },
                },
                {
                    "name": "The runtime step",
                    "ansible.builtin.include_role": {"name": "scc.training.python_env", "tasks_from": "runtime"},
                },
            ],
        }
    ]
    (work / "play.yml").write_text(yaml.safe_dump(play, sort_keys=False))
    extravars = {"python_env_venv_path": str(venv), "python_env_cache_dir": str(work / "cache")}
    inventory = localhost_inventory(work)

    def run(check=False):
        return run_playbook(work / "play.yml", inventory, work, extravars, check=check)

    return run, work, venv


def installed(venv, cwd):
    shown = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import scc_training_runtime as r; print(r.__version__, r.__file__)"],
        capture_output=True, text=True, check=False, cwd=cwd,
    )  # fmt: skip
    return shown


def test_installs_the_runtime_then_a_rerun_and_check_mode_change_nothing(setup):
    run, work, venv = setup
    first = run()
    assert first.rc == 0, failed(first.events)
    assert sorted(task for _host, task in changed(first.events)) == sorted(RUNTIME_TASKS)
    [wheel] = (work / "wheelhouse").glob("scc_training_runtime-*-py3-none-any.whl")
    shown = installed(venv, work)
    assert shown.returncode == 0, shown.stderr
    version, where = shown.stdout.split()
    assert wheel.name == "scc_training_runtime-%s-py3-none-any.whl" % version and where.startswith(str(venv))
    lock = (venv / "scc-runtime.lock").read_text()
    assert lock == "scc-training-runtime==%s --hash=sha256:%s\n" % (
        version,
        hashlib.sha256(wheel.read_bytes()).hexdigest(),
    )
    again = run()
    assert again.rc == 0 and changed(again.events) == [], failed(again.events) or changed(again.events)
    checked = run(check=True)
    assert checked.rc == 0 and changed(checked.events) == [], failed(checked.events) or changed(checked.events)


def test_a_lock_that_differs_reinstalls_the_wheel(setup):
    run, work, venv = setup
    if not (venv / "scc-runtime.lock").is_file():
        assert run().rc == 0
    # The venv holds another build's lock (other bytes at the same version): its files are replaced.
    (venv / "scc-runtime.lock").write_text("scc-training-runtime==0 --hash=sha256:%s\n" % ("0" * 64))
    outcome = run()
    assert outcome.rc == 0, failed(outcome.events)
    assert sorted(task for _host, task in changed(outcome.events)) == sorted(RUNTIME_TASKS[2:])
    assert installed(venv, work).returncode == 0
