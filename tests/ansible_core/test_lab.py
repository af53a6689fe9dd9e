"""The ansible-core matrix's lab part (docs/ansible-core.md), run by the matrix venv of one ansible-core version
(tests/ansible_core/run.sh): playbooks/validate.yml in check mode on a 2-host lab (every role's argument spec and
validate tasks), then one role converged there, hosts_file (molecule/hosts_file's converge and verify): it
changes every node, a second run changes nothing, a --check run changes nothing, and verify reads /etc/hosts back.

Each version's lab has its own addresses (SCC_CORE_LAB_ADDRESS, set by run.sh), so the versions never share one.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from ansible.release import __version__ as ansible_version

from tests.lab_runner import changed, failed, lab_fixture, run_playbook, unreachable

ROOT = Path(__file__).resolve().parents[2]
FIRST_ADDRESS = os.environ.get("SCC_CORE_LAB_ADDRESS", "127.0.27.11")

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the lab needs root")

lab = lab_fixture(2, FIRST_ADDRESS, name="core-lab")


def test_the_venv_runs_the_version_under_test():
    expected = os.environ.get("SCC_CORE_VERSION")
    if expected is None:
        pytest.skip("not run by tests/ansible_core/run.sh")
    assert ansible_version.startswith(expected + "."), ansible_version


def _run(lab, tmp_path, playbook, check=False):
    run = run_playbook(playbook, lab.inventory, tmp_path, check=check)
    assert not unreachable(run.events), unreachable(run.events)
    assert run.status == "successful", failed(run.events)
    return run


def test_validate_in_check_mode(lab, tmp_path):
    run = _run(lab, tmp_path, ROOT / "playbooks" / "validate.yml", check=True)
    assert changed(run.events) == []
    # Every role's validate entry point ran (its argument spec first), not a play that matched no host.
    roles = {
        e["event_data"].get("role")
        for e in run.events
        if e["event"] == "runner_on_ok"
        and e["event_data"].get("task_action") == "ansible.builtin.validate_argument_spec"
    }
    assert {"gpu_health", "hosts_file", "bert_launch", "nccl_check", "python_env"} <= roles, roles


def test_hosts_file_converges_idempotent_and_verified(lab, tmp_path):
    converge = ROOT / "molecule" / "hosts_file" / "converge.yml"
    first = _run(lab, tmp_path, converge)
    assert {host for host, _task in changed(first.events)} == {"node1", "node2"}
    assert changed(_run(lab, tmp_path, converge).events) == []
    assert changed(_run(lab, tmp_path, converge, check=True).events) == []
    _run(lab, tmp_path, ROOT / "molecule" / "hosts_file" / "verify.yml")
