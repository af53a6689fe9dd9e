# -*- coding: utf-8 -*-
"""plugins/module_utils/rdma.py on real ibv_devinfo / ibstat outputs (tests/fixtures/rdma)."""

from __future__ import annotations

import pytest

from ansible_collections.scc.training.plugins.module_utils import rdma
from tests.unit.plugins.source_fixture import source_fixture


def fixture(name):
    return source_fixture("rdma", name)


def test_ibv_devinfo_two_ib_hcas_with_a_port_down_each():
    devices = rdma.parse_ibv_devinfo(fixture("ibv_devinfo_mlx4_ib_port_down.txt"))
    assert [d["name"] for d in devices] == ["mlx4_1", "mlx4_0"]
    first = devices[0]
    assert first["fw_ver"] == "2.42.5000"
    assert first["node_guid"] == "7cfe:9003:00a5:95c0"
    assert first["vendor_part_id"] == 4099
    assert first["phys_port_cnt"] == 2
    assert [(p["port"], p["state"], p["link_layer"], p["active_mtu"]) for p in first["ports"]] == [
        (1, "PORT_ACTIVE", "InfiniBand", 4096),
        (2, "PORT_DOWN", "InfiniBand", 4096),
    ]
    assert devices[1]["ports"][0]["port_lid"] == 32
    # Without -v there are no GIDs and no physical state.
    assert all(p["gids"] == [] and p["phys_state"] is None for d in devices for p in d["ports"])


def test_ibv_devinfo_verbose_skips_capability_lines():
    devices = rdma.parse_ibv_devinfo(fixture("ibv_devinfo_v_mlx4_port_down.txt"))
    assert len(devices) == 1
    (port,) = devices[0]["ports"]
    assert port["port"] == 2
    assert port["state"] == "PORT_DOWN"
    assert port["phys_state"] == "POLLING"
    assert port["active_width"] == "4X"
    assert port["active_speed"] == "2.5 Gbps"
    assert port["gids"] == [{"index": 0, "gid": "fe80:0000:0000:0000:7cfe:9003:00a5:95c2", "type": None}]
    # "max_mr_size", "Unknown flags: ..." and the like did not leak into the device.
    assert set(devices[0]) == {
        "name",
        "transport",
        "fw_ver",
        "node_guid",
        "sys_image_guid",
        "vendor_id",
        "vendor_part_id",
        "board_id",
        "phys_port_cnt",
        "ports",
    }


def test_ibv_devinfo_verbose_roce_soft_rxe():
    (device,) = rdma.parse_ibv_devinfo(fixture("ibv_devinfo_v_rxe_roce.txt"))
    assert device["name"] == "rxe0"
    assert device["board_id"] is None
    (port,) = device["ports"]
    assert (port["state"], port["link_layer"], port["active_mtu"], port["max_mtu"]) == (
        "PORT_ACTIVE",
        "Ethernet",
        1024,
        4096,
    )
    assert port["phys_state"] == "LINK_UP"
    assert [g["index"] for g in port["gids"]] == [0, 1]
    assert port["gids"][1]["gid"] == "0000:0000:0000:0000:0000:ffff:0a0b:0bfb"
    # This rdma-core prints no GID types: no RoCE v2 index can be told from ibv_devinfo alone.
    assert rdma.roce_v2_gid_index(port["gids"]) is None


def test_ibv_devinfo_mlx5_roce_device():
    (device,) = rdma.parse_ibv_devinfo(fixture("ibv_devinfo_mlx5_roce_azure.txt"))
    assert device["name"] == "rdmaP23800p0s2"
    assert device["fw_ver"] == "14.25.8102"
    assert device["board_id"] == "MSF0010110035"
    assert device["ports"][0]["link_layer"] == "Ethernet"
    assert device["ports"][0]["state"] == "PORT_ACTIVE"


def test_ibv_devinfo_no_devices_and_noise():
    assert rdma.parse_ibv_devinfo("") == []
    assert rdma.parse_ibv_devinfo("No IB devices found\n") == []
    assert rdma.parse_ibv_devinfo("Failed to open device\nFailed to open device\n") == []


def test_ibstat_roce_active_and_ib_down():
    cas = rdma.parse_ibstat(fixture("ibstat_roce_active_ib_down.txt"))
    assert sorted(cas) == ["mlx5_0", "mlx5_1"]
    assert cas["mlx5_0"]["ca_type"] == "MT4115"
    assert cas["mlx5_0"]["firmware_version"] == "12.28.1002"
    assert cas["mlx5_0"]["number_of_ports"] == 1
    assert cas["mlx5_0"]["ports"] == {
        1: {
            "state": "Active",
            "physical_state": "LinkUp",
            "rate_gbps": 100,
            "base_lid": 0,
            "lmc": 0,
            "sm_lid": 0,
            "capability_mask": "0x00010000",
            "port_guid": "0x268a07fffeb1bc04",
            "link_layer": "Ethernet",
        }
    }
    down = cas["mlx5_1"]["ports"][1]
    assert (down["state"], down["physical_state"], down["rate_gbps"], down["link_layer"]) == (
        "Down",
        "Disabled",
        10,
        "InfiniBand",
    )
    assert isinstance(down["rate_gbps"], int)


def test_ibstat_cut_output_keeps_what_it_has():
    cas = rdma.parse_ibstat(fixture("ibstat_mlx5_roce_200g_port_down.txt"))
    assert list(cas) == ["mlx5_0", "mlx5_1", "mlx5_10"]
    assert [cas[n]["ports"][1]["rate_gbps"] for n in ("mlx5_0", "mlx5_1")] == [200, 200]
    assert cas["mlx5_10"]["ca_type"] == "MT4125"
    assert cas["mlx5_10"]["ports"][1]["state"] == "Down"
    assert cas["mlx5_10"]["ports"][1]["rate_gbps"] is None


def test_ibstat_fractional_rate_and_states():
    assert rdma.parse_ibstat("CA 'x'\n Port 1:\n  Rate: 2.5\n")["x"]["ports"][1]["rate_gbps"] == 2.5
    assert rdma.normalise_ibstat_state("Active") == "PORT_ACTIVE"
    assert rdma.normalise_ibstat_state("Down") == "PORT_DOWN"


@pytest.mark.parametrize(
    "gids, expected",
    [
        # show_gids_mlx5_macvlan_index7.txt, mlx5_0: v2 with IPv4 is 7, not the usual 3.
        (
            [
                {"index": 4, "gid": "fe80:0000:0000:0000:c025:a1ff:fe31:2e81", "type": "RoCE v1"},
                {"index": 5, "gid": "fe80:0000:0000:0000:c025:a1ff:fe31:2e81", "type": "RoCE v2"},
                {"index": 6, "gid": "0000:0000:0000:0000:0000:ffff:0a9c:8184", "type": "RoCE v1"},
                {"index": 7, "gid": "0000:0000:0000:0000:0000:ffff:0a9c:8184", "type": "RoCE v2"},
            ],
            7,
        ),
        # show_gids_mlx5_roce.txt, mlx5_0: only link-local GIDs, the v2 one is 1.
        (
            [
                {"index": 0, "gid": "fe80:0000:0000:0000:268a:07ff:feb1:bc04", "type": "RoCE v1"},
                {"index": 1, "gid": "fe80:0000:0000:0000:268a:07ff:feb1:bc04", "type": "RoCE v2"},
            ],
            1,
        ),
        ([{"index": 0, "gid": "fe80:0000:0000:0000:248a:0703:00b1:bc05", "type": None}], None),
        ([], None),
    ],
)
def test_roce_v2_gid_index(gids, expected):
    assert rdma.roce_v2_gid_index(gids) == expected


def _devices_sccgn6_like():
    """Two one-port RoCE devices as rdma_info returns them (values from the fixtures' formats)."""
    return [
        {
            "name": "mlx5_0",
            "ports": [
                {
                    "port": 1,
                    "state": "PORT_ACTIVE",
                    "link_layer": "Ethernet",
                    "rate_gbps": 25,
                    "netdev": "eth1",
                    "roce_v2_gid_index": 3,
                }
            ],
        },
        {
            "name": "mlx5_1",
            "ports": [
                {
                    "port": 1,
                    "state": "PORT_ACTIVE",
                    "link_layer": "Ethernet",
                    "rate_gbps": 25,
                    "netdev": "eth2",
                    "roce_v2_gid_index": 3,
                }
            ],
        },
    ]


def test_port_problems_none_when_as_expected():
    assert rdma.port_problems(_devices_sccgn6_like(), 2, "Ethernet", 25) == []


def test_port_problems_one_line_per_bad_port_and_the_count():
    devices = _devices_sccgn6_like()
    devices[1]["ports"][0].update(state="PORT_DOWN", rate_gbps=10)
    devices.append(
        {
            "name": "mlx5_2",
            "ports": [{"port": 1, "state": "PORT_ACTIVE", "link_layer": "InfiniBand", "rate_gbps": 25, "netdev": None}],
        }
    )
    assert rdma.port_problems(devices, 2, "Ethernet", 25) == [
        "3 link(s) found (mlx5_0 port 1 (eth1), mlx5_1 port 1 (eth2), mlx5_2 port 1), expected 2",
        "mlx5_1 port 1 (eth2): state PORT_DOWN, expected PORT_ACTIVE; rate 10 Gb/s, expected 25 Gb/s",
        "mlx5_2 port 1: link layer InfiniBand, expected Ethernet",
    ]


def test_port_problems_on_parsed_fixture_with_down_ports():
    devices = rdma.parse_ibv_devinfo(fixture("ibv_devinfo_mlx4_ib_port_down.txt"))
    # Two devices of two ports each: four links.
    problems = rdma.port_problems(devices, 4, "InfiniBand", None)
    assert problems == [
        "mlx4_1 port 2: state PORT_DOWN, expected PORT_ACTIVE",
        "mlx4_0 port 2: state PORT_DOWN, expected PORT_ACTIVE",
    ]


def test_port_problems_no_devices():
    assert rdma.port_problems([], 2, "Ethernet", 25) == ["0 link(s) found (no RDMA device), expected 2"]


def _bonded(rate=25, slaves=("eth0", "eth1")):
    """sccgn6's two 25 Gb/s links as one RoCE LAG port (mlx5_bond_0 on bond0)."""
    port = {
        "port": 1,
        "state": "PORT_ACTIVE",
        "link_layer": "Ethernet",
        "rate_gbps": rate,
        "netdev": "bond0",
        "bond_slaves": list(slaves),
        "roce_v2_gid_index": 3,
    }
    return [{"name": "mlx5_bond_0", "ports": [port]}]


@pytest.mark.parametrize("rate", [25, 50])
def test_port_problems_a_bonded_port_is_its_slaves_links(rate):
    # One link's rate or the bond's sum: which one mlx5 LAG reports is not documented, both pass.
    assert [rdma.port_links(p) for d in _bonded(rate) for p in d["ports"]] == [2]
    assert rdma.port_problems(_bonded(rate), 2, "Ethernet", 25) == []


def test_port_problems_a_bonded_port_with_one_slave_or_a_wrong_rate():
    assert rdma.port_problems(_bonded(slaves=("eth0",)), 2, "Ethernet", 25) == [
        "1 link(s) found (mlx5_bond_0 port 1 (bond0 of eth0)), expected 2"
    ]
    assert rdma.port_problems(_bonded(rate=10), 2, "Ethernet", 25) == [
        "mlx5_bond_0 port 1 (bond0 of eth0, eth1): rate 10 Gb/s, expected 25 or 50 Gb/s"
    ]
    # Separate ports named like a bond but without bond slaves count one link each.
    assert rdma.port_links({"bond_slaves": []}) == 1


def test_nccl_ib_env_bonded_port():
    env = rdma.nccl_ib_env(_bonded(), "bond0")
    assert (env["NCCL_IB_HCA"], env["NCCL_IB_GID_INDEX"]) == ("=mlx5_bond_0:1", "3")


def test_nccl_ib_env_roce():
    env = rdma.nccl_ib_env(_devices_sccgn6_like(), "eth0")
    assert env == {
        "NCCL_IB_DISABLE": "0",
        "NCCL_IB_HCA": "=mlx5_0:1,mlx5_1:1",
        "NCCL_IB_GID_INDEX": "3",
        "NCCL_SOCKET_IFNAME": "eth0",
        "NCCL_DEBUG": "INFO",
    }


def test_nccl_ib_env_leaves_out_down_ports_and_differing_gid_indexes():
    devices = _devices_sccgn6_like()
    devices[0]["ports"][0]["roce_v2_gid_index"] = 7
    devices.append(
        {
            "name": "mlx5_10",
            "ports": [{"port": 1, "state": "PORT_DOWN", "link_layer": "Ethernet", "roce_v2_gid_index": 3}],
        }
    )
    env = rdma.nccl_ib_env(devices, "bond0")
    assert env["NCCL_IB_HCA"] == "=mlx5_0:1,mlx5_1:1"
    assert "NCCL_IB_GID_INDEX" not in env


def test_nccl_ib_env_infiniband_has_no_gid_index():
    devices = rdma.parse_ibv_devinfo(fixture("ibv_devinfo_mlx4_ib_port_down.txt"))
    rdma.annotate_gid_index(devices)
    env = rdma.nccl_ib_env(devices, "ib0")
    assert env["NCCL_IB_HCA"] == "=mlx4_1:1,mlx4_0:1"
    assert "NCCL_IB_GID_INDEX" not in env


def test_nccl_ib_env_without_active_port_fails():
    devices = rdma.parse_ibv_devinfo(fixture("ibv_devinfo_v_mlx4_port_down.txt"))
    with pytest.raises(ValueError, match="no active RDMA port"):
        rdma.nccl_ib_env(devices, "eth0")


def _result(devices):
    return {"devices": devices}


def test_cluster_differences_none_when_alike():
    same = {"node%d" % i: _result(_devices_sccgn6_like()) for i in (1, 2, 3)}
    assert rdma.cluster_differences(same) == []
    assert rdma.cluster_differences({}) == []


def test_cluster_differences_names_each_differing_node_once():
    node2 = _devices_sccgn6_like()
    node2[0]["ports"][0]["roce_v2_gid_index"] = 5
    node3 = _devices_sccgn6_like()
    node3[1]["ports"][0]["state"] = "PORT_DOWN"
    node4 = _devices_sccgn6_like()
    node4[0]["name"] = "mlx5_2"
    results = {
        "node1": _result(_devices_sccgn6_like()),
        "node2": _result(node2),
        "node3": _result(node3),
        "node4": _result(node4),
    }
    assert rdma.cluster_differences(results) == [
        "node2: RoCE v2 GID index mlx5_0:1=5, mlx5_1:1=3, node1 has mlx5_0:1=3, mlx5_1:1=3",
        "node3: active ports mlx5_0:1, node1 has mlx5_0:1, mlx5_1:1",
        "node4: active ports mlx5_1:1, mlx5_2:1, node1 has mlx5_0:1, mlx5_1:1",
    ]


# --- eRDMA (Alibaba Elastic RDMA): a real published ibv_devinfo, the GID rule per driver mode, the interface MTU ---


def _erdma_result(**port_fields):
    devices = rdma.parse_ibv_devinfo(source_fixture("rdma", "ibv_devinfo_erdma_h20_stepmesh.txt"))
    for device in devices:
        for port in device["ports"]:
            port.update(port_fields)
    return {"source": "ibv_devinfo", "devices": rdma.annotate_gid_index(devices)}


def test_erdma_ibv_devinfo_parses_as_an_active_ethernet_erdma_port():
    device = _erdma_result()["devices"][0]
    assert (device["name"], device["transport"], device["vendor_id"]) == ("erdma_0", "eRDMA (0)", "0x1ded")
    assert rdma.is_erdma(device) and rdma.is_erdma({"name": "rocep26s0", "driver": "erdma"})
    assert not rdma.is_erdma({"name": "mlx5_0", "driver": "mlx5_core", "transport": "InfiniBand (0)"})
    port = device["ports"][0]
    assert (port["state"], port["link_layer"], port["active_mtu"], port["roce_v2_gid_index"]) == (
        "PORT_ACTIVE",
        "Ethernet",
        4096,
        None,
    )


def test_erdma_needs_a_roce_v2_gid_only_in_the_roce_compatible_modes():
    result = _erdma_result()
    assert rdma.stack_problems(result, erdma_mode="default") == []
    for mode in ("compat", "ofed", None):
        problems = rdma.stack_problems(result, erdma_mode=mode)
        assert len(problems) == 1 and "no RoCE v2 entry" in problems[0]
        assert "erdma driver runs in %s mode" % (mode or "ofed") in problems[0]
    with_gid = _erdma_result(gids=[{"index": 1, "gid": "::ffff:10.0.5.76", "type": "RoCE v2"}])
    assert rdma.stack_problems(with_gid, erdma_mode="ofed") == []
    # An mlx5 RoCE port without a RoCE v2 GID stays a problem in any eRDMA mode.
    mlx5 = {
        "source": "ibv_devinfo",
        "devices": [dict(_erdma_result()["devices"][0], name="mlx5_0", transport="InfiniBand (0)")],
    }
    assert len(rdma.stack_problems(mlx5, erdma_mode="default")) == 1


@pytest.mark.parametrize(
    "netdev_mtu, expected, problem", [(8500, 8500, False), (1500, 8500, True), (1400, 1400, False), (None, 1400, True)]
)
def test_erdma_interface_mtu_is_the_declared_one(netdev_mtu, expected, problem):
    problems = rdma.stack_problems(_erdma_result(netdev_mtu=netdev_mtu), netdev_mtu=expected, erdma_mode="default")
    assert bool(problems) is problem
    if problem:
        assert "interface MTU %s, expected %d" % (netdev_mtu, expected) in problems[0]


def test_sysfs_reads_the_kernel_driver_and_the_interface_mtu(tmp_path):
    """A copy of sysfs in the layout the kernel writes: an erdma device under a RoCE name (compat/ofed mode)."""
    root = tmp_path / "class"
    port = root / "infiniband" / "rocep26s0" / "ports" / "1"
    (port / "gids").mkdir(parents=True)
    (port / "gid_attrs" / "ndevs").mkdir(parents=True)
    (port / "gid_attrs" / "types").mkdir(parents=True)
    (port / "state").write_text("4: ACTIVE\n")
    (port / "link_layer").write_text("Ethernet\n")
    (port / "gids" / "1").write_text("0000:0000:0000:0000:0000:ffff:0a00:054c\n")
    (port / "gid_attrs" / "ndevs" / "1").write_text("eth1\n")
    (port / "gid_attrs" / "types" / "1").write_text("RoCE v2\n")
    (tmp_path / "bus" / "pci" / "drivers" / "erdma").mkdir(parents=True)
    (root / "infiniband" / "rocep26s0" / "device").mkdir()
    (root / "infiniband" / "rocep26s0" / "device" / "driver").symlink_to(tmp_path / "bus" / "pci" / "drivers" / "erdma")
    (root / "net" / "eth1").mkdir(parents=True)
    (root / "net" / "eth1" / "mtu").write_text("8500\n")
    (root / "net" / "eth1" / "address").write_text("00:16:3e:0a:4b:7c\n")
    device = rdma.annotate_gid_index(rdma.read_sysfs(str(root / "infiniband")))[0]
    assert device["driver"] == "erdma" and rdma.is_erdma(device)
    assert (device["ports"][0]["netdev_mtu"], device["ports"][0]["roce_v2_gid_index"]) == (8500, 1)
    assert device["ports"][0]["netdev_address"] == "00:16:3e:0a:4b:7c"
    assert rdma.stack_problems({"source": "ibv_devinfo", "devices": [device]}, netdev_mtu=8500, erdma_mode="ofed") == []


def test_ib_check_judges_an_ebmgn8v_node_on_its_two_eris_without_a_rate():
    """ib_check's resolved expectation for ebmgn8v: 2 links (ERIs), Ethernet, rate not judged (an ERI's sysfs rate is
    UNCONFIRMED). erdma_0 is the published output; erdma_1 is a STAND-IN copy of it (the excerpt ends early)."""
    from ansible_collections.scc.training.plugins.module_utils import hardware_defaults

    expected = hardware_defaults.resolve("ecs.ebmgn8v.48xlarge")["rdma"]
    device = _erdma_result()["devices"][0]
    devices = [device, dict(device, name="erdma_1", ports=[dict(p) for p in device["ports"]])]
    assert rdma.port_problems(devices, expected["ports"], "Ethernet", None) == []
    devices[1]["ports"][0]["state"] = "PORT_DOWN"
    assert rdma.port_problems(devices, expected["ports"], "Ethernet", None) == [
        "erdma_1 port 1: state PORT_DOWN, expected PORT_ACTIVE"
    ]
    assert rdma.port_problems(devices[:1], expected["ports"], "Ethernet", None)[0].startswith("1 link(s) found")


# --- rdma_stack sets the interface MTU: which interfaces, now (sysfs) and at every boot (systemd.link) ---------------


def _two_erdma_ports(mtus=(1500, 8500), addresses=("00:16:3E:0A:4B:7C", "00:16:3e:0a:4b:7d")):
    """The published erdma_0 and a STAND-IN copy erdma_1, each on its own ERI (eth2 sorts after eth1 on purpose)."""
    device = _erdma_result()["devices"][0]
    ports = [
        dict(device["ports"][0], netdev="eth2", netdev_mtu=mtus[0], netdev_address=addresses[0]),
        dict(device["ports"][0], netdev="eth1", netdev_mtu=mtus[1], netdev_address=addresses[1]),
    ]
    return {
        "source": "ibv_devinfo",
        "devices": [dict(device, ports=[ports[0]]), dict(device, name="erdma_1", ports=[ports[1]])],
    }


def test_mtu_plan_names_each_interface_once_in_order_and_only_the_wrong_one_changes():
    plan = rdma.netdev_mtu_plan(_two_erdma_ports(), 8500, "/sys/class/infiniband")
    assert [(p["netdev"], p["mtu_now"], p["mtu"], p["change"]) for p in plan] == [
        ("eth1", 8500, 8500, False),
        ("eth2", 1500, 8500, True),
    ]
    assert plan[1]["mtu_path"] == "/sys/class/net/eth2/mtu"
    assert plan[1]["link_file"] == "05-scc-training-mtu-eth2.link"
    # Sorts before netplan's and systemd's default .link files: udev applies the first match only (systemd.link(5)).
    assert sorted([plan[1]["link_file"], "10-netplan-eth2.link", "99-default.link"])[0] == plan[1]["link_file"]
    lines = plan[1]["link"].splitlines()
    assert lines[2:] == ["[Match]", "MACAddress=00:16:3e:0a:4b:7c", "", "[Link]", "Name=eth2", "MTUBytes=8500"]


def test_mtu_plan_on_1400_changes_both_and_a_port_sharing_an_interface_counts_once():
    result = _two_erdma_ports()
    result["devices"][0]["ports"].append(dict(result["devices"][0]["ports"][0], port=2))
    plan = rdma.netdev_mtu_plan(result, "1400", "/tmp/standin/class/infiniband/")
    assert [(p["netdev"], p["change"]) for p in plan] == [("eth1", True), ("eth2", True)]
    assert plan[0]["mtu_path"] == "/tmp/standin/class/net/eth1/mtu"


def test_mtu_plan_matches_the_kernel_name_when_the_mac_is_unknown_and_skips_ports_without_an_interface():
    result = _two_erdma_ports(addresses=(None, "not-a-mac"))
    result["devices"].append(
        dict(result["devices"][0], name="erdma_2", ports=[dict(result["devices"][0]["ports"][0], netdev=None)])
    )
    plan = rdma.netdev_mtu_plan(result, 8500)
    assert [p["netdev"] for p in plan] == ["eth1", "eth2"]
    assert ["OriginalName=eth1", "OriginalName=eth2"] == [p["link"].splitlines()[3] for p in plan]


def test_mtu_plan_is_empty_without_an_mtu_and_refuses_a_bad_one_or_a_bad_name():
    assert rdma.netdev_mtu_plan(_two_erdma_ports(), None) == []
    assert rdma.netdev_mtu_plan({"devices": []}, 8500) == []
    for bad in (0, 67, 65536, "jumbo", True):
        with pytest.raises(ValueError, match="rdma_stack_netdev_mtu must be a whole number from 68 to 65535"):
            rdma.netdev_mtu_plan(_two_erdma_ports(), bad)
    result = _two_erdma_ports()
    result["devices"][0]["ports"][0]["netdev"] = "eth1; reboot"
    with pytest.raises(ValueError, match="interface name"):
        rdma.netdev_mtu_plan(result, 8500)
