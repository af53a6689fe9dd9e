"""What the lab-driven tests share: lab hosts that come up and go down with a test module, and
one ansible-runner wrapper that runs a playbook from this checkout as users run it.

Host key checking stays ON: ansible-runner turns it off unless the environment says otherwise,
and the lab's host keys are pinned (known_hosts written by the lab, StrictHostKeyChecking=yes).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

import ansible_runner
import pytest
import yaml

from lab.cluster import Lab

ROOT = Path(__file__).resolve().parents[1]


def _quiet(*_args):
    """The lab's progress log, unwanted in test output."""


@contextlib.contextmanager
def lab_up(directory, count: int, first_address: str):
    """`count` lab hosts on first_address and up, state in directory; all gone afterwards."""
    lab = Lab(directory)
    lab.up(count, first_address, log=_quiet)
    try:
        yield lab
    finally:
        lab.down(log=_quiet)


@contextlib.contextmanager
def temp_lab(prefix: str, addresses):
    """A fresh work directory and, in it, a lab of one host per address (consecutive from the first): (work, lab).

    What a bench starts with; the lab is down and the directory gone afterwards.
    """
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        work = Path(tmp)
        with lab_up(work / "lab", len(addresses), addresses[0]) as lab:
            yield work, lab


def lab_fixture(count: int, first_address: str, directory=None, name: str = "lab"):
    """A module-scoped pytest fixture yielding a Lab of `count` hosts from first_address.

    directory: where the lab keeps its state; by default a fresh temp dir named after `name`.
    Assign it to the fixture's name: `lab = lab_fixture(2, "127.0.13.21")`.
    """

    @pytest.fixture(scope="module")
    def fixture(tmp_path_factory):
        where = directory if directory is not None else tmp_path_factory.mktemp(name) / "lab"
        with lab_up(where, count, first_address) as lab:
            yield lab

    return fixture


class Run(NamedTuple):
    """One ansible-playbook run: runner status ("successful", "failed", ...), rc, every event."""

    status: str
    rc: int
    events: list


def run_playbook(playbook, inventory, workdir, extravars=None, check=False, envvars=None) -> Run:
    """Run playbook against inventory through ansible-runner, with this checkout's ansible.cfg
    and collection. workdir holds the runner's private data dir for the run only: a fresh one per
    run, since ansible-runner keeps env and extravars from earlier runs in it, and its artifacts
    (every event) are large. envvars are added to the environment the run sees."""
    private = Path(tempfile.mkdtemp(dir=workdir, prefix="run-"))
    env = {
        "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
        "ANSIBLE_HOST_KEY_CHECKING": "True",
        "ANSIBLE_COLLECTIONS_PATH": str(ROOT / ".collections"),
        # ansible.cfg caches facts by inventory name (gathering = smart): every lab names its hosts
        # node1..nodeN, so each test module (its workdir) keeps its own cache, never another lab's facts.
        "ANSIBLE_CACHE_PLUGIN_CONNECTION": str(Path(workdir) / "facts"),
        # ansible-runner finds ansible-playbook on PATH: the one of this venv.
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
    }
    env.update(envvars or {})
    try:
        result = ansible_runner.run(
            private_data_dir=str(private),
            playbook=str(playbook),
            inventory=str(inventory),
            extravars=extravars or {},
            envvars=env,
            cmdline="--check" if check else None,
            quiet=True,
        )
        events = list(result.events)
    finally:
        shutil.rmtree(private, ignore_errors=True)
    return Run(result.status, result.rc, events)


def run_on_first_nodes(lab, playbook, workdir, nodes: int, tag: str, extravars=None) -> Run:
    """A bench's run of ``playbook`` on the lab's first ``nodes`` hosts, through an inventory of them (a --limit would
    hide the playbook's localhost plays) written as ``inventory-<tag>.yml`` in ``workdir``; SystemExit naming ``tag``
    unless the run succeeded."""
    inventory = yaml.safe_load(Path(lab.inventory).read_text())
    hosts = inventory["scc_cluster"]["hosts"]
    inventory["scc_cluster"]["hosts"] = {name: hosts[name] for name in list(hosts)[:nodes]}
    path = Path(workdir) / ("inventory-%s.yml" % tag)
    path.write_text(yaml.safe_dump(inventory))
    run = run_playbook(playbook, path, workdir, extravars)
    if run.status != "successful":
        raise SystemExit("the %s run failed: %s" % (tag, failed(run.events)))
    return run


# --- reading the events ---------------------------------------------------------------------


def changed(events) -> list[tuple]:
    """(host, task) of every task that reported a change."""
    return [
        (e["event_data"]["host"], e["event_data"]["task"])
        for e in events
        if e["event"] == "runner_on_ok" and e["event_data"]["res"].get("changed")
    ]


def failed(events) -> list[tuple]:
    """(host, task, msg) of every failed task (ignored failures left out)."""
    return [
        (e["event_data"].get("host"), e["event_data"].get("task"), e["event_data"]["res"].get("msg", ""))
        for e in events
        if e["event"] == "runner_on_failed" and not e["event_data"].get("ignore_errors")
    ]


def results_by_host(events, kind: str) -> dict:
    """{host: result} of the events of one kind (e.g. runner_on_ok); a later task's wins."""
    return {
        e["event_data"]["host"]: e["event_data"]["res"]
        for e in events
        if e["event"] == kind and "res" in e["event_data"]
    }


def ok_results(events, task: str) -> dict:
    """{host: result} of one task's successful runs."""
    return {
        e["event_data"]["host"]: e["event_data"]["res"]
        for e in events
        if e["event"] == "runner_on_ok" and e["event_data"]["task"] == task
    }


def ok_runs(events, task: str) -> list[tuple]:
    """(host, result) of every successful run of one task, in order (a task may run more than once a host)."""
    return [
        (e["event_data"]["host"], e["event_data"]["res"])
        for e in events
        if e["event"] == "runner_on_ok" and e["event_data"]["task"] == task
    ]


def ok_messages(events) -> str:
    """Every successful result as JSON text, to search for a message."""
    return " ".join(json.dumps(e["event_data"].get("res", {})) for e in events if e["event"] == "runner_on_ok")


def unreachable(events) -> list:
    return [e for e in events if e["event"] == "runner_on_unreachable"]


def gathered_facts(events) -> list:
    """Events of fact gathering: a play that contacted its hosts.

    Not every runner event has event_data (verbose and error lines do not)."""
    return [e for e in events if e.get("event_data", {}).get("task") == "Gathering Facts"]


# --- refusal tables: many cases judged in one playbook run -----------------------------------


def localhost_inventory(directory: Path) -> Path:
    """An inventory of localhost only, on this venv's Python."""
    inventory = directory / "hosts.yml"
    inventory.write_text(
        f"all:\n  hosts:\n    localhost:\n      ansible_connection: local\n"
        f"      ansible_python_interpreter: {sys.executable}\n"
    )
    return inventory


def local_play(directory: Path, name: str, tasks: list) -> tuple[Path, Path]:
    """A playbook of one play of ``tasks`` on node1, a local connection on this venv's Python, and its inventory:
    (playbook, inventory) in directory."""
    playbook = directory / "play.yml"
    play = [{"name": name, "hosts": "node1", "gather_facts": False, "tasks": tasks}]
    playbook.write_text(yaml.safe_dump(play, sort_keys=False))
    inventory = directory / "node1.yml"
    inventory.write_text(
        f"all:\n  hosts:\n    node1:\n      ansible_connection: local\n"
        f"      ansible_python_interpreter: {sys.executable}\n"
    )
    return playbook, inventory


def stdout_lines(events) -> list[str]:
    """Every line the run printed, in order (a progress line is a verbose event's stdout)."""
    return [line for e in events for line in (e.get("stdout") or "").splitlines()]


WARNING_MARKS = ("[WARNING]", "[DEPRECATION WARNING]")


def warnings(events) -> list[str]:
    """What ansible-playbook printed as a warning or a deprecation warning: each such event's whole text."""
    return [e["stdout"] for e in events if any(mark in (e.get("stdout") or "") for mark in WARNING_MARKS)]


def assert_outcomes(cases, events, min_refused: int) -> None:
    """cases: (id, role, vars, words the refusal must contain, or None = must be accepted).
    The playbook publishes {id: "accepted" | refusal message} as `__outcomes`; the last one counts."""
    outcomes = [
        e["event_data"]["res"]["__outcomes"]
        for e in events
        if e["event"] == "runner_on_ok" and "__outcomes" in e["event_data"]["res"]
    ][-1]
    refused = 0
    for case in cases:
        case_id, words = case[0], case[3]
        outcome = outcomes[case_id]
        if words is None:
            assert outcome == "accepted", (case_id, outcome)
            continue
        assert outcome != "accepted", case_id
        for word in words:
            assert word in outcome, (case_id, word, outcome)
        refused += 1
    assert refused >= min_refused
