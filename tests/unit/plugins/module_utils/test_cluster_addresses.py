# -*- coding: utf-8 -*-
"""plugins/module_utils/cluster.py: the cluster address rule and the files built on it."""

from __future__ import annotations

import pytest

from ansible_collections.scc.training.plugins.module_utils import cluster


def facts(nodename=None, hostname=None, **interfaces):
    """ansible_facts with {fact_key: ipv4 address or None} interfaces."""
    out = {k: ({"ipv4": {"address": v}} if v else {"device": k}) for k, v in interfaces.items()}
    if nodename:
        out["nodename"] = nodename
    if hostname:
        out["hostname"] = hostname
    return out


def test_default_rule_is_ansible_host_else_inventory_name():
    hostvars = {"node1": {"ansible_host": "10.0.0.1"}, "10.0.0.2": {}, "node3": {"ansible_host": ""}}
    assert [cluster.node_address(h, v) for h, v in hostvars.items()] == ["10.0.0.1", "10.0.0.2", None]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("192.168.0.11", "192.168.0.11"),
        ("fd00::11", "fd00::11"),
        ("fe80::1%eth0", "fe80::1%eth0"),
        # A DNS name, a malformed IPv4 and nothing are no IP address.
        ("gpu1.example.com", None),
        ("999.1.1.1", None),
        (None, None),
    ],
)
def test_ansible_host_must_be_an_ip_literal(value, expected):
    assert cluster.node_address("gpu1.example.com", {"ansible_host": value}) == expected


def test_interface_rule_takes_that_interfaces_ipv4_from_the_facts():
    variables = {"ansible_host": "47.1.2.3", "ansible_facts": facts(eth0="47.1.2.3", eth1="192.168.0.11")}
    assert cluster.node_address("n", variables, "eth1") == "192.168.0.11"


@pytest.mark.parametrize(
    ("interface", "fact_key"),
    [
        # setup stores '-' and ':' as '_'; a VLAN's '.' stays (older releases made it '_' too).
        ("br-cluster", "br_cluster"),
        ("eth0:1", "eth0_1"),
        ("eth0.100", "eth0.100"),
        ("bond0.100", "bond0_100"),
        ("ens1f0-rdma.7", "ens1f0_rdma.7"),
    ],
)
def test_interface_names_with_dash_dot_and_colon(interface, fact_key):
    variables = {"ansible_facts": facts(**{fact_key: "10.1.0.7"})}
    assert cluster.node_address("n", variables, interface) == "10.1.0.7"


@pytest.mark.parametrize(
    "variables",
    [
        {},  # facts not gathered
        {"ansible_facts": {}},  # no such interface
        {"ansible_facts": facts(eth1=None)},  # the interface has no IPv4
        {"ansible_facts": {"eth1": {"ipv4": {"address": "not-an-ip"}}}},
    ],
)
def test_interface_without_ipv4_gives_no_address(variables):
    assert cluster.node_address("n", variables, "eth1") is None


@pytest.mark.parametrize(
    ("host", "names"),
    [
        ("node1", ["node1"]),
        ("gpu1.cluster.example.com", ["gpu1.cluster.example.com", "gpu1"]),
        # An inventory name that is an address has no short name ("10").
        ("10.0.0.1", ["10.0.0.1"]),
        ("fd00::1", ["fd00::1"]),
    ],
)
def test_host_names_add_the_short_name_of_an_fqdn(host, names):
    assert cluster.host_names(host) == names


def test_cluster_nodes_keep_order_and_list_every_peer_name_once():
    hostvars = {
        "gpu2.example.com": {
            "ansible_host": "47.1.2.4",
            "ansible_facts": facts("gpu2.example.com", "gpu2", eth0="192.168.0.12"),
        },
        "gpu1.example.com": {
            "ansible_host": "47.1.2.3",
            "ansible_facts": facts("iZ2ze0abc", "iZ2ze0abc", eth0="192.168.0.11"),
        },
        "node3": {"ansible_host": "47.1.2.5", "ansible_facts": facts(eth0=None)},
    }
    nodes = cluster.cluster_nodes(list(hostvars), hostvars, "eth0")
    assert nodes == [
        {
            "host": "gpu2.example.com",
            "address": "192.168.0.12",
            "names": ["gpu2.example.com", "gpu2"],
            "peer_names": ["gpu2.example.com", "gpu2", "192.168.0.12"],
        },
        {
            "host": "gpu1.example.com",
            "address": "192.168.0.11",
            "names": ["gpu1.example.com", "gpu1"],
            "peer_names": ["gpu1.example.com", "gpu1", "iZ2ze0abc", "192.168.0.11"],
        },
        {"host": "node3", "address": None, "names": ["node3"], "peer_names": ["node3"]},
    ]


NODES = [
    {"host": "node1", "address": "127.0.23.11", "names": ["node1"], "peer_names": ["node1", "127.0.23.11"]},
    {
        "host": "gpu2.example.com",
        "address": "fd00::12",
        "names": ["gpu2.example.com", "gpu2"],
        "peer_names": ["gpu2.example.com", "gpu2", "fd00::12"],
    },
]


def test_hosts_block():
    assert cluster.hosts_block(NODES) == "127.0.23.11 node1\nfd00::12 gpu2.example.com gpu2"


def test_hosts_block_refuses_nodes_without_address():
    with pytest.raises(ValueError, match="no cluster address for node3"):
        cluster.hosts_block([*NODES, {"host": "node3", "address": None, "names": ["node3"]}])


def test_known_hosts_block_names_every_key_by_every_peer_name():
    keys = {
        "node1": "ssh-ed25519 AAAA1 root@node1\n\nssh-rsa BBBB1 root@node1\n",
        "gpu2.example.com": ["ecdsa-sha2-nistp256 CCCC2", "   "],
    }
    assert cluster.known_hosts_block(NODES, keys).splitlines() == [
        "node1,127.0.23.11 ssh-ed25519 AAAA1",
        "node1,127.0.23.11 ssh-rsa BBBB1",
        "gpu2.example.com,gpu2,fd00::12 ecdsa-sha2-nistp256 CCCC2",
    ]


def test_known_hosts_block_refuses_a_node_without_keys():
    with pytest.raises(ValueError, match=r"no host keys for gpu2\.example\.com"):
        cluster.known_hosts_block(NODES, {"node1": "ssh-ed25519 AAAA1"})


@pytest.mark.parametrize(
    ("addresses", "options", "line"),
    [
        (
            ["10.0.0.1", "10.0.0.2"],
            ["no-agent-forwarding", "no-X11-forwarding"],
            'from="10.0.0.1,10.0.0.2",no-agent-forwarding,no-X11-forwarding ssh-ed25519 AAAA scc@c',
        ),
        ([], ["no-X11-forwarding"], "no-X11-forwarding ssh-ed25519 AAAA scc@c"),
        (["10.0.0.1"], [], 'from="10.0.0.1" ssh-ed25519 AAAA scc@c'),
        ([], [], "ssh-ed25519 AAAA scc@c"),
    ],
)
def test_authorized_key_line(addresses, options, line):
    assert cluster.authorized_key_line("ssh-ed25519 AAAA scc@c\n", addresses, options) == line


def test_stale_hosts_regex_matches_other_addresses_of_cluster_names_only():
    import re

    pattern = re.compile(cluster.stale_hosts_regex(NODES))
    stale = [
        "127.0.1.1 node1",  # Debian's own-hostname line
        "10.9.9.9   other node1 alias",  # node1 among other names
        "192.168.0.12 gpu2",  # gpu2's short name to an old address
        "  10.0.0.7\tgpu2.example.com",
    ]
    kept = [
        "127.0.23.11 node1",  # the block's own line
        "fd00::12 gpu2.example.com gpu2",
        "127.0.0.1 localhost",
        "10.9.9.9 node10",  # another name that starts like a cluster name
        "10.9.9.9 gpu2.example.org",
        "# 10.9.9.9 node1",  # a comment
        "# BEGIN scc.training hosts_file: scc_cluster",
    ]
    assert [line for line in stale if pattern.search(line)] == stale
    assert [line for line in kept if pattern.search(line)] == []


NAMED_NODES = [
    {"host": "gpu1.example.com", "address": "192.168.0.11", "names": ["gpu1.example.com", "gpu1"]},
    {"host": "node2", "address": "192.168.0.12", "names": ["node2"]},
]


def test_resolution_problems_name_each_name_that_misses_its_address():
    report = "gpu1.example.com\t0\t192.168.0.11    gpu1.example.com gpu1\ngpu1\t0\t127.0.1.1 gpu1\nnode2\t2\t\n"
    assert cluster.resolution_problems(NAMED_NODES, report) == [
        "'getent hosts gpu1' returned '127.0.1.1 gpu1' (rc 0), expected address 192.168.0.11",
        "'getent hosts node2' returned 'nothing' (rc 2), expected address 192.168.0.12",
    ]
    good = "gpu1.example.com\t0\t192.168.0.11 x\ngpu1\t0\t192.168.0.11 x\nnode2\t0\t192.168.0.12 node2\n"
    assert cluster.resolution_problems(NAMED_NODES, good) == []
    # A name the report lacks (the command cut short) is a problem, not a pass.
    assert cluster.resolution_problems(NAMED_NODES, "")[0].startswith(
        "'getent hosts gpu1.example.com' returned 'nothing'"
    )


@pytest.mark.parametrize(
    ("host", "peers"),
    [
        ("n1", ["n2", "n3", "n4"]),
        ("n3", ["n4", "n1", "n2"]),
        ("n4", ["n1", "n2", "n3"]),
        ("other", ["n1", "n2", "n3", "n4"]),
    ],
)
def test_ring_peers_start_after_the_node_and_wrap(host, peers):
    assert cluster.ring_peers(["n1", "n2", "n3", "n4"], host) == peers


def test_ring_order_spreads_the_incoming_checks():
    hosts = ["n%d" % i for i in range(10)]
    # The k-th check of every node goes to a different peer: each node receives one check per step.
    for step in range(9):
        assert len({cluster.ring_peers(hosts, h)[step] for h in hosts}) == 10


def test_mesh_problems_name_each_peer_that_failed_or_answered_wrong():
    report = "n2\t0\tn2 \t\nn3\t255\t\tPermission denied (publickey).\nn4\t0\tlocalhost\t\n"
    assert cluster.mesh_problems(report, ["n2", "n3", "n4", "n5"], {"n2": "n2", "n4": "node4", "n5": ""}) == [
        "'ssh n3 hostname' returned rc 255, stdout '' (expected 'n3'), stderr 'Permission denied (publickey).'",
        "'ssh n4 hostname' returned rc 0, stdout 'localhost' (expected 'node4'), stderr ''",
        "'ssh n5 hostname' returned rc none, stdout '' (expected 'n5'), stderr 'no result'",
    ]
    assert cluster.mesh_problems("n2\t0\tn2\t\n", ["n2"]) == []
