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
_NET_IB = re.compile(r"^NET/IB ?: Using (.*?)(?:\s*;\s*OOB (\S+))?\s*$")
_IB_DEVICE = re.compile(r"\[\d+\]([A-Za-z0-9_.-]+):(\d+)/(\w+)")
_NET_SOCKET = re.compile(r"^NET/Socket ?: Using (.*)$")
_SOCKET_DEVICE = re.compile(r"\[\d+\]([A-Za-z0-9_.@-]+):")
_BOOTSTRAP = re.compile(r"^Bootstrap ?: Using ([A-Za-z0-9_.@-]+):")
_USING_NETWORK = re.compile(r"^Using network (\S+)")
_GID_INDEX = re.compile(r"^NCCL_IB_GID_INDEX set by environment to (-?\d+)")
# "Channel 03/0 : 15[7] -> 6[6] [send] via NET/Socket/3", older "Ring 00 : 15 -> 0 [receive] via ..."
_CONNECTION = re.compile(r"^(?:Channel|Ring) (\d+)(?:/\d+)? : .*? via (\S+)")
_CHANNEL = re.compile(r"^Channel (\d+)(?:/\d+)? :")
_COLL_CHANNELS = re.compile(r"^(\d+) coll channels")


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
    channels = set()
    seen_ib = set()
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
        net_ib = _NET_IB.match(message)
        if net_ib:
            for name, port, layer in _IB_DEVICE.findall(net_ib.group(1)):
                key = (name, int(port))
                if key not in seen_ib:
                    seen_ib.add(key)
                    result["ib_devices"].append({"name": name, "port": int(port), "link_layer": layer})
            continue
        if message.startswith("NET/IB") and "No device found" in message:
            result["ib_no_device"] = True
            continue
        net_socket = _NET_SOCKET.match(message)
        if net_socket:
            for name in _SOCKET_DEVICE.findall(net_socket.group(1)):
                if name not in result["socket_interfaces"]:
                    result["socket_interfaces"].append(name)
            continue
        bootstrap = _BOOTSTRAP.match(message)
        if bootstrap:
            result["bootstrap_interface"] = result["bootstrap_interface"] or bootstrap.group(1)
            continue
        network = _USING_NETWORK.match(message)
        if network:
            result["network"] = network.group(1)
            continue
        gid = _GID_INDEX.match(message)
        if gid:
            result["gid_index"] = int(gid.group(1))
            continue
        coll = _COLL_CHANNELS.match(message)
        if coll:
            result["coll_channels"] = int(coll.group(1))
            continue
        if message.startswith("Connected all rings"):
            result["rings_connected"] = True
            continue
        connection = _CONNECTION.match(message)
        if connection:
            channels.add(int(connection.group(1)))
            via = connection.group(2)
            kind = _kind(via)
            result["connections"][kind] = result["connections"].get(kind, 0) + 1
            if kind == "NET/IB" and via.endswith("/GDRDMA"):
                result["gdr"] = True
            continue
        channel = _CHANNEL.match(message)
        if channel:
            channels.add(int(channel.group(1)))
    result["channels"] = len(channels)
    conns = result["connections"]
    if conns.get("NET/IB"):
        result["transport"] = "IB"
    elif conns.get("NET/Socket"):
        result["transport"] = "Socket"
    elif conns:
        result["transport"] = "P2P/SHM"
    elif result["network"] in ("IB", "Socket"):
        result["transport"] = result["network"]
    elif result["lines"]:
        result["transport"] = "IB" if result["ib_devices"] else ("Socket" if result["socket_interfaces"] else None)
    # RoCE is known only from the "NET/IB : Using [0]mlx5_0:1/RoCE" init line.
    if result["transport"] != "IB":
        result["roce"] = False
    elif result["ib_devices"]:
        result["roce"] = any(d["link_layer"] == "RoCE" for d in result["ib_devices"])
    else:
        result["roce"] = None
    return result
