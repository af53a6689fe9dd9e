# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Parser of NCCL_DEBUG=INFO logs: which transport NCCL really used.

The proof is in the channel lines ("Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0"): the
network NCCL chose at init ("Using network IB") is only what it would use between nodes. No
Ansible imports: the filter scc.training.parse_nccl_log wraps ``parse_nccl_log``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

# "host:pid:tid [dev] NCCL INFO ..." (or without the prefix); mpirun may add "[1,0]<stdout>:".
_INFO = re.compile(r"NCCL (INFO|WARN) (.*)$")
_VERSION = re.compile(r"NCCL version (\S+)")
_IB_DEVICE = re.compile(r"\[\d+\]([A-Za-z0-9_.-]+):(\d+)/(\w+)")
_SOCKET_DEVICE = re.compile(r"\[\d+\]([A-Za-z0-9_.@-]+):")


def _kind(via):
    """'NET/IB/0/GDRDMA' -> 'NET/IB', 'NET/IBext_v8/2' -> 'NET/IB', 'NET/Socket/3' -> 'NET/Socket',
    'P2P/IPC/read' -> 'P2P', 'SHM/direct/direct' -> 'SHM', 'direct' (old shared memory) -> 'SHM'."""
    parts = via.split("/")
    if parts[0] == "NET" and len(parts) > 1:
        return "NET/IB" if parts[1].startswith("IB") else "NET/" + parts[1]
    if parts[0] in ("P2P", "SHM", "COLLNET", "NVLS"):
        return parts[0]
    if parts[0] == "direct":
        return "SHM"
    return parts[0]


def _ib_devices(result, found, seen):
    for name, port, layer in _IB_DEVICE.findall(found.group(1)):
        if (name, int(port)) not in seen["ib"]:
            seen["ib"].add((name, int(port)))
            result["ib_devices"].append({"name": name, "port": int(port), "link_layer": layer})


def _ib_no_device(result, found, seen):
    result["ib_no_device"] = True


def _socket_interfaces(result, found, seen):
    for name in _SOCKET_DEVICE.findall(found.group(1)):
        if name not in result["socket_interfaces"]:
            result["socket_interfaces"].append(name)


def _bootstrap_interface(result, found, seen):
    result["bootstrap_interface"] = result["bootstrap_interface"] or found.group(1)


def _network(result, found, seen):
    result["network"] = found.group(1)


def _gid_index(result, found, seen):
    result["gid_index"] = int(found.group(1))


def _coll_channels(result, found, seen):
    result["coll_channels"] = int(found.group(1))


def _rings_connected(result, found, seen):
    result["rings_connected"] = True


def _connection(result, found, seen):
    seen["channels"].add(int(found.group(1)))
    kind = _kind(found.group(2))
    result["connections"][kind] = result["connections"].get(kind, 0) + 1
    if kind == "NET/IB" and found.group(2).endswith("/GDRDMA"):
        result["gdr"] = True


def _channel(result, found, seen):
    seen["channels"].add(int(found.group(1)))


# The INFO messages that tell something, each with what it records; the first that matches wins.
_MESSAGES = tuple(
    (re.compile(pattern), record)
    for pattern, record in (
        (r"^NET/IB ?: Using (.*?)(?:\s*;\s*OOB (\S+))?\s*$", _ib_devices),
        (r"^NET/IB.*No device found", _ib_no_device),
        (r"^NET/Socket ?: Using (.*)$", _socket_interfaces),
        (r"^Bootstrap ?: Using ([A-Za-z0-9_.@-]+):", _bootstrap_interface),
        (r"^Using network (\S+)", _network),
        (r"^NCCL_IB_GID_INDEX set by environment to (-?\d+)", _gid_index),
        (r"^(\d+) coll channels", _coll_channels),
        (r"^Connected all rings", _rings_connected),
        # "Channel 03/0 : 15[7] -> 6[6] [send] via NET/Socket/3", older "Ring 00 : 15 -> 0 [receive] via ..."
        (r"^(?:Channel|Ring) (\d+)(?:/\d+)? : .*? via (\S+)", _connection),
        (r"^Channel (\d+)(?:/\d+)? :", _channel),
    )
)


def _transport(result):
    """NET/IB on any channel is IB; else NET/Socket is Socket; else in-node P2P/SHM; without
    channel lines, the network chosen at init or the devices NCCL named."""
    conns = result["connections"]
    if conns.get("NET/IB"):
        return "IB"
    if conns.get("NET/Socket"):
        return "Socket"
    if conns:
        return "P2P/SHM"
    if result["network"] in ("IB", "Socket"):
        return result["network"]
    if result["lines"]:
        return "IB" if result["ib_devices"] else ("Socket" if result["socket_interfaces"] else None)
    return None


def parse_nccl_log(text):
    """Summarise an NCCL_DEBUG=INFO log (several ranks interleaved is fine).

    Returns ``transport``: ``IB`` when a channel goes through NET/IB (InfiniBand or RoCE),
    ``Socket`` when one goes through NET/Socket and none through NET/IB, ``P2P/SHM`` when every
    connection stays inside a node, and, without channel lines, the network NCCL chose at init
    (``IB`` / ``Socket``) or None when the text has no NCCL lines at all. Also ``roce`` (True: an
    IB device with link layer RoCE; None: transport IB but the log has no device line),
    ``ib_devices`` (``name``, ``port``, ``link_layer``),
    ``socket_interfaces``, ``bootstrap_interface``, ``network``, ``connections`` (count per kind:
    NET/IB, NET/Socket, P2P, SHM), ``channels`` (distinct channel numbers), ``gdr`` (GPUDirect
    RDMA on a NET/IB channel), ``gid_index``, ``ib_no_device``, ``rings_connected``, ``version``,
    ``warnings`` (the NCCL WARN messages) and ``lines`` (NCCL lines seen).
    """
    result = {
        "transport": None,
        "network": None,
        "roce": False,
        "ib_devices": [],
        "socket_interfaces": [],
        "bootstrap_interface": None,
        "connections": {},
        "channels": 0,
        "coll_channels": None,
        "gdr": False,
        "gid_index": None,
        "ib_no_device": False,
        "rings_connected": False,
        "version": None,
        "warnings": [],
        "lines": 0,
    }
    seen = {"channels": set(), "ib": set()}
    for raw in (text or "").splitlines():
        version = _VERSION.search(raw)
        if version and result["version"] is None:
            result["version"] = version.group(1)
        match = _INFO.search(raw)
        if not match:
            continue
        result["lines"] += 1
        level, message = match.group(1), match.group(2).strip()
        if level == "WARN":
            if message not in result["warnings"]:
                result["warnings"].append(message)
            continue
        for pattern, record in _MESSAGES:
            found = pattern.match(message)
            if found:
                record(result, found, seen)
                break
    result["channels"] = len(seen["channels"])
    result["transport"] = _transport(result)
    # RoCE is known only from the "NET/IB : Using [0]mlx5_0:1/RoCE" init line.
    if result["transport"] != "IB":
        result["roce"] = False
    elif result["ib_devices"]:
        result["roce"] = any(d["link_layer"] == "RoCE" for d in result["ib_devices"])
    else:
        result["roce"] = None
    return result
