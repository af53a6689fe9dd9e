"""Run a role's `validate` tasks for many variable sets in ONE ansible-playbook run (ansible-runner).

Each case is an inventory host (connection local, never contacted: validate.yml only asserts on
variables) carrying the case's variables; its events tell which hosts failed and why.

A test module declares its cases and takes the fixture and the test from `validate_tests`:

    CASES = {"ok_default": ({}, None), "bad_mode": ({"x_mode": "ib"}, "x_mode")}
    results, test_validate = validate_tests("x", CASES)
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.lab_runner import failed, run_playbook, unreachable

# Every role's table of cases, by role (validate_tests registers them), and each role's results, computed once per
# test session: tests/unit/test_refusal_cases.py judges the same refusals' messages again without another run.
TABLES: dict = {}
_RESULTS: dict = {}


def cached_results(role: str, tmp_path_factory) -> dict:
    """run_validate of the role's registered cases, once per session."""
    if role not in _RESULTS:
        cases = TABLES[role]
        _RESULTS[role] = run_validate(
            role, {name: case[0] for name, case in cases.items()}, tmp_path_factory.mktemp(role)
        )
    return _RESULTS[role]


def run_validate(role: str, cases: dict, tmp_path: Path, group: str = "scc_cluster") -> dict:
    """Return {case: None if it passed, else the failure message}."""
    # Host names as RFC 1123 has them ('_' -> '-'): the cluster roles refuse any other name in their group, once.
    hosts = {name.replace("_", "-"): name for name in cases}
    inventory = {
        group: {"hosts": {host: {"ansible_connection": "local", **cases[name]} for host, name in hosts.items()}}
    }
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
    run = run_playbook(tmp_path / "play.yml", tmp_path / "inventory.yml", tmp_path, envvars={"ANSIBLE_FORKS": "8"})
    assert not unreachable(run.events), f"validate contacted a host: {unreachable(run.events)}"
    result = dict.fromkeys(cases)
    for host, _task, msg in failed(run.events):
        if result[hosts[host]] is None:
            result[hosts[host]] = msg
    return result


def validate_tests(role: str, cases: dict):
    """The module fixture `results` (every case judged in one run) and the test `test_validate`,
    one per case: cases maps a case name to (variables, None if they must pass, else a text the
    failure message must contain, such as the variable's name)."""

    TABLES[role] = cases

    @pytest.fixture(scope="module")
    def results(tmp_path_factory):
        return cached_results(role, tmp_path_factory)

    @pytest.mark.parametrize("case", sorted(cases))
    def test_validate(results, case):
        expected = cases[case][1]
        if expected is None:
            assert results[case] is None, f"{case} should pass, failed with: {results[case]}"
        else:
            assert results[case] is not None, f"{case} should fail on {expected}"
            assert expected in results[case], f"{case}: message does not name {expected}: {results[case]}"

    return results, test_validate
