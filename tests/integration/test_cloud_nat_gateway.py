"""provision.yml's optional NAT gateway (scc_cloud_nat_gateway, issue 34.3: the nodes' way out) against the offline
emulator, without lab hosts; every request through the contract check (alibabacloud_vpc20160428's models).

Checked (bad values and the default, off, in test_cloud_playbooks.py's runs): on makes an EIP
and an enhanced Internet NAT gateway in the cluster's VSwitch with one SNAT entry of that VSwitch through the EIP, and a
re-run changes nothing; switched off, provision deletes them (the gateway, then the EIP) and nothing else; teardown
deletes them before the VSwitch they hold an address in.
"""

from __future__ import annotations

import pytest

from lab.cloud.store import Timings
from lab.cloud.testing import emulator
from tests.cloud_helpers import cloud_vars, playbook_env, recap, run_playbook

TIMINGS = Timings(vpc=0.02, instance_pending=0.05, instance_starting=0.05, eip=0.05, nat_gateway=0.1, snat_entry=0.05)
TAGS = {"managed-by": "scc.training", "scc-cluster": "natp"}


@pytest.fixture(scope="module")
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("nat")
    with emulator(timings=TIMINGS) as emu:
        vars_file = tmp / "cloud.yml"
        settings = cloud_vars(
            emu,
            vars_file,
            scc_cloud_name="natp",
            scc_cloud_tags=TAGS,
            # The NAT gateway alone: no CPFS (its own tests), the example's nodes.
            scc_cloud_cpfs_enabled=False,
        )
        yield dict(emu=emu, env=playbook_env(emu), vars_file=vars_file, settings=settings, tmp=tmp)
        assert emu.internal_errors == []


def provision(cloud, *extra):
    return run_playbook(cloud["env"], "provision.yml", cloud["vars_file"], *extra)


def test_nat_gateway_on_off_and_teardown(cloud):
    emu = cloud["emu"]
    # Off, the default, makes nothing of it, and bad values are refused before any API call: both in
    # tests/integration/test_cloud_playbooks.py, whose provision runs already pay for them.
    rc, out = provision(cloud, "-e", "scc_cloud_nat_gateway=true")
    assert rc == 0, out[-3000:]
    (vswitch,) = emu.vswitches()
    (ngw,) = emu.nat_gateways()
    (eip,) = emu.eips()
    assert (ngw["Name"], ngw["NatType"], ngw["NetworkType"], ngw["Status"]) == (
        "natp-nat",
        "Enhanced",
        "internet",
        "Available",
    )
    assert ngw["NatGatewayPrivateInfo"]["VswitchId"] == vswitch["VSwitchId"]
    assert {t["TagKey"]: t["TagValue"] for t in ngw["Tags"]["Tag"]} == TAGS
    assert (eip["Name"], eip["InstanceId"], eip["InstanceType"], eip["Status"]) == (
        "natp-nat-eip",
        ngw["NatGatewayId"],
        "Nat",
        "InUse",
    )
    assert eip["Bandwidth"] == "100" and eip["InternetChargeType"] == "PayByTraffic"
    assert [(s["SourceVSwitchId"], s["SnatIp"], s["Status"]) for s in emu.snat_entries()] == [
        (vswitch["VSwitchId"], eip["IpAddress"], "Available")
    ]
    assert "nat_snat_ip: %s" % eip["IpAddress"] in out or '"nat_snat_ip": "%s"' % eip["IpAddress"] in out, out[-3000:]

    rc, out = provision(cloud, "-e", "scc_cloud_nat_gateway=true")
    assert rc == 0 and recap(out)["changed"] == 0, out[-3000:]

    # Switched off: the gateway (its SNAT entry, the EIP's association) and the EIP go; the nodes stay.
    nodes = len(emu.instances())
    rc, out = provision(cloud)
    assert rc == 0, out[-3000:]
    assert emu.nat_gateways() == [] and emu.snat_entries() == [] and emu.eips() == []
    assert len(emu.instances()) == nodes and len(emu.vswitches()) == 1

    rc, out = provision(cloud, "-e", "scc_cloud_nat_gateway=true")
    assert rc == 0 and len(emu.nat_gateways()) == 1, out[-3000:]
    # teardown: the gateway and its EIP before the VSwitch (the emulator's DeleteVSwitch refuses a vSwitch a NAT
    # gateway holds an address in), then everything else. (A gateway of the name with other tags is left: the
    # module's own test, tests/unit/plugins/modules/test_ecs_nat_gateway.py.)
    rc, out = run_playbook(cloud["env"], "teardown.yml", cloud["vars_file"])
    assert rc == 0, out[-3000:]
    assert emu.nat_gateways() == [] and emu.snat_entries() == [] and emu.eips() == []
    assert emu.vswitches() == [] and emu.vpcs() == []
