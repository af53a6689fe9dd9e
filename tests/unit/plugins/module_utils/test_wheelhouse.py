"""plugins/module_utils/wheelhouse.py: the controller's once-per-cluster wheelhouse fill (scc.training.wheelhouse)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ansible_collections.scc.training.plugins.module_utils import wheelhouse as wf

TORCH = "torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"
TQDM = "tqdm-4.70.1-py3-none-any.whl"


def run_subprocess(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
    return proc.returncode, proc.stdout


@pytest.fixture
def fake_pip(tmp_path):
    """A stand-in 'python' whose `-m pip download ... --dest D` writes two wheels into D."""
    calls = tmp_path / "calls.txt"
    fake = tmp_path / "fakepython"
    fake.write_text(
        "#!%s\n"
        "import sys, os\n"
        "args = sys.argv[1:]\n"
        "open(%r, 'a').write(' '.join(args) + '\\n')\n"
        "dest = args[args.index('--dest') + 1]\n"
        "for name, size in ((%r, 300), (%r, 20)):\n"
        "    p = os.path.join(dest, name)\n"
        "    if os.path.exists(p):\n"
        "        print('File was already downloaded ' + p)\n"
        "    else:\n"
        "        open(p, 'wb').write(b'x' * size)\n"
        "        print('Saved ./' + name)\n" % (sys.executable, str(calls), TORCH, TQDM)
    )
    fake.chmod(0o755)
    return fake, calls


def params(tmp_path, python, **extra):
    constraints = tmp_path / "constraints.txt"
    if not constraints.exists():
        constraints.write_text("torch==2.13.0\ntqdm==4.70.1\n")
    base = {
        "path": str(tmp_path / "cache" / "wheels"),
        "requirements": ["torch==2.13.0"],
        "constraints_file": str(constraints),
        "no_deps": False,
        "python_version": "3.11",
        "implementation": "cp",
        "platforms": ["manylinux_2_28_x86_64"],
        "pip_args": [],
        "python": str(python),
        "name_prefix": "cp311-x86_64",
        "stats_file": str(tmp_path / "cache" / "download-stats.json"),
    }
    return {**base, **extra}


def test_first_fill_downloads_and_records_stats(tmp_path, fake_pip):
    fake, _unused = fake_pip
    out = wf.fill(params(tmp_path, fake), run_subprocess)
    assert out["changed"] is True and "failed" not in out
    assert out["bytes_downloaded"] == 320
    assert sorted(out["files"]) == [TORCH, TQDM]
    stats = json.loads((tmp_path / "cache" / "download-stats.json").read_text())
    assert stats["bytes_downloaded"] == 320 and stats["files"] == out["files"]
    assert stats["wheelhouse"] == out["wheelhouse"]
    manifest = json.loads((Path(out["wheelhouse"]) / "manifest.json").read_text())
    assert manifest["wheels"] == out["wheels"]
    assert [w["size"] for w in out["wheels"]] == [300, 20]
    # Each wheel's sha256 is that of its bytes (what every host's pip --require-hashes is held to).
    for wheel in out["wheels"]:
        data = (Path(out["wheelhouse"]) / wheel["name"]).read_bytes()
        assert wheel["sha256"] == hashlib.sha256(data).hexdigest() and len(data) == wheel["size"]
    assert (Path(out["wheelhouse"]) / "requirements.txt").read_text() == "torch==2.13.0\n"
    assert (Path(out["wheelhouse"]) / "constraints.txt").read_text() == "torch==2.13.0\ntqdm==4.70.1\n"
    assert os.path.basename(out["wheelhouse"]).startswith("cp311-x86_64-")


def test_second_fill_runs_no_pip(tmp_path, fake_pip):
    fake, calls = fake_pip
    wf.fill(params(tmp_path, fake), run_subprocess)
    out = wf.fill(params(tmp_path, fake), run_subprocess)
    assert out["changed"] is False and out["bytes_downloaded"] == 0
    assert len(calls.read_text().splitlines()) == 1
    assert len(out["wheels"]) == 2


def test_missing_wheel_refills_only_that_file(tmp_path, fake_pip):
    fake, _unused = fake_pip
    first = wf.fill(params(tmp_path, fake), run_subprocess)
    os.remove(Path(first["wheelhouse"]) / TQDM)
    out = wf.fill(params(tmp_path, fake), run_subprocess)
    assert out["changed"] is True and out["files"] == [TQDM]
    assert out["bytes_downloaded"] == 20


def test_check_mode_reports_without_downloading(tmp_path, fake_pip):
    fake, calls = fake_pip
    out = wf.fill(params(tmp_path, fake), run_subprocess, check_mode=True)
    assert out["changed"] is True and out["wheels"] == []
    assert not calls.exists() and not (tmp_path / "cache").exists()
    wf.fill(params(tmp_path, fake), run_subprocess)
    out = wf.fill(params(tmp_path, fake), run_subprocess, check_mode=True)
    assert out["changed"] is False and len(out["wheels"]) == 2


def test_without_constraints_and_dependencies(tmp_path, fake_pip):
    fake, calls = fake_pip
    out = wf.fill(params(tmp_path, fake, constraints_file=None, no_deps=True, stats_file=None), run_subprocess)
    assert out["changed"] is True
    assert (Path(out["wheelhouse"]) / "constraints.txt").read_text() == ""
    assert "--no-deps" in calls.read_text().split()
    assert not (tmp_path / "cache" / "download-stats.json").exists()


def test_key_changes_with_inputs():
    base = wf.wheelhouse_key(["torch==2.13.0"], "c", "3.11", "cp", ["p"], [], False)
    assert base == wf.wheelhouse_key([" torch==2.13.0 "], "c", "3.11", "cp", ["p"], [], False)
    assert base != wf.wheelhouse_key(["torch==2.13.0"], "c", "3.12", "cp", ["p"], [], False)
    assert base != wf.wheelhouse_key(["torch==2.13.0"], "c", "3.11", "cp", ["p"], ["--index-url=x"], False)
    assert base != wf.wheelhouse_key(["torch==2.13.0"], "c2", "3.11", "cp", ["p"], [], False)
    assert base != wf.wheelhouse_key(["torch==2.13.0"], "c", "3.11", "cp", ["p"], [], True)


def test_pip_command_is_binary_only_and_passes_extra_args():
    cmd = wf.pip_download_command(
        "py",
        "3.11",
        "cp",
        ["manylinux_2_28_x86_64", "manylinux2014_x86_64"],
        ["--index-url=https://example.invalid/simple"],
        False,
        "D",
    )
    assert cmd[:4] == ["py", "-m", "pip", "download"]
    assert "--only-binary=:all:" in cmd and "--no-deps" not in cmd
    assert cmd.count("--platform") == 2
    assert cmd[-1] == "--index-url=https://example.invalid/simple"


def test_failed_pip_fails_and_writes_no_manifest(tmp_path):
    bad = tmp_path / "badpython"
    bad.write_text("#!/bin/sh\necho 'ERROR: No matching distribution found for torch==9'\nexit 1\n")
    bad.chmod(0o755)
    out = wf.fill(params(tmp_path, bad), run_subprocess)
    assert out["failed"] is True and "No matching distribution" in out["output"]
    assert not (Path(out["wheelhouse"]) / "manifest.json").exists()


def test_used_wheels_parses_pip_output():
    text = "Saved ./d/a-1-py3-none-any.whl\nFile was already downloaded /x/b-2-py3-none-any.whl\nCollecting c\n"
    assert wf.used_wheels(text) == {"a-1-py3-none-any.whl", "b-2-py3-none-any.whl"}


# A private index's credentials in pip_args (python_env_pip_extra_args, artifact_fetch_pip_extra_args): pip gets them
# as given, what is returned or written masks them (module_utils/redact.py) and still names the index.
SECRET = "S3cretT0ken"
INDEX_ARGS = [
    "--index-url=https://alice:%s@pypi.corp/simple" % SECRET,
    "--extra-index-url",
    "https://%s@m.corp/s" % SECRET,
]
INDEX_SHOWN = ["--index-url=https://alice:****@pypi.corp/simple", "--extra-index-url", "https://****@m.corp/s"]


def test_failed_download_result_carries_no_credentials(tmp_path):
    bad = tmp_path / "badpython"
    # pip masks its own output, but what the runner returns is not trusted to: this one echoes its argv.
    bad.write_text('#!/bin/sh\necho "ERROR: could not fetch from $*"\nexit 1\n')
    bad.chmod(0o755)
    out = wf.fill(params(tmp_path, bad, pip_args=INDEX_ARGS), run_subprocess)
    assert out["failed"] is True and SECRET not in json.dumps(out)
    assert out["cmd"][-3:] == INDEX_SHOWN and "https://alice:****@pypi.corp/simple" in out["output"]


def test_manifest_carries_no_credentials_and_the_key_and_pip_keep_them(tmp_path, fake_pip):
    fake, calls = fake_pip
    out = wf.fill(params(tmp_path, fake, pip_args=INDEX_ARGS), run_subprocess)
    manifest_text = (Path(out["wheelhouse"]) / "manifest.json").read_text()
    assert SECRET not in manifest_text and SECRET not in json.dumps(out)
    assert json.loads(manifest_text)["pip_args"] == INDEX_SHOWN
    # pip itself got the credentials, and the wheelhouse is named by the raw arguments as before.
    assert calls.read_text().split()[-3:] == INDEX_ARGS
    raw_key = wf.wheelhouse_key(
        ["torch==2.13.0"], "torch==2.13.0\ntqdm==4.70.1\n", "3.11", "cp", ["manylinux_2_28_x86_64"], INDEX_ARGS, False
    )
    assert out["key"] == raw_key


def test_manifest_written_with_credentials_is_rewritten_masked(tmp_path, fake_pip):
    fake, calls = fake_pip
    out = wf.fill(params(tmp_path, fake, pip_args=INDEX_ARGS), run_subprocess)
    path = Path(out["wheelhouse"]) / "manifest.json"
    # As an earlier release wrote it: the arguments as given.
    path.write_text(json.dumps(dict(json.loads(path.read_text()), pip_args=INDEX_ARGS)))
    checked = wf.fill(params(tmp_path, fake, pip_args=INDEX_ARGS), run_subprocess, check_mode=True)
    assert checked["changed"] is True and SECRET in path.read_text()
    again = wf.fill(params(tmp_path, fake, pip_args=INDEX_ARGS), run_subprocess)
    assert again["changed"] is True and again["bytes_downloaded"] == 0 and len(calls.read_text().splitlines()) == 1
    assert json.loads(path.read_text())["pip_args"] == INDEX_SHOWN and again["wheels"] == out["wheels"]
    assert wf.fill(params(tmp_path, fake, pip_args=INDEX_ARGS), run_subprocess)["changed"] is False


def test_pip_args_without_credentials_are_recorded_unchanged(tmp_path, fake_pip):
    fake, _unused = fake_pip
    plain = ["--index-url=https://download.pytorch.org/whl/cu126", "--extra-index-url=https://pypi.org/simple"]
    out = wf.fill(params(tmp_path, fake, pip_args=plain), run_subprocess)
    assert json.loads((Path(out["wheelhouse"]) / "manifest.json").read_text())["pip_args"] == plain
