"""cluster.py's smaller rules, each on its edge: ssh_trust's inputs, addresses or names, the verify reports' rows,
the slots of the MPI hostfile and its check (make mutation's survivors of the cluster target, issue 36.8)."""

from __future__ import annotations

import hashlib

import pytest

from ansible_collections.scc.training.plugins.module_utils import cluster

SSH_TRUST = {
    "ssh_trust_group": "scc_cluster",
    "group_hosts": ["node1", "node2"],
    "ssh_trust_cluster_name": "scc_cluster",
    "ssh_trust_key_name": "id_ed25519_scc_training",
    "ssh_trust_key_dir": "/root/.ssh/scc-training/scc_cluster",
    "ssh_trust_interface": "",
    "ssh_trust_authorized_key_options": ["no-agent-forwarding", "no-X11-forwarding"],
    "ssh_trust_known_hosts_file": "/etc/ssh/ssh_known_hosts",
    "ssh_trust_ssh_config_file": "/etc/ssh/ssh_config.d/50-scc-training.conf",
    "ssh_trust_verify_timeout": 10,
}


@pytest.mark.parametrize(
    "change",
    [
        {},
        {"ssh_trust_interface": "eth1"},
        {"ssh_trust_authorized_key_options": ["No-Pty", "restrict"]},
        {"ssh_trust_verify_timeout": 1},
    ],
)
def test_ssh_trust_accepts_good_inputs(change):
    assert cluster.ssh_trust_input_problems(dict(SSH_TRUST, **change)) == []


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"ssh_trust_interface": "eth 1"}, "ssh_trust_interface"),
        ({"ssh_trust_authorized_key_options": "no-pty"}, "options without spaces"),
        ({"ssh_trust_authorized_key_options": ["no pty"]}, "options without spaces"),
        ({"ssh_trust_authorized_key_options": ['from="10.0.0.1"']}, "set ssh_trust_restrict_from instead"),
        ({"ssh_trust_authorized_key_options": ["no-such-flag"]}, "options sshd knows"),
        ({"ssh_trust_verify_timeout": 0}, "ssh_trust_verify_timeout"),
    ],
)
def test_ssh_trust_refuses_each_bad_input_once(change, words):
    problems = cluster.ssh_trust_input_problems(dict(SSH_TRUST, **change))
    assert len(problems) == 1 and words in problems[0], problems


def test_ssh_trust_names_the_group_and_the_rules_together():
    problems = cluster.ssh_trust_input_problems(dict(SSH_TRUST, group_hosts=[], ssh_trust_verify_timeout=0))
    assert len(problems) == 2 and "ssh_trust_group" in problems[0] and "ssh_trust_verify_timeout" in problems[1]


@pytest.mark.parametrize("value", [None, "", "node1", "10.0.0.1", "fe80::1", "fe80::1%eth0", "gpu1.example.com"])
def test_an_address_or_a_name_passes(value):
    assert cluster.address_or_name_problems("v", value) == []


@pytest.mark.parametrize("value", ["-x", "a b", "node_1", "fe80::1%eth0 x", "10.0.0.1%eth0", "fe80::1%"])
def test_anything_else_is_refused_naming_the_variable(value):
    (problem,) = cluster.address_or_name_problems("scc_master_addr", value)
    assert problem.startswith("scc_master_addr must be empty, an IP address") and repr(value) in problem


def test_ip_literals_and_names():
    assert cluster.is_address_or_name("fe80::1%eth0") and cluster.is_address_or_name("fe80::1")
    assert not cluster.is_address_or_name("-x") and not cluster.is_address_or_name("")
    assert cluster._ip_literal(5) is None and cluster._ip_literal("") is None


def test_an_inventory_larger_than_the_cluster_size_is_partial_too():
    hostvars = {h: {} for h in ("node1", "node2", "node3")}
    (problem,) = cluster.inventory_problems(list(hostvars), hostvars, expected_size=2)
    assert "3 node(s)" in problem and "scc_cluster_size says 2" in problem


def test_a_dotless_name_beside_an_address_that_begins_like_it_is_two_machines():
    hostvars = {"10": {}, "b": {"ansible_host": "10.0.0.1"}}
    assert cluster.inventory_problems(list(hostvars), hostvars) == []


def test_node_problems_need_host_keys_only_when_asked():
    nodes = [{"host": "n1", "address": "10.0.0.1", "facts": True, "host_keys": []}]
    assert cluster.node_problems(nodes, "IPv4 of eth1") == []


@pytest.mark.parametrize(
    ("rc", "line", "bad"),
    [
        ("0", "10.0.0.1\tnode1 node1.example", False),  # a tab inside getent's own line
        ("2", "10.0.0.1 node1", True),
        ("", "10.0.0.1 node1", True),
        ("0", "10.0.0.9 node1", True),
    ],
)
def test_resolution_problems_read_each_row(rc, line, bad):
    nodes = [{"host": "node1", "names": ["node1"], "address": "10.0.0.1"}]
    assert bool(cluster.resolution_problems(nodes, "node1\t%s\t%s\n" % (rc, line))) is bad


@pytest.mark.parametrize(
    ("rc", "stdout", "bad"),
    [("0", "node2", False), ("2", "node2", True), ("", "node2", True), ("0", "node9", True), ("0", "node1", True)],
)
def test_mesh_problems_read_each_row(rc, stdout, bad):
    assert bool(cluster.mesh_problems("node2\t%s\t%s\tstderr\twith\ttabs\n" % (rc, stdout), ["node2"])) is bad


def test_ring_peers_of_a_node_that_is_not_first():
    hosts = ["a", "b", "c"]
    assert cluster.verify_peers(hosts, "b", "ring") == ["c"]
    assert cluster.verify_peers(hosts, "a", "ring") == ["b", "c"]
    assert cluster.verify_peers(hosts, "b", "mesh") == ["c", "a"]


@pytest.mark.parametrize(
    ("args", "slots"),
    [
        ({"slots": 1}, 1),
        ({"gpu_count": 8}, 8),
        ({"gpu_count": 0, "vcpus": 4}, 4),
        ({"gpu_count": -1, "vcpus": 4}, 4),
        ({"gpu_count": "  ", "vcpus": 4}, 4),
        ({"vcpus": 2}, 2),
    ],
)
def test_mpi_slots_take_the_first_positive_count(args, slots):
    assert cluster.mpi_slots(**args) == slots


def test_hostfile_slots_edges():
    facts = {"ansible_facts": {"processor_vcpus": 4}}
    hostvars = {
        "a": dict(facts, mpi_hostfile_slots=1),
        "b": dict(facts, scc_gpu_count=0, mpi_hostfile_gpu_devices=0),
        "c": dict(facts, mpi_hostfile_gpu_devices=None, scc_gpu_count=2),
    }
    assert cluster.hostfile_slots(list(hostvars), hostvars) == [
        {"host": "a", "slots": 1},
        {"host": "b", "slots": 4},
        {"host": "c", "slots": 2},
    ]
    with pytest.raises(ValueError, match=r"scc_gpu_count of a \(-1\) must be unset or an integer >= 0"):
        cluster.hostfile_slots(["a"], {"a": dict(facts, scc_gpu_count=-1)})


def test_hostfile_check_reads_the_digest_the_status_and_getents_lines():
    content = "node1 slots=8\n"
    digest = hashlib.sha256(content.encode()).hexdigest()
    assert cluster.hostfile_check_problems("%s  /etc/mpihosts\n0\n10.0.0.1 node1\n" % digest, content, "/f") == []
    (problem,) = cluster.hostfile_check_problems("%s  /etc/mpihosts\n" % digest, content, "/f")
    assert "getent rc none" in problem
    (problem,) = cluster.hostfile_check_problems("%s  /f\n2\nA\nB\n" % digest, content, "/f")
    assert "getent rc 2, got ['A', 'B']" in problem
    problems = cluster.hostfile_check_problems("\n0\n", content, "/f")
    assert len(problems) == 1 and "differs" in problems[0]
    problems = cluster.hostfile_check_problems("%s\n-1\n" % digest, content, "/f")
    assert len(problems) == 1 and "getent rc -1" in problems[0]


def test_ring_peers_of_a_node_whose_name_sorts_before_the_first():
    assert cluster.verify_peers(["b", "a", "c"], "a", "ring") == ["c"]
