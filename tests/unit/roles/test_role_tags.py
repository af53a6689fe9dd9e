"""`--tags <role>` runs the whole role, and `--tags` / `--skip-tags <role>_<step>` select exactly one step.

A role's steps are imported, or included dynamically where a whole step or branch does not apply to many hosts (a
CPU-only node skips each GPU step in one task rather than in one task per task of the step: issue 25). Tags on an
include select the include only; the tasks it includes get the tags of its `apply`. So the rule is: every include
carries `apply: {tags}` equal to the tags the include itself has (its own and those inherited from the imports and
blocks around it), and then every task of every file a role runs carries the role's tag.

The walk below reads the task files as Ansible does (imports and blocks pass their tags on; an include passes on the
tags around it and its `apply` tags, not its own: ansible.playbook.task.Task._get_parent_attribute skips a dynamic
parent). test_ansible_reads_include_tags_so runs ansible-playbook on a small play to prove that reading,
and the --list-tasks case checks the walk against Ansible's own list for the statically imported tasks. Nothing is
contacted."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
ROLES = sorted(p.name for p in (ROOT / "roles").iterdir() if (p / "tasks" / "main.yml").exists())
IMPORTS = ("ansible.builtin.import_tasks", "ansible.builtin.import_role")
INCLUDES = ("ansible.builtin.include_tasks", "ansible.builtin.include_role")
ENV = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_COLLECTIONS_PATH=str(ROOT / ".collections"))
PLAYBOOK = Path(sys.executable).parent / "ansible-playbook"


def _tags(task: dict) -> set[str]:
    tags = task.get("tags") or []
    return {tags} if isinstance(tags, str) else set(tags)


def _target(role: str, action: str, spec) -> tuple[str, str]:
    """(role, task file) an import or include runs."""
    if action.endswith("_tasks"):
        return role, spec if isinstance(spec, str) else spec["file"]
    return spec["name"].split(".")[-1], spec.get("tasks_from", "main") + ".yml"


def walk(role: str, filename: str, inherited: frozenset = frozenset(), seen: tuple = (), static: bool = True):
    """Yield ("task", role, file, name, tags, static) for every task a run of roles/<role>/tasks/<file> reaches, and
    ("include", role, file, name, (its tags, its tasks' tags), static) for every include, with the tags Ansible gives
    each; static: reached through imports and blocks only (what --list-tasks shows)."""
    if (role, filename) not in seen:
        tasks = yaml.safe_load((ROOT / "roles" / role / "tasks" / filename).read_text()) or []
        yield from walk_tasks(role, filename, tasks, inherited, (*seen, (role, filename)), static)


def walk_tasks(role: str, filename: str, tasks: list, inherited: frozenset, seen: tuple, static: bool):
    for task in tasks:
        tags = frozenset(inherited | _tags(task))
        imported = next((a for a in IMPORTS if a in task), None)
        included = next((a for a in INCLUDES if a in task), None)
        if imported:
            # An import's tasks inherit its tags.
            yield from walk(*_target(role, imported, task[imported]), tags, seen, static)
        elif included:
            # An include's tasks inherit what is around it and its apply tags, not its own tags.
            spec = task[included]
            apply = inherited | frozenset(_tags(spec.get("apply") or {}) if isinstance(spec, dict) else ())
            yield ("include", role, filename, task["name"], (tags, apply), static)
            yield from walk(*_target(role, included, spec), apply, seen, False)
        elif "block" in task:
            for key in ("block", "rescue", "always"):
                yield from walk_tasks(role, filename, task.get(key) or [], tags, seen, static)
        else:
            yield ("task", role, filename, task["name"], tags, static)


@pytest.mark.parametrize("role", ROLES)
def test_every_include_applies_its_own_tags(role):
    """--tags and --skip-tags select an include's tasks exactly when they select the include."""
    wrong = [
        f"roles/{r}/tasks/{f}: {name!r} has tags {sorted(tags)} but gives its tasks {sorted(apply)}"
        for kind, r, f, name, (tags, apply), _static in (e for e in walk(role, "main.yml") if e[0] == "include")
        if tags != apply
    ]
    assert not wrong, wrong


@pytest.mark.parametrize("role", ROLES)
def test_every_task_of_a_role_carries_its_tag(role):
    """--tags <role> runs every task the role reaches, those of the internal roles it imports or includes too."""
    untagged = [
        f"roles/{r}/tasks/{f}: {name!r} {sorted(tags)}"
        for kind, r, f, name, tags, _static in walk(role, "main.yml")
        if kind == "task" and role not in tags and "always" not in tags
    ]
    assert not untagged, untagged


def test_the_gpu_steps_are_included_once_per_step():
    """The GPU roles' steps after validate are dynamic includes: a CPU-only node skips each in one task."""
    for role, steps in {
        "nvidia_driver": ["preflight", "install", "configure", "verify"],
        "cuda": ["install", "configure", "verify"],
        "cudnn": ["install", "verify"],
        "nccl": ["install", "verify"],
        "aiacc": ["install", "configure", "verify"],
    }.items():
        includes = {
            tuple(sorted(tags))
            for kind, r, f, name, (tags, apply), _static in (e for e in walk(role, "main.yml") if e[0] == "include")
            if r == role and f == "main.yml"
        }
        assert includes == {(role, f"{role}_{step}") for step in steps}, (role, includes)


def listed(play: Path, *args: str) -> list[str]:
    """The task names `ansible-playbook --list-tasks` shows (TAGS stripped)."""
    proc = subprocess.run(
        [str(PLAYBOOK), "-i", "localhost,", str(play), "--list-tasks", *args],
        capture_output=True,
        text=True,
        env=ENV,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return [line.split("\tTAGS:")[0].strip() for line in proc.stdout.splitlines() if "\tTAGS: [" in line]


def ran(play: Path, *args: str) -> list[str]:
    """The names of the tasks a real run of the play executes (ok lines), in order."""
    proc = subprocess.run(
        [str(PLAYBOOK), "-i", "localhost,", "-c", "local", str(play), *args],
        capture_output=True,
        text=True,
        env=dict(ENV, ANSIBLE_STDOUT_CALLBACK="ansible.builtin.default"),
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [line.split("[", 1)[1].split("]", 1)[0] for line in proc.stdout.splitlines() if line.startswith("TASK [")]


@pytest.fixture(scope="module")
def toy(tmp_path_factory) -> Path:
    """A role shaped like the GPU roles: a validate import with every step tag, two steps each included with its
    own tags applied."""
    tmp = tmp_path_factory.mktemp("tags")
    tasks = tmp / "roles" / "toy" / "tasks"
    tasks.mkdir(parents=True)
    (tasks / "main.yml").write_text(
        yaml.safe_dump(
            [{"name": "validate", "ansible.builtin.import_tasks": "validate.yml", "tags": ["toy", "toy_a", "toy_b"]}]
            + [
                {
                    "name": f"step {step}",
                    "ansible.builtin.include_tasks": {"file": f"{step}.yml", "apply": {"tags": ["toy", f"toy_{step}"]}},
                    "tags": ["toy", f"toy_{step}"],
                }
                for step in ("a", "b")
            ]
        )
    )
    for name in ("validate", "a", "b"):
        (tasks / f"{name}.yml").write_text(
            yaml.safe_dump([{"name": f"task {name}", "ansible.builtin.debug": {"msg": name}}])
        )
    (tmp / "play.yml").write_text(yaml.safe_dump([{"hosts": "all", "gather_facts": False, "roles": ["toy"]}]))
    return tmp / "play.yml"


def test_ansible_reads_include_tags_so(toy):
    # What walk() assumes: the included tasks run under the tags that select their include, and only those.
    assert ran(toy, "--tags", "toy") == [
        "toy : task validate",
        "toy : step a",
        "toy : task a",
        "toy : step b",
        "toy : task b",
    ]
    assert ran(toy, "--tags", "toy_b") == ["toy : task validate", "toy : step b", "toy : task b"]
    # validate carries every step tag, so --skip-tags of one step skips it too (as with imported steps).
    assert ran(toy, "--skip-tags", "toy_a") == ["toy : step b", "toy : task b"]
    # Without apply the included task would be left out under --tags (the reason for the rule).
    main = toy.parent / "roles" / "toy" / "tasks" / "main.yml"
    tasks = yaml.safe_load(main.read_text())
    del tasks[2]["ansible.builtin.include_tasks"]["apply"]
    main.write_text(yaml.safe_dump(tasks))
    assert ran(toy, "--tags", "toy_b") == ["toy : task validate", "toy : step b"]


def test_the_walk_matches_ansibles_list_of_imported_tasks(tmp_path):
    """For every role, the tasks walk() reaches through imports alone are those --list-tasks lists, with the tags
    Ansible computes (the included ones Ansible cannot list before they run)."""
    play = tmp_path / "play.yml"
    play.write_text(
        yaml.safe_dump([{"hosts": "all", "gather_facts": False, "roles": [f"scc.training.{r}" for r in ROLES]}])
    )
    proc = subprocess.run(
        [str(PLAYBOOK), "-i", "localhost,", str(play), "--list-tasks"],
        capture_output=True,
        text=True,
        env=ENV,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    shown = {}
    for line in proc.stdout.splitlines():
        if "\tTAGS: [" in line and not line.lstrip().startswith("play #"):
            name, tags = line.strip().split("\tTAGS: [")
            shown.setdefault(name.split(" : ", 1)[-1], set()).update(
                t.strip() for t in tags.rstrip("]").split(",") if t.strip()
            )
    compared = 0
    for role in ROLES:
        for kind, r, f, name, tags, static in walk(role, "main.yml"):
            if kind == "task" and static and "{{" not in name:
                assert name in shown, f"roles/{r}/tasks/{f}: {name!r} not listed"
                assert set(tags) <= shown[name], (name, sorted(tags), sorted(shown[name]))
                compared += 1
    assert compared > 100, compared
