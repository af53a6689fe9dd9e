"""`--tags <role>` runs the whole role: every task of every step file of nvidia_driver, cuda, cudnn
and nccl is listed by `ansible-playbook --list-tasks --tags <role>` (a step included with tags,
instead of imported, would leave its tasks untagged and skipped). Cheap: nothing is contacted."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
# role -> its step files, in the order tasks/main.yml runs them.
STEPS = {
    "nvidia_driver": ["validate.yml", "preflight.yml", "install.yml", "configure.yml", "verify.yml"],
    "cuda": ["validate.yml", "install.yml", "configure.yml", "verify.yml"],
    "cudnn": ["validate.yml", "install.yml", "verify.yml"],
    "nccl": ["validate.yml", "install.yml", "verify.yml"],
}


def task_names(role: str, filename: str) -> list[str]:
    """Names --list-tasks shows for a task file: its tasks, those of its blocks, of the files it
    imports and of the (internal) roles it imports, whose tasks must carry the caller's tags too."""
    tasks_dir = ROOT / "roles" / role / "tasks"

    def walk(tasks):
        for task in tasks or []:
            if "ansible.builtin.import_tasks" in task:
                yield from walk(yaml.safe_load((tasks_dir / task["ansible.builtin.import_tasks"]).read_text()))
            elif "ansible.builtin.import_role" in task:
                imported = task["ansible.builtin.import_role"]
                name = imported["name"].split(".")[-1]
                yield from task_names(name, imported.get("tasks_from", "main") + ".yml")
            elif "block" in task:
                for key in ("block", "rescue", "always"):
                    yield from walk(task.get(key))
            else:
                yield task["name"]

    return list(walk(yaml.safe_load((tasks_dir / filename).read_text())))


@pytest.fixture(scope="module")
def playbook(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tags")
    (tmp / "inventory.yml").write_text("scc_cluster:\n  hosts:\n    node1:\n      ansible_host: 127.0.0.99\n")
    (tmp / "play.yml").write_text(
        yaml.safe_dump(
            [
                {
                    "name": "GPU stack",
                    "hosts": "scc_cluster",
                    "gather_facts": False,
                    "roles": [{"role": f"scc.training.{role}"} for role in STEPS],
                }
            ]
        )
    )
    return tmp


def listed(playbook: Path, tag: str) -> dict[str, list[str]]:
    """Task name -> tags, of the tasks `--list-tasks --tags tag` would run."""
    bindir = Path(sys.executable).parent
    env = dict(
        os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_COLLECTIONS_PATH=str(ROOT / ".collections")
    )
    argv = [str(bindir / "ansible-playbook"), "-i", str(playbook / "inventory.yml"), str(playbook / "play.yml")]
    proc = subprocess.run([*argv, "--list-tasks", "--tags", tag], capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    out = {}
    for line in proc.stdout.splitlines():
        if "\tTAGS: [" not in line or line.lstrip().startswith("play #"):
            continue
        name, tags = line.strip().split("\tTAGS: [")
        out[name.split(" : ", 1)[-1]] = [t.strip() for t in tags.rstrip("]").split(",") if t.strip()]
    return out


@pytest.mark.parametrize("role", list(STEPS))
def test_tags_of_a_role_run_every_step(playbook, role):
    shown = listed(playbook, role)
    for step in STEPS[role]:
        for name in task_names(role, step):
            assert name in shown, f"--tags {role} leaves out {name!r} of roles/{role}/tasks/{step}"
            assert role in shown[name], (name, shown[name])
    # Only this role's tasks, those of the internal roles it imports (nvidia_library, nvidia_repo,
    # artifact_fetch) and the always-run argument validation are selected.
    assert all(role in tags or "always" in tags for tags in shown.values()), shown


def test_nvidia_driver_tags_reach_preflight_install_configure_verify(playbook):
    shown = listed(playbook, "nvidia_driver")
    for name in (
        "Check that the OS is supported",
        "Install the kernel headers of the running kernel and DKMS",
        "Pin NVIDIA's driver packages to the branch (apt)",
        "Blacklist nouveau",
        "Reboot into the new driver and wait for the host",
        "Read the driver and GPUs",
        # Inside the internal nvidia_repo role, imported by the install step: tagged nvidia_driver too.
        "Find out whether this host misses any of the packages",
    ):
        assert "nvidia_driver" in shown.get(name, []), (name, sorted(shown))
