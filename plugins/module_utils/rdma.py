# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""RDMA (InfiniBand / RoCE) parsers shared by the rdma_info module and the filters.

- ``parse_ibv_devinfo``: ``ibv_devinfo`` and ``ibv_devinfo -v`` text -> list of devices.
- ``parse_ibstat``: ``ibstat`` text -> dict keyed by CA name.
- ``read_sysfs``: ``/sys/class/infiniband`` (or a copy of it) -> list of devices, the same
  shape as ``parse_ibv_devinfo`` plus rate, netdev, GID types and the slaves of a bonded netdev.
- ``roce_v2_gid_index``: the GID index NCCL should use on a RoCE port.
- ``port_links``: the physical links behind a port (a bonded port has several).
- ``port_problems``: one readable line per port that is not as expected (ib_check).
- ``stack_problems``: what the RDMA userspace does not show as it should (rdma_stack).
- ``netdev_mtu_plan``: the RDMA ports' interfaces whose MTU rdma_stack sets now and at every boot (a
  systemd.link file each), from rdma_info's result.
- ``rdma_stack_input_problems``: rdma_stack's rules across its variables (its validate.yml).
- ``nccl_ib_env``: the NCCL environment for RDMA from rdma_info's devices (bert_launch).

Pure Python, no Ansible imports: the filters and the module both wrap these functions.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

from ansible_collections.scc.training.plugins.module_utils import instance_families
from ansible_collections.scc.training.plugins.module_utils.input_checks import (
    ABSOLUTE,
    MIRROR,
    SHA256,
    at_least,
    matches,
    number,
    text,
)

# ibv_devinfo prints "state: PORT_ACTIVE (4)"; sysfs "4: ACTIVE"; ibstat "Active".
# Every source is normalised to ibv_devinfo's names, which ib_check compares against.
_SYSFS_STATE = {
    "NOP": "PORT_NOP",
    "DOWN": "PORT_DOWN",
    "INIT": "PORT_INIT",
    "ARMED": "PORT_ARMED",
    "ACTIVE": "PORT_ACTIVE",
    "ACTIVE_DEFER": "PORT_ACTIVE_DEFER",
}
_IBSTAT_STATE = {
    "Down": "PORT_DOWN",
    "Initializing": "PORT_INIT",
    "Armed": "PORT_ARMED",
    "Active": "PORT_ACTIVE",
}

# What parse_ibstat reports of a CA and of each of its ports (null when ibstat does not say).
_IBSTAT_CA_KEYS = (
    "ca_type",
    "number_of_ports",
    "firmware_version",
    "hardware_version",
    "node_guid",
    "system_image_guid",
)
_IBSTAT_PORT_KEYS = (
    "state",
    "physical_state",
    "rate_gbps",
    "base_lid",
    "lmc",
    "sm_lid",
    "capability_mask",
    "port_guid",
    "link_layer",
)
# A port's fields in every source's result (ibv_devinfo's names).
_PORT_FIELDS = (
    "state",
    "phys_state",
    "link_layer",
    "max_mtu",
    "active_mtu",
    "active_width",
    "active_speed",
    "sm_lid",
    "port_lid",
)
_DEVICE_INT_KEYS = ("vendor_part_id", "phys_port_cnt")
_PORT_INT_KEYS = ("sm_lid", "port_lid")
_KEY_VALUE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_ ]*?):\s*(.*?)\s*$")
_GID_LINE = re.compile(r"^\s*GID\[\s*(\d+)\]:\s*(\S+?)(?:,\s*(.+?))?\s*$")
_PAREN_NUM = re.compile(r"^(.*?)\s*\((\d+)\)$")
_RATE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*Gb/sec")
_ZERO_GID = re.compile(r"^[0:]+$")


def _port(number, **known):
    """A port in ibv_devinfo's shape: every field null unless the source gave it in `known`."""
    port = dict.fromkeys(_PORT_FIELDS)
    port.update(known, port=number)
    return port


def _int_or_none(text):
    try:
        return int(text, 0)
    except (TypeError, ValueError):
        return None


def _num(text):
    """'25' -> 25, '2.5' -> 2.5, anything else -> None."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return int(value) if value.is_integer() else value


def _strip_code(text):
    """'PORT_ACTIVE (4)' -> 'PORT_ACTIVE'; '4096 (5)' -> '4096'."""
    match = _PAREN_NUM.match(text)
    return match.group(1) if match else text


def _gid_type(text):
    """Normalise a GID type: 'RoCE v2', 'IB/RoCE v1' (sysfs), 'RoCE v1', 'IB'."""
    if not text:
        return None
    text = text.strip()
    if text.lower().endswith("v2"):
        return "RoCE v2"
    if text.lower().endswith("v1"):
        return "RoCE v1"
    return text


def parse_ibv_devinfo(text):
    """Parse ``ibv_devinfo`` or ``ibv_devinfo -v`` output into a list of devices.

    Each device: ``name`` (hca_id), ``transport``, ``fw_ver``, ``node_guid``, ``sys_image_guid``,
    ``vendor_id``, ``vendor_part_id``, ``board_id``, ``phys_port_cnt`` and ``ports``, a list of
    ``port`` (int), ``state`` (e.g. PORT_ACTIVE), ``phys_state``, ``link_layer``, ``max_mtu`` and
    ``active_mtu`` (ints), ``active_width``, ``active_speed`` (``-v`` only, else None) and
    ``gids`` (``-v`` only: ``index``, ``gid``, ``type``, the type printed by rdma-core >= 28).
    Lines that are neither (device flags, "Failed to open device") are skipped.
    """
    devices = []
    device = None
    port = None
    for raw in (text or "").splitlines():
        line = raw.rstrip()
        if not line.strip():
            continue
        stripped = line.strip()
        if stripped.startswith("hca_id:"):
            device = {
                "name": stripped.split(":", 1)[1].strip(),
                "transport": None,
                "fw_ver": None,
                "node_guid": None,
                "sys_image_guid": None,
                "vendor_id": None,
                "vendor_part_id": None,
                "board_id": None,
                "phys_port_cnt": None,
                "ports": [],
            }
            devices.append(device)
            port = None
            continue
        if device is None:
            continue
        gid = _GID_LINE.match(line)
        if gid and port is not None:
            port["gids"].append(
                {
                    "index": int(gid.group(1)),
                    "gid": gid.group(2),
                    "type": _gid_type(gid.group(3)),
                }
            )
            continue
        match = _KEY_VALUE.match(line)
        if not match:
            continue
        key, value = match.group(1).strip(), match.group(2)
        if key == "port":
            port = _port(int(value), gids=[])
            device["ports"].append(port)
            continue
        if port is not None:
            if key in ("state", "phys_state", "link_layer", "active_width", "active_speed"):
                port[key] = _strip_code(value)
            elif key in ("max_mtu", "active_mtu"):
                port[key] = _int_or_none(_strip_code(value))
            elif key in _PORT_INT_KEYS:
                port[key] = _int_or_none(value)
            continue
        if key in ("transport", "fw_ver", "node_guid", "sys_image_guid", "vendor_id", "board_id"):
            device[key] = value
        elif key in _DEVICE_INT_KEYS:
            device[key] = _int_or_none(value)
    return devices


def parse_ibstat(text):
    """Parse ``ibstat`` output into ``{ca_name: {ca_type, number_of_ports, firmware_version,
    hardware_version, node_guid, system_image_guid, ports: {port_number: {state, physical_state,
    rate_gbps, base_lid, lmc, sm_lid, capability_mask, port_guid, link_layer}}}}``.

    ``rate_gbps`` is a number (25, 2.5); lids and lmc are ints.
    """
    cas = {}
    ca = None
    port = None
    for raw in (text or "").splitlines():
        line = raw.strip()
        if not line:
            continue
        head = re.match(r"^CA '([^']+)'$", line)
        if head:
            ca = dict(dict.fromkeys(_IBSTAT_CA_KEYS), ports={})
            cas[head.group(1)] = ca
            port = None
            continue
        if ca is None:
            continue
        head = re.match(r"^Port (\d+):$", line)
        if head:
            port = dict.fromkeys(_IBSTAT_PORT_KEYS)
            ca["ports"][int(head.group(1))] = port
            continue
        if ":" not in line:
            continue
        key, value = line.split(":", 1)
        key = key.strip().lower().replace(" ", "_")
        value = value.strip()
        if port is not None:
            if key == "rate":
                port["rate_gbps"] = _num(value)
            elif key in ("base_lid", "lmc", "sm_lid"):
                port[key] = _int_or_none(value)
            elif key in port:
                port[key] = value
            continue
        if key == "number_of_ports":
            ca[key] = _int_or_none(value)
        elif key in ca:
            ca[key] = value
    return cas


def normalise_ibstat_state(state):
    """ibstat's 'Active' -> 'PORT_ACTIVE' (ibv_devinfo's name); unknown values unchanged."""
    return _IBSTAT_STATE.get(state, state)


def _read(path):
    """A sysfs attribute's text, or None when it is absent or unreadable (EINVAL for unset GIDs)."""
    try:
        with open(path, "r") as handle:
            return handle.read().strip()
    except (IOError, OSError, UnicodeDecodeError):
        return None


def _listdir(path):
    try:
        return sorted(os.listdir(path))
    except (IOError, OSError):
        return []


def _sysfs_state(text):
    """'4: ACTIVE' -> 'PORT_ACTIVE'; '5: LinkUp' -> 'LinkUp' (phys_state keeps its name)."""
    if text is None:
        return None
    name = text.split(":", 1)[1].strip() if ":" in text else text.strip()
    return _SYSFS_STATE.get(name, name)


def _bond_slaves(net_root, netdev):
    """The slave interfaces of a bonding master (``<net>/<netdev>/bonding/slaves``), else []."""
    if not netdev:
        return []
    return (_read(os.path.join(net_root, netdev, "bonding", "slaves")) or "").split()


def _sysfs_gids(port_dir):
    """Populated GIDs of one port with their type and netdev (unset entries are all zeros)."""
    gids = []
    for entry in _listdir(os.path.join(port_dir, "gids")):
        if not entry.isdigit():
            continue
        value = _read(os.path.join(port_dir, "gids", entry))
        if not value or _ZERO_GID.match(value):
            continue
        gids.append(
            {
                "index": int(entry),
                "gid": value,
                "type": _gid_type(_read(os.path.join(port_dir, "gid_attrs", "types", entry))),
                "netdev": _read(os.path.join(port_dir, "gid_attrs", "ndevs", entry)),
            }
        )
    gids.sort(key=lambda g: g["index"])
    return gids


def read_sysfs(root="/sys/class/infiniband"):
    """Read every RDMA device under ``root`` (``/sys/class/infiniband`` or a fixture copy).

    Returns the ``parse_ibv_devinfo`` shape; each port also has ``rate_gbps``, ``netdev`` (the
    netdev of its GIDs, for RoCE), ``netdev_mtu`` and ``netdev_address`` (its MAC address), ``gids`` with ``type`` and ``netdev``, and ``bond_slaves``:
    when that netdev is a bonding master, its slaves, read from the ``net`` class directory next
    to ``root`` (``/sys/class/net``): a RoCE LAG port (mlx5 names its device ``mlx5_bond_<n>``)
    carries the links of all of them. An absent or empty ``root`` gives an empty list (a host
    without RDMA devices).
    """
    net_root = os.path.join(os.path.dirname(os.path.normpath(root)), "net")
    devices = []
    for name in _listdir(root):
        dev_dir = os.path.join(root, name)
        ports = []
        for entry in _listdir(os.path.join(dev_dir, "ports")):
            if not entry.isdigit():
                continue
            port_dir = os.path.join(dev_dir, "ports", entry)
            rate = _RATE.match(_read(os.path.join(port_dir, "rate")) or "")
            gids = _sysfs_gids(port_dir)
            netdevs = [g["netdev"] for g in gids if g["netdev"]]
            netdev = netdevs[0] if netdevs else None
            ports.append(
                _port(
                    int(entry),
                    netdev_mtu=_int_or_none(_read(os.path.join(net_root, netdev, "mtu"))) if netdev else None,
                    state=_sysfs_state(_read(os.path.join(port_dir, "state"))),
                    phys_state=_sysfs_state(_read(os.path.join(port_dir, "phys_state"))),
                    link_layer=_read(os.path.join(port_dir, "link_layer")),
                    rate_gbps=_num(rate.group(1)) if rate else None,
                    netdev=netdevs[0] if netdevs else None,
                    netdev_address=_read(os.path.join(net_root, netdev, "address")) if netdev else None,
                    bond_slaves=_bond_slaves(net_root, netdevs[0] if netdevs else None),
                    gids=gids,
                )
            )
        ports.sort(key=lambda p: p["port"])
        driver = os.path.realpath(os.path.join(dev_dir, "device", "driver"))
        devices.append(
            {
                "name": name,
                "driver": os.path.basename(driver) if os.path.isdir(driver) else None,
                "transport": None,
                "fw_ver": _read(os.path.join(dev_dir, "fw_ver")),
                "node_guid": _read(os.path.join(dev_dir, "node_guid")),
                "sys_image_guid": _read(os.path.join(dev_dir, "sys_image_guid")),
                "vendor_id": None,
                "vendor_part_id": None,
                "board_id": _read(os.path.join(dev_dir, "board_id")),
                "phys_port_cnt": len(ports),
                "ports": ports,
            }
        )
    return devices


def _is_ipv4_mapped(gid):
    """::ffff:a.b.c.d as sysfs prints it (0000:...:ffff:0a0b:0c0d) or as ibv_devinfo -v does."""
    lowered = gid.lower()
    return lowered.startswith("::ffff:") or lowered.startswith("0000:0000:0000:0000:0000:ffff:")


def roce_v2_gid_index(gids):
    """The GID index NCCL should use: the first RoCE v2 GID that carries an IPv4 address (routable
    between subnets), else the first RoCE v2 GID, else None (InfiniBand, or types unknown)."""
    v2 = [g for g in gids or [] if g.get("type") == "RoCE v2"]
    for gid in v2:
        if _is_ipv4_mapped(gid.get("gid", "")):
            return gid["index"]
    return v2[0]["index"] if v2 else None


def merge_devices(tool_devices, sysfs_devices, ibstat=None):
    """ibv_devinfo's devices, completed from sysfs (rate, netdev, GID types) and ibstat (rate).

    ibv_devinfo without -v has no GIDs; older rdma-core prints no GID types; only sysfs knows
    the netdev of a RoCE port. Devices only sysfs knows are appended as they are.
    """
    by_name = {d["name"]: d for d in sysfs_devices or []}
    merged = []
    for device in tool_devices or []:
        sys_dev = by_name.pop(device["name"], None) or {"ports": []}
        device["driver"] = sys_dev.get("driver")
        sys_ports = {p["port"]: p for p in sys_dev["ports"]}
        ca_ports = ((ibstat or {}).get(device["name"]) or {}).get("ports", {})
        for port in device["ports"]:
            sys_port = sys_ports.get(port["port"], {})
            port["rate_gbps"] = sys_port.get("rate_gbps")
            if port["rate_gbps"] is None and port["port"] in ca_ports:
                port["rate_gbps"] = ca_ports[port["port"]]["rate_gbps"]
            port["netdev"] = sys_port.get("netdev")
            port["netdev_mtu"] = sys_port.get("netdev_mtu")
            port["netdev_address"] = sys_port.get("netdev_address")
            port["bond_slaves"] = sys_port.get("bond_slaves", [])
            if sys_port.get("gids"):
                port["gids"] = sys_port["gids"]
            else:
                for gid in port.get("gids", []):
                    gid.setdefault("netdev", None)
        merged.append(device)
    merged.extend(by_name[name] for name in sorted(by_name))
    return merged


def annotate_gid_index(devices):
    """Set ``roce_v2_gid_index`` on every port (None for InfiniBand ports)."""
    for device in devices:
        for port in device["ports"]:
            port.setdefault("rate_gbps", None)
            port.setdefault("netdev", None)
            port.setdefault("netdev_mtu", None)
            port.setdefault("netdev_address", None)
            port.setdefault("bond_slaves", [])
            port["roce_v2_gid_index"] = roce_v2_gid_index(port.get("gids"))
    return devices


def port_links(port):
    """The physical links behind a port: the slaves of its bonded netdev, else 1."""
    return len(port.get("bond_slaves") or []) or 1


def _port_name(device, port):
    """'mlx5_1 port 1 (eth2)', 'mlx5_bond_0 port 1 (bond0 of eth0, eth1)'."""
    netdev = port.get("netdev")
    if port.get("bond_slaves"):
        netdev = "%s of %s" % (netdev, ", ".join(port["bond_slaves"]))
    return "%s port %s%s" % (device["name"], port["port"], " (%s)" % netdev if netdev else "")


def _rate_ok(port, rate_gbps):
    """A port runs at ``rate_gbps``; a bonded port may report one link's rate or the sum of its links'
    (which one the mlx5 LAG device reports is not documented: both are accepted)."""
    rate = port.get("rate_gbps")
    return rate is not None and rate in (rate_gbps, rate_gbps * port_links(port))


def port_problems(devices, expected_links, link_layer, rate_gbps, state="PORT_ACTIVE"):
    """One readable line per problem: a wrong number of physical links, then each port whose state,
    link layer or rate is not the expected one. An empty list means the fabric is as expected.

    Links are counted, not devices: two separate ports (``mlx5_0``, ``mlx5_1``) and one bonded
    port whose bond has two slaves (``mlx5_bond_0``) are both two links of ``rate_gbps``.
    """
    devices = devices or []
    problems = []
    expected = _num(str(rate_gbps)) if rate_gbps is not None else None
    if expected_links is not None:
        links = sum(port_links(p) for d in devices for p in d.get("ports", []))
        if links != int(expected_links):
            problems.append(
                "%d link(s) found (%s), expected %d"
                % (
                    links,
                    ", ".join(_port_name(d, p) for d in devices for p in d.get("ports", [])) or "no RDMA device",
                    int(expected_links),
                )
            )
    for device in devices:
        if not device.get("ports"):
            problems.append("%s: no ports" % device["name"])
        for port in device.get("ports", []):
            wrong = []
            if port.get("state") != state:
                wrong.append("state %s, expected %s" % (port.get("state"), state))
            if link_layer and port.get("link_layer") != link_layer:
                wrong.append("link layer %s, expected %s" % (port.get("link_layer"), link_layer))
            if expected is not None and not _rate_ok(port, expected):
                accepted = sorted({expected, _num(str(expected * port_links(port)))})
                wrong.append(
                    "rate %s Gb/s, expected %s Gb/s" % (port.get("rate_gbps"), " or ".join(str(r) for r in accepted))
                )
            if wrong:
                problems.append("%s: %s" % (_port_name(device, port), "; ".join(wrong)))
    return problems


def is_erdma(device):
    """An Alibaba eRDMA device: its kernel driver (sysfs), its name (erdma_<n>; in compat/ofed mode it may carry a
    RoCE name such as rocep26s0, hardware_facts 4.6, hence the driver first), or ibv_devinfo's transport ("eRDMA (0)",
    a published output: tests/fixtures/rdma/ibv_devinfo_erdma_h20_stepmesh.txt)."""
    return (
        device.get("driver") == "erdma"
        or str(device.get("name") or "").startswith("erdma")
        or str(device.get("transport") or "").startswith("eRDMA")
    )


# eRDMA driver modes (the erdma module's compat_mode parameter, as Alibaba's ACK eRDMA controller loads it,
# AliyunContainerService/alibabacloud-erdma-controller internal/drivers/{default,compat,ofed}.go): default = iWARP
# (compat_mode=N: no RoCE v2 GID table); compat and ofed = RoCE-compatible (compat_mode=Y), the GIDs NCCL selects.
ERDMA_COMPAT_MODE = {"default": "N", "compat": "Y", "ofed": "Y"}


def _needs_roce_gid(device, port, erdma_mode):
    if port.get("link_layer") != "Ethernet":
        return False
    if is_erdma(device):
        return ERDMA_COMPAT_MODE.get(erdma_mode or "ofed") == "Y"
    return True


def stack_problems(result, mtu=None, netdev_mtu=None, erdma_mode=None):
    """What an RDMA stack does not show as it should, one readable line each (rdma_stack's verify).

    ``result`` is rdma_info's: the kernel lists a device; the userspace (libibverbs and the NIC's
    provider) lists it too (``source`` ibv_devinfo, not the sysfs fallback); every active port has
    a RoCE v2 entry in its GID table when its link layer is Ethernet -- for an eRDMA device only in the
    RoCE-compatible modes (``erdma_mode`` compat or ofed, the default here; mode default is iWARP, whose
    ports have none); with ``mtu``, every active port's active MTU is that many bytes; with
    ``netdev_mtu``, every active port's Ethernet interface has that MTU (eRDMA: 8500 with jumbo frames, else
    1400, Alibaba's "Configure eRDMA on GPU instances").
    """
    devices = result.get("devices") or []
    if not devices:
        return [
            "no RDMA device: the kernel lists none (load the NIC's RDMA driver: mlx5_ib for ConnectX, erdma for an "
            "Alibaba Elastic RDMA Interface)"
        ]
    problems = []
    if result.get("source") != "ibv_devinfo":
        problems.append(
            "the userspace lists no device while the kernel has %s: ibv_devinfo is missing or libibverbs has no "
            "provider for this NIC" % ", ".join(d["name"] for d in devices)
        )
    active = [(d, p) for d in devices for p in d.get("ports", []) if p.get("state") == "PORT_ACTIVE"]
    if not active:
        problems.append("no active port on %s" % ", ".join(d["name"] for d in devices))
    for device, port in active:
        if _needs_roce_gid(device, port, erdma_mode) and roce_v2_gid_index(port.get("gids")) is None:
            types = sorted({str(g.get("type")) for g in port.get("gids") or []})
            problems.append(
                "%s: no RoCE v2 entry in its GID table (GID types: %s)%s"
                % (
                    _port_name(device, port),
                    ", ".join(types) or "none",
                    "; the erdma driver runs in %s mode, which should give one (compat_mode=Y)" % (erdma_mode or "ofed")
                    if is_erdma(device)
                    else "",
                )
            )
        if mtu is not None and port.get("active_mtu") != int(mtu):
            problems.append(
                "%s: active MTU %s, expected %d" % (_port_name(device, port), port.get("active_mtu"), int(mtu))
            )
        if netdev_mtu is not None and port.get("netdev_mtu") != int(netdev_mtu):
            problems.append(
                "%s: interface MTU %s, expected %d (eRDMA: 8500 with jumbo frames, else 1400; a wrong MTU corrupts "
                "NCCL's LL128 data)" % (_port_name(device, port), port.get("netdev_mtu"), int(netdev_mtu))
            )
    return problems


# rdma_stack's systemd.link files: a name that sorts before netplan's 10-netplan-<if>.link and systemd's 99-default.link,
# since udev applies only the first .link file (in lexical order, across /etc, /run and /usr/lib) that matches a device
# (systemd.link(5), DESCRIPTION).
MTU_LINK_PREFIX = "05-scc-training-mtu-"
_NETDEV_NAME = re.compile(r"^[A-Za-z0-9_.:@-]{1,15}$")  # IFNAMSIZ - 1 (include/uapi/linux/if.h)
_MAC = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")


def mtu_link_file(netdev, address, mtu):
    """The systemd.link(5) file that gives one interface its MTU at every boot: matched by its MAC address (by its
    kernel name, ``OriginalName=``, when the MAC is unknown), keeping the name it has today (``Name=``: this file
    replaces, for this one device, the first-match .link that named it, e.g. 99-default.link's NamePolicy or netplan's
    set-name), ``MTUBytes=`` the MTU. Applied by udev's net_setup_link builtin when the device appears."""
    match = "MACAddress=%s" % address.lower() if address and _MAC.match(address) else "OriginalName=%s" % netdev
    return (
        "# The RDMA interface MTU (scc.training.rdma_stack): applied by udev's net_setup_link when %s appears.\n"
        "# A NetworkManager profile with its own MTU, or an MTU from DHCP, is applied later and wins.\n"
        "[Match]\n%s\n\n[Link]\nName=%s\nMTUBytes=%d\n" % (netdev, match, netdev, int(mtu))
    )


def netdev_mtu_plan(result, netdev_mtu, sysfs_path="/sys/class/infiniband"):
    """rdma_info's ``result`` and the MTU its ports' interfaces must have -> one entry per interface, in name order:
    ``{netdev, address, mtu_now, mtu, change, mtu_path, link_file, link}``. ``change``: its MTU differs now (what
    rdma_stack writes to ``mtu_path``, ``<sysfs_path>/../net/<netdev>/mtu``: the kernel's dev_set_mtu, as
    ``ip link set dev <netdev> mtu <mtu>``); ``link_file``/``link``: the systemd.link file's name and text
    (``mtu_link_file``). Every port with an interface counts, active or not; a port without one (its GID table names
    none) has nothing to set. ``netdev_mtu`` None -> [] (nothing declared: the family's hardware gives no MTU).
    ValueError on an MTU that is not a whole number from 68 (the IPv4 minimum, RFC 791) to 65535, or an interface
    name the kernel would not give."""
    if netdev_mtu is None:
        return []
    mtu = number(netdev_mtu)
    if mtu is None or not 68 <= mtu <= 65535:
        raise ValueError("rdma_stack_netdev_mtu must be a whole number from 68 to 65535, got %r" % (netdev_mtu,))
    net_root = os.path.join(os.path.dirname(os.path.normpath(sysfs_path)), "net")
    seen = {}
    for device in result.get("devices") or []:
        for port in device.get("ports") or []:
            netdev = port.get("netdev")
            if not netdev or netdev in seen:
                continue
            if not _NETDEV_NAME.match(netdev):
                raise ValueError("rdma_info reports an interface name the kernel would not give: %r" % (netdev,))
            address = port.get("netdev_address")
            seen[netdev] = {
                "netdev": netdev,
                "address": address,
                "mtu_now": port.get("netdev_mtu"),
                "mtu": mtu,
                "change": port.get("netdev_mtu") != mtu,
                "mtu_path": os.path.join(net_root, netdev, "mtu"),
                "link_file": "%s%s.link" % (MTU_LINK_PREFIX, netdev),
                "link": mtu_link_file(netdev, address, mtu),
            }
    return [seen[name] for name in sorted(seen)]


# The offline file of each source that has one: its pattern and how to say it.
_STACK_ARTIFACTS = {
    "doca": (
        r"^doca-host[-_][A-Za-z0-9._+-]+\.(deb|rpm)$",
        "the DOCA host repository package, doca-host_<version>_<arch>.deb or doca-host-<version>.<arch>.rpm",
    ),
    "mlnx_ofed": (
        r"^MLNX_OFED_LINUX-[0-9][0-9.-]*[0-9]-[A-Za-z0-9._-]+\.tgz$",
        "MLNX_OFED_LINUX-<version>-<os>-<arch>.tgz",
    ),
    "erdma": (
        r"^erdma_installer-[0-9][0-9.]*[0-9]\.tar\.gz$",
        "Alibaba's eRDMA installer, erdma_installer-<version>.tar.gz (e.g. erdma_installer-1.5.7.tar.gz)",
    ),
}
# RDMA MTUs (bytes). They stay here, not in the argument spec: its choices cannot allow null.
_RDMA_MTUS = (256, 512, 1024, 2048, 4096)


def _peermem_problems(source, cpu_only, erdma_mode=None):
    # nvidia-peermem registers with the peer-memory API of MLNX_OFED / DOCA-OFED's ib_core, which the
    # distribution's kernel and rdma-core do not have (hardware_facts 4.3): it cannot load there.
    problems = []
    if source == "distro":
        problems.append(
            "rdma_stack_peermem is true with rdma_stack_source: distro, but nvidia-peermem cannot load on the distribution's "
            "RDMA stack (it needs the peer-memory support of MLNX_OFED or DOCA-OFED): set rdma_stack_source: doca or "
            "mlnx_ofed, or rdma_stack_peermem: false (NCCL then stages GPU buffers through host memory)."
        )
    if source == "erdma" and erdma_mode != "ofed":
        problems.append(
            "rdma_stack_peermem is true with rdma_stack_source: erdma in rdma_stack_erdma_mode %s: Alibaba loads "
            "nvidia-peermem with the eRDMA driver in ofed mode only (its ACK eRDMA controller): set "
            "rdma_stack_erdma_mode: ofed, or rdma_stack_peermem: false." % erdma_mode
        )
    if cpu_only:
        problems.append(
            "rdma_stack_peermem is true but rdma_stack_cpu_only (from scc_cpu_only) declares hosts without a GPU: "
            "nvidia-peermem is GPUDirect RDMA, it needs the NVIDIA driver. Set rdma_stack_peermem: false."
        )
    return problems


def _artifact_problems(settings, source):
    mirror, name = text(settings["rdma_stack_mirror"]), text(settings["rdma_stack_artifact_name"])
    pattern, form = _STACK_ARTIFACTS[source]
    problems = []
    if not MIRROR.match(mirror):
        problems.append(
            "with rdma_stack_source %s, rdma_stack_mirror must be an http(s):// URL or an absolute controller directory "
            "(got '%s')." % (source, mirror)
        )
    if not SHA256.match(text(settings["rdma_stack_artifact_sha256"])):
        problems.append(
            "with rdma_stack_source %s, rdma_stack_artifact_sha256 must be the file's sha256 (64 lowercase hex digits)."
            % source
        )
    if not re.match(pattern, name):
        problems.append(
            "with rdma_stack_source %s, rdma_stack_artifact_name must be the file: %s (got '%s')."
            % (source, form, name)
        )
    return problems


def rdma_stack_input_problems(settings):
    """rdma_stack's variables -> one sentence per problem, naming the variable and its value ([] when all is well).

    ``settings``: the ``rdma_stack_*`` variables, ``rdma_stack_peermem`` and ``rdma_stack_cpu_only`` as bools,
    ``scc_instance_type`` as given (its type judged on it: see instance_families.declared_problems).
    """
    source, mtu = settings["rdma_stack_source"], settings["rdma_stack_mtu"]
    problems = (
        _peermem_problems(source, settings["rdma_stack_cpu_only"], settings.get("rdma_stack_erdma_mode", "ofed"))
        if settings["rdma_stack_peermem"]
        else []
    )
    problems += instance_families.declared_problems(settings.get("scc_instance_type"), "scc_instance_type")
    if isinstance(source, str) and source in _STACK_ARTIFACTS:
        problems.extend(_artifact_problems(settings, source))
    if mtu is not None and number(mtu) not in _RDMA_MTUS:
        problems.append(
            "rdma_stack_mtu must be null or an RDMA MTU, 256, 512, 1024, 2048 or 4096 bytes (got %s)." % mtu
        )
    for name in ("rdma_stack_artifacts_path", "rdma_stack_sysfs_path"):
        if not matches(ABSOLUTE, settings[name]):
            problems.append("%s must be an absolute path (got %s)." % (name, settings[name]))
    for name in ("rdma_stack_packages", "rdma_stack_doca_packages"):
        packages = settings[name]
        bad = (
            [p for p in packages if not matches(r"^[A-Za-z0-9][A-Za-z0-9._+-]*\Z", p)]
            if isinstance(packages, list)
            else None
        )
        if bad is None or bad:
            problems.append("%s must list package names (got %s)." % (name, packages if bad is None else bad))
    if not at_least(settings.get("rdma_stack_install_timeout_s", 3600), 60):
        problems.append(
            "rdma_stack_install_timeout_s must be at least 60 seconds (got %s)."
            % settings.get("rdma_stack_install_timeout_s")
        )
    return problems


def nccl_ib_env(devices, socket_interface, debug="INFO"):
    """NCCL's environment for RDMA from rdma_info's ``devices``.

    NCCL_IB_HCA lists the active ports exactly ('=' prefix: 'mlx5_1' must not also match
    'mlx5_10'); NCCL_IB_GID_INDEX is set only when every active RoCE port has the same RoCE v2
    index (else NCCL >= 2.21 picks one per port itself). Raises ValueError without active ports.
    """
    active = [(d["name"], p) for d in devices or [] for p in d.get("ports", []) if p.get("state") == "PORT_ACTIVE"]
    if not active:
        raise ValueError("no active RDMA port: NCCL would fall back to sockets")
    env = {
        "NCCL_IB_DISABLE": "0",
        "NCCL_IB_HCA": "=" + ",".join("%s:%d" % (name, port["port"]) for name, port in active),
        "NCCL_SOCKET_IFNAME": socket_interface,
        "NCCL_DEBUG": debug,
    }
    roce = [port for dummy, port in active if port.get("link_layer") == "Ethernet"]
    indexes = {p.get("roce_v2_gid_index") for p in roce}
    if roce and len(indexes) == 1 and None not in indexes:
        env["NCCL_IB_GID_INDEX"] = str(indexes.pop())
    return env


def _nccl_view(devices):
    """What NCCL on a node would be told: its active ports and their RoCE v2 GID index."""
    return {
        "%s:%d" % (d["name"], p["port"]): p.get("roce_v2_gid_index")
        for d in devices or []
        for p in d.get("ports", [])
        if p.get("state") == "PORT_ACTIVE"
    }


def cluster_differences(results):
    """Nodes whose active ports or RoCE v2 GID indexes differ from the first node's.

    ``results`` maps each node (in play order) to its rdma_info result. bert_launch gives every
    rank the first node's NCCL_IB_HCA and NCCL_IB_GID_INDEX, so the others must match it. One
    pass over the nodes, one line per differing node.
    """
    names = list(results)
    if not names:
        return []
    first = names[0]
    reference = _nccl_view(results[first].get("devices"))
    lines = []
    for name in names[1:]:
        view = _nccl_view(results[name].get("devices"))
        if sorted(view) != sorted(reference):
            lines.append(
                "%s: active ports %s, %s has %s"
                % (name, ", ".join(sorted(view)) or "none", first, ", ".join(sorted(reference)) or "none")
            )
        elif view != reference:
            lines.append(
                "%s: RoCE v2 GID index %s, %s has %s"
                % (
                    name,
                    ", ".join("%s=%s" % (k, view[k]) for k in sorted(view)),
                    first,
                    ", ".join("%s=%s" % (k, reference[k]) for k in sorted(reference)),
                )
            )
    return lines
