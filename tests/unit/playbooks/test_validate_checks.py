"""validate.yml, issue 36: typos warned about (point 4), and no tag combination skips a check (point 3).

Point 4: a misspelt variable, or group_vars of a group the inventory lacks, draw a warning from validate.yml
naming the variable, its nodes and the declared name meant; a run whose names are all declared prints none.
Point 3: the launcher check runs under any --tags, and only a run whose role checks ran is recorded as validated
(a later stage's import of validate.yml would otherwise skip them).
validate.yml runs on an inventory whose nodes are never contacted (nothing listens at their address).
"""

from __future__ import annotations

import pytest
import yaml

from tests.unit.playbooks.ansible_playbook import LAB_LIKE, ROOT, ansible_playbook


def validate(tmp_path, hosts, group_vars=None, *args, rc=0):
    inventory = tmp_path / "inventory"
    (inventory / "group_vars").mkdir(parents=True)
    (inventory / "hosts.yml").write_text(yaml.safe_dump({"scc_cluster": {"hosts": hosts, "vars": LAB_LIKE}}))
    for group, values in (group_vars or {}).items():
        (inventory / "group_vars" / f"{group}.yml").write_text(yaml.safe_dump(values))
    out = ansible_playbook(tmp_path, inventory / "hosts.yml", ROOT / "playbooks" / "validate.yml", *args, rc=rc)
    return " ".join(out.split())


def test_typos_and_skipped_group_vars_are_named_and_nothing_is_refused(tmp_path):
    hosts = {
        "node1": {"ansible_host": "127.0.13.71", "bert_launch_batchsize": 64},
        "node2": {"ansible_host": "127.0.13.72", "scc_instance_typ": "ecs.ebmgn8v.48xlarge"},
    }
    out = validate(tmp_path, hosts, {"gpu_nodes": {"bert_launch_steps": 5}}, "-e", "nccl_check_min_bus_bw=1")
    assert (
        "bert_launch_batchsize (set for node1) is not a variable of scc.training; did you mean bert_launch_batch_size?"
        in out
    )
    assert "scc_instance_typ (set for node2) is not a variable of scc.training; did you mean scc_instance_type?" in out
    # An extra var is every host's (localhost's included).
    assert "nccl_check_min_bus_bw (set for localhost, node1, node2) is not a variable of scc.training" in out
    assert "group_vars/gpu_nodes.yml holds variables of group gpu_nodes, which the inventory does not have" in out


def test_a_run_with_declared_names_only_warns_of_nothing(tmp_path):
    hosts = {"node1": {"ansible_host": "127.0.13.71", "bert_launch_batch_size": 64}}
    out = validate(tmp_path, hosts, {"scc_cluster": {"bert_launch_steps": 50}, "all": {"scc_transport": "tcp"}})
    assert "is not a variable of scc.training" not in out and "which the inventory does not have" not in out
    assert "[WARNING]" not in out and "[DEPRECATION WARNING]" not in out, out[-2000:]


# validate.yml, then what it recorded: the one line a later stage's import reads.
PLAYBOOK = f"""
- name: Validate
  ansible.builtin.import_playbook: {ROOT / "playbooks" / "validate.yml"}
- name: Report
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Report what validate.yml recorded
      ansible.builtin.debug:
        msg: "recorded={{{{ __scc_inputs_valid | default(false) }}}}"
      tags: [always]
"""


def run(tmp_path, variables, *args, rc=0):
    inventory = tmp_path / "hosts.yml"
    hosts = {"node1": {"ansible_host": "127.0.13.91"}}
    inventory.write_text(yaml.safe_dump({"scc_cluster": {"hosts": hosts, "vars": {**LAB_LIKE, **variables}}}))
    playbook = tmp_path / "play.yml"
    playbook.write_text(PLAYBOOK)
    return " ".join(ansible_playbook(tmp_path, inventory, playbook, *args, rc=rc).split())


@pytest.mark.parametrize("tags", [["--tags", "bert_launch"], ["--tags", "cuda,ssh_trust"]])
def test_an_unknown_launcher_is_refused_under_any_tags(tmp_path, tags):
    out = run(tmp_path, {"scc_launcher": "slurm"}, *tags, rc=2)
    assert "scc_launcher" in out and "slurm" in out and "recorded=" not in out


def test_only_a_run_whose_role_checks_ran_is_recorded_as_validated(tmp_path):
    out = run(tmp_path, {}, "--tags", "cuda")
    assert "recorded=False" in out, out[-3000:]
    assert "Validating arguments against arg spec" not in out
    out = run(tmp_path, {})
    assert "recorded=True" in out, out[-3000:]
    assert "Validating arguments against arg spec 'validate'" in out


# Point 1: every node's own values are judged, once per distinct view.
def test_a_host_vars_value_on_another_node_is_judged_and_refused_naming_it(tmp_path):
    hosts = {
        "node1": {"ansible_host": "127.0.13.71"},
        "node2": {"ansible_host": "127.0.13.72"},
        "node3": {"ansible_host": "127.0.13.73", "bert_launch_batch_size": 0},
    }
    out = validate(tmp_path, hosts, rc=2)
    assert "fatal: [node3]" in out and "bert_launch_batch_size" in out, out[-3000:]
    assert "fatal: [node1]" not in out and "fatal: [node2]" not in out
    # node1 and node2 agree: node1 alone judged their view.
    assert "ok: [node2]" not in out and "ok: [node1]" in out


def test_a_cluster_of_two_instance_types_is_refused_naming_the_nodes(tmp_path):
    hosts = {
        "node1": {"ansible_host": "127.0.13.71", "ecs_instance_type": "ecs.ebmgn8v.48xlarge"},
        "node2": {"ansible_host": "127.0.13.72", "ecs_instance_type": "ecs.ebmgn8is.32xlarge"},
    }
    out = validate(tmp_path, hosts, rc=2)
    assert (
        "scc_instance_type: the cluster mixes instance types: ecs.ebmgn8is.32xlarge (node2); "
        "ecs.ebmgn8v.48xlarge (node1)" in out
    ), out[-3000:]
