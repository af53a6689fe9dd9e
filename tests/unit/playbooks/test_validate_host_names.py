"""playbooks/validate.yml refuses inventory names that are not RFC 1123 host names, on the controller,
before any host is contacted (nothing listens at the inventory's address: contacting it would fail as
unreachable). The names go into /etc/hosts, known_hosts, mpihosts and ssh's command line."""

from pathlib import Path

import yaml

from ansible_collections.scc.training.plugins.module_utils.cluster import host_name_problems
from tests.lab_runner import failed, run_playbook, unreachable

ROOT = Path(__file__).resolve().parents[3]
GOOD = ["node1", "i-2ze0abcdefgh12345678", "gpu-01.cluster.example", "10.0.0.5", "n" * 63]
BAD = ["-oProxyCommand=touch_pwned", "gpu_node2", "node-", "a..b", "n" * 64, "node 3"]


def test_host_name_problems_names_every_bad_name():
    assert host_name_problems(GOOD) == []
    problems = host_name_problems(GOOD + BAD)
    assert len(problems) == len(BAD)
    for name, problem in zip(BAD, problems):
        assert problem.startswith(repr(name)) and "RFC 1123" in problem


def test_validate_playbook_refuses_them_before_contacting_a_host(tmp_path):
    hosts = {name: {"ansible_host": "127.0.13.61"} for name in ["node1", "-oProxyCommand=touch_pwned", "gpu_node2"]}
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(yaml.safe_dump({"scc_cluster": {"hosts": hosts}}))
    status, _rc, events = run_playbook(ROOT / "playbooks" / "validate.yml", inventory, tmp_path)
    assert status == "failed" and not unreachable(events)
    ((host, _task, lines),) = failed(events)
    message = "\n".join(lines)
    assert host == "localhost" and "scc_cluster_group: inventory names that cannot be host names" in message
    assert "'-oProxyCommand=touch_pwned' is not an RFC 1123 host name" in message
    assert "'gpu_node2' is not" in message and "'node1'" not in message
