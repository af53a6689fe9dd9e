"""The lab cluster: N hosts, their shared directory, the state file, the Ansible inventory.

Everything the lab makes lives in one directory (default `.lab/` in the checkout), except the
cached base root filesystem (see base.py). `up` either brings every host up or leaves nothing
behind; `down` stops exactly the processes recorded in state.json.
"""

from __future__ import annotations

import ipaddress
import json
import os
import shutil
import subprocess
from pathlib import Path

import yaml

from . import base, hosts
from .errors import LabError

STATE = "state.json"
GROUP = "scc_cluster"

# Lab-only values for the roles (documented in docs/DEVELOPING.md); role defaults stay the
# production ones.
LAB_GROUP_VARS = {
    # No GPU in the lab: the GPU roles validate their variables and do nothing else.
    "scc_cpu_only": True,
    # No RDMA devices in the lab: ib_check skips, rdma_bandwidth uses iperf3, NCCL/gloo use sockets.
    "scc_transport": "tcp",
    "bert_launch_tcp_interface": "lo",
    "bert_launch_model_size": "tiny",
    "python_env_wheelhouse_path": "/mnt/cpfs/wheelhouse",
    "python_env_wheelhouse_shared": True,
    # Loopback has no link rate: a declared one (2 Gb/s) sets the iperf3 pass threshold.
    "rdma_bandwidth_link_rate_gbps": 2,
    "rdma_bandwidth_duration_s": 2,
}


def default_dir() -> Path:
    return Path(os.environ.get("SCC_LAB_DIR", Path(__file__).resolve().parent.parent / ".lab"))


class Lab:
    def __init__(self, directory: Path):
        self.dir = Path(directory).resolve()
        self.key = self.dir / "id_ed25519"
        self.known_hosts = self.dir / "known_hosts"
        self.inventory = self.dir / "inventory.yml"
        self.shared = self.dir / "shared"

    # ---- state -------------------------------------------------------------------------
    def load(self) -> list[hosts.HostState]:
        try:
            data = json.loads((self.dir / STATE).read_text())
        except FileNotFoundError:
            return []
        return [hosts.HostState(**h) for h in data["hosts"]]

    def save(self, states: list[hosts.HostState]) -> None:
        tmp = self.dir / (STATE + ".tmp")
        tmp.write_text(json.dumps({"hosts": [hosts.as_dict(s) for s in states]}, indent=2) + "\n")
        os.replace(tmp, self.dir / STATE)

    # ---- commands ----------------------------------------------------------------------
    def up(self, count: int, first_address: str, log=print) -> list[hosts.HostState]:
        if count < 1:
            raise LabError(f"--hosts must be at least 1 (got {count})")
        addresses = self._addresses(first_address, count)
        running = self.load()
        if running:
            alive = [s for s in running if hosts.is_ours(s)]
            if len(alive) == len(running) and [s.address for s in running] == addresses:
                log(f"lab already up with {count} hosts in {self.dir}")
                return running
            raise LabError(
                f"a lab with {len(running)} hosts is recorded in {self.dir} "
                f"({len(alive)} running): run `python -m lab --dir {self.dir} down` first"
            )
        self._preflight(addresses)
        base_dir = base.ensure_base(log)
        self.dir.mkdir(parents=True, exist_ok=True)
        if not self.key.exists():
            hosts.keygen(self.key, "ed25519", "scc-lab-controller")
        pubkey = Path(f"{self.key}.pub").read_text().strip()
        self.shared.mkdir(exist_ok=True)
        started: list[hosts.HostState] = []
        known = []
        try:
            for index, address in enumerate(addresses, start=1):
                name = f"node{index}"
                hostdir = self.dir / "hosts" / name
                if hostdir.exists():
                    shutil.rmtree(hostdir)
                keys = hosts.seed(hostdir, name, address, pubkey)
                known += [f"{address} {k}" for k in keys.values()]
                started.append(hosts.start(base_dir, hostdir, self.shared, name, address))
                self.save(started)
            for state in started:
                hosts.wait_ssh(state)
        except BaseException:
            # No half-built state: stop what this call started and forget it.
            for state in started:
                try:
                    hosts.stop(state)
                except LabError:
                    pass
            self._forget()
            raise
        self.known_hosts.write_text("\n".join(known) + "\n")
        self.inventory.write_text(self.render_inventory(started))
        log(f"lab up: {count} hosts ({addresses[0]}..{addresses[-1]}); inventory {self.inventory}")
        return started

    def down(self, log=print) -> None:
        states = self.load()
        for state in states:
            hosts.stop(state)
        leftover = self._mounts_under_dir()
        if leftover:
            raise LabError("mounts under the lab directory remain, not deleting:\n" + "\n".join(leftover))
        self._forget()
        log(f"lab down: stopped {len(states)} hosts in {self.dir}")

    def status(self) -> list[dict]:
        rows = []
        for state in self.load():
            alive = hosts.is_ours(state)
            rows.append(
                {
                    "name": state.name,
                    "address": state.address,
                    "running": alive,
                    "ssh": alive and not hosts.address_free(state.address),
                    "pid": state.init_pid,
                }
            )
        return rows

    def ssh(self, address: str, command: str, timeout: float = 60) -> subprocess.CompletedProcess:
        """Run a command on a lab host as root, checking its pinned host key."""
        return subprocess.run(
            [
                "ssh",
                "-i",
                str(self.key),
                "-o",
                f"UserKnownHostsFile={self.known_hosts}",
                "-o",
                "StrictHostKeyChecking=yes",
                "-o",
                "BatchMode=yes",
                f"root@{address}",
                command,
            ],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    # ---- helpers -----------------------------------------------------------------------
    def render_inventory(self, states: list[hosts.HostState]) -> str:
        group_vars = {
            "ansible_user": "root",
            "ansible_python_interpreter": "/usr/bin/python3",
            "ansible_ssh_private_key_file": str(self.key),
            "ansible_ssh_common_args": (f"-o UserKnownHostsFile={self.known_hosts} -o StrictHostKeyChecking=yes"),
            **LAB_GROUP_VARS,
        }
        inventory = {
            GROUP: {
                "hosts": {s.name: {"ansible_host": s.address} for s in states},
                "vars": group_vars,
            }
        }
        header = "# Written by `python -m lab up`; lab hosts are namespaces on this machine.\n"
        return header + yaml.safe_dump(inventory, sort_keys=False)

    @staticmethod
    def _addresses(first: str, count: int) -> list[str]:
        try:
            start = ipaddress.IPv4Address(first)
        except ValueError as exc:
            raise LabError(f"--first-address {first!r} is not an IPv4 address") from exc
        addresses = [start + i for i in range(count)]
        loopback = ipaddress.IPv4Network("127.0.0.0/8")
        if any(a not in loopback or a == loopback.broadcast_address for a in addresses):
            raise LabError(f"lab hosts must stay inside 127.0.0.0/8: {first} + {count} hosts does not")
        return [str(a) for a in addresses]

    def _preflight(self, addresses: list[str]) -> None:
        if os.geteuid() != 0:
            raise LabError("the lab needs root (namespaces, overlay and bind mounts): run it as root")
        for tool in ("unshare", "ssh-keygen", "chroot"):
            if shutil.which(tool) is None:
                raise LabError(f"{tool} is not installed: the lab needs it")
        if "overlay" not in Path("/proc/filesystems").read_text():
            raise LabError("this kernel has no overlay filesystem (modprobe overlay)")
        taken = [a for a in addresses if not hosts.address_free(a)]
        if taken:
            raise LabError(
                "port 22 is already taken on "
                + ", ".join(taken)
                + ": stop what listens there, or choose other addresses with --first-address"
            )

    def _mounts_under_dir(self) -> list[str]:
        prefix = str(self.dir) + "/"
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
        return [line.split()[4] for line in lines if line.split()[4].startswith(prefix)]

    def _forget(self) -> None:
        for path in (self.dir / "hosts", self.shared):
            shutil.rmtree(path, ignore_errors=True)
        for path in (self.dir / STATE, self.inventory, self.known_hosts):
            path.unlink(missing_ok=True)
