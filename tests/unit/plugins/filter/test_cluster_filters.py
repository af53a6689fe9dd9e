# -*- coding: utf-8 -*-
"""plugins/filter/cluster.py: thin wrappers that reject bad input naming the filter."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.filter import cluster
from ansible_collections.scc.training.plugins.module_utils import cluster as cluster_rules
from ansible_collections.scc.training.plugins.plugin_utils import role_plans

HOSTVARS = {
    "node1": {
        "ansible_host": "127.0.23.11",
        "ansible_facts": {"nodename": "node1", "lo": {"ipv4": {"address": "127.0.0.1"}}},
    },
    "node2": {"ansible_host": "127.0.23.12"},
}


def test_registered_names():
    assert cluster.FilterModule().filters() == {
        "cluster_addresses": cluster.cluster_addresses,
        "cluster_inventory_problems": cluster.cluster_inventory_problems,
    }
    for name in (
        "cluster_hosts_block",
        "cluster_stale_hosts_regex",
        "cluster_known_hosts",
        "cluster_authorized_key",
        "cluster_node_problems",
        "mpi_hostfile_check_problems",
        "mpi_hostfile_slots",
        "cluster_resolution_problems",
        "cluster_ring_peers",
        "cluster_mesh_problems",
    ):
        assert role_plans.plan(name) is getattr(role_plans, name)
    assert "mpi_hostfile_slots" in role_plans.READS_HOSTVARS


def test_the_filters_chain_into_the_files():
    nodes = cluster.cluster_addresses(["node1", "node2"], HOSTVARS)
    assert [n["address"] for n in nodes] == ["127.0.23.11", "127.0.23.12"]
    assert cluster.cluster_addresses(["node1"], HOSTVARS, " lo ")[0]["address"] == "127.0.0.1"
    assert role_plans.cluster_hosts_block(nodes) == "127.0.23.11 node1\n127.0.23.12 node2"
    assert role_plans.cluster_stale_hosts_regex(nodes).startswith(r"^\s*(?:(?!127\.0\.23\.11\s)")
    keys = {"node1": "ssh-ed25519 K1 root@node1", "node2": ["ssh-ed25519 K2"]}
    assert (
        role_plans.cluster_known_hosts(nodes, keys)
        == "node1,127.0.23.11 ssh-ed25519 K1\nnode2,127.0.23.12 ssh-ed25519 K2"
    )
    assert role_plans.cluster_authorized_key("ssh-ed25519 K", (n["address"] for n in nodes), ["no-pty"]) == (
        'from="127.0.23.11,127.0.23.12",no-pty ssh-ed25519 K'
    )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: cluster.cluster_addresses("node1", HOSTVARS),
            r"^cluster_addresses: the input \(inventory host names\) must be a list",
        ),
        (lambda: cluster.cluster_addresses(["node1"], []), r"^cluster_addresses: hostvars must be a mapping"),
        (lambda: cluster.cluster_addresses(["node1"], HOSTVARS, None), r"^cluster_addresses: interface must be"),
        (lambda: cluster.cluster_addresses(["node9"], HOSTVARS), r"^cluster_addresses: not in the inventory: node9"),
        (
            lambda: role_plans.cluster_hosts_block({"host": "node1"}),
            r"^cluster_hosts_block: the input \(cluster_addresses' nodes\) must be a list",
        ),
        (
            lambda: role_plans.cluster_hosts_block([{"host": "node3", "address": None, "names": ["node3"]}]),
            r"^cluster_hosts_block: no cluster address for node3",
        ),
        (
            lambda: role_plans.cluster_known_hosts([], ["ssh-ed25519 K"]),
            r"^cluster_known_hosts: host_keys \(each node's host keys\) must be a mapping",
        ),
        (
            lambda: role_plans.cluster_known_hosts([{"host": "node1", "peer_names": ["node1"]}], {}),
            r"^cluster_known_hosts: no host keys for node1",
        ),
        (lambda: role_plans.cluster_authorized_key(""), r"^cluster_authorized_key: input must be the public key"),
        (
            lambda: role_plans.cluster_authorized_key("k", "10.0.0.1"),
            r"^cluster_authorized_key: from_addresses must be a list",
        ),
    ],
)
def test_bad_input_is_refused_naming_the_filter(call, message):
    with pytest.raises(AnsibleFilterError, match=message):
        call()


@pytest.mark.parametrize(
    ("args", "slots"),
    [
        ((4, 8, 8, 96), 4),  # declared slots win
        ((None, 8, 0, 96), 8),  # then the declared GPU count
        ((None, "8", 0, 96), 8),  # as inventories give it, a string
        ((None, 0, 8, 96), 8),  # a declared 0 is no GPU count: the devices found
        ((None, None, 0, 96), 96),  # no GPU: one rank per vCPU
        ((None, None, 2, None), 2),
    ],
)
def test_mpi_slots(args, slots):
    assert cluster_rules.mpi_slots(*args) == slots


def test_mpi_slots_refuses_a_node_without_any_count():
    with pytest.raises(ValueError, match=r"^no slot count"):
        cluster_rules.mpi_slots(None, 0, 0, 0)
    with pytest.raises(ValueError, match="invalid literal"):
        cluster_rules.mpi_slots("eight")


def test_the_verify_filters_judge_the_reports():
    nodes = cluster.cluster_addresses(["node1", "node2"], HOSTVARS)
    report = "node1\t0\t127.0.23.11 node1\nnode2\t2\t\n"
    assert role_plans.cluster_resolution_problems(report, nodes) == [
        "'getent hosts node2' returned 'nothing' (rc 2), expected address 127.0.23.12"
    ]
    assert role_plans.cluster_ring_peers(["node1", "node2", "node3"], "node2") == ["node3", "node1"]
    assert role_plans.cluster_ring_peers(["node1", "node2", "node3"], "node2", "ring") == ["node3"]
    assert role_plans.cluster_ring_peers(["node1", "node2", "node3"], "node1", "ring") == ["node2", "node3"]
    assert role_plans.cluster_mesh_problems("node2\t0\tnode2\t\n", ["node2"], {"node2": "node2"}) == []


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: role_plans.cluster_resolution_problems(None, []), "cluster_resolution_problems: input must be"),
        (lambda: role_plans.cluster_resolution_problems("", "node1"), "cluster_resolution_problems: nodes"),
        (lambda: role_plans.cluster_ring_peers("node1", "node1"), "cluster_ring_peers: the input"),
        (
            lambda: role_plans.cluster_ring_peers(["node1"], "node1", "star"),
            "cluster_ring_peers: scope must be one of ring, mesh",
        ),
        (lambda: role_plans.cluster_mesh_problems("", ["n"], ["n"]), "cluster_mesh_problems: nodenames"),
    ],
)
def test_the_verify_filters_reject_bad_input(call, message):
    with pytest.raises(AnsibleFilterError, match=message):
        call()


def test_the_cluster_wide_filters_name_what_is_wrong():
    hostvars = {"node1": {"ansible_host": "10.0.0.1"}, "node2": {"ansible_host": "10.0.0.1"}}
    assert cluster.cluster_inventory_problems(["node1", "node2"], hostvars)[0].startswith("node1 and node2 share")
    with pytest.raises(AnsibleFilterError, match="cluster_inventory_problems: not in the inventory: node9"):
        cluster.cluster_inventory_problems(["node9"], hostvars)
    with pytest.raises(AnsibleFilterError, match=r"^mpi_hostfile_slots: no slot count for node1, node2"):
        role_plans.mpi_hostfile_slots(["node1", "node2"], hostvars)
    nodes = cluster.cluster_addresses(["node1", "node2"], hostvars)
    assert role_plans.cluster_node_problems(nodes, "ansible_host", True)[0].startswith(
        "no gathered facts for node1, node2"
    )
    with pytest.raises(AnsibleFilterError, match="mpi_hostfile_check_problems: input must be"):
        role_plans.mpi_hostfile_check_problems(None, "", "/x")


@pytest.mark.parametrize("size", [True, "four", -1, 2.5])
def test_scc_cluster_size_must_be_a_count(size):
    with pytest.raises(AnsibleFilterError, match="scc_cluster_size must be an integer"):
        cluster.cluster_inventory_problems(["node1"], {"node1": {}}, size)
