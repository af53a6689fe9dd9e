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
            "facts": True,
            "host_keys": [],
        },
        {
            "host": "gpu1.example.com",
            "address": "192.168.0.11",
            "names": ["gpu1.example.com", "gpu1"],
            "peer_names": ["gpu1.example.com", "gpu1", "iZ2ze0abc", "192.168.0.11"],
            "facts": True,
            "host_keys": [],
        },
        {
            "host": "node3",
            "address": None,
            "names": ["node3"],
            "peer_names": ["node3"],
            "facts": False,
            "host_keys": [],
        },
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
        # a line of one field (a key type cut from its key) is no key: left out, never an index error
        "gpu2.example.com": ["ecdsa-sha2-nistp256 CCCC2", "   ", "ssh-ed25519"],
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


@pytest.mark.parametrize(
    ("host", "peers"),
    [("n1", ["n2", "n3", "n4"]), ("n2", ["n3"]), ("n4", ["n1"]), ("other", ["n1", "n2", "n3", "n4"])],
)
def test_verify_peers_ring_the_launcher_reaches_all_the_others_their_successor(host, peers):
    assert cluster.verify_peers(["n1", "n2", "n3", "n4"], host, "ring") == peers
    assert cluster.verify_peers(["n1", "n2", "n3", "n4"], host, "mesh") == cluster.ring_peers(
        ["n1", "n2", "n3", "n4"], host
    )


def test_verify_peers_ring_is_linear_and_reaches_every_node():
    hosts = ["n%d" % i for i in range(200)]
    pairs = [(h, p) for h in hosts for p in cluster.verify_peers(hosts, h, "ring")]
    assert len(pairs) == 2 * (len(hosts) - 1)
    # Every node reaches one peer at least and is reached by one at least (the launcher by the last node).
    assert {p for _h, p in pairs} == set(hosts)
    assert {h for h, _p in pairs} == set(hosts)
    assert all(sum(1 for _h, p in pairs if p == h) == 2 for h in hosts[2:])
    assert sum(len(cluster.verify_peers(hosts, h, "mesh")) for h in hosts) == 200 * 199


def test_verify_peers_refuses_an_unknown_scope():
    with pytest.raises(ValueError, match="ring, mesh"):
        cluster.verify_peers(["n1"], "n1", "star")


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


# Mutants that survived the audit (issue 27): a leading '-' alone (e.g. '-v', an option to ssh and getent) and
# the 253-character limit, each at its edge.
NAME_253 = ".".join(["a" * 63, "b" * 63, "c" * 63, "d" * 61])
NAME_254 = ".".join(["a" * 63, "b" * 63, "c" * 63, "d" * 62])  # every label within 63: only the total is wrong


@pytest.mark.parametrize("name", ["-v", "-", "-node1", "v-", "node1.-x", NAME_254, "a..b", ""])
def test_host_names_refused(name):
    assert len(cluster.host_name_problems([name])) == 1


@pytest.mark.parametrize("name", ["v", "v-1", "1node", NAME_253, "x" * 63, "gpu1.example.com.", "10.0.0.5"])
def test_host_names_accepted(name):
    assert len(NAME_253) == 253 and len(NAME_254) == 254
    assert cluster.host_name_problems([name]) == []


def test_inventory_problems_name_both_nodes_of_one_address_once():
    hostvars = {
        "node1": {"ansible_host": "10.0.0.1"},
        "node2": {"ansible_host": "10.0.0.2"},
        "node3": {"ansible_host": "10.0.0.1"},
        "-v": {"ansible_host": "10.0.0.4"},
    }
    problems = cluster.inventory_problems(list(hostvars), hostvars)
    assert len(problems) == 2
    assert problems[0].startswith("'-v' is not an RFC 1123 host name")
    assert problems[1].startswith("node1 and node3 share ansible_host 10.0.0.1")
    assert cluster.inventory_problems(["node1", "node2"], hostvars) == []


# Issue 36: one machine under two inventory names, spelled differently. Each row: the inventory, and the names the
# one sentence must carry (every entry of the machine).
ONE_MACHINE = [
    ({"node1": {}, "NODE1": {}}, ["node1 and NODE1 are one machine", "node1's inventory name 'node1'"]),
    ({"gpu1.example.": {}, "GPU1.example": {}}, ["gpu1.example. and GPU1.example are one machine"]),
    ({"a": {"ansible_host": "10.0.0.1"}, "b": {"ansible_host": "Node-B"}, "node-b": {}}, ["b and node-b"]),
    (
        {"a": {"ansible_host": "b"}, "b": {"ansible_host": "10.0.0.2"}},
        ["a and b are one machine", "a's ansible_host 'b'"],
    ),
    (
        {"a": {"ansible_host": "fd00::1"}, "b": {"ansible_host": "FD00:0:0:0::0001"}},
        ["a and b are one machine", "b's ansible_host 'FD00:0:0:0::0001'"],
    ),
    ({"a": {"ansible_host": "10.0.0.7"}, "b": {"ansible_host": "::ffff:10.0.0.7"}}, ["a and b are one machine"]),
    ({"10.0.0.9": {}, "b": {"ansible_host": "10.0.0.9"}}, ["10.0.0.9 and b are one machine"]),
    # A short name and the one full name that begins with it, either way round and through ansible_host.
    ({"node1": {}, "Node1.Example.com": {}}, ["node1 and Node1.Example.com are one machine", "a short name"]),
    ({"gpu1.cluster.local": {}, "gpu1": {}}, ["gpu1.cluster.local and gpu1 are one machine"]),
    (
        {"a": {"ansible_host": "gpu7"}, "b": {"ansible_host": "gpu7.example.com"}},
        ["a and b are one machine", "a's ansible_host 'gpu7'", "b's ansible_host 'gpu7.example.com'"],
    ),
    # A short name aliased to its full name still meets the same name in other case elsewhere.
    ({"node8": {}, "node8.example": {}, "NODE8": {"ansible_host": "10.0.0.9"}}, ["node8 and node8.example and NODE8"]),
]


@pytest.mark.parametrize(("hostvars", "needles"), ONE_MACHINE)
def test_inventory_problems_find_one_machine_under_two_spellings(hostvars, needles):
    (problem,) = cluster.inventory_problems(list(hostvars), hostvars)
    for needle in needles:
        assert needle in problem, problem
    assert "one machine would be listed twice" in problem


def test_inventory_problems_tell_distinct_machines_apart():
    hostvars = {
        "node1": {"ansible_host": "fd00::1"},
        "node2": {"ansible_host": "fd00::2"},
        "node3": {"ansible_host": "node3.example"},
        "node4": {},
        "node5": {"ansible_host": "node5"},
        # One entry's own short name and full name; two full names sharing a first label; a short name that
        # begins two full names, which one it means depends on the search list.
        "node6": {"ansible_host": "node6.example"},
        "gpu1.rack-a": {},
        "gpu1.rack-b": {},
        "gpu1": {},
        "node7.a": {"ansible_host": "10.0.0.12"},
        "node7": {"ansible_host": "10.0.0.13"},
        "10.0.0.14": {},
    }
    assert cluster.inventory_problems(list(hostvars), hostvars) == []
    assert cluster.machine_identity("FE80::0:1%eth0") == "fe80::1%eth0"
    assert cluster.machine_identity("Node1.Example.") == "node1.example"
    assert cluster.machine_identity("") is None and cluster.machine_identity(None) is None


def test_inventory_problems_read_no_variables_of_a_refused_name():
    class Hostvars(dict):
        def __getitem__(self, host):
            if len(host) > 253:
                raise OSError("File name too long")
            return dict.__getitem__(self, host)

    long_name = ".".join(["a" * 63] * 3 + ["b" * 62])
    hostvars = Hostvars({long_name: {}, "node1": {}})
    (problem,) = cluster.inventory_problems(list(hostvars), hostvars)
    assert problem.startswith(repr(long_name) + " is not an RFC 1123 host name")


def node(host, address, facts=True, host_keys=("ssh-ed25519 AAAA",)):
    return {"host": host, "address": address, "facts": facts, "host_keys": list(host_keys)}


def test_node_problems_refuse_shared_addresses_missing_facts_keys_and_addresses():
    nodes = [node("n1", "10.0.0.1"), node("n2", "10.0.0.1"), node("n3", None), node("n4", "10.0.0.4", facts=False)]
    nodes.append(node("n5", "10.0.0.5", host_keys=()))
    problems = cluster.node_problems(nodes, "IPv4 of interface eth1", need_facts=True, need_host_keys=True)
    assert problems == [
        "no gathered facts for n4: facts of every node of the group are needed (in a sliced or --limit run they come "
        "from the fact cache: gather them for every node first)",
        "no SSH host key in the facts (setup's ssh_pub_keys) of n5",
        "no IP address (IPv4 of interface eth1) for n3",
        "n1 and n2 share the cluster address 10.0.0.1: one machine would be listed twice (twice in /etc/hosts and "
        "the MPI hostfile); give each node its own address or remove the duplicate",
    ]
    # hosts_file with ansible_host addresses needs no facts.
    assert cluster.node_problems([node("n4", "10.0.0.4", facts=False, host_keys=())], "ansible_host") == []


def test_host_keys_come_from_setups_ssh_pub_keys_facts():
    facts = {
        "ssh_host_key_rsa_public": "AAAArsa",
        "ssh_host_key_rsa_public_keytype": "ssh-rsa",
        "ssh_host_key_ed25519_public": "AAAAed",
        "ssh_host_key_ed25519_public_keytype": "ssh-ed25519",
        "ssh_host_key_ecdsa_public": "AAAAec",
        # No keytype: not a key line known_hosts could use.
    }
    assert cluster.fact_host_keys(facts) == ["ssh-ed25519 AAAAed", "ssh-rsa AAAArsa"]
    assert cluster.fact_host_keys({}) == []
    variables = {"ansible_host": "10.0.0.1", "ansible_facts": dict(facts, nodename="n1")}
    (only,) = cluster.cluster_nodes(["n1"], {"n1": variables})
    assert only["facts"] and cluster.known_hosts_block([only], {"n1": only["host_keys"]}) == (
        "n1,10.0.0.1 ssh-ed25519 AAAAed\nn1,10.0.0.1 ssh-rsa AAAArsa"
    )


def test_hostfile_slots_per_node_from_inventory_then_cached_devices_then_vcpus():
    hostvars = {
        "a": {"mpi_hostfile_slots": 2, "scc_gpu_count": 8},
        "b": {"scc_gpu_count": 4},
        "c": {"ansible_facts": {"mpi_hostfile_gpu_devices": 8, "processor_vcpus": 96}},
        "d": {"mpi_hostfile_gpu_devices": 0, "ansible_facts": {"processor_vcpus": 16}},
    }
    assert cluster.hostfile_slots(list(hostvars), hostvars) == [
        {"host": "a", "slots": 2},
        {"host": "b", "slots": 4},
        {"host": "c", "slots": 8},
        {"host": "d", "slots": 16},
    ]


def test_hostfile_slots_refuse_nodes_whose_devices_are_unknown_by_name():
    # e: facts cached but no device count recorded (its vCPUs would put a rank on every CPU of a GPU node);
    # f: nothing at all (outside a slice, never gathered).
    hostvars = {"a": {"scc_gpu_count": 8}, "e": {"ansible_facts": {"processor_vcpus": 96}}, "f": {}}
    with pytest.raises(ValueError, match=r"^no slot count for e, f: "):
        cluster.hostfile_slots(list(hostvars), hostvars)


def test_hostfile_slots_refuse_a_cpu_node_whose_vcpus_are_unknown_and_count_them_when_known():
    # g recorded 0 GPU devices (a CPU node) and has no vCPU fact: no count at all, refused by name, not a crash.
    hostvars = {"g": {"mpi_hostfile_gpu_devices": 0}, "h": {"mpi_hostfile_gpu_devices": 0}}
    hostvars["h"]["ansible_facts"] = {"processor_vcpus": 16}
    with pytest.raises(ValueError, match=r"^no slot count for g: "):
        cluster.hostfile_slots(list(hostvars), hostvars)
    assert cluster.hostfile_slots(["h"], hostvars) == [{"host": "h", "slots": 16}]


def test_hostfile_slots_refuse_a_count_that_is_not_one_naming_the_variable_and_the_node():
    """Issue 27: scc_gpu_count -1 (or slots 0) fell through to the device count or the vCPUs without a word; judged
    for every node of the file, as a --limit run's validate sees only the play's hosts."""
    hostvars = {
        "a": {"scc_gpu_count": 8},
        "b": {"scc_gpu_count": -1, "mpi_hostfile_gpu_devices": 8},
        "c": {"mpi_hostfile_slots": 0, "scc_gpu_count": "4"},
        "d": {"scc_gpu_count": "eight", "ansible_facts": {"processor_vcpus": 96}},
    }
    with pytest.raises(ValueError) as refused:
        cluster.hostfile_slots(list(hostvars), hostvars)
    assert str(refused.value) == (
        "scc_gpu_count of b (-1) must be unset or an integer >= 0; mpi_hostfile_slots of c (0) must be null or an "
        "integer >= 1; scc_gpu_count of d (eight) must be unset or an integer >= 0"
    )
    assert cluster.hostfile_slots(
        ["a", "e"], {"a": {"scc_gpu_count": "8"}, "e": {"scc_gpu_count": 0, "mpi_hostfile_gpu_devices": 4}}
    ) == [
        {"host": "a", "slots": 8},
        {"host": "e", "slots": 4},
    ]


CONTENT = "node1 slots=8\nnode2 slots=8\n"
DIGEST = "%s" % __import__("hashlib").sha256(CONTENT.encode()).hexdigest()


@pytest.mark.parametrize(
    ("report", "problems"),
    [
        (DIGEST + "\n0\n10.0.0.1 node1\n10.0.0.2 node2", []),
        ("missing\n0\n10.0.0.1 node1\n10.0.0.2 node2", ["differs"]),
        ("0" * 64 + "\n0\n", ["differs"]),
        (DIGEST + "\n2\n10.0.0.1 node1", ["resolves (getent rc 2"]),
        ("", ["differs", "resolves (getent rc none"]),
    ],
)
def test_hostfile_check_problems(report, problems):
    found = cluster.hostfile_check_problems(report, CONTENT, "/etc/scc-training/mpihosts")
    assert len(found) == len(problems) and all(want in got for want, got in zip(problems, found)), found


def test_hosts_file_input_problems_name_each_variable():
    good = {
        "group_hosts": ["node1"],
        "hosts_file_group": "scc_cluster",
        "hosts_file_interface": "eth0.100",
        "hosts_file_path": "/etc/hosts",
        "hosts_file_marker": "# {mark} scc.training",
    }
    assert cluster.hosts_file_input_problems(good) == []
    bad = dict(good, group_hosts=[], hosts_file_interface="eth 0", hosts_file_path="etc/hosts")
    bad["hosts_file_marker"] = "# {mark}\n10.0.0.9 evil"
    problems = cluster.hosts_file_input_problems(bad)
    names = ["hosts_file_group", "hosts_file_interface", "hosts_file_path", "hosts_file_marker"]
    assert [p.split(" ", 1)[0] for p in problems] == names
    for marker in ("{mark} no hash", "# no mark"):
        assert cluster.hosts_file_input_problems(dict(good, hosts_file_marker=marker))[0].startswith(
            "hosts_file_marker"
        )


def test_inventory_problems_refuse_a_group_of_another_size_than_scc_cluster_size():
    # An AWX/AAP job slice's inventory holds only its own hosts: 2 of the cluster's 4.
    hostvars = {"node1": {"ansible_host": "10.0.0.1"}, "node2": {"ansible_host": "10.0.0.2"}}
    assert cluster.inventory_problems(["node1", "node2"], hostvars, 2) == []
    assert cluster.inventory_problems(["node1", "node2"], hostvars) == []
    (problem,) = cluster.inventory_problems(["node1", "node2"], hostvars, "4")
    assert problem.startswith("the group has 2 node(s) in this run's inventory, scc_cluster_size says 4")
