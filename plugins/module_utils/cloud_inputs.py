# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Every ``scc_cloud_*`` variable of provision.yml (and the subset teardown.yml reads), judged before the first API
call: ``problems(settings) -> [sentence]``, one sentence per bad variable, naming the variable, its value and the one
rule it broke (the first that fails, never a list of every rule). A variable absent from ``settings`` is not judged
(teardown.yml passes only its own); a rule across two variables runs only when both are present and each is sound.

Sources of the rules (the Tea SDK models are alibabacloud_ecs20140526 7.11.8, alibabacloud_vpc20160428 7.2.2 and
alibabacloud_nas20170626 3.7.5, the comments above each request field; pinned in requirements.lock):

* [vpc-cidr] CreateVpcRequest.cidr_block: "The subnet mask must be 16 to 28 bits" (for the RFC 1918 blocks), and no
  custom block inside 100.64.0.0/10, 224.0.0.0/4, 127.0.0.0/8, 169.254.0.0/16. The console also offers 10.0.0.0/8
  (a /8): whether the API takes masks 8 to 15 is UNCONFIRMED, so they pass here.
* [vsw-cidr] CreateVSwitchRequest.cidr_block: "The mask length of the vSwitch CIDR block must be 16 to 29 bits", "a
  subset of the CIDR block of the VPC", not within 100.64.0.0/10, 127.0.0.0/8, 169.254.0.0/16, 224.0.0.0/4.
* [vsw-reserved] The addresses a vSwitch keeps for itself: its first and its last three (UNCONFIRMED: Alibaba's VPC
  documentation says so in its vSwitch overview; no API model states it).
* [sg-cidr] AuthorizeSecurityGroup SourceCidrIp: an IPv4 CIDR block or address (the model's example 10.0.0.0/8).
* [instance-type] The supported-instance table (plugins/module_utils/instance_families.py): a family it lists has
  only the sizes it lists. A family outside it stays allowed with a hand-set scc_cloud_eri_count (cloud_nodes.py).
* [amount] RunInstancesRequest.amount: 1 to 100 per call (ecs_instance batches above that). The upper bound of the
  cluster is CPFS's: "A file system can be mounted on a maximum of 2,000 compute nodes"
  (https://www.alibabacloud.com/help/en/cpfs/limits-1). What the account may run is its ECS quota (vCPUs of
  pay-as-you-go instances per region and family, Quota Center): not readable before an API call, so the message
  names it as a hint.
* [period] RunInstancesRequest.period / period_unit: Month 1-9, 12, 24, 36, 48, 60; Week 1-4 (Week on the China site
  only; the site is the account's, which no variable tells: not refused here). cloud_nodes.PERIODS.
* [key-pair] CreateKeyPairRequest.key_pair_name: 2 to 128 characters, letters, digits, ':', '_', '-', starting with
  a letter, not with http:// or https://.
* [tags] RunInstancesRequest.tag: N 1 to 20; a key 1 to 128 characters, not starting with "aliyun" or "acs:", no
  "http://" or "https://"; a value up to 128 characters, no "http://" or "https://". The data-prep ECS carries one
  tag more (scc-role), so 19 of the user's.
* [cpfs-capacity] CreateFileSystemRequest.capacity (GiB) refers to the buy page for its values. The bounds: at least
  3600 GiB (nas_cpfs's MIN_CAPACITY, the buy page's least CPFS size; UNCONFIRMED by any API model), at most 1 PiB
  (https://www.alibabacloud.com/help/en/cpfs/limits-1: "The maximum capacity of a single file system is 1 PiB"),
  in steps of 1,200 GiB ("The scaling step size is 1,200 GiB",
  https://www.alibabacloud.com/help/en/cpfs/cpfsonecs/user-guide/scale-up-a-file-system; that creation takes the
  same step is UNCONFIRMED). The same for advance_100, advance_200 and economic (CreateFileSystemRequest.storage_type
  lists the three for cpfs; that economic has no other bounds is UNCONFIRMED).
* [export-path] CreateProtocolMountTargetRequest.path: 1 to 1,024 characters, UTF-8, starts and ends with '/'. The
  directory "must already exist on the CPFS file system" (a new one holds only '/').
* [admin-cidrs] scc_cloud_admin_cidrs: the bastion's AuthorizeSecurityGroup SourceCidrIp, one rule per block (IPv4
  blocks or addresses, as [sg-cidr]); 0.0.0.0/0 opens SSH on a public address to the whole internet, so it takes the
  explicit scc_cloud_admin_cidrs_allow_internet: true (this collection's rule). At most 50 blocks (UNCONFIRMED: the
  documented quota of rules per security group is 200, and the nodes' group holds the others).
* [bastion] scc_cloud_access: bastion makes one small ECS with an EIP (docs/cloud.md); its type and image follow the
  instance-type and image rules above.
* [zone], [region]: no model states their format; the shapes of the IDs DescribeRegions and DescribeZones return
  (cn-shanghai, ap-southeast-1; cn-shanghai-b, ap-southeast-1a) are the rule (UNCONFIRMED).

Pure Python, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import json
import re

from ansible_collections.scc.training.plugins.module_utils import (
    cloud_nodes,
    data_prep,
    input_checks,
    instance_families,
)
from ansible_collections.scc.training.plugins.module_utils.ack import ack_input_problems

NAME = re.compile(r"^[a-z][a-z0-9-]{1,30}\Z")
REGION = re.compile(r"^[a-z]{2,}(-[a-z0-9]+)+\Z")
INSTANCE_TYPE = re.compile(r"^ecs\.([a-z][a-z0-9-]*)\.([a-z0-9-]+)\Z")
KEY_PAIR = re.compile(r"^[A-Za-z][A-Za-z0-9:_-]{1,127}\Z")
ENDPOINT = re.compile(r"^(https?://)?[A-Za-z0-9.-]+(:[0-9]{1,5})?/?\Z")
# One line, no blank: an image ID (m-..., or a public image name such as aliyun_3_x64_20G_alibase_20250101.vhd).
IMAGE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}\Z")
RESERVED = tuple(ipaddress.ip_network(n) for n in ("100.64.0.0/10", "224.0.0.0/4", "127.0.0.0/8", "169.254.0.0/16"))
VPC_PREFIX = (8, 28)
VSWITCH_PREFIX = (16, 29)
VSWITCH_RESERVED_ADDRESSES = 4
MAX_INSTANCES = 2000
MAX_TAGS = 20 - 1
TAG_TEXT_MAX = 128
CPFS_MIN_GIB = 3600
CPFS_MAX_GIB = 1 << 20
CPFS_STEP_GIB = 1200
EXPORT_PATH_MAX = 1024
SHOWN = 80


def show(value):
    """``value`` as JSON (one line: newlines and U+2028 escaped), a long one cut to its start and its length."""
    if isinstance(value, str) and len(value) > SHOWN:
        return "%s... (%d characters)" % (json.dumps(value[:SHOWN]), len(value))
    try:
        shown = json.dumps(value, sort_keys=True, default=repr)
    except (TypeError, ValueError):
        shown = json.dumps(repr(value))
    return shown if len(shown) <= SHOWN else "%s... (%d characters)" % (shown[:SHOWN], len(shown))


def _bad(name, value, rule):
    return "%s (%s) %s." % (name, show(value), rule)


def _type_name(value):
    return "null" if value is None else type(value).__name__


def _string(name, value, example):
    """The sentence when ``value`` is not a string, else None."""
    if input_checks.is_text(value):
        return None
    return _bad(name, value, "must be a string such as %s, not %s" % (example, _type_name(value)))


def _one_line(name, value):
    if re.search(r"[\x00-\x1f\x7f\x85\u2028\u2029]", value):
        return _bad(name, value, "must be one line, without control characters or line separators")
    return None


def _network(value):
    try:
        return ipaddress.ip_network(value, strict=True)
    except ValueError:
        return None


def _cidr(name, value, prefix, example, what):
    """A CIDR block: a string, an IPv4 network with its host bits 0, its mask within ``prefix``, outside the reserved
    ranges. Returns (sentence or None, network or None)."""
    problem = _string(name, value, example)
    if problem:
        return problem, None
    network = _network(value)
    if network is None:
        try:
            loose = ipaddress.ip_network(value, strict=False)
        except ValueError:
            return _bad(name, value, "must be an IPv4 CIDR block such as %s" % example), None
        return _bad(name, value, "has host bits set: the block is %s" % loose), None
    if network.version != 4:
        return _bad(name, value, "must be an IPv4 CIDR block such as %s, not IPv6" % example), None
    low, high = prefix
    if not low <= network.prefixlen <= high:
        return _bad(name, value, "must have a mask of %d to %d bits (%s)" % (low, high, what)), None
    for reserved in RESERVED:
        if network.subnet_of(reserved):
            return _bad(name, value, "lies in the reserved range %s (%s)" % (reserved, what)), None
    return None, network


def _whole(name, value, low, high, hint=""):
    """A whole number in [low, high]: (sentence or None, the number or None)."""
    number = input_checks.whole_number(value)
    if number is None:
        return _bad(name, value, "must be a whole number, not %s" % _type_name(value)), None
    if number < low:
        return _bad(name, value, "must be at least %d%s" % (low, hint)), None
    if high is not None and number > high:
        return _bad(name, value, "must be at most %d%s" % (high, hint)), None
    return None, number


def _boolean(name, value):
    if input_checks.boolean(value) is None:
        return _bad(name, value, "must be true or false")
    return None


def _name(settings):
    value = settings["scc_cloud_name"]
    problem = _string("scc_cloud_name", value, "'bert'")
    if problem:
        return problem
    if not 2 <= len(value) <= 31:
        return _bad("scc_cloud_name", value, "must be 2 to 31 characters (it prefixes every resource name)")
    if not NAME.match(value):
        return _bad("scc_cloud_name", value, "must start with a letter and hold only a-z, 0-9 and '-'")
    if value.endswith("-") or "--" in value:
        return _bad("scc_cloud_name", value, "must not end with '-' nor hold '--' (names are <name>-vpc, <name>-node)")
    return None


def _region(settings):
    value = settings["scc_cloud_region"]
    problem = _string("scc_cloud_region", value, "'cn-shanghai'")
    if problem:
        return problem
    if not REGION.match(value):
        return _bad("scc_cloud_region", value, "must be a region ID such as cn-shanghai or ap-southeast-1")
    return None


def _zone(settings, region_ok):
    value = settings["scc_cloud_zone"]
    problem = _string("scc_cloud_zone", value, "'cn-shanghai-b'")
    if problem or not region_ok:
        return problem
    region = settings["scc_cloud_region"]
    if not re.match("^%s(-[a-z0-9]+|[a-z])\\Z" % re.escape(region), value):
        return _bad(
            "scc_cloud_zone", value, "must be a zone of scc_cloud_region %s, such as %s-b" % (show(region), region)
        )
    return None


def _tags(settings):
    value = settings["scc_cloud_tags"]
    name = "scc_cloud_tags"
    if not isinstance(value, dict):
        return _bad(name, value, "must be a mapping of tag keys to values, not %s" % _type_name(value))
    if value.get("managed-by") != "scc.training":
        return _bad(name, value, "must carry managed-by: scc.training (teardown.yml deletes only what carries it)")
    if len(value) > MAX_TAGS:
        return _bad(
            name, value, "holds %d tags, more than %d (20 per resource, one is scc-role)" % (len(value), MAX_TAGS)
        )
    for key, text in value.items():
        if not isinstance(key, str) or not key or len(key) > TAG_TEXT_MAX:
            return _bad(name, value, "has the key %s: a key is a string of 1 to 128 characters" % show(key))
        if key.lower().startswith(("aliyun", "acs:")) or re.search("https?://", key):
            return _bad(name, value, "has the key %s: a key must not start with aliyun or acs: nor hold http://" % key)
        if isinstance(text, bool) or not isinstance(text, (str, int, float)):
            return _bad(name, value, "has a value of %s that is %s: a tag value is a string" % (key, _type_name(text)))
        text = str(text)
        if len(text) > TAG_TEXT_MAX or re.search("https?://", text) or _one_line(name, text):
            return _bad(name, value, "has the value of %s: at most 128 characters, one line, no http://" % key)
    return None


def _endpoint(settings, name):
    value = settings[name]
    if value is None or value == "":
        return None
    problem = _string(name, value, "'' or 'ecs.cn-shanghai.aliyuncs.com'")
    if problem:
        return problem
    if not ENDPOINT.match(value):
        return _bad(name, value, "must be empty or a host name, optionally with http(s):// and a port")
    return None


def _instance_type(settings):
    value = settings["scc_cloud_instance_type"]
    name = "scc_cloud_instance_type"
    problem = _string(name, value, "'ecs.ebmgn8v.48xlarge'")
    if problem:
        return problem
    match = INSTANCE_TYPE.match(value)
    if not match:
        return _bad(name, value, "must be ecs.<family>.<size>, such as ecs.ebmgn8v.48xlarge")
    facts = instance_families.FAMILIES.get(match.group(1))
    if facts is not None and value not in facts["instance_types"]:
        return _bad(
            name,
            value,
            "is not a size of family %s in the supported-instance table (its types: %s)"
            % (match.group(1), ", ".join(facts["instance_types"])),
        )
    return None


def _image(settings, name, required=True):
    value = settings[name]
    if not required and (value is None or value == ""):
        return None
    problem = _string(name, value, "'aliyun_3_x64_20G_uefi_alibase_20250101.vhd'")
    if problem:
        return problem
    if not IMAGE_ID.match(value):
        return _bad(name, value, "must be an image ID (1 to 128 letters, digits, '.', '_', ':', '-'; no blank)")
    return None


# Resource IDs as the API writes them (vpc-, vsw-, sg- and lower-case letters and digits): the pattern is this
# collection's, UNCONFIRMED beyond the prefixes the API reference's examples show.
RESOURCE_IDS = (
    ("scc_cloud_vpc_id", re.compile(r"^vpc-[a-z0-9]{1,64}\Z"), "vpc-"),
    ("scc_cloud_vswitch_id", re.compile(r"^vsw-[a-z0-9]{1,64}\Z"), "vsw-"),
    ("scc_cloud_security_group_id", re.compile(r"^sg-[a-z0-9]{1,64}\Z"), "sg-"),
)


def _resource_ids(settings):
    """An existing VPC, VSwitch and security group given by ID (empty: provision.yml makes them): each its prefix and
    lower-case letters and digits; a VSwitch or security group only inside a given VPC."""
    found = []
    for name, pattern, prefix in RESOURCE_IDS:
        value = settings.get(name)
        if name not in settings or value is None or value == "":
            continue
        problem = _string(name, value, "'%sabc123'" % prefix)
        if problem is None and not pattern.match(value):
            problem = _bad(name, value, "must be %s followed by lower-case letters and digits, or empty" % prefix)
        found.append(problem)
    if not settings.get("scc_cloud_vpc_id"):
        for name in ("scc_cloud_vswitch_id", "scc_cloud_security_group_id"):
            if settings.get(name):
                found.append(_bad(name, settings[name], "needs scc_cloud_vpc_id, the VPC it is in"))
    return found


def _known_hosts(settings):
    """The file provision.yml writes the nodes' host keys to and teardown.yml deletes."""
    name = "scc_cloud_known_hosts_file"
    value = settings[name]
    problem = _string(name, value, "'~/.ssh/scc-bert.known_hosts'")
    if problem:
        return problem
    if not value or value.endswith("/"):
        return _bad(name, value, "must name a file (provision.yml writes the nodes' host keys there)")
    return _one_line(name, value)


def _host_keys_timeout(settings):
    value = settings["scc_cloud_host_keys_timeout"]
    if isinstance(value, bool) or input_checks.whole_number(value) is None or input_checks.whole_number(value) < 1:
        return _bad(
            "scc_cloud_host_keys_timeout",
            value,
            "must be a whole number of seconds, at least 1 (the wait for cloud-init to print each node's host keys)",
        )
    return None


def _key_pair(settings):
    value = settings["scc_cloud_key_pair_name"]
    name = "scc_cloud_key_pair_name"
    if value is None or value == "":
        return None
    problem = _string(name, value, "'my-key'")
    if problem:
        return problem
    if not KEY_PAIR.match(value):
        return _bad(
            name, value, "must be 2 to 128 letters, digits, ':', '_' or '-', starting with a letter (CreateKeyPair)"
        )
    return None


def _count(settings, vswitch):
    name = "scc_cloud_instance_count"
    hint = (
        ": CPFS serves at most %d compute nodes, and RunInstances also needs that many in your account's ECS quota"
        " (vCPUs of the family in the region, Quota Center)" % MAX_INSTANCES
    )
    problem, count = _whole(name, settings[name], 0, MAX_INSTANCES, hint)
    if problem:
        return problem
    if count == 0 and "scc_cloud_release_all_nodes" in settings:
        if input_checks.boolean(settings["scc_cloud_release_all_nodes"]) is False:
            return (
                "scc_cloud_instance_count is 0, which releases every node of cluster %s; set "
                "scc_cloud_release_all_nodes: true to mean it (teardown.yml deletes the whole cluster); nothing was "
                "changed." % show(settings.get("scc_cloud_name"))
            )
    if vswitch is not None:
        plan = cloud_nodes.node_plan(settings)
        per_node = 1 + plan["eri_count"]  # node_plan's eri_count is a whole number, 0 when none is known
        usable = vswitch.num_addresses - VSWITCH_RESERVED_ADDRESSES
        if count * per_node > usable:
            return _bad(
                name,
                count,
                "needs %d addresses (%d per node, its ENI and ERIs) but scc_cloud_vswitch_cidr %s holds %d"
                % (count * per_node, per_node, vswitch, usable),
            )
    return None


def _capacity(settings):
    name = "scc_cloud_cpfs_capacity"
    problem, gib = _whole(name, settings[name], CPFS_MIN_GIB, CPFS_MAX_GIB, " GiB (CPFS: 3600 GiB to 1 PiB)")
    if problem:
        return problem
    if gib % CPFS_STEP_GIB:
        return _bad(name, gib, "must be a multiple of %d GiB (CPFS's capacity step)" % CPFS_STEP_GIB)
    return None


def _export_path(settings):
    name = "scc_cloud_cpfs_nfs_export_path"
    value = settings[name]
    problem = _string(name, value, "'/'")
    if problem:
        return problem
    if not 1 <= len(value) <= EXPORT_PATH_MAX:
        return _bad(name, value, "must be 1 to 1024 characters")
    if not (value.startswith("/") and value.endswith("/")):
        return _bad(name, value, "must start and end with '/', such as / or /share/")
    if re.search(r"(^|/)\.\.?(/|$)", value) or "//" in value:
        return _bad(name, value, "must not hold '.', '..' or empty segments")
    return _one_line(name, value)


def _ssh_cidr(name, value):
    problem = _string(name, value, "'192.168.0.0/16'")
    if problem:
        return problem
    try:
        network = ipaddress.ip_network(value, strict=True)
    except ValueError:
        return _bad(name, value, "must be an IPv4 CIDR block or address such as 192.168.0.0/16")
    if network.version != 4:
        return _bad(name, value, "must be an IPv4 CIDR block (SourceCidrIp), not IPv6")
    if network.prefixlen == 0:
        return _bad(name, value, "opens ssh to the whole internet: name your admin network instead")
    return None


def _cidr_list(name, value):
    if not isinstance(value, list):
        return _bad(name, value, "must be a list of IPv4 CIDR blocks, not %s" % _type_name(value))
    for item in value:
        if _ssh_cidr(name, item):
            return _bad(name, value, "holds %s, which is not an IPv4 CIDR block other than 0.0.0.0/0" % show(item))
    return None


ACCESS = ("vpc", "bastion")
MAX_ADMIN_CIDRS = 50


def _access(settings):
    """How the controller reaches the nodes: vpc (it runs inside the VPC) or bastion (an ECS with an EIP, SSH from
    scc_cloud_admin_cidrs only)."""
    value = settings["scc_cloud_access"]
    if value not in ACCESS or not isinstance(value, str):
        return _bad("scc_cloud_access", value, "must be vpc (the controller runs inside the VPC) or bastion")
    return None


def _admin_cidrs(settings):
    """The admin networks SSH to the bastion is open from: required with scc_cloud_access bastion."""
    name = "scc_cloud_admin_cidrs"
    value = settings[name]
    bastion = settings.get("scc_cloud_access") == "bastion"
    if value is None or value == []:
        if bastion:
            return _bad(
                name,
                value,
                "is required with scc_cloud_access bastion: the admin networks (your office's or VPN's public"
                " block, such as 203.0.113.0/24) that may SSH to the bastion",
            )
        return None
    if not isinstance(value, list):
        return _bad(name, value, "must be a list of IPv4 CIDR blocks, not %s" % _type_name(value))
    if len(value) > MAX_ADMIN_CIDRS:
        return _bad(name, value, "holds %d blocks, more than %d" % (len(value), MAX_ADMIN_CIDRS))
    allow = settings.get("scc_cloud_admin_cidrs_allow_internet", False)
    for item in value:
        problem = _ssh_cidr(name, item)
        if problem is None:
            continue
        if input_checks.is_text(item) and _network(item) is not None and _network(item).prefixlen == 0:
            if input_checks.boolean(allow) is True:
                continue
            return _bad(
                name,
                value,
                "holds %s, which opens SSH to the bastion from the whole internet; name your admin networks, or set"
                " scc_cloud_admin_cidrs_allow_internet: true to mean it" % show(item),
            )
        return _bad(name, value, "holds %s, which is not an IPv4 CIDR block such as 203.0.113.0/24" % show(item))
    return None


def _bastion(settings):
    """The bastion's instance type and image (only with scc_cloud_access bastion)."""
    found = []
    name = "scc_cloud_bastion_instance_type"
    if name in settings:
        value = settings[name]
        problem = _string(name, value, "'ecs.g7.large'")
        if problem is None and not INSTANCE_TYPE.match(value):
            problem = _bad(name, value, "must be ecs.<family>.<size>, such as ecs.g7.large")
        found.append(problem)
    if "scc_cloud_bastion_image_id" in settings:
        found.append(_image(settings, "scc_cloud_bastion_image_id", required=False))
    return found


def ssh_rules(sources, description=None):
    """ecs_security_group's ``rules`` opening SSH (tcp 22) from each of ``sources`` (CIDR blocks or addresses, an
    address as its /32), in their order, each once: the bastion's from scc_cloud_admin_cidrs, the nodes' from the
    bastion's private address. ``description``, when given, is every rule's (what tells a later run the rule is
    provision.yml's: ecs_security_group's purge_descriptions)."""
    rules = []
    for source in sources:
        network = str(ipaddress.ip_network(source, strict=True))
        rule = {"ip_protocol": "tcp", "port_range": "22/22", "source_cidr_ip": network}
        if description:
            rule["description"] = description
        if rule not in rules:
            rules.append(rule)
    return rules


def _present(settings, *names):
    return all(name in settings for name in names)


def problems(settings):
    """``scc_cloud_*`` settings -> one sentence per bad variable (empty when all is well); see the module doc."""
    if not isinstance(settings, dict):
        return ["the scc_cloud_* settings must be a mapping, not %s." % _type_name(settings)]
    found = []
    simple = {
        "scc_cloud_name": _name,
        "scc_cloud_region": _region,
        "scc_cloud_tags": _tags,
        "scc_cloud_instance_type": _instance_type,
        "scc_cloud_image_id": lambda s: _image(s, "scc_cloud_image_id"),
        "scc_cloud_key_pair_name": _key_pair,
        "scc_cloud_cpfs_nfs_export_path": _export_path,
        "scc_cloud_known_hosts_file": _known_hosts,
        "scc_cloud_host_keys_timeout": _host_keys_timeout,
    }
    for name, check in simple.items():
        if name in settings:
            found.append(check(settings))
    if "scc_cloud_zone" in settings:
        region_ok = "scc_cloud_region" in settings and _region(settings) is None
        found.append(_zone(settings, region_ok))
    for name in ("scc_cloud_ecs_endpoint", "scc_cloud_nas_endpoint", "scc_cloud_cs_endpoint", "scc_cloud_vpc_endpoint"):
        if name in settings:
            found.append(_endpoint(settings, name))
    for name in (
        "scc_cloud_release_all_nodes",
        "scc_cloud_jumbo_frames",
        "scc_cloud_auto_renew",
        "scc_cloud_cpfs_enabled",
        "scc_cloud_data_prep_enabled",
        "scc_cloud_ack_enabled",
        "scc_cloud_nat_gateway",
    ):
        if name in settings:
            found.append(_boolean(name, settings[name]))
    if "scc_cloud_nat_bandwidth" in settings:
        # AllocateEipAddressRequest.bandwidth (alibabacloud_vpc20160428 7.2.2): pay-by-traffic, 1 to 200 Mbit/s.
        value = settings["scc_cloud_nat_bandwidth"]
        problem = None if not isinstance(value, bool) else _bad("scc_cloud_nat_bandwidth", value, "must be 1 to 200")
        found.append(problem or _whole("scc_cloud_nat_bandwidth", value, 1, 200, " Mbit/s (a pay-by-traffic EIP)")[0])
    vpc = vswitch = None
    if "scc_cloud_vpc_cidr" in settings:
        problem, vpc = _cidr(
            "scc_cloud_vpc_cidr", settings["scc_cloud_vpc_cidr"], VPC_PREFIX, "192.168.0.0/16", "CreateVpc"
        )
        found.append(problem)
    if "scc_cloud_vswitch_cidr" in settings:
        problem, vswitch = _cidr(
            "scc_cloud_vswitch_cidr",
            settings["scc_cloud_vswitch_cidr"],
            VSWITCH_PREFIX,
            "192.168.0.0/24",
            "CreateVSwitch",
        )
        if problem is None and vpc is not None and not vswitch.subnet_of(vpc):
            problem = _bad(
                "scc_cloud_vswitch_cidr",
                settings["scc_cloud_vswitch_cidr"],
                "must lie inside scc_cloud_vpc_cidr %s" % vpc,
            )
            vswitch = None
        found.append(problem)
    if "scc_cloud_ssh_source_cidr" in settings:
        found.append(_ssh_cidr("scc_cloud_ssh_source_cidr", settings["scc_cloud_ssh_source_cidr"]))
    # Lists of CIDR blocks a later variable may add (scc_cloud_admin_cidrs, ...): judged alike when present.
    for name in sorted(n for n in settings if n.startswith("scc_cloud_") and n.endswith("_cidrs")):
        if name != "scc_cloud_admin_cidrs":
            found.append(_cidr_list(name, settings[name]))
    if "scc_cloud_access" in settings:
        found.append(_access(settings))
    if "scc_cloud_admin_cidrs" in settings:
        found.append(_admin_cidrs(settings))
    if "scc_cloud_admin_cidrs_allow_internet" in settings:
        found.append(_boolean("scc_cloud_admin_cidrs_allow_internet", settings["scc_cloud_admin_cidrs_allow_internet"]))
    if settings.get("scc_cloud_access") == "bastion":
        found.extend(_bastion(settings))
    if "scc_cloud_instance_count" in settings:
        found.append(_count(settings, vswitch))
    if "scc_cloud_cpfs_capacity" in settings and input_checks.boolean(settings.get("scc_cloud_cpfs_enabled", True)):
        found.append(_capacity(settings))
    found.extend(_plan_problems(settings))
    if "scc_cloud_instance_charge_type" in settings:
        found.append(_charge(settings))
        if settings["scc_cloud_instance_charge_type"] != "PrePaid" and input_checks.boolean(
            settings.get("scc_cloud_auto_renew", False)
        ):
            renew = settings["scc_cloud_auto_renew"]
            found.append(_bad("scc_cloud_auto_renew", renew, "is for scc_cloud_instance_charge_type PrePaid only"))
    found.extend(_resource_ids(settings))
    found.extend(_part_problems(settings))
    return [problem for problem in found if problem]


def _charge(settings):
    """The subscription: a period only with PrePaid, then required and one of its unit's valid lengths."""
    charge, period = settings.get("scc_cloud_instance_charge_type", "PostPaid"), settings.get("scc_cloud_period")
    if charge not in ("PostPaid", "PrePaid"):
        return _bad("scc_cloud_instance_charge_type", charge, "must be PostPaid or PrePaid")
    if charge == "PostPaid":
        if period is not None:
            return _bad("scc_cloud_period", period, "is for scc_cloud_instance_charge_type PrePaid only")
        return None
    unit = settings.get("scc_cloud_period_unit", "Month")
    valid = cloud_nodes.PERIODS.get(unit) if isinstance(unit, str) else None
    if valid is None:
        return _bad("scc_cloud_period_unit", unit, "must be Week or Month")
    lengths = ", ".join(map(str, valid))
    if period is None:
        return _bad("scc_cloud_period", period, "is required with PrePaid (%s: %s)" % (unit, lengths))
    if input_checks.whole_number(period) not in valid:
        return _bad("scc_cloud_period", period, "is not a valid %s subscription (%s)" % (unit, lengths))
    return None


def _plan_problems(settings):
    """cloud_nodes.node_plan's ERI problems, once the instance type is a string (the rest is judged here)."""
    names = ("scc_cloud_instance_type", "scc_cloud_eri_count", "scc_cloud_instance_charge_type")
    if not _present(settings, *names) or _instance_type(settings) is not None:
        return []
    plan = dict(settings, scc_cloud_instance_charge_type="PostPaid", scc_cloud_period=None)
    plan["scc_cloud_jumbo_frames"] = input_checks.boolean(settings.get("scc_cloud_jumbo_frames", False))
    found = [
        p.rstrip(".") + "." for p in cloud_nodes.node_plan(plan)["problems"] if p.startswith("scc_cloud_eri_count")
    ]
    return found


def _part_problems(settings):
    """The data-prep ECS and ACK (data_prep.py, ack.py), their switches read as Ansible reads a boolean."""
    found = []
    # Only where provision.yml's variables are given: teardown.yml passes the switches alone.
    if "scc_cloud_data_prep_instance_type" in settings and input_checks.boolean(
        settings["scc_cloud_data_prep_enabled"]
    ):
        part = dict(settings, scc_cloud_data_prep_enabled=True)
        for name in ("scc_cloud_data_prep_instance_type", "scc_cloud_data_prep_image_id"):
            problem = _string(name, part.get(name), "'ecs.g7.8xlarge'" if "type" in name else "'m-...'")
            if problem:
                found.append(problem)
                part[name] = ""
        found.extend(p for p in data_prep.data_prep_input_problems(part) if not _names_in(p, found))
    if "scc_cloud_ack_service_cidr" in settings and input_checks.boolean(settings["scc_cloud_ack_enabled"]):
        part = dict(settings, scc_cloud_ack_enabled=True)
        for name in (
            "scc_cloud_ack_kubernetes_version",
            "scc_cloud_ack_service_cidr",
            "scc_cloud_ack_network_plugin",
            "scc_cloud_ack_pod_cidr",
            "scc_cloud_ack_node_password",
        ):
            if part.get(name) is not None and not input_checks.is_text(part.get(name)):
                shown = "(hidden)" if name.endswith("password") else show(part[name])
                found.append("%s (%s) must be a string, not %s." % (name, shown, _type_name(part[name])))
                part[name] = ""
        found.extend(p for p in ack_input_problems(part) if not _names_in(p, found))
    return found


def _names_in(problem, found):
    """Whether ``problem``'s variable (its first word) was already refused in ``found``."""
    first = problem.split(" ", 1)[0]
    return any(f.startswith(first + " ") for f in found)
