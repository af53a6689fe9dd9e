"""rdma_stack's eRDMA mode switch (tasks/configure_erdma.yml): the script of its load task run with a STAND-IN
modprobe that behaves as kmod's does (``modprobe -r`` of a module not in the kernel fails: "Module erdma is not in
kernel.", tools/modprobe.c), the driver loaded or not."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

TASKS = Path(__file__).resolve().parents[4] / "roles" / "rdma_stack" / "tasks" / "configure_erdma.yml"
MODPROBE = """#!/bin/sh
echo "$*" >> "$STUB/calls"
if [ "$1" = -r ]; then
  [ -e "$STUB/loaded" ] || { echo "modprobe: FATAL: Module erdma is not in kernel." >&2; exit 1; }
  [ -e "$STUB/in-use" ] && { echo "modprobe: FATAL: Module erdma is in use." >&2; exit 1; }
fi
exit 0
"""


def load_task():
    (task,) = [t for t in yaml.safe_load(TASKS.read_text()) if t["name"].startswith("Load (or reload) the erdma")]
    return task


def run(tmp_path, state, loaded, in_use=False):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "modprobe").write_text(MODPROBE)
    (bin_dir / "modprobe").chmod(0o755)
    for flag, on in (("loaded", loaded), ("in-use", in_use)):
        (tmp_path / flag).touch() if on else (tmp_path / flag).unlink(missing_ok=True)
    (tmp_path / "calls").unlink(missing_ok=True)
    argv = load_task()["ansible.builtin.command"]["argv"]
    script = argv[:4]
    assert script[:2] == ["sh", "-c"] and script[3] == "sh"
    env = {**os.environ, "PATH": "%s:%s" % (bin_dir, os.environ["PATH"]), "STUB": str(tmp_path)}
    proc = subprocess.run([*script, state, "Y"], env=env, capture_output=True, text=True, check=False)
    calls = (tmp_path / "calls").read_text().splitlines() if (tmp_path / "calls").exists() else []
    return proc.returncode, calls


def test_the_state_argument_follows_the_parameters_file():
    """'loaded' exactly when the slurp of /sys/module/erdma/parameters/compat_mode found the file."""
    argv = load_task()["ansible.builtin.command"]["argv"]
    assert argv[4] == "{{ 'loaded' if 'content' in __rdma_stack_erdma_compat else 'not-loaded' }}"


@pytest.mark.parametrize(
    "state, loaded, in_use, rc, calls",
    [
        # Loaded in the other mode: removed, then loaded in the wanted one.
        ("loaded", True, False, 0, ["-r erdma", "erdma compat_mode=Y"]),
        # Not loaded (the installer did not load it): only loaded; a `modprobe -r` first would fail and stop it.
        ("not-loaded", False, False, 0, ["erdma compat_mode=Y"]),
        # In use: the removal fails and the task with it; the old mode is not left loaded silently.
        ("loaded", True, True, 1, ["-r erdma"]),
    ],
)
def test_the_driver_is_loaded_in_the_wanted_mode(tmp_path, state, loaded, in_use, rc, calls):
    assert run(tmp_path, state, loaded, in_use) == (rc, calls)
