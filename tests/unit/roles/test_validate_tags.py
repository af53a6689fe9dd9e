"""A role's input checks cannot be skipped: whatever `--tags` selects one of a role's tasks selects its
validate.yml tasks too (issue 27). For every role, and every entry point that imports validate.yml, every tag its
tasks carry (sub-tags such as `<role>_install` included) must be on each task of its validate.yml, or `always`.

One `ansible-playbook --list-tasks` over a play per role and entry point gives the tags ansible computes for each
task (inherited from imports, blocks and internal roles); a task runs under `--tags T` when T or `always` is among
them. One real `--list-tasks --tags` run per sample sub-tag checks that reading. Nothing is contacted."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
ROLES = sorted(p.name for p in (ROOT / "roles").iterdir() if (p / "tasks" / "main.yml").exists())
ENV = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_COLLECTIONS_PATH=str(ROOT / ".collections"))
IMPORT = "ansible.builtin.import_tasks"


def entry_points(role: str) -> list[str]:
    """The role's entry points whose task file imports validate.yml (main always counts)."""
    spec = yaml.safe_load((ROOT / "roles" / role / "meta" / "argument_specs.yml").read_text())["argument_specs"]
    found = ["main"]
    for entry in spec:
        path = ROOT / "roles" / role / "tasks" / f"{entry}.yml"
        if entry not in ("main", "validate") and path.exists():
            if any(task.get(IMPORT) == "validate.yml" for task in yaml.safe_load(path.read_text()) or []):
                found.append(entry)
    return found


def validate_task_names(role: str) -> set[str]:
    """The names of the tasks of roles/<role>/tasks/validate.yml, of its blocks and of the files it imports."""
    tasks_dir = ROOT / "roles" / role / "tasks"

    def walk(tasks):
        for task in tasks or []:
            if IMPORT in task:
                yield from walk(yaml.safe_load((tasks_dir / task[IMPORT]).read_text()))
            elif "block" in task:
                for key in ("block", "rescue", "always"):
                    yield from walk(task.get(key))
            else:
                yield task["name"]

    return set(walk(yaml.safe_load((tasks_dir / "validate.yml").read_text())))


CASES = [(role, entry) for role in ROLES for entry in entry_points(role)]


def list_tasks(tmp: Path, *extra: str) -> dict[str, list[tuple[str, list[str]]]]:
    """Play name -> [(task, tags)] of `--list-tasks` over one play per (role, entry point)."""
    plays = [
        {
            "name": f"{role} {entry}",
            "hosts": "scc_cluster",
            "gather_facts": False,
            "tasks": [
                {
                    "name": "The role",
                    "ansible.builtin.import_role": {"name": f"scc.training.{role}", "tasks_from": entry},
                }
            ],
        }
        for role, entry in CASES
    ]
    (tmp / "play.yml").write_text(yaml.safe_dump(plays))
    (tmp / "inventory.yml").write_text("scc_cluster:\n  hosts:\n    node1:\n      ansible_host: 127.0.0.99\n")
    argv = [str(Path(sys.executable).parent / "ansible-playbook"), "-i", str(tmp / "inventory.yml")]
    proc = subprocess.run(
        [*argv, str(tmp / "play.yml"), "--list-tasks", *extra],
        capture_output=True,
        text=True,
        env=ENV,
        check=False,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    out: dict[str, list[tuple[str, list[str]]]] = {}
    play = None
    for line in proc.stdout.splitlines():
        match = re.match(r"\s*play #\d+ \([^)]*\): (.*)\tTAGS:", line)
        if match:
            play = match.group(1)
            out[play] = []
        elif "\tTAGS: [" in line and play is not None:
            name, tags = line.strip().split("\tTAGS: [")
            out[play].append((name, [t.strip() for t in tags.rstrip("]").split(",") if t.strip()]))
    return out


@pytest.fixture(scope="module")
def listing(tmp_path_factory):
    return list_tasks(tmp_path_factory.mktemp("validate_tags"))


def owner(tag: str) -> str | None:
    """The role whose tag this is: its name, or its name and a step (`cuda_install`); the longest name wins
    (`nccl_check_build` is nccl_check's, not nccl's). None for `always` and tags of no role (`facts`)."""
    names = [role for role in ROLES if tag == role or tag.startswith(f"{role}_")]
    return max(names, key=len) if names and tag != "always" else None


def selected(tags: list[str], tag: str) -> bool:
    """Whether `--tags tag` runs a task with these tags (ansible's rule for a plain tag)."""
    return tag in tags or "always" in tags


@pytest.mark.parametrize(("role", "entry"), CASES, ids=[f"{role}-{entry}" for role, entry in CASES])
def test_every_tag_of_a_role_runs_its_input_checks(listing, role, entry):
    tasks = listing[f"{role} {entry}"]
    own = [(name.split(" : ", 1)[1], tags) for name, tags in tasks if name.startswith(f"scc.training.{role} : ")]
    checks = validate_task_names(role)
    listed_checks = {name: tags for name, tags in own if name in checks}
    assert set(listed_checks) == checks, (
        f"{role} {entry}: validate.yml's tasks not listed: {checks - set(listed_checks)}"
    )
    # Every tag that selects a task run on the role's behalf: the role's own tags and sub-tags, also where they sit
    # on the tasks of an internal role it imports (cudnn_install: nvidia_library's tasks, with cudnn's values), and
    # any other tag on its own tasks (`facts`); not another role's (artifact_fetch_fetch runs artifact_fetch's checks).
    role_tags = set(
        {tag for _name, tags in tasks for tag in tags if owner(tag) == role}
        | {tag for _name, tags in own for tag in tags if owner(tag) is None}
    ) - {"always"}
    skipped = {
        tag: sorted(name for name, tags in listed_checks.items() if not selected(tags, tag))
        for tag in sorted(role_tags)
        if any(not selected(tags, tag) for tags in listed_checks.values())
    }
    assert not skipped, f"roles/{role} ({entry}): --tags T skips these input checks: {skipped}"


@pytest.mark.parametrize(
    ("tag", "check"),
    [
        ("bert_launch_run", "scc.training.bert_launch : Check the bert_launch variables (every problem at once)"),
        (
            "rdma_bandwidth_install",
            "scc.training.rdma_bandwidth : Check the rdma_bandwidth variables (every problem at once)",
        ),
    ],
)
def test_a_sub_tag_lists_the_roles_input_checks(tmp_path, tag, check):
    """The reading above against ansible's own selection: `--list-tasks --tags <role>_<step>` lists the checks."""
    plays = list_tasks(tmp_path, "--tags", tag)
    role = tag.rsplit("_", 1)[0]
    names = [name for name, _tags in plays[f"{role} main"]]
    assert check in names, names
    assert any(not name.startswith(f"scc.training.{role} : Check") for name in names), names
