"""playbooks/validate.yml refuses inventory names that are not RFC 1123 host names, on the controller,
before any host is contacted (nothing listens at the inventory's address: contacting it would fail as
unreachable). The names go into /etc/hosts, known_hosts, mpihosts and ssh's command line."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from ansible.release import __version__ as ansible_version

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


# Issue 36: one run, every way the inventory could name one machine twice, and names whose hostvars the fact cache
# cannot read (254 characters: not a host name; 253: the jsonfile cache's "s1_" + name is past 255). Each is
# refused by name on the controller, no Python error.
# The 253-character name is refused on ansible-core 2.19 and later only: there the jsonfile cache fails to read its
# entry ("File name too long") and so do the host's variables. ansible-core 2.16 to 2.18's cache warns instead and
# reads the entry as missing (ansible/plugins/cache/__init__.py, BaseFileCacheModule.get: OSError -> KeyError), so the
# variables read, runs go on without that host's cached facts, and validate.yml has nothing to refuse.
NAME_254 = ".".join(["a" * 63] * 3 + ["b" * 62])
NAME_253 = NAME_254[:-1]
IDENTITY_CASES = {
    "node1": {"ansible_host": "127.0.13.61"},
    "NODE1": {"ansible_host": "127.0.13.62"},
    "node2": {"ansible_host": "fd00::2"},
    "node3": {"ansible_host": "FD00:0::0002"},
    "node4": {"ansible_host": "node5"},
    "node5": {"ansible_host": "127.0.13.65"},
    NAME_254: {"ansible_host": "127.0.13.66"},
    NAME_253: {"ansible_host": "127.0.13.67"},
}
IDENTITY_REFUSALS = [
    "node1's inventory name 'node1'",
    "NODE1's inventory name 'NODE1'",
    "node2 and node3 are one machine",
    "node3's ansible_host 'FD00:0::0002'",
    "node4 and node5 are one machine",
    f"'{NAME_254}' is not an RFC 1123 host name",
]
UNREADABLE_253 = f"'{NAME_253}': its variables cannot be read"
CACHE_READ_FAILS = tuple(int(part) for part in ansible_version.split(".")[:2]) >= (2, 19)


def test_validate_playbook_refuses_one_machine_under_two_names_and_unreadable_names(tmp_path):
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(yaml.safe_dump({"scc_cluster": {"hosts": IDENTITY_CASES}}))
    status, _rc, events = run_playbook(ROOT / "playbooks" / "validate.yml", inventory, tmp_path)
    assert status == "failed" and not unreachable(events)
    ((host, _task, lines),) = failed(events)
    message = " ".join(" ".join(lines).split())
    assert host == "localhost" and "Traceback" not in message
    for refusal in IDENTITY_REFUSALS:
        assert refusal in message, message
    if CACHE_READ_FAILS:
        assert UNREADABLE_253 in message, message
    else:
        assert f"'{NAME_253}'" not in message, message


# Issue 36: the cluster-wide types, refused by validate.yml before any role's vars read them (a number for the
# instance type crashed them with a Python error; "maybe" for jumbo frames was true here and false there).
def test_validate_playbook_refuses_an_instance_type_or_jumbo_frames_of_the_wrong_type(tmp_path):
    inventory = tmp_path / "hosts.yml"
    hosts = {"node1": {"ansible_host": "127.0.13.61"}}
    group_vars = {"scc_instance_type": 8, "scc_jumbo_frames": "maybe"}
    inventory.write_text(yaml.safe_dump({"scc_cluster": {"hosts": hosts, "vars": group_vars}}))
    status, _rc, events = run_playbook(ROOT / "playbooks" / "validate.yml", inventory, tmp_path)
    assert status == "failed" and not unreachable(events)
    ((_host, task, lines),) = failed(events)
    message = lines if isinstance(lines, str) else " ".join(lines)
    assert task == "Check the types of scc_instance_type and scc_jumbo_frames", (task, message)
    assert "scc_instance_type (8) must be a string" in message and "Traceback" not in message
    assert "scc_jumbo_frames ('maybe') must be true or false." in message


# Issue 27: the checks cannot be skipped. Each role that consumes the names judges them itself, once per run,
# under any --tags (here the role's configure step alone, which skipped them before) or --limit; cluster.yml's
# own check (validate.yml, tagged always) refuses them under --tags too. Nothing listens at the address: a
# contacted host would come back unreachable.
ROLE_PLAY = """
- name: One role, one of its steps
  hosts: scc_cluster
  gather_facts: false
  tasks:
    - name: The role
      ansible.builtin.import_role:
        name: scc.training.{role}
"""
ENV = {
    **os.environ,
    "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
    "ANSIBLE_COLLECTIONS_PATH": str(ROOT / ".collections"),
    "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
}


def refused(tmp_path, hosts, playbook, *args):
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(yaml.safe_dump({"scc_cluster": {"hosts": hosts}}))
    # Results as JSON, one string a message: the YAML result format wraps long strings, and where it wraps (and how
    # it quotes) differs between ansible-core versions (the ansible-core matrix, docs/ansible-core.md).
    env = dict(ENV, ANSIBLE_CACHE_PLUGIN_CONNECTION=str(tmp_path / "facts"), ANSIBLE_CALLBACK_RESULT_FORMAT="json")
    argv = [str(Path(sys.executable).parent / "ansible-playbook"), "-i", str(inventory), str(playbook), *args]
    proc = subprocess.run(argv, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 2 and "UNREACHABLE" not in proc.stdout, proc.stdout[-3000:]
    return proc.stdout


@pytest.mark.parametrize(("role", "name"), [("hosts_file", "-v"), ("ssh_trust", "-v"), ("mpi_hostfile", "-oX=y")])
def test_a_role_refuses_bad_names_under_the_tag_of_one_step(tmp_path, role, name):
    playbook = tmp_path / "play.yml"
    playbook.write_text(ROLE_PLAY.format(role=role))
    hosts = {"node1": {"ansible_host": "127.0.13.61"}, name: {"ansible_host": "127.0.13.62"}}
    out = refused(tmp_path, hosts, playbook, "--tags", f"{role}_configure", "--limit", "node1")
    assert f"'{name}' is not an RFC 1123 host name" in out


@pytest.mark.parametrize("role", ["hosts_file", "ssh_trust", "mpi_hostfile"])
def test_a_role_refuses_two_nodes_at_one_address_naming_both(tmp_path, role):
    playbook = tmp_path / "play.yml"
    playbook.write_text(ROLE_PLAY.format(role=role))
    hosts = {f"node{i}": {"ansible_host": address} for i, address in enumerate(["127.0.13.61", "127.0.13.62"] * 2)}
    out = refused(tmp_path, hosts, playbook, "--tags", f"{role}_configure")
    assert "node0 and node2 share ansible_host 127.0.13.61" in out and "node1 and node3 share" in out


def test_cluster_yml_under_a_roles_tag_still_refuses_bad_names(tmp_path):
    hosts = {"node1": {"ansible_host": "127.0.13.61"}, "-oProxyCommand=x": {"ansible_host": "127.0.13.62"}}
    out = refused(tmp_path, hosts, ROOT / "playbooks" / "cluster.yml", "--tags", "mpi_hostfile")
    assert "'-oProxyCommand=x' is not an RFC 1123 host name" in out
