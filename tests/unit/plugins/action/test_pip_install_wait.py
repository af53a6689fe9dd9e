"""scc.training.pip_install_wait on a real pip install: a playbook on localhost asks pip for a dry run's report and
starts the install asynchronously, as roles/python_env/tasks/venv.yml does, then waits with the action. The wheels
are built by the test (a small venv without pip, pip run from this checkout's venv with ``--python``).

Asserted: one line per poll, each a well-formed progress line (wheels of the total, bytes, elapsed), the last one
saying every wheel is in; no ``FAILED - RETRYING`` and no bare ``ASYNC POLL`` line; pip's rc and output come back as
the install task returned them, the job's status file is removed; under a machine-readable stdout callback no line
is printed. The intermediate lines (a poll between two wheels) are tested on the pure functions
(tests/unit/plugins/module_utils/test_transfer_progress.py): how many polls fall inside an install of seconds
depends on the machine."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import subprocess
import sys
import zipfile

import pytest

from tests.lab_runner import changed, failed, local_play, ok_results, run_playbook, stdout_lines

# (name, version, bytes of incompressible payload): one wheel outweighs the others, as a CUDA torch wheel does.
WHEELS = [("scc-tiny-a", "1.0", 1000), ("scc_tiny.b", "2.0.1", 1000), ("scc-tiny-c", "0.3", 4_000_000)]
LINE = re.compile(
    r"^python_env on node1: (?:"
    r"pip is reading 3 wheel\(s\), none installed yet, \d+s elapsed"
    r"|installing wheels, [123] of 3 done \(\S+ \S?B of \S+ MB, last: \S+ \S+\), \d+s elapsed(?:, about \S+ left)?"
    r"|pip ended, 3 of 3 wheel\(s\) installed, \d+s elapsed)$"
)


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (path, digest, len(data))


def _wheel(directory, name, version, payload):
    """A valid pure-Python wheel (PEP 427) with ``payload`` random bytes in a data file."""
    project = re.sub(r"[-_.]+", "_", name)
    dist_info = "%s-%s.dist-info" % (project, version)
    files = {
        "%s/__init__.py" % project: b"",
        "%s/blob.bin" % project: os.urandom(payload),
        dist_info + "/METADATA": ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version)).encode(),
        dist_info + "/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = [_record_line(path, data) for path, data in files.items()] + [dist_info + "/RECORD,,"]
    files[dist_info + "/RECORD"] = ("\n".join(record) + "\n").encode()
    path = directory / ("%s-%s-py3-none-any.whl" % (project, version))
    with zipfile.ZipFile(path, "w") as archive:
        for member, data in files.items():
            archive.writestr(member, data)
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(name="install")
def _install(tmp_path):
    """The wheelhouse, its hash lock, a venv without pip and a playbook installing the lock into it."""
    wheelhouse = tmp_path / "wheelhouse"
    wheelhouse.mkdir()
    lock = tmp_path / "lock.txt"
    lines = []
    for name, version, payload in WHEELS:
        sha256 = _wheel(wheelhouse, name, version, payload)
        lines.append("%s==%s --hash=sha256:%s" % (name, version, sha256))
    lock.write_text("\n".join(lines) + "\n")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--no-index"]
    pip += ["--find-links=%s" % wheelhouse, "--require-hashes", "--requirement=%s" % lock]
    env = {"PIP_CONFIG_FILE": "/dev/null", "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    playbook, inventory = local_play(
        tmp_path,
        "A pip install waited for as python_env waits for it",
        [
            {
                "name": "Ask pip what the venv lacks",
                "ansible.builtin.command": {"argv": pip + ["--dry-run", "--quiet", "--report", "-"]},
                "environment": env,
                "register": "dry_run",
                "changed_when": False,
            },
            {
                "name": "Start the install",
                "ansible.builtin.command": {"argv": pip + ["--progress-bar=off"]},
                "environment": env,
                "async": 120,
                "poll": 0,
                "register": "started",
                "changed_when": True,
            },
            {
                "name": "Wait for pip",
                "scc.training.pip_install_wait": {
                    "jid": "{{ started.ansible_job_id }}",
                    "venv": str(venv),
                    "report": "{{ dry_run.stdout | from_json }}",
                    "label": "python_env on {{ inventory_hostname }}",
                    "poll_s": 1,
                    "timeout_s": 120,
                },
                "register": "installed",
            },
            {
                "name": "Find the job's status file",
                "ansible.builtin.async_status": {"jid": "{{ started.ansible_job_id }}"},
                "register": "gone",
                "failed_when": False,
            },
        ],
    )
    return playbook, inventory, wheelhouse


def test_a_real_install_shows_one_line_per_poll_and_returns_pips_result(install, tmp_path):
    playbook, inventory, wheelhouse = install
    run = run_playbook(playbook, inventory, tmp_path)
    assert run.status == "successful", failed(run.events)
    lines = stdout_lines(run.events)
    assert not [line for line in lines if "FAILED - RETRYING" in line or "ASYNC POLL" in line], lines
    installed = ok_results(run.events, "Wait for pip")["node1"]
    shown = [line for line in lines if line.startswith("python_env on node1: ")]
    assert len(shown) == installed["polls"] and shown == installed["progress_lines"], shown
    assert all(LINE.match(line) for line in shown), shown
    assert shown[-1].startswith("python_env on node1: pip ended, 3 of 3 wheel(s) installed"), shown
    # pip's own result, as the install task returned it.
    assert installed["rc"] == 0 and installed["finished"], installed
    assert sorted(installed["stdout"].split("Successfully installed ")[-1].split()) == [
        "scc-tiny-a-1.0",
        "scc-tiny-c-0.3",
        "scc_tiny.b-2.0.1",
    ], installed["stdout"]
    # Every wheel counted, weighed by its file's size.
    sizes = sum(path.stat().st_size for path in wheelhouse.iterdir())
    assert installed["progress"] == {
        "done": 3,
        "total": 3,
        "bytes_done": sizes,
        "bytes_total": sizes,
        "last": installed["progress"]["last"],
    }
    assert installed["progress"]["last"] in ("scc-tiny-a 1.0", "scc_tiny.b 2.0.1", "scc-tiny-c 0.3")
    # The wait removed the job's status file, as a polled task does; waiting changes nothing.
    assert "could not find job" in ok_results(run.events, "Find the job's status file")["node1"]["msg"]
    assert changed(run.events) == [("node1", "Start the install")]


def test_a_machine_readable_callback_gets_no_progress_line(install, tmp_path):
    playbook, inventory = install[:2]
    run = run_playbook(playbook, inventory, tmp_path, envvars={"ANSIBLE_STDOUT_CALLBACK": "minimal"})
    assert run.status == "successful", failed(run.events)
    installed = ok_results(run.events, "Wait for pip")["node1"]
    assert installed["rc"] == 0 and installed["progress_lines"]
    lines = stdout_lines(run.events)
    assert not set(lines) & set(installed["progress_lines"]), lines
    assert not [line for line in lines if line.startswith("python_env on node1: ")], lines


def test_the_wheels_are_weighed_at_the_first_poll_only(monkeypatch):
    """The wheels' sizes do not change during the install: the module gets their paths once, later polls list the
    dist-info directories only, and every line still weighs the wheels by the first poll's sizes."""
    from ansible_collections.scc.training.plugins.action import pip_install_wait
    from ansible_collections.scc.training.plugins.plugin_utils import progress

    report = {
        "install": [
            {"metadata": {"name": "a", "version": "1"}, "download_info": {"url": "file:///w/a-1-py3-none-any.whl"}},
            {"metadata": {"name": "b", "version": "2"}, "download_info": {"url": "file:///w/b-2-py3-none-any.whl"}},
        ]
    }
    sizes = {"/w/a-1-py3-none-any.whl": 10, "/w/b-2-py3-none-any.whl": 30}
    finished = [[], [{"dist_info": "a-1.dist-info", "finished_at": 1.0}],
                [{"dist_info": "a-1.dist-info", "finished_at": 1.0}, {"dist_info": "b-2.dist-info", "finished_at": 2.0}]]  # fmt: skip
    weighed = []

    def execute_module(module_name, module_args, task_vars):
        wheels = [item["download_info"]["url"][len("file://") :] for item in module_args["report"]["install"]]
        weighed.append(wheels)
        return {"installed": finished[len(weighed) - 1], "wheel_bytes": {w: sizes[w] for w in wheels}}

    def wait(action, jid, task_vars, poll_s, timeout_s, line_of, cleanup=False):
        lines = [line_of({"finished": poll == 3}, poll) for poll in (1, 2, 3)]
        return {"finished": True, "rc": 0}, 3, lines

    monkeypatch.setattr(progress, "wait", wait)
    action = pip_install_wait.ActionModule.__new__(pip_install_wait.ActionModule)
    action._execute_module = execute_module
    args = {"jid": "1.2", "venv": "/v", "report": report, "label": "pip", "poll_s": 1, "timeout_s": 60}
    result = action.poll_run(args, {})
    assert weighed == [sorted(sizes), [], []]
    assert result["progress"] == {"done": 2, "total": 2, "bytes_done": 40, "bytes_total": 40, "last": "b 2"}
    assert "1 of 2 done" in result["progress_lines"][1] and "10 B of" in result["progress_lines"][1], result
