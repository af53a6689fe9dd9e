"""bert_prep's corpus check (tasks/check.yml) in check mode, run by Ansible on this machine (a local connection):
on a node python_env has not converged yet, the venv's python or its runtime wheel is not there, and the check says
it waits for the real run instead of failing the whole `--check`; where the runtime is there, the check runs in
check mode too and refuses a bad corpus, naming the variable."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

from tests.lab_runner import failed, ok_results, run_playbook

ROOT = Path(__file__).resolve().parents[4]


def _play(tmp_path, python, python_path):
    play = [
        {
            "name": "bert_prep's corpus check",
            "hosts": "node1",
            "gather_facts": False,
            "vars": {
                "bert_prep_group": "all",
                "bert_prep_python": python,
                "bert_prep_python_path": python_path,
                "bert_prep_corpus": str(tmp_path / "no-corpus"),
                "bert_prep_vocab": str(tmp_path / "no-vocab.txt"),
                "bert_prep_data_dir": str(tmp_path / "data"),
            },
            "tasks": [{"ansible.builtin.include_role": {"name": "scc.training.bert_prep", "tasks_from": "check.yml"}}],
        }
    ]
    playbook = tmp_path / "play.yml"
    playbook.write_text(yaml.safe_dump(play, sort_keys=False))
    inventory = tmp_path / "node1.yml"
    inventory.write_text(
        "all:\n  hosts:\n    node1:\n      ansible_connection: local\n"
        "      ansible_python_interpreter: %s\n" % sys.executable
    )
    return playbook, inventory


@pytest.mark.parametrize(
    "python,python_path,expected_rc",
    [
        ("/nonexistent/venv/bin/python", [], 2),  # no venv yet: the command module's "No such file" rc
        (sys.executable, ["/nonexistent/site"], 1),  # a python, but no runtime wheel in it
    ],
    ids=["no-venv", "no-runtime"],
)
def test_in_check_mode_without_the_runtime_the_check_waits_for_the_real_run(tmp_path, python, python_path, expected_rc):
    playbook, inventory = _play(tmp_path, python, python_path)
    run = run_playbook(playbook, inventory, tmp_path, check=True)
    assert run.status == "successful", failed(run.events)
    # The probe itself ran (a module that cannot run would look the same as no runtime): its rc is the command's.
    (probe,) = ok_results(run.events, "Check mode, find the runtime's bert_prep in the venv on node1").values()
    assert probe["rc"] == expected_rc and "cmd" in probe, probe
    said = ok_results(run.events, "Say that the corpus is checked on the real run (check mode, no runtime yet)")
    assert said["node1"]["msg"].startswith("bert_prep: check mode, and %s on node1 cannot run" % python), said
    skipped = [e["event_data"]["task"] for e in run.events if e["event"] == "runner_on_skipped"]
    assert skipped == [
        "Check the corpus and vocabulary on node1",
        "Refuse a corpus or vocabulary with problems",
        "Keep the corpus's file count",
    ]


def test_with_the_runtime_the_check_runs_in_check_mode_and_refuses_a_missing_corpus(tmp_path):
    # The runtime from this checkout on the python that runs Ansible here, as on a converged node.
    playbook, inventory = _play(tmp_path, sys.executable, [str(ROOT / "runtime")])
    run = run_playbook(playbook, inventory, tmp_path, check=True)
    (only,) = failed(run.events)
    assert run.status == "failed" and only[1] == "Refuse a corpus or vocabulary with problems", only
    assert "bert_prep_corpus: " in only[2] and "no-corpus does not exist" in only[2], only
