"""The lab itself, for real: hosts come up isolated, share only the CPFS stand-in, and go
away completely (no process, no mount) on `down`. On the same hosts, the bastion way to the
nodes (issue 34.3 b and 5): Ansible reaches every node THROUGH a lab host standing in for the
bastion, with strict host key checking on both hops, and a wrong key on either hop fails."""

import os
import socket
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from lab.cloud.store import Timings
from lab.cloud.testing import emulator
from lab.hosts import address_free
from tests.cloud_helpers import ROOT, cloud_vars, playbook_env
from tests.cloud_helpers import run_playbook as run_cloud_playbook
from tests.lab_runner import failed, lab_fixture, ok_results, run_playbook, unreachable

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the lab needs root")

# Three hosts: the isolation checks use the first two; the bastion walk uses all three (the bastion and two nodes).
lab = lab_fixture(3, "127.0.19.11", name="lab")


def ssh(lab, address, command):
    result = lab.ssh(address, command, timeout=30)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_up_isolates_hosts(lab):
    states = lab.load()
    assert [s.name for s in states] == ["node1", "node2", "node3"]
    names = {ssh(lab, s.address, "hostname").strip() for s in states}
    assert names == {"node1", "node2", "node3"}
    # Own PID namespace: PID 1 is the lab's init, and node2's processes are not visible.
    ps1 = ssh(lab, states[0].address, "ps -eo pid,args")
    assert "1 /usr/bin/python3 /usr/local/sbin/scc-lab-init" in " ".join(ps1.split())
    assert states[1].address not in ps1
    # The CPFS stand-in is one directory seen by every host.
    ssh(lab, states[0].address, "echo token-1 > /mnt/cpfs/probe")
    assert ssh(lab, states[1].address, "cat /mnt/cpfs/probe").strip() == "token-1"
    # Private /etc: a change on one host does not show on the other.
    ssh(lab, states[0].address, "echo x > /etc/only-node1")
    assert ssh(lab, states[1].address, "test -e /etc/only-node1 && echo yes || echo no").strip() == "no"


REACH = """\
- name: Every node, through the bastion
  hosts: scc_cluster
  gather_facts: false
  tasks:
    - name: Hostname
      ansible.builtin.command: hostname
      changed_when: false
"""


def wrong_key(known_hosts: Path, names: str, tmp_path: Path) -> None:
    """Every known_hosts line of ``names`` (its first field) now holds one freshly made key, not the host's."""
    fake = tmp_path / ("fake-" + names.replace(",", "_"))
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(fake)], check=True)
    key = " ".join(Path("%s.pub" % fake).read_text().split()[:2])
    lines = known_hosts.read_text().splitlines()
    hit = [n for n, line in enumerate(lines) if line.split()[0] == names]
    assert hit, names
    for n in hit:
        lines[n] = "%s %s" % (names, key)
    known_hosts.write_text("\n".join(lines) + "\n")


def test_ansible_reaches_the_nodes_through_the_bastion_with_strict_host_keys(lab, tmp_path):
    """The emulator's instances are the lab's hosts (their addresses, their consoles printing the hosts' real keys):
    provision.yml with the shipped bastion example makes the bastion (backed by one lab host) and two nodes; the
    bastion's host answers at its EIP too (a second sshd on that loopback address, inside the host); the
    scc.training.ecs inventory gives each node the ProxyCommand through it. A play reaches both nodes that way; a
    wrong key for a node (inner hop) fails that node only; a wrong key for the bastion (outer hop) fails them all."""
    states = {s.address: s.name for s in lab.load()}
    name = "jump"
    tags = {"managed-by": "scc.training", "scc-cluster": name}
    timings = Timings(vpc=0.05, instance_pending=0.1, instance_starting=0.1)
    with emulator(timings=timings, host_addresses=list(states)) as emu:
        # What each console prints: its lab host's real host keys (lab.known_hosts: "address type base64").
        for line in lab.known_hosts.read_text().splitlines():
            address, key = line.split(" ", 1)
            emu.store.host_keys.setdefault(address, []).append(key)
        vars_file = tmp_path / "cloud.yml"
        cloud_vars(emu, vars_file, scc_cloud_name=name, scc_cloud_tags=tags, scc_cloud_cpfs_enabled=False)
        known_hosts = tmp_path / "known_hosts"
        env = playbook_env(emu)
        bastion_vars = ROOT / "inventories" / "cloud" / "cloud.bastion.example.yml"
        rc, out = run_cloud_playbook(env, "provision.yml", str(vars_file), "-e", "@%s" % bastion_vars)
        assert rc == 0, out[-4000:]

        [bastion] = [i for i in emu.instances() if i["InstanceName"] == name + "-bastion"]
        nodes = {
            i["InstanceId"]: i["VpcAttributes"]["PrivateIpAddress"]["IpAddress"][0]
            for i in emu.instances()
            if i["InstanceName"] == name + "-node"
        }
        bastion_ip = bastion["VpcAttributes"]["PrivateIpAddress"]["IpAddress"][0]
        [eip] = [e["IpAddress"] for e in emu.eips()]
        assert len(nodes) == 2 and set(nodes.values()) | {bastion_ip} == set(states)
        # The bastion's host answers at the EIP as well: one more sshd, inside that host (it ends with the host).
        assert address_free(eip), "something else listens on %s:22" % eip
        ssh(lab, bastion_ip, "/usr/sbin/sshd -o ListenAddress=%s" % eip)
        deadline = time.monotonic() + 20
        while address_free(eip) and time.monotonic() < deadline:
            time.sleep(0.1)
        with socket.create_connection((eip, 22), timeout=5) as sock:
            assert sock.recv(64).startswith(b"SSH-")

        # The inventory: the shipped example aimed at the emulator, the console's known_hosts, the lab's key for both
        # the nodes (Ansible's own ssh) and the jump (bastion_private_key_file).
        inventory = tmp_path / "inventory"
        (inventory / "group_vars").mkdir(parents=True)
        plugin = dict(
            yaml.safe_load((ROOT / "inventories" / "cloud" / "example.ecs.yml").read_text()),
            region="cn-shanghai",
            ecs_endpoint=emu.endpoint,
            tags=tags,
            known_hosts_file=str(known_hosts),
            bastion_private_key_file=str(lab.key),
        )
        (inventory / "jump.ecs.yml").write_text(yaml.safe_dump(plugin))
        (inventory / "group_vars" / "all.yml").write_text(
            yaml.safe_dump(
                {"ansible_ssh_private_key_file": str(lab.key), "ansible_python_interpreter": "/usr/bin/python3"}
            )
        )
        playbook = tmp_path / "reach.yml"
        playbook.write_text(REACH)
        runner_env = {
            "ALIBABA_CLOUD_ACCESS_KEY_ID": emu.access_key_id,
            "ALIBABA_CLOUD_ACCESS_KEY_SECRET": emu.access_key_secret,
            "NO_PROXY": "127.0.0.1",
            "no_proxy": "127.0.0.1",
            # Every run opens its own connections: no master of an earlier run carries one past host key checking.
            "ANSIBLE_SSH_ARGS": "-o ControlMaster=no -o ControlPath=none",
        }

        def reach():
            run = run_playbook(playbook, inventory, tmp_path, envvars=runner_env)
            down = {e["event_data"]["host"]: e["event_data"]["res"].get("msg", "") for e in unreachable(run.events)}
            return {h: r["stdout"] for h, r in ok_results(run.events, "Hostname").items()}, down, run

        # Every node answers with its own lab host's name, through the jump.
        answered, down, run = reach()
        assert down == {} and failed(run.events) == [], (down, failed(run.events))
        assert answered == {i: states[address] for i, address in nodes.items()}, (
            run.status,
            "".join(e.get("stdout", "") for e in run.events)[-3000:],
        )

        good = known_hosts.read_text()
        first, second = sorted(nodes)
        try:
            # Inner hop: the first node's key is wrong; the jump to it is fine, ssh to it refuses.
            wrong_key(known_hosts, "%s,%s" % (nodes[first], first), tmp_path)
            answered, down, run = reach()
            assert list(answered) == [second] and list(down) == [first], (answered, down)
            assert "Host key verification failed" in down[first], down[first]
            assert "Host key for %s has changed" % nodes[first] in down[first], down[first]
            known_hosts.write_text(good)
            # Outer hop: the bastion's key (under its private address, EIP and ID) is wrong; no node is reached.
            wrong_key(known_hosts, "%s,%s,%s" % (bastion_ip, eip, bastion["InstanceId"]), tmp_path)
            answered, down, run = reach()
            assert answered == {} and sorted(down) == sorted(nodes), (answered, down)
            for msg in down.values():
                assert "Host key for %s has changed" % eip in msg and "Host key verification failed" in msg, msg
        finally:
            known_hosts.write_text(good)
        assert emu.internal_errors == []


def test_down_leaves_nothing(lab):
    states = lab.load()
    lab.down(log=lambda *_: None)
    for s in states:
        assert not Path(f"/proc/{s.init_pid}").exists() or s.init_pid not in _pids_with_marker()
    mounts = Path("/proc/self/mountinfo").read_text()
    assert str(lab.dir) not in mounts
    assert not (lab.dir / "state.json").exists()


def _pids_with_marker():
    pids = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if b"scc-lab-init" in (proc / "cmdline").read_bytes():
                pids.append(int(proc.name))
        except OSError:
            pass
    return pids
