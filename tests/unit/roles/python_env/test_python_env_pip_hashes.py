"""python_env's pip command on the hosts, as its vars/main.yml builds it, run for real (pip --dry-run on this
Python, the role's own environment: no pip config, no index) against a wheelhouse of one tiny wheel: a wheel
whose sha256 is not the lock's is refused, and so is a lock line that carries no hash at all (what
--require-hashes adds to the hash-checking pip turns on by itself when some line has one)."""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import jinja2
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[4]
VARS = yaml.safe_load((ROOT / "roles" / "python_env" / "vars" / "main.yml").read_text(encoding="utf-8"))


def _tiny_wheel(directory: Path) -> Path:
    """scc_tiny-1.0-py3-none-any.whl: one module, its METADATA, WHEEL and RECORD."""
    files = {
        "scc_tiny.py": b"VALUE = 1\n",
        "scc_tiny-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: scc-tiny\nVersion: 1.0\n",
        "scc_tiny-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append("%s,sha256=%s,%d" % (name, digest, len(data)))
    record.append("scc_tiny-1.0.dist-info/RECORD,,")
    wheel = directory / "scc_tiny-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        archive.writestr("scc_tiny-1.0.dist-info/RECORD", "\n".join(record) + "\n")
    return wheel


def _pip(tmp_path: Path, lock_line: str):
    wheelhouse = tmp_path / "wheelhouse"
    wheelhouse.mkdir(exist_ok=True)
    _tiny_wheel(wheelhouse)
    lock = tmp_path / "scc-wheelhouse.lock"
    lock.write_text(lock_line + "\n")
    context = {
        "python_env_venv_path": str(tmp_path / "venv"),
        "__python_env_wheelhouse": {"wheelhouse": str(wheelhouse)},
        "_python_env_hash_lock": str(lock),
    }
    argv = [jinja2.Template(arg).render(context) for arg in VARS["_python_env_pip_install"]]
    assert argv[0] == str(tmp_path / "venv" / "bin" / "python")
    # This test's Python stands in for the venv's; --dry-run resolves and checks each wheel, installs nothing.
    env = {**os.environ, **{k: str(v) for k, v in VARS["_python_env_pip_environment"].items()}}
    env = {k: v for k, v in env.items() if not k.startswith("PIP_") or k in VARS["_python_env_pip_environment"]}
    return subprocess.run(
        [sys.executable] + argv[1:] + ["--dry-run"], capture_output=True, text=True, env=env, timeout=120, check=False
    )


def _sha256(tmp_path: Path) -> str:
    return hashlib.sha256(_tiny_wheel(tmp_path).read_bytes()).hexdigest()


def test_a_wheel_with_the_locks_sha256_installs(tmp_path):
    proc = _pip(tmp_path, "scc-tiny==1.0 --hash=sha256:" + _sha256(tmp_path))
    assert proc.returncode == 0 and "Would install scc-tiny-1.0" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.parametrize(
    "lock_line, refusal",
    [
        ("scc-tiny==1.0 --hash=sha256:" + "0" * 64, "THESE PACKAGES DO NOT MATCH THE HASHES"),
        ("scc-tiny==1.0", "Hashes are required in --require-hashes mode"),
    ],
    ids=["another_sha256", "no_hash"],
)
def test_a_wheel_not_held_to_a_sha256_is_refused(tmp_path, lock_line, refusal):
    proc = _pip(tmp_path, lock_line)
    assert proc.returncode != 0 and refusal in proc.stderr, proc.stdout + proc.stderr
