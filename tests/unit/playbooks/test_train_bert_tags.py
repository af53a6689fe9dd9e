"""playbooks/train_bert.yml: --tags bert_launch and --tags fabric_monitor run those roles whole.

`ansible-playbook --list-tasks` against a throwaway inventory (no host is contacted) lists what a
tagged run would run. A role that is included (include_role) instead of imported would list
only the include, and its tasks would not run under --tags.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
TASK = re.compile(r"^\s+(?:(?P<role>[\w.]+) : )?(?P<name>.+?)\tTAGS: \[(?P<tags>[^\]]*)\]$")


def list_tasks(tmp_path, *tags):
    """[(role, task name)] that train_bert.yml would run with these --tags (all without)."""
    inventory = tmp_path / "hosts.yml"
    inventory.write_text("scc_cluster:\n  hosts:\n    node1:\n      ansible_host: 127.0.0.1\n")
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "ansible-playbook"), "-i", str(inventory), "--list-tasks"]
        + [arg for tag in tags for arg in ("--tags", tag)]
        + [str(ROOT / "playbooks" / "train_bert.yml")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=dict(
            os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_COLLECTIONS_PATH=str(ROOT / ".collections")
        ),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [(m["role"], m["name"]) for m in map(TASK.match, proc.stdout.splitlines()) if m]


@pytest.fixture(scope="module")
def every_task(tmp_path_factory):
    return list_tasks(tmp_path_factory.mktemp("all"))


# The internal roles a role imports (their tasks run under the role's tag).
IMPORTED = {"bert_launch": ["scc.training.mpi_job"], "fabric_monitor": []}


@pytest.mark.parametrize("role", ["bert_launch", "fabric_monitor"])
def test_tags_run_the_whole_role(tmp_path, every_task, role):
    fqcn = "scc.training." + role
    own = [fqcn, *IMPORTED[role]]
    tagged = list_tasks(tmp_path, role)
    role_tasks = [task for task in every_task if task[0] in own]
    # The role's own steps (more than its argument validation), every one of them (and those of the
    # internal roles it imports), and no other role's.
    assert len([task for task in role_tasks if task[0] == fqcn]) > 3
    assert [task for task in tagged if task[0] in own] == role_tasks
    assert all(any(task[0] == name for task in role_tasks) for name in IMPORTED[role])
    assert not [task for task in tagged if task[0] not in (*own, None) and "Validating arguments" not in task[1]]
    # The run id both roles use is named under either tag.
    assert (None, "Name the run (bert_launch_run_id, or a UTC timestamp and a random suffix)") in tagged
