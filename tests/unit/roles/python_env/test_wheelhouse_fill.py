"""Unit tests for roles/python_env/files/wheelhouse_fill.py (the controller's once-per-cluster fill)."""

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[4] / "roles" / "python_env" / "files" / "wheelhouse_fill.py"


@pytest.fixture(scope="module")
def wf():
    spec = importlib.util.spec_from_file_location("wheelhouse_fill", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
        "for name, size in (('torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl', 300),"
        " ('tqdm-4.70.1-py3-none-any.whl', 20)):\n"
        "    p = os.path.join(dest, name)\n"
        "    if os.path.exists(p):\n"
        "        print('File was already downloaded ' + p)\n"
        "    else:\n"
        "        open(p, 'wb').write(b'x' * size)\n"
        "        print('Saved ./' + name)\n" % (sys.executable, str(calls))
    )
    fake.chmod(0o755)
    return fake, calls


def run(wf, capsys, tmp_path, fake, *extra):
    constraints = tmp_path / "constraints.txt"
    if not constraints.exists():
        constraints.write_text("torch==2.13.0\ntqdm==4.70.1\n")
    argv = [
        "--cache-dir",
        str(tmp_path / "cache"),
        "--constraints",
        str(constraints),
        "--requirement=torch==2.13.0",
        "--python-version=3.11",
        "--platform=manylinux_2_28_x86_64",
        "--tag=cp311-x86_64",
        "--python",
        str(fake),
        *extra,
    ]
    rc = wf.main(argv)
    return rc, json.loads(capsys.readouterr().out)


def test_first_fill_downloads_and_records_stats(wf, capsys, tmp_path, fake_pip):
    fake, _unused = fake_pip
    rc, out = run(wf, capsys, tmp_path, fake)
    assert rc == 0 and out["changed"] is True
    assert out["bytes_downloaded"] == 320
    assert sorted(out["files"]) == [
        "torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl",
        "tqdm-4.70.1-py3-none-any.whl",
    ]
    stats = json.loads((tmp_path / "cache" / "download-stats.json").read_text())
    assert stats["bytes_downloaded"] == 320 and stats["files"] == out["files"]
    manifest = json.loads((Path(out["wheelhouse"]) / "manifest.json").read_text())
    assert [w["name"] for w in manifest["wheels"]] == out["wheels"]
    assert (Path(out["wheelhouse"]) / "requirements.txt").read_text() == "torch==2.13.0\n"
    assert os.path.basename(out["wheelhouse"]).startswith("cp311-x86_64-")


def test_second_fill_runs_no_pip(wf, capsys, tmp_path, fake_pip):
    fake, calls = fake_pip
    run(wf, capsys, tmp_path, fake)
    rc, out = run(wf, capsys, tmp_path, fake)
    assert rc == 0 and out["changed"] is False and out["bytes_downloaded"] == 0
    assert len(calls.read_text().splitlines()) == 1
    assert len(out["wheels"]) == 2


def test_missing_wheel_refills_only_that_file(wf, capsys, tmp_path, fake_pip):
    fake, _unused = fake_pip
    _rc, first = run(wf, capsys, tmp_path, fake)
    os.remove(Path(first["wheelhouse"]) / "tqdm-4.70.1-py3-none-any.whl")
    _rc, out = run(wf, capsys, tmp_path, fake)
    assert out["changed"] is True and out["files"] == ["tqdm-4.70.1-py3-none-any.whl"]
    assert out["bytes_downloaded"] == 20


def test_check_reports_without_downloading(wf, capsys, tmp_path, fake_pip):
    fake, calls = fake_pip
    rc, out = run(wf, capsys, tmp_path, fake, "--check")
    assert rc == 0 and out["changed"] is True
    assert not calls.exists()


def test_key_changes_with_inputs(wf):
    base = wf.wheelhouse_key(["torch==2.13.0"], "c", "3.11", "cp", ["p"], [])
    assert base == wf.wheelhouse_key([" torch==2.13.0 "], "c", "3.11", "cp", ["p"], [])
    assert base != wf.wheelhouse_key(["torch==2.13.0"], "c", "3.12", "cp", ["p"], [])
    assert base != wf.wheelhouse_key(["torch==2.13.0"], "c", "3.11", "cp", ["p"], ["--index-url=x"])
    assert base != wf.wheelhouse_key(["torch==2.13.0"], "c2", "3.11", "cp", ["p"], [])


def test_pip_command_is_binary_only_and_passes_extra_args(wf, tmp_path):
    args = wf.parse_args(
        [
            "--cache-dir",
            "c",
            "--constraints",
            "k",
            "--requirement=torch==2.13.0",
            "--python-version=3.11",
            "--platform=manylinux_2_28_x86_64",
            "--platform=manylinux2014_x86_64",
            "--pip-arg=--index-url=https://example.invalid/simple",
            "--python",
            "py",
        ]
    )
    cmd = wf.pip_download_command(args, "D")
    assert cmd[:4] == ["py", "-m", "pip", "download"]
    assert "--only-binary=:all:" in cmd
    assert cmd.count("--platform") == 2
    assert cmd[-1] == "--index-url=https://example.invalid/simple"


def test_failed_pip_fails_and_writes_no_manifest(wf, capsys, tmp_path):
    bad = tmp_path / "badpython"
    bad.write_text("#!/bin/sh\necho 'ERROR: No matching distribution found for torch==9'\nexit 1\n")
    bad.chmod(0o755)
    rc, out = run(wf, capsys, tmp_path, bad)
    assert rc == 1 and out["failed"] is True and "No matching distribution" in out["output"]
    assert not (Path(out["wheelhouse"]) / "manifest.json").exists()


def test_used_wheels_parses_pip_output(wf):
    text = "Saved ./d/a-1-py3-none-any.whl\nFile was already downloaded /x/b-2-py3-none-any.whl\nCollecting c\n"
    assert wf.used_wheels(text) == {"a-1-py3-none-any.whl", "b-2-py3-none-any.whl"}
