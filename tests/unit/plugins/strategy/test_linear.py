"""plugins/strategy/linear.py: the collection's controller-side plugins are compiled once, in ansible-playbook's own
process, not again in every worker it forks for a task (issue 25: a third of a converged prepare.yml's controller
CPU went there).

A real ansible-playbook runs a small play whose tasks use the collection's filters and its lookup, once under this
strategy and once under ansible.builtin.linear. An audit hook (sys.addaudithook, Python's public event for every
``compile``) records which process compiled which of the collection's files. Nothing is contacted: the play runs on
localhost with the local connection."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ansible_collections.scc.training.plugins.plugin_utils import preload

ROOT = Path(__file__).resolve().parents[4]
# ansible-playbook, with an audit hook that appends "pid filename" for every compile of a file of the collection.
RUNNER = r"""
import os, sys
log = open(os.environ["SCC_COMPILE_LOG"], "a", buffering=1)
def hook(event, args):
    if event == "compile" and isinstance(args[1], str) and "/plugins/" in args[1] and "scc" in args[1]:
        log.write(f"{os.getpid()} {args[1]}\n")
sys.addaudithook(hook)
log.write(f"main {os.getpid()}\n")
from ansible.cli.playbook import main
sys.argv[0] = "ansible-playbook"
main()
"""
PLAY = [
    {
        "hosts": "localhost",
        "gather_facts": False,
        "tasks": [
            {
                "name": f"Use a filter of the collection ({n})",
                "ansible.builtin.assert": {
                    "that": ["(['a', 'b'] | scc.training.cluster_ring_peers('a', 'ring')) == ['b']"]
                },
            }
            for n in range(3)
        ]
        + [
            {
                "name": "Use the lookup",
                "ansible.builtin.debug": {"msg": "{{ lookup('scc.training.role_inputs', 'openmpi') | length }}"},
            }
        ],
    }
]


def compiles(tmp_path: Path, strategy: str) -> tuple[int, dict[int, list[str]]]:
    """(ansible-playbook's pid, {pid: files of the collection that process compiled}) of a run of PLAY."""
    play = tmp_path / "play.yml"
    play.write_text(yaml.safe_dump(PLAY))
    log = tmp_path / f"compiles-{strategy}.log"
    env = dict(
        os.environ,
        ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"),
        ANSIBLE_COLLECTIONS_PATH=str(ROOT / ".collections"),
        ANSIBLE_STRATEGY=strategy,
        SCC_COMPILE_LOG=str(log),
    )
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER, "-i", "localhost,", "-c", "local", str(play)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    main, by_pid = None, {}
    for line in log.read_text().splitlines():
        first, rest = line.split(" ", 1)
        if first == "main":
            main = int(rest)
        else:
            by_pid.setdefault(int(first), []).append(rest)
    return main, by_pid


def test_workers_compile_none_of_the_collection_under_this_strategy(tmp_path):
    main, by_pid = compiles(tmp_path, "scc.training.linear")
    in_workers = {pid: files for pid, files in by_pid.items() if pid != main}
    assert not in_workers, in_workers
    # The parent compiled them, once each.
    assert any(f.endswith("/plugins/filter/cluster.py") for f in by_pid[main])
    assert len(by_pid[main]) == len(set(by_pid[main]))


def test_under_builtin_linear_every_worker_compiles_them_again(tmp_path):
    # What the strategy saves: the worker of each of the three filter tasks compiles every filter file of the
    # collection (to find one) and their module_utils; the lookup's worker compiles the lookup.
    main, by_pid = compiles(tmp_path, "ansible.builtin.linear")
    in_workers = [files for pid, files in by_pid.items() if pid != main]
    filter_files = len(list((ROOT / "plugins" / "filter").glob("*.py")))
    whole = [files for files in in_workers if sum("/plugins/filter/" in f for f in files) == filter_files]
    assert len(whole) == 3, [len(files) for files in in_workers]
    assert any(f.endswith("/plugins/module_utils/_gpu_matrix.py") for f in whole[0])
    assert any(any(f.endswith("/plugins/lookup/role_inputs.py") for f in files) for files in in_workers)


def test_preload_imports_every_filter_lookup_and_action_file():
    imported = preload.preload()
    on_disk = {
        f"ansible_collections.scc.training.plugins.{kind}.{path.stem}"
        for kind in preload.PLUGIN_TYPES
        for path in (ROOT / "plugins" / kind).glob("*.py")
        if path.stem != "__init__"
    }
    assert set(imported) == on_disk
    assert all(name in sys.modules for name in imported)


def test_preload_skips_a_plugin_type_the_collection_lacks():
    assert preload.preload(plugin_types=("filter", "no_such_type")) == sorted(preload.preload(plugin_types=("filter",)))


@pytest.mark.parametrize("config", ["ansible.cfg"])
def test_the_checkout_runs_with_this_strategy(config):
    assert "strategy = scc.training.linear" in (ROOT / config).read_text()
