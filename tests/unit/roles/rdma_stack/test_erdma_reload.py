"""rdma_stack's eRDMA mode switch (tasks/configure_erdma.yml): the script of its load task run with a STAND-IN
modprobe that behaves as kmod's does (``modprobe -r`` of a module not in the kernel fails: "Module erdma is not in
kernel.", tools/modprobe.c), the driver loaded or not."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

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


# What slurp registers (ansible.builtin.slurp, failed_when false): the file's base64 content when the driver is loaded
# (sysfs has its parameters file), a failure without content when it is not.
SLURP_FOUND = {"content": "WQo=", "encoding": "base64", "source": "/sys/module/erdma/parameters/compat_mode"}
SLURP_MISSING = {
    "failed": False,
    "failed_when_result": False,
    "msg": "file not found: /sys/module/erdma/parameters/compat_mode",
}


def render(expression, compat, mode="Y"):
    """The task's own expression rendered by Ansible's templar with the registered slurp result and the role's mode."""
    variables = {"__rdma_stack_erdma_compat": compat, "_rdma_stack_erdma_compat_mode": mode}
    return Templar(loader=DataLoader(), variables=variables).template(trust_as_template(expression))


CASES = [(SLURP_FOUND, True, ["-r erdma", "erdma compat_mode=Y"]), (SLURP_MISSING, False, ["erdma compat_mode=Y"])]


@pytest.mark.parametrize(("compat", "loaded", "calls"), CASES)
def test_the_state_argument_follows_the_parameters_file(tmp_path, compat, loaded, calls):
    """'loaded' exactly when the slurp of /sys/module/erdma/parameters/compat_mode found the file: the state the task
    renders, given to its script, removes the driver only when it is loaded (kmod refuses to remove one that is not)."""
    state = render(load_task()["ansible.builtin.command"]["argv"][4], compat)
    assert state == ("loaded" if loaded else "not-loaded")
    assert run(tmp_path, state, loaded) == (0, calls)


@pytest.mark.parametrize(
    ("compat", "mode", "runs"),
    [
        (SLURP_FOUND, "Y", False),  # loaded in the wanted mode (sysfs "Y\n"): nothing to do
        (SLURP_FOUND, "N", True),  # loaded in the other mode: reloaded
        (SLURP_MISSING, "Y", True),  # not loaded: loaded
        (SLURP_MISSING, "N", True),
    ],
)
def test_the_load_runs_unless_the_driver_is_in_the_wanted_mode(compat, mode, runs):
    when = load_task()["when"]
    assert render("{{ %s }}" % when, compat, mode) is runs


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
