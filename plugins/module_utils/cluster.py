# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The cluster stage's decisions (hosts_file, ssh_trust, mpi_hostfile): the address rule and the files built on it.

- ``cluster_nodes``: every node's cluster address and the names peers may use for it, once for
  the cluster, from the inventory and the gathered facts.
- ``hosts_block``, ``known_hosts_block``, ``authorized_key_line``: the /etc/hosts block, the
  known_hosts block and the authorized_keys line made from those nodes; ``stale_hosts_regex``: the
  /etc/hosts lines outside the block that map a cluster name to another address.
- ``resolution_problems``, ``ring_peers``, ``mesh_problems``: the checks afterwards, one command per node
  for all names or all peers (hosts_file's and ssh_trust's verify.yml), judged here.
- ``mpi_slots``: how many MPI processes a node of the hostfile may run; ``hostfile_slots``: every node's, once
  for the cluster, from the inventory and the (cached) facts of all nodes.
- ``inventory_problems``, ``node_problems``: the cluster-wide rules, judged once per run: host names (RFC 1123),
  two nodes at one address, a node without the facts a cluster-wide file needs.
- ``hostfile_check_problems``: mpi_hostfile's check afterwards (the file's digest and its names' resolution).
- ``ssh_trust_input_problems``, ``hosts_file_input_problems``: the roles' rules across their variables.

Job slicing (AWX/AAP runs a playbook as K ``--limit`` slices at once): every cluster-wide file is made from
``groups[...]`` and ``hostvars`` (the inventory, and the fact cache for nodes outside the slice), never from the
hosts of the play; a node whose facts are missing is refused by name instead of being left out of a file.

Pure Python, no Ansible imports: ``hostvars`` is any mapping of host name -> mapping of variables.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import ipaddress
import re

from ansible_collections.scc.training.plugins.module_utils.input_checks import (
    group_problems,
    minimum,
    pattern,
    rule_problems,
    text,
)

_NAME = r"^[A-Za-z0-9_.-]+$"
# setup's ssh_pub_keys facts: ssh_host_key_<type>_public (the key) and ..._public_keytype (its type), one per
# /etc/ssh/ssh_host_<type>_key.pub; known_hosts lists them in this order (that of the files' glob).
_HOST_KEY_TYPES = ("dsa", "ecdsa", "ed25519", "rsa")
# ssh(1) -i: the identity files ssh tries by default; a cluster key of one of these names would replace root's own key.
_DEFAULT_IDENTITIES = ("id_rsa", "id_ecdsa", "id_ecdsa_sk", "id_ed25519", "id_ed25519_sk", "id_dsa", "id_xmss")
# sshd(8), AUTHORIZED_KEYS FILE FORMAT: the options without a value (those with one need quotes, refused
# below). sshd ignores the case of their names and refuses the whole key line on an option it does not know.
_AUTHORIZED_KEY_FLAGS = frozenset(
    "agent-forwarding cert-authority no-agent-forwarding no-port-forwarding no-pty no-user-rc no-x11-forwarding"
    " port-forwarding pty no-touch-required verify-required restrict user-rc x11-forwarding".split()
)


def _malformed_key_option(option):
    """Spaces, quotes or from= in an authorized_keys option (from= is ssh_trust_restrict_from's)."""
    return re.search(r'[\s"]|^from=', text(option)) is not None


_SSH_TRUST_RULES = (
    ("ssh_trust_cluster_name", pattern(_NAME), "only letters, digits, '_', '.', '-'"),
    ("ssh_trust_key_name", pattern(_NAME), "only letters, digits, '_', '.', '-'"),
    ("ssh_trust_key_dir", pattern(r"^."), "set"),
    ("ssh_trust_interface", lambda name: not re.search(r"\s", text(name)), "empty or an interface name"),
    (
        "ssh_trust_authorized_key_options",
        lambda options: isinstance(options, list) and not any(_malformed_key_option(option) for option in options),
        "options without spaces, quotes or from= (set ssh_trust_restrict_from instead)",
    ),
    (
        "ssh_trust_authorized_key_options",
        lambda options: (
            not isinstance(options, list)
            or all(
                text(option).lower() in _AUTHORIZED_KEY_FLAGS for option in options if not _malformed_key_option(option)
            )
        ),
        "options sshd knows (sshd(8): %s); sshd refuses a key line with another"
        % ", ".join(sorted(_AUTHORIZED_KEY_FLAGS)),
    ),
    (
        "ssh_trust_key_name",
        lambda name: text(name) not in _DEFAULT_IDENTITIES,
        "a name other than ssh's default identities (%s): it would replace root's own key"
        % ", ".join(_DEFAULT_IDENTITIES),
    ),
    ("ssh_trust_known_hosts_file", pattern(r"^/\S+$"), "an absolute path"),
    (
        "ssh_trust_ssh_config_file",
        pattern(r"^/\S+\.conf$"),
        "an absolute path ending in .conf (ssh_config includes only ssh_config.d/*.conf)",
    ),
    ("ssh_trust_verify_timeout", minimum(1), ">= 1"),
)


def interface_fact_keys(interface):
    """The keys under which ``setup`` may have stored an interface's facts, most likely first.

    ansible-core names them after the interface with '-' (fact namespace) and ':' (aliases, Linux
    network facts) turned into '_'; older releases also turned '.' (VLANs such as eth0.100) into '_'.
    """
    underscored = interface.replace("-", "_").replace(":", "_")
    return list(dict.fromkeys([underscored, interface, underscored.replace(".", "_")]))


def _ip_literal(value):
    """``value`` as an IP address string when it is one (IPv4, or IPv6 with an optional zone), else None."""
    if not isinstance(value, str) or not value:
        return None
    address, percent, zone = value.partition("%")
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return None
    # A zone (RFC 4007: fe80::1%eth0) only on IPv6, and only an interface name or index: "fe80::1%eth0 x" would
    # carry its space into a command line.
    if percent and (parsed.version != 6 or not re.match(r"^[0-9A-Za-z_.-]+\Z", zone)):
        return None
    return value


def node_address(host, variables, interface=""):
    """One node's cluster address, or None when the rule gives it no IP address.

    No ``interface``: the node's ``ansible_host``, else its inventory name (the address Ansible reaches
    it at). An ``interface``: that interface's IPv4 address in the node's gathered facts.
    """
    if not interface:
        return _ip_literal(variables.get("ansible_host") or host)
    facts = variables.get("ansible_facts") or {}
    for key in interface_fact_keys(interface):
        ipv4 = (facts.get(key) or {}).get("ipv4") or {}
        if ipv4.get("address"):
            return _ip_literal(ipv4["address"])
    return None


def _unique(values):
    return list(dict.fromkeys(v for v in values if v))


def host_names(host):
    """The names /etc/hosts gives a node: its inventory name, and the short name of an FQDN."""
    if _ip_literal(host):
        return [host]
    return _unique([host, host.split(".", 1)[0]])


# RFC 1123 section 2.1 host names (RFC 952 labels, a leading digit allowed): labels of letters, digits and
# hyphens, neither first nor last a hyphen, 1-63 characters each, 253 in all. An IP address fits too.
_LABEL = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\Z")


def host_name_problems(hosts):
    """The cluster's inventory names -> one line per name that is not an RFC 1123 host name.

    Every name goes into /etc/hosts, known_hosts, the MPI hostfile and ssh's command line: a name
    starting with "-" would reach ssh as an option, whitespace or "_" would not resolve as written."""
    problems = []
    for host in hosts:
        name = str(host)
        labels = name.rstrip(".").split(".")
        if len(name) > 253 or not all(_LABEL.match(label) for label in labels):
            problems.append(
                "%r is not an RFC 1123 host name (letters, digits and inner hyphens, dot-separated labels of 1-63 "
                "characters, 253 in all)" % name
            )
    return problems


def consumed_host_problems(variable, group, hosts):
    """A role's own check of the names it consumes (``hosts``: ``groups[group]``, named by ``variable``): one line
    per name that is not an RFC 1123 host name, naming the variable, its group and the name. The launchers run
    it whatever --tags skipped: their first node reaches getent's, ssh's and mpirun's command lines."""
    return ["%s (%s): %s." % (variable, group, line) for line in host_name_problems(hosts)]


def is_address_or_name(value):
    """Whether ``value`` is an IP address or an RFC 1123 host name (so never empty, never "-...")."""
    return bool(value) and bool(_ip_literal(str(value)) or not host_name_problems([str(value)]))


def address_or_name_problems(variable, value):
    """``value`` (``variable``) must be empty, an IP address or an RFC 1123 host name (never "-..."): it reaches a
    command line or an environment variable ranks resolve."""
    value = "" if value is None else str(value)
    if not value or is_address_or_name(value):
        return []
    return [
        "%s must be empty, an IP address or an RFC 1123 host name (letters, digits and inner hyphens, dot-separated "
        "labels of 1-63 characters; got %r)." % (variable, value)
    ]


def cluster_nodes(hosts, hostvars, interface=""):
    """``[{host, address, names, peer_names}]`` for ``hosts``, in their order.

    ``address`` is None for a node without an IP address by the rule (see ``node_address``). ``names``
    are those /etc/hosts maps to the address; ``peer_names`` add the node's own hostname and FQDN
    (facts ``hostname`` and ``nodename``) and the address: every name ssh on a peer may be given.
    """
    nodes = []
    for host in hosts:
        variables = hostvars[host]
        facts = variables.get("ansible_facts") or {}
        address = node_address(host, variables, interface)
        names = host_names(host)
        nodes.append(
            {
                "host": host,
                "address": address,
                "names": names,
                "peer_names": _unique(names + [facts.get("nodename"), facts.get("hostname"), address]),
                "facts": bool(facts.get("nodename")),
                "host_keys": fact_host_keys(facts),
            }
        )
    return nodes


def fact_host_keys(facts):
    """A node's SSH host keys from setup's ssh_pub_keys facts: ``["<type> <key>", ...]`` (none: [])."""
    keys = []
    for kind in _HOST_KEY_TYPES:
        key = facts.get("ssh_host_key_%s_public" % kind)
        keytype = facts.get("ssh_host_key_%s_public_keytype" % kind)
        if key and keytype:
            keys.append("%s %s" % (keytype, key))
    return keys


def _names_list(hosts):
    return ", ".join(str(host) for host in hosts)


def inventory_problems(hosts, hostvars, expected_size=None):
    """The rules over the cluster group's inventory, judged once per run (no facts needed): every name an RFC
    1123 host name, no machine listed under two inventory names (one machine listed twice: twice in /etc/hosts
    and in the MPI hostfile, twice the ranks on its GPUs; see ``machine_identity_problems``), and, when
    ``expected_size`` (``scc_cluster_size``) is set, as many nodes as it says: an AWX/AAP job slice's inventory
    holds only that slice's hosts (AWX ``Inventory.get_script_data``), from which every cluster-wide file would
    be partial.

    A name refused as a host name is not looked up in ``hostvars``: Ansible's hostvars read the fact cache,
    whose jsonfile entry named after a 254-character name fails with "File name too long"."""
    hosts = list(hosts)
    name_problems = host_name_problems(hosts)
    named = [host for host in hosts if not host_name_problems([host])] if name_problems else hosts
    problems = name_problems + machine_identity_problems(
        [{"host": host, "ansible_host": hostvars[host].get("ansible_host")} for host in named]
    )
    if expected_size is not None and len(hosts) != int(expected_size):
        problems.append(
            "the group has %d node(s) in this run's inventory, scc_cluster_size says %d: cluster-wide files would "
            "be partial (an AWX/AAP job slice's inventory holds only its own hosts: run this stage as one job, or "
            "as parallel jobs each with a --limit over the whole inventory; README.md, Job slicing)"
            % (len(hosts), int(expected_size))
        )
    return problems


def machine_identity(value):
    """The form in which two spellings of one machine compare equal: an IP address parsed (IPv6 compressed and
    lower-cased, an IPv4-mapped IPv6 address as its IPv4 address, a zone kept), a name lower-cased without a
    trailing dot (DNS and /etc/hosts ignore case, RFC 4343). None for an empty value."""
    if value is None:
        return None
    value = str(value).strip()
    if not value:
        return None
    address, percent, zone = value.partition("%")
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return value.rstrip(".").lower()
    if parsed.version == 6 and parsed.ipv4_mapped is not None:
        parsed = parsed.ipv4_mapped
    return str(parsed) + percent + zone


def _is_name(identity):
    try:
        ipaddress.ip_address(identity.partition("%")[0])
    except ValueError:
        return True
    return False


def _short_name_aliases(identities):
    """``{short name: full name}`` for each dotless name of the inventory that exactly one full name (a name with
    dots) begins with: 'node1' beside 'node1.example.com' is that node, the way a resolver's search domain reads
    it (resolv.conf(5), search). A short name that begins two full names (node1.a, node1.b) is left alone: which
    one it means depends on the search list, which the controller does not know."""
    identities = {identity for identity in identities if identity and _is_name(identity)}
    full_by_label = {}
    for identity in identities:
        if "." in identity:
            full_by_label.setdefault(identity.split(".", 1)[0], []).append(identity)
    return {
        short: full_by_label[short][0]
        for short in identities
        if "." not in short and len(full_by_label.get(short, ())) == 1
    }


def machine_identity_problems(entries):
    """``[{host, ansible_host}]`` -> one sentence per machine listed under two or more inventory names.

    Each entry is known by its inventory name and its ``ansible_host`` (``machine_identity``: addresses parsed,
    names lower-cased), so two entries are one machine when their names differ only in case, when their
    ``ansible_host`` values are one address however spelled, when one's ``ansible_host`` is another's
    inventory name (the address Ansible reaches it at is that node's), or when one is the short name of the
    other's full name (``_short_name_aliases``). No DNS lookup: only the inventory's own
    names and addresses are compared. Each sentence names every entry and what they share. Linear in nodes."""
    entries = [
        (str(entry["host"]), [("inventory name", str(entry["host"])), ("ansible_host", entry.get("ansible_host"))])
        for entry in entries
    ]
    # What Ansible connects to: ansible_host, else the inventory name. Only these are read as short names: two
    # entries with their own distinct addresses are two machines whatever their names.
    targets = [machine_identity(fields[1][1]) or machine_identity(host) for host, fields in entries]
    short_names = _short_name_aliases(targets)
    seen = {}
    order = []
    for host, fields in entries:
        for field, value in fields:
            key = machine_identity(value)
            if key is None:
                continue
            key = short_names.get(key, key)
            if key not in seen:
                seen[key] = []
                order.append(key)
            if not any(known == host for known, _f, _v in seen[key]):
                seen[key].append((host, field, str(value)))
    problems = []
    reported = set()
    for key in order:
        found = seen[key]
        group = frozenset(host for host, _f, _v in found)
        if len(found) < 2 or group in reported:
            continue
        reported.add(group)
        hosts = " and ".join(host for host, _f, _v in found)
        if all(field == "ansible_host" and value == found[0][2] for _h, field, value in found):
            what = "share ansible_host %s" % found[0][2]
        else:
            what = (
                "are one machine (%s: the same once names are lower-cased, addresses compared as addresses and a "
                "short name read as the one full name that begins with it)"
                % ", ".join("%s's %s %r" % (host, field, value) for host, field, value in found)
            )
        problems.append(
            "%s %s: one machine would be listed twice (twice in /etc/hosts and the MPI hostfile); give each node its "
            "own address or remove the duplicate" % (hosts, what)
        )
    return problems


def _shared_address_problems(nodes, what):
    by_address = {}
    for node in nodes:
        if node.get("address"):
            by_address.setdefault(machine_identity(node["address"]), []).append(node["host"])
    return [
        "%s share %s %s: one machine would be listed twice (twice in /etc/hosts and the MPI hostfile); "
        "give each node its own address or remove the duplicate" % (" and ".join(hosts), what, address)
        for address, hosts in by_address.items()
        if len(hosts) > 1
    ]


def node_problems(nodes, rule, need_facts=False, need_host_keys=False):
    """``cluster_nodes``' nodes -> one sentence per problem that would make a cluster-wide file wrong or partial.

    A node without an address by the rule (``rule`` says which: ansible_host or an interface), two nodes at one
    address, and with ``need_facts`` / ``need_host_keys`` a node whose gathered facts (nodename, ssh host keys)
    are missing: outside a sliced or limited run they come from the fact cache, so every node's facts must have
    been gathered into it first. Each sentence names the nodes."""
    problems = []
    missing = [node["host"] for node in nodes if need_facts and not node.get("facts")]
    if missing:
        problems.append(
            "no gathered facts for %s: facts of every node of the group are needed (in a sliced or --limit run they "
            "come from the fact cache: gather them for every node first)" % _names_list(missing)
        )
    keyless = [node["host"] for node in nodes if need_host_keys and node.get("facts") and not node.get("host_keys")]
    if keyless:
        problems.append("no SSH host key in the facts (setup's ssh_pub_keys) of %s" % _names_list(keyless))
    no_address = [node["host"] for node in nodes if not node.get("address")]
    if no_address:
        problems.append("no IP address (%s) for %s" % (rule, _names_list(no_address)))
    return problems + _shared_address_problems(nodes, "the cluster address")


def _require_addresses(nodes):
    missing = [node["host"] for node in nodes if not node.get("address")]
    if missing:
        raise ValueError("no cluster address for %s" % ", ".join(missing))


def hosts_block(nodes):
    """The /etc/hosts lines ``address name [short]``, one per node, in the nodes' order."""
    _require_addresses(nodes)
    return "\n".join(" ".join([node["address"]] + node["names"]) for node in nodes)


def stale_hosts_regex(nodes):
    """One regular expression for every /etc/hosts line that maps a node's name to an address other than
    the node's (Debian's ``127.0.1.1 <hostname>``, an old address): a line starting with an address, then
    the name as a whole word among the names. Comments and the block's own lines never match."""
    _require_addresses(nodes)
    alternatives = [
        r"(?!%s\s)[0-9A-Fa-f:.]+\s+(?:\S+\s+)*%s" % (re.escape(node["address"]), re.escape(name))
        for node in nodes
        for name in node["names"]
    ]
    return r"^\s*(?:%s)(?:\s.*)?$" % "|".join(alternatives)


def known_hosts_block(nodes, host_keys):
    """known_hosts lines: every host key of every node under all of its ``peer_names``.

    ``host_keys`` maps each node to the text (or lines) of its ``/etc/ssh/ssh_host_*_key.pub`` files;
    of each line the key type and the key are kept (the comment names a host, not the key).
    """
    lines = []
    for node in nodes:
        keys = host_keys.get(node["host"])
        if keys is None:
            raise ValueError("no host keys for %s" % node["host"])
        if isinstance(keys, str):
            keys = keys.splitlines()
        for line in keys:
            fields = line.split()
            if len(fields) < 2:
                continue
            lines.append("%s %s %s" % (",".join(node["peer_names"]), fields[0], fields[1]))
    return "\n".join(lines)


def authorized_key_line(public_key, from_addresses=None, options=None):
    """One authorized_keys line: ``from="a,b"`` (when addresses are given), the other options, the key."""
    opts = ['from="%s"' % ",".join(from_addresses)] if from_addresses else []
    opts += list(options or [])
    return " ".join(part for part in (",".join(opts), public_key.strip()) if part)


def _report_rows(report, fields):
    """Tab-separated lines of a verify command -> rows of ``fields`` columns (short rows padded with '')."""
    rows = []
    for line in report.splitlines():
        if line.strip():
            cells = line.split("\t", fields - 1)
            rows.append([cell.strip() for cell in cells] + [""] * (fields - len(cells)))
    return rows


def resolution_problems(nodes, report):
    """Each cluster name's resolution on one node -> one sentence per name that does not give its node's address.

    ``report``: one line per name, ``NAME<TAB>RC<TAB>first line of 'getent hosts NAME'`` (hosts_file's
    verify.yml prints it for every name in one command). A name missing from the report is a problem too.
    """
    seen = {row[0]: row for row in _report_rows(report, 3)}
    problems = []
    for node in nodes:
        for name in node["names"]:
            rc, line = seen.get(name, [name, "none", ""])[1:]
            found = line.split()[0] if line.split() else ""
            if rc != "0" or found != node["address"]:
                problems.append(
                    "'getent hosts %s' returned '%s' (rc %s), expected address %s"
                    % (name, line or "nothing", rc, node["address"])
                )
    return problems


def ring_peers(hosts, host):
    """The other nodes in ring order from ``host`` (the ones after it, then the ones before).

    Every node starting its checks at its own successor spreads the incoming connections evenly, so no
    node's sshd sees more than a few at once (its MaxStartups drops unauthenticated connections beyond 10).
    """
    hosts = list(hosts)
    if host not in hosts:
        return hosts
    index = hosts.index(host)
    return hosts[index + 1 :] + hosts[:index]


VERIFY_SCOPES = ("ring", "mesh")


def verify_peers(hosts, host, scope):
    """The peers ``host`` reaches over ssh to verify the cluster's trust, in ring order.

    ``mesh``: every other node (N(N-1) connections in the cluster). ``ring``: the first node, mpirun's launcher,
    reaches every other node and each other node its successor (2(N-1) connections: linear in N). Every node
    holds the same key, known_hosts block, client drop-in and /etc/hosts (one cluster-wide file each), so the
    ring still proves each node's sshd accepts the key and each node's host key is the one known; what only
    the mesh shows is a filter between one particular pair of nodes.
    """
    if scope not in VERIFY_SCOPES:
        raise ValueError("scope must be one of %s, not %r" % (", ".join(VERIFY_SCOPES), scope))
    peers = ring_peers(hosts, host)
    hosts = list(hosts)
    if scope == "mesh" or not hosts or host not in hosts or host == hosts[0]:
        return peers
    return peers[:1]


def mesh_problems(report, peers, nodenames=None):
    """One node's ssh to each peer -> one sentence per peer that did not answer with its own hostname.

    ``report``: one line per peer, ``PEER<TAB>RC<TAB>STDOUT<TAB>STDERR`` (ssh_trust's verify.yml prints it
    for every peer in one command); ``nodenames`` maps a peer to the hostname it should answer (its
    ``nodename`` fact), the inventory name when missing or empty.
    """
    nodenames = nodenames or {}
    seen = {row[0]: row for row in _report_rows(report, 4)}
    problems = []
    for peer in peers:
        rc, stdout, stderr = seen.get(peer, [peer, "none", "", "no result"])[1:]
        expected = nodenames.get(peer) or peer
        if rc != "0" or stdout != expected:
            problems.append(
                "'ssh %s hostname' returned rc %s, stdout '%s' (expected '%s'), stderr '%s'"
                % (peer, rc, stdout, expected, stderr)
            )
    return problems


def _positive(value):
    return value is not None and not isinstance(value, bool) and str(value).strip() != "" and int(value) > 0


def _integer_at_least(value, least):
    text = str(value).strip()
    return not isinstance(value, bool) and text.isdigit() and int(text) >= least


def mpi_slots(slots=None, gpu_count=None, gpu_devices=0, vcpus=None):
    """A node's MPI slots: ``slots`` when set, else its declared GPU count when above 0, else its count of
    ``/dev/nvidia[0-9]*`` devices when above 0, else its vCPUs. One rank per GPU, or per CPU without GPUs."""
    for value in (slots, gpu_count, gpu_devices, vcpus):
        if _positive(value):
            return int(value)
    raise ValueError("no slot count: slots, GPU count, GPU devices and vCPUs are all unset or 0")


def hostfile_slots(hosts, hostvars):
    """``[{host, slots}]`` for the hostfile's nodes, once for the cluster, from each node's inventory and facts.

    Per node, as ``mpi_slots``: ``mpi_hostfile_slots``, else ``scc_gpu_count``, else its cached
    ``mpi_hostfile_gpu_devices`` fact (the /dev/nvidia[0-9]* count mpi_hostfile records) when above 0, else its
    vCPUs. A node that has neither a slot setting nor a recorded device count is refused (raised ValueError,
    naming it): falling back to its vCPUs would put a rank on every CPU of a GPU node.
    """
    plan, unknown, bad = [], [], []
    for host in hosts:
        variables = hostvars[host]
        facts = variables.get("ansible_facts") or {}
        slots, gpu_count = variables.get("mpi_hostfile_slots"), variables.get("scc_gpu_count")
        # Judged for every node of the file, also those outside a --limit run (its validate judges the play's
        # hosts only): a negative or non-integer count would silently fall through to the devices or vCPUs.
        wrong = [
            "%s of %s (%s) must be %s" % (name, host, value, what)
            for name, value, least, what in (
                ("mpi_hostfile_slots", slots, 1, "null or an integer >= 1"),
                ("scc_gpu_count", gpu_count, 0, "unset or an integer >= 0"),
            )
            if value is not None and not _integer_at_least(value, least)
        ]
        if wrong:
            bad += wrong
            continue
        devices = variables.get("mpi_hostfile_gpu_devices", facts.get("mpi_hostfile_gpu_devices"))
        if not _positive(slots) and not _positive(gpu_count) and devices is None:
            unknown.append(host)
            continue
        vcpus = facts.get("processor_vcpus") or facts.get("processor_nproc")
        try:
            plan.append({"host": host, "slots": mpi_slots(slots, gpu_count, devices or 0, vcpus)})
        except ValueError:
            unknown.append(host)
    if bad:
        raise ValueError("; ".join(bad))
    if unknown:
        raise ValueError(
            "no slot count for %s: set mpi_hostfile_slots or scc_gpu_count in the inventory, or gather the facts "
            "of every node first (mpi_hostfile records each node's GPU devices; in a sliced or --limit run the "
            "other nodes' come from the fact cache)" % _names_list(unknown)
        )
    return plan


def hostfile_check_problems(report, content, path):
    """mpi_hostfile's check on one node -> one sentence per problem ([] when the file is the rendered one and
    every host in it resolves).

    ``report``: the verify command's output: the file's sha256 (or nothing when it is missing), then
    ``getent hosts -- HOST...``'s exit status, then getent's lines."""
    lines = report.splitlines()
    digest = lines[0].split()[0] if lines and lines[0].split() else ""
    rc = lines[1].strip() if len(lines) > 1 else "none"
    problems = []
    if digest != hashlib.sha256(content.encode("utf-8")).hexdigest():
        problems.append("%s differs from the rendered hostfile %r" % (path, content))
    if rc != "0":
        problems.append(
            "not every host of %s resolves (getent rc %s, got %r); apply scc.training.hosts_file or fix DNS"
            % (path, rc, lines[2:])
        )
    return problems


_HOSTS_FILE_RULES = (
    (
        "hosts_file_interface",
        pattern(r"^[A-Za-z0-9_.:-]*$"),
        "empty or an interface name (letters, digits, '_', '.', ':', '-')",
    ),
    ("hosts_file_path", pattern(r"^/\S+$"), "an absolute path"),
    (
        "hosts_file_marker",
        lambda marker: "{mark}" in text(marker) and text(marker).startswith("#") and "\n" not in text(marker),
        "one line starting with '#' (/etc/hosts reads any other line as an address) and containing '{mark}'",
    ),
)


def hosts_file_input_problems(settings):
    """hosts_file's variables -> one sentence per problem, naming the variable and its value ([] when all is well).

    ``settings``: the ``hosts_file_*`` variables and ``group_hosts`` (the hosts of hosts_file_group).
    """
    return group_problems(settings, "hosts_file_group") + rule_problems(settings, _HOSTS_FILE_RULES)


def ssh_trust_input_problems(settings):
    """ssh_trust's variables -> one sentence per problem, naming the variable and its value ([] when all is well).

    ``settings``: the ``ssh_trust_*`` variables and ``group_hosts`` (the hosts of ssh_trust_group).
    """
    return group_problems(settings, "ssh_trust_group") + rule_problems(settings, _SSH_TRUST_RULES)
