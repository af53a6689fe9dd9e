"""tests/molecule_check.py: molecule's strict check step fails on a change, not only on an error."""

from tests.lab_runner import Run
from tests.molecule_check import problems


def ok(host, task, changed):
    return {"event": "runner_on_ok", "event_data": {"host": host, "task": task, "res": {"changed": changed}}}


def test_an_unchanged_check_run_has_no_problem():
    assert problems(Run("successful", 0, [ok("node1", "Write /etc/hosts", False)])) == []


def test_a_change_in_check_mode_is_a_problem_even_when_the_run_succeeded():
    run = Run("successful", 0, [ok("node1", "Write /etc/hosts", False), ok("node2", "Write /etc/hosts", True)])
    assert problems(run) == ["changed in check mode: node2: Write /etc/hosts"]


def test_a_failed_task_and_a_failed_run_are_problems():
    failed = {"event": "runner_on_failed", "event_data": {"host": "node1", "task": "Read x", "res": {"msg": "no x"}}}
    assert problems(Run("failed", 2, [failed])) == ["failed in check mode: node1: Read x: no x"]
    assert problems(Run("failed", 4, [])) == ["ansible-playbook --check ended with status failed, rc 4"]
