"""python_env's runtime and venv steps (tasks/runtime.yml, then tasks/venv.yml) on localhost, for real: the runtime
wheel built on the controller and copied into a wheelhouse, named with its sha256 in the venv's one hash lock, installed
by the venv's pip; a converged re-run and --check change nothing; a venv holding another build of the same release
(a checkout between releases: same version before the label) gets this one. The wheelhouse holds only the runtime (no
pinned wheel: wheelhouse.yml's result is stood in for by the play, an empty set of pins, nothing pending)."""

from __future__ import annotations

import hashlib
import importlib.util
import subprocess
import sys

import pytest
import yaml

from tests.lab_runner import ROOT, changed, failed, localhost_inventory, run_playbook

spec = importlib.util.spec_from_file_location("build_wheel", ROOT / "runtime" / "build_wheel.py")
build_wheel = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_wheel)

# The start reports the change (pip_install_wait only waits).
INSTALL_TASKS = ["Start installing the pinned packages from the wheelhouse (no index, hashes required)"]
DRY_RUN = "Ask pip what the venv lacks (dry run, no index, hashes required)"
FIRST_RUN_TASKS = [
    "Build the training runtime's wheel on the controller",
    "Put the runtime wheel into the wheelhouse",
    "Create the venv",
    "Write the wheelhouse's hash lock into the venv",
    *INSTALL_TASKS,
]


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    work = tmp_path_factory.mktemp("python_env_runtime")
    venv = work / "venv"
    (work / "wheelhouse").mkdir()
    play = [
        {
            "name": "python_env's runtime and venv steps",
            "hosts": "localhost",
            "gather_facts": False,
            "tasks": [
                {
                    "name": "Stand in for wheelhouse.yml's result",
                    "ansible.builtin.set_fact": {
                        "__python_env_wheelhouse": {
                            "wheelhouse": str(work / "wheelhouse"),
                            "pending": False,
                            "sha256": {},
                        },
                    },
                },
                {
                    "name": "The runtime step",
                    "ansible.builtin.include_role": {"name": "scc.training.python_env", "tasks_from": "runtime"},
                },
                {
                    "name": "The venv step",
                    "ansible.builtin.include_role": {"name": "scc.training.python_env", "tasks_from": "venv"},
                },
            ],
        }
    ]
    (work / "play.yml").write_text(yaml.safe_dump(play, sort_keys=False))
    extravars = {
        "python_env_venv_path": str(venv),
        "python_env_cache_dir": str(work / "cache"),
        "python_env_python": sys.executable,
    }
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


def test_installs_the_runtime_from_the_venvs_lock_then_a_rerun_and_check_mode_change_nothing(setup):
    run, work, venv = setup
    first = run()
    assert first.rc == 0, failed(first.events)
    assert sorted(task for _host, task in changed(first.events)) == sorted(FIRST_RUN_TASKS)
    [wheel] = (work / "wheelhouse").glob("scc_training_runtime-*-py3-none-any.whl")
    shown = installed(venv, work)
    assert shown.returncode == 0, shown.stderr
    version, where = shown.stdout.split()
    assert wheel.name == "scc_training_runtime-%s-py3-none-any.whl" % version and where.startswith(str(venv))
    assert "+g" in version
    lock = (venv / "scc-wheelhouse.lock").read_text()
    assert lock == "scc-training-runtime==%s --hash=sha256:%s\n" % (
        version,
        hashlib.sha256(wheel.read_bytes()).hexdigest(),
    )
    again = run()
    assert again.rc == 0 and changed(again.events) == [], failed(again.events) or changed(again.events)
    checked = run(check=True)
    assert checked.rc == 0 and changed(checked.events) == [], failed(checked.events) or changed(checked.events)


def test_a_venv_holding_another_build_of_the_release_gets_this_one(setup, tmp_path):
    run, work, venv = setup
    if not (venv / "scc-wheelhouse.lock").is_file():
        assert run().rc == 0
    ours = installed(venv, work).stdout.split()[0]
    # Another tree of the same release: the same version before the label, other bytes. The lock is left as it is.
    other_version = ours.split("+")[0] + "+g000000000000"
    other = tmp_path / ("scc_training_runtime-%s-py3-none-any.whl" % other_version)
    package = ROOT / "runtime" / "scc_training_runtime"
    other.write_bytes(build_wheel.wheel_bytes(other_version, build_wheel.package_files(str(package))))
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-index", "--no-deps", str(other)],
        check=True, timeout=300,
    )  # fmt: skip
    assert installed(venv, work).stdout.split()[0] == other_version
    # --check predicts the install (pip's dry run reports it) and changes nothing.
    checked = run(check=True)
    assert checked.rc == 0, failed(checked.events)
    assert [task for _host, task in changed(checked.events)] == [DRY_RUN]
    assert installed(venv, work).stdout.split()[0] == other_version
    outcome = run()
    assert outcome.rc == 0, failed(outcome.events)
    assert sorted(task for _host, task in changed(outcome.events)) == sorted(INSTALL_TASKS)
    assert installed(venv, work).stdout.split()[0] == ours
