"""The filter files import their module_utils when a filter is called, not when the file loads (issue 38); the roles'
plans (lookup scc.training.role_plan) load no filter file and only the module_utils of the plan called.

Ansible's Jinja2 loader imports every filter file of a collection to find one of its filters, in each worker it
forks for a task that uses one, and compiles a collection's files from source each time. A real ansible-playbook
runs a small play under the checkout's ansible.cfg (Ansible's own linear strategy: the collection ships none) whose
tasks use the collection's filters; an audit hook (sys.addaudithook, Python's public event for every ``compile``)
records which process compiled which of the collection's files. Nothing is contacted: the play runs on localhost
with the local connection."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    lazy_module_utils,
)

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
RING_PEERS = "lookup('scc.training.role_plan', 'cluster_ring_peers', ['a', 'b'], 'a', 'ring') == ['b']"
REDACTED = "('https://u:p@mirror/x' | scc.training.redact_urls) == 'https://u:****@mirror/x'"
PLAY = [
    {
        "hosts": "localhost",
        "gather_facts": False,
        "tasks": [
            {
                "name": f"Use a plan of the roles (lookup role_plan) ({n})",
                "ansible.builtin.assert": {"that": [RING_PEERS]},
            }
            for n in range(2)
        ]
        + [
            {
                "name": "Use another filter file's filter",
                "ansible.builtin.assert": {"that": [REDACTED]},
            }
        ],
    }
]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """(ansible-playbook's pid, {pid: files of the collection that process compiled}, its output) of a run of PLAY."""
    tmp_path = tmp_path_factory.mktemp("lazy")
    play = tmp_path / "play.yml"
    play.write_text(yaml.safe_dump(PLAY))
    log = tmp_path / "compiles.log"
    env = {key: value for key, value in os.environ.items() if key != "ANSIBLE_STRATEGY"}
    env.update(
        ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"),
        ANSIBLE_COLLECTIONS_PATH=str(ROOT / ".collections"),
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
    return main, by_pid, proc.stdout + proc.stderr


def module_utils(files):
    return {Path(f).name for f in files if "/plugins/module_utils/" in f}


def test_a_worker_compiles_only_the_module_utils_of_the_filter_it_calls(run):
    main, by_pid, _output = run
    in_workers = [files for pid, files in by_pid.items() if pid != main]
    filter_files = len(list((ROOT / "plugins" / "filter").glob("*.py")))
    # A task that calls a filter: its worker loads every filter file (Ansible's loader, to find one filter) ...
    finding = [files for files in in_workers if sum("/plugins/filter/" in f for f in files) == filter_files]
    assert len(finding) == 1, [len(files) for files in in_workers]
    # ... but of plugins/module_utils only what the filter it calls imports: redact_urls redact.py.
    assert sorted(module_utils(finding[0])) == ["redact.py"]
    # A task that calls a role's plan (lookup role_plan) loads no filter file: the lookup, its registry and what the
    # plan imports (cluster_ring_peers: cluster.py and what cluster.py imports), never the other ~50 files.
    planning = [files for files in in_workers if any(f.endswith("/plugins/lookup/role_plan.py") for f in files)]
    assert len(planning) == 2, [len(files) for files in in_workers]
    for files in planning:
        assert not [f for f in files if "/plugins/filter/" in f]
        assert any(f.endswith("/plugins/plugin_utils/role_plans.py") for f in files)
        assert sorted(module_utils(files)) == ["cluster.py", "input_checks.py", "redact.py"]


def test_the_run_warns_of_nothing(run):
    # Under ansible-core 2.19 a strategy plugin outside ansible.builtin is deprecated (a warning on every run).
    _main, _by_pid, output = run
    assert "[WARNING]" not in output and "[DEPRECATION WARNING]" not in output, output


def test_the_collection_ships_no_strategy_and_the_checkout_selects_none():
    assert not (ROOT / "plugins" / "strategy").exists()
    assert "strategy" not in [line.split("=")[0].strip() for line in (ROOT / "ansible.cfg").read_text().splitlines()]


def test_a_lazy_module_imports_at_the_first_attribute_read():
    name = "ansible_collections.scc.training.plugins.module_utils.openpgp"
    sys.modules.pop(name, None)
    lazy = lazy_module_utils("openpgp")
    assert name not in sys.modules
    assert lazy.openpgp_fingerprints is sys.modules[name].openpgp_fingerprints
    with pytest.raises(AttributeError):
        lazy.no_such_function  # noqa: B018
