"""The lab itself, for real: hosts come up isolated, share only the CPFS stand-in, and go
away completely (no process, no mount) on `down`."""

import os
from pathlib import Path

import pytest

from tests.lab_runner import lab_up

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the lab needs root")


def ssh(lab, address, command):
    result = lab.ssh(address, command, timeout=30)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_up_isolates_hosts_and_down_leaves_nothing(tmp_path):
    with lab_up(tmp_path / "lab", 2, "127.0.19.11") as lab:
        states = lab.load()
        assert [s.name for s in states] == ["node1", "node2"]
        names = {ssh(lab, s.address, "hostname").strip() for s in states}
        assert names == {"node1", "node2"}
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
