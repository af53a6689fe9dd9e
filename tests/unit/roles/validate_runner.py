"""Run a role's `validate` tasks for many variable sets in ONE ansible-playbook run (ansible-runner).

Each case is an inventory host (connection local, never contacted: validate.yml only asserts on
variables) carrying the case's variables; its events tell which hosts failed and why.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import ansible_runner
import yaml

ROOT = Path(__file__).resolve().parents[3]


def run_validate(role: str, cases: dict, tmp_path: Path, group: str = "scc_cluster") -> dict:
    """Return {case: None if it passed, else the failure message}."""
    inventory = {group: {"hosts": {name: {"ansible_connection": "local", **vars_} for name, vars_ in cases.items()}}}
    (tmp_path / "inventory.yml").write_text(yaml.safe_dump(inventory))
    playbook = [
        {
            "name": "Validate",
            "hosts": group,
            "gather_facts": False,
            "tasks": [
                {
                    "name": "Validate",
                    "ansible.builtin.include_role": {"name": f"scc.training.{role}", "tasks_from": "validate"},
                }
            ],
        }
    ]
    (tmp_path / "play.yml").write_text(yaml.safe_dump(playbook))
    private = tmp_path / "runner"
    private.mkdir(exist_ok=True)
    runner = ansible_runner.run(
        private_data_dir=str(private),
        playbook=str(tmp_path / "play.yml"),
        inventory=str(tmp_path / "inventory.yml"),
        envvars={
            "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
            # ansible-runner sets ANSIBLE_HOST_KEY_CHECKING=False unless told otherwise;
            # the lab hosts' keys are pinned and must be checked.
            "ANSIBLE_HOST_KEY_CHECKING": "True",
            "ANSIBLE_COLLECTIONS_PATH": str(ROOT / ".collections"),
            "ANSIBLE_FORKS": "8",
            "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        },
        quiet=True,
    )
    result = dict.fromkeys(cases)
    for event in runner.events:
        if event["event"] == "runner_on_failed":
            data = event["event_data"]
            if result[data["host"]] is None:
                result[data["host"]] = data["res"].get("msg", "")
    unreached = [e for e in runner.events if e["event"] == "runner_on_unreachable"]
    assert not unreached, f"validate contacted a host: {unreached}"
    return result


_REFUSALS: dict = {}


def assert_refusal(role: str, cases: dict, case: str, tmp_path_factory) -> None:
    """cases {name: (vars, variable)} of a role, run once per session; variable None must pass,
    otherwise the failure must name it."""
    key = (role, id(cases))
    if key not in _REFUSALS:
        _REFUSALS[key] = run_validate(role, {k: v[0] for k, v in cases.items()}, tmp_path_factory.mktemp(role))
    results, expected = _REFUSALS[key], cases[case][1]
    if expected is None:
        assert results[case] is None, f"{case} should pass, failed with: {results[case]}"
    else:
        assert results[case] is not None, f"{case} should fail on {expected}"
        assert expected in results[case], f"{case}: message does not name {expected}: {results[case]}"
