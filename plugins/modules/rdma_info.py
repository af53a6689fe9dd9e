#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: rdma_info
short_description: Report the RDMA (InfiniBand / RoCE) devices and ports of a host
version_added: 0.1.0
author: scc.training developers (@scc-training)
description:
  - >-
    Read-only. Runs C(ibv_devinfo -v) (and C(ibstat) for the rate) when they are installed and
    completes their output from C(/sys/class/infiniband) (port rate, the netdev of a RoCE port,
    GID types). Without the tools it reads C(/sys/class/infiniband) alone.
  - >-
    Detects, per port, the RoCE v2 GID index NCCL should use (C(NCCL_IB_GID_INDEX)) from
    C(ports/<n>/gid_attrs/types/*) (or the GID types C(ibv_devinfo -v) prints): the first
    RoCE v2 GID that carries an IPv4 address, else the first RoCE v2 GID.
  - >-
    A port whose netdev is a bonding master (RoCE LAG: mlx5 then names the device C(mlx5_bond_<n>)) lists the
    bond's slaves (C(/sys/class/net/<netdev>/bonding/slaves), the C(net) class directory next to O(sysfs_path)):
    the physical links behind it.
  - >-
    On a host without RDMA devices (no C(/sys/class/infiniband), as in the lab) it returns
    RV(rdma_present=false) and an empty RV(devices); it does not fail.
options:
  sysfs_path:
    description:
      - The sysfs class directory to read, or a copy of it (tests point this at a fixture tree).
      - The slaves of a bonded netdev are read from the directory C(net) next to it (C(/sys/class/net)).
    type: path
    default: /sys/class/infiniband
  use_tools:
    description:
      - Run C(ibv_devinfo -v) and C(ibstat) when they are on the PATH. V(false) reads sysfs only.
    type: bool
    default: true
extends_documentation_fragment:
  - scc.training.read_only
notes:
  - The parsers of C(ibv_devinfo) and C(ibstat) live in C(plugins/module_utils/rdma.py); RV(devices) holds what
    C(ibv_devinfo) reports per device, plus C(rate_gbps), C(netdev) and C(roce_v2_gid_index) per port.
"""

EXAMPLES = r"""
- name: Read the RDMA devices of every node
  scc.training.rdma_info:
  register: rdma

- name: NCCL's device list from the active ports
  ansible.builtin.debug:
    msg: "NCCL_IB_HCA={{ rdma.active_ports | join(',') }}"
  when: rdma.rdma_present

- name: Read a copy of /sys/class/infiniband (tests)
  scc.training.rdma_info:
    sysfs_path: /tmp/fixture/sys/class/infiniband
    use_tools: false
"""

RETURN = r"""
rdma_present:
  description: Whether the host has at least one RDMA device.
  returned: always
  type: bool
  sample: true
source:
  description:
    - Where RV(devices) came from. V(ibv_devinfo) (completed from sysfs), V(sysfs), or V(none)
      when the host has no RDMA device.
  returned: always
  type: str
  sample: ibv_devinfo
active_ports:
  description: The ports in state C(PORT_ACTIVE), as C(device:port) (the form of C(NCCL_IB_HCA)).
  returned: always
  type: list
  elements: str
  sample: [mlx5_0:1, mlx5_1:1]
devices:
  description: One entry per RDMA device, sorted as the source lists them.
  returned: always
  type: list
  elements: dict
  contains:
    name:
      description: Device name (C(hca_id)), e.g. C(mlx5_0).
      type: str
    fw_ver:
      description: Firmware version.
      type: str
    node_guid:
      description: Node GUID.
      type: str
    transport:
      description: Transport as C(ibv_devinfo) prints it (V(InfiniBand (0)) also for RoCE); null from sysfs.
      type: str
    board_id:
      description: Board id (PSID); null when unknown.
      type: str
    driver:
      description:
        - The kernel driver of the device (C(/sys/class/infiniband/<dev>/device/driver)), e.g. V(mlx5_core), V(erdma);
          an erdma device in compat/ofed mode may carry a RoCE name (C(rocep26s0)), its driver still says erdma. Null when unknown.
      type: str
    ports:
      description: The device's ports.
      type: list
      elements: dict
      contains:
        port:
          description: Port number (from 1).
          type: int
        state:
          description: V(PORT_ACTIVE), V(PORT_DOWN), V(PORT_INIT), V(PORT_ARMED) (sysfs states mapped to these names).
          type: str
        phys_state:
          description: Physical state, e.g. V(LINK_UP) (ibv_devinfo -v), V(LinkUp) (sysfs); null when unknown.
          type: str
        link_layer:
          description: V(InfiniBand) or V(Ethernet) (RoCE).
          type: str
        active_mtu:
          description: Active MTU in bytes (ibv_devinfo only; null from sysfs).
          type: int
        rate_gbps:
          description: Link rate in Gb/s (sysfs C(rate), else C(ibstat)); null when unknown.
          type: float
        netdev:
          description: The Ethernet interface of a RoCE port (from its GIDs); null for InfiniBand.
          type: str
        netdev_mtu:
          description: The MTU of RV(devices[].ports[].netdev) (C(/sys/class/net/<netdev>/mtu)); null when unknown.
          type: int
        netdev_address:
          description:
            - The MAC address of RV(devices[].ports[].netdev) (C(/sys/class/net/<netdev>/address)); null when unknown.
          type: str
          version_added: 0.4.0
        bond_slaves:
          description: When RV(devices[].ports[].netdev) is a bonding master, its slave interfaces (the links of a RoCE LAG port); else empty.
          type: list
          elements: str
        roce_v2_gid_index:
          description: The GID index for NCCL_IB_GID_INDEX; null when the port has no RoCE v2 GID.
          type: int
        gids:
          description: Populated GIDs, each C(index), C(gid), C(type) (V(RoCE v2), V(RoCE v1), or null) and C(netdev).
          type: list
          elements: dict
  sample:
    - name: mlx5_0
      fw_ver: "16.28.2006"
      node_guid: "b859:9f03:00d4:a1b2"
      transport: InfiniBand (0)
      board_id: MT_0000000080
      ports:
        - port: 1
          state: PORT_ACTIVE
          phys_state: LINK_UP
          link_layer: Ethernet
          active_mtu: 1024
          rate_gbps: 25
          netdev: eth1
          bond_slaves: []
          roce_v2_gid_index: 3
          gids:
            - {index: 3, gid: "0000:0000:0000:0000:0000:ffff:c0a8:0a0b", type: RoCE v2, netdev: eth1}
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.scc.training.plugins.module_utils import rdma


def _run(module, argv):
    """Run a read-only tool; its stdout, or '' when it fails (e.g. 'No IB devices found')."""
    rc, out, _dummy = module.run_command(argv)
    return out if rc == 0 else ""


def main():
    module = AnsibleModule(
        argument_spec=dict(
            sysfs_path=dict(type="path", default="/sys/class/infiniband"),
            use_tools=dict(type="bool", default=True),
        ),
        supports_check_mode=True,
    )
    sysfs_devices = rdma.read_sysfs(module.params["sysfs_path"])
    devices, source = sysfs_devices, "sysfs"
    ibv_devinfo = module.get_bin_path("ibv_devinfo") if module.params["use_tools"] else None
    if ibv_devinfo:
        tool_devices = rdma.parse_ibv_devinfo(_run(module, [ibv_devinfo, "-v"]))
        if tool_devices:
            ibstat = module.get_bin_path("ibstat")
            cas = rdma.parse_ibstat(_run(module, [ibstat])) if ibstat else {}
            devices, source = rdma.merge_devices(tool_devices, sysfs_devices, cas), "ibv_devinfo"
        elif sysfs_devices:
            # libibverbs without the provider of this NIC sees nothing; the kernel still does.
            module.warn(
                "ibv_devinfo lists no device but %s has %d: reporting sysfs"
                % (module.params["sysfs_path"], len(sysfs_devices))
            )
    rdma.annotate_gid_index(devices)
    module.exit_json(
        changed=False,
        rdma_present=bool(devices),
        source=source if devices else "none",
        active_ports=[
            "%s:%d" % (d["name"], p["port"]) for d in devices for p in d["ports"] if p["state"] == "PORT_ACTIVE"
        ],
        devices=devices,
    )


if __name__ == "__main__":
    main()
