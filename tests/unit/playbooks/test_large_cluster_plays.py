"""The plays keep large clusters safe and flat (issue 13 item 6, issue 14 item 6), read from the YAML:
only the steps that reboot a host (NIC firmware burns, NVIDIA driver installs) run in `serial`
batches, a canary host first, a health check ending each batch, no failure tolerated by default;
repository-heavy roles are throttled; forks allow hundreds of hosts; validation skips its per-host
play once it has run. Milliseconds: nothing is run."""

from __future__ import annotations

import ast
import configparser
from pathlib import Path

import jinja2
import yaml

ROOT = Path(__file__).resolve().parents[3]
PLAYBOOKS = ROOT / "playbooks"
BATCHED = ["scc.training.nic_firmware", "scc.training.nvidia_driver"]
THROTTLED = ["scc.training.nvidia_driver", "scc.training.cuda", "scc.training.cudnn", "scc.training.nccl"]
THROTTLED += ["scc.training.rdma_stack", "scc.training.openmpi"]


def plays(name: str) -> list[dict]:
    return [play for play in yaml.safe_load((PLAYBOOKS / name).read_text()) if "hosts" in play]


def roles(play: dict) -> list[str]:
    return [entry["role"] for entry in play.get("roles", [])]


def default_of(expression: str, **variables):
    """What a play keyword's template gives with the variables a user may set (jinja's default filter)."""
    return ast.literal_eval(jinja2.Environment().from_string(expression).render(**variables))


def roles_that_reboot() -> set[str]:
    return {
        f"scc.training.{tasks.parent.parent.name}"
        for tasks in ROOT.glob("roles/*/tasks/*.yml")
        if "ansible.builtin.reboot:" in tasks.read_text()
    }


def test_only_the_rebooting_roles_run_in_batches():
    (batched,) = [play for play in plays("prepare.yml") if "serial" in play]
    assert roles(batched) == BATCHED
    assert roles_that_reboot() == set(BATCHED)
    others = [role for play in plays("prepare.yml") if "serial" not in play for role in roles(play)]
    assert not set(others) & set(BATCHED)


def test_batches_start_with_a_canary_and_tolerate_no_failure_by_default():
    (batched,) = [play for play in plays("prepare.yml") if "serial" in play]
    assert default_of(batched["serial"]) == [1, "25%"]
    assert default_of(batched["serial"], scc_reboot_serial=[2, 10]) == [2, 10]
    assert default_of(batched["max_fail_percentage"]) == 0
    assert default_of(batched["max_fail_percentage"], scc_reboot_max_fail_percentage=5) == 5
    # The health check ends every batch (post_tasks run per batch), and --tags of either role keeps it.
    (check,) = batched["post_tasks"]
    assert "ansible.builtin.wait_for_connection" in check
    assert set(check["tags"]) >= {"nic_firmware", "nvidia_driver"}


def test_no_other_play_is_batched():
    for playbook in PLAYBOOKS.glob("*.yml"):
        for play in plays(playbook.name):
            if play.get("serial") is not None:
                assert playbook.name == "prepare.yml" and roles(play) == BATCHED, (playbook.name, play["name"])


def test_repository_roles_are_throttled():
    throttle = {
        entry["role"]: entry.get("throttle") for play in plays("prepare.yml") for entry in play.get("roles", [])
    }
    for role in THROTTLED:
        assert default_of(throttle[role]) == 32, role
        assert default_of(throttle[role], scc_repo_throttle=8) == 8, role


def test_cpfs_comes_first_on_every_node_at_once():
    first = plays("prepare.yml")[0]
    assert roles(first) == ["scc.training.cpfs_mount"] and "serial" not in first


def test_forks_allow_hundreds_of_hosts():
    config = configparser.ConfigParser()
    config.read(ROOT / "ansible.cfg")
    assert config.getint("defaults", "forks") >= 100


def test_validation_has_no_host_once_it_ran():
    per_host, hardware = [play for play in plays("validate.yml") if play["hosts"] != "localhost"]
    # The hardware fact's play (issue 35): every node of the group (run_once gives each the fact), none once validated.
    facts = jinja2.Environment().from_string(hardware["hosts"])
    assert facts.render(hostvars={"localhost": {}}).strip() == "scc_cluster"
    assert facts.render(hostvars={"localhost": {"__scc_inputs_valid": True}}).strip() == "[]"
    assert [task.get("run_once") for task in hardware["tasks"]] == [True]
    hosts = jinja2.Environment().from_string(per_host["hosts"])
    # Before: the first node of each distinct view of the variables (the cluster_variables lookup's judge).
    views = {"__scc_cluster_variables": {"judge": ["node1", "node7"]}}
    assert hosts.render(hostvars={"localhost": views}) == "['node1', 'node7']"
    # Without the lookup's answer (--syntax-check, --skip-tags always): every node of the group.
    assert hosts.render(hostvars={"localhost": {}}) == "scc_cluster"
    assert hosts.render(hostvars={"localhost": {}}, scc_cluster_group="gpus") == "gpus"
    assert hosts.render(hostvars={"localhost": {"__scc_inputs_valid": True}}) == "[]"
