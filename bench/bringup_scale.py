"""Bring-up cost per host as the cluster grows: the hosts_file and ssh_trust roles on N fake hosts.

No real hosts: every node of the inventory is ``ansible_connection: local`` with its own facts
(nodename, hostname, set by a first task that stands in for setup), and its own copies of the files the roles write
(/etc/hosts, known_hosts, the ssh client drop-in, root's ~/.ssh) under a temporary directory. The
commands that would look at a real node are stand-ins on PATH: ``getent`` answers from the hosts file
the role wrote, ``ssh PEER hostname`` answers PEER, and ``cat`` hands out a host key for the
``/etc/ssh/ssh_host_*_key.pub`` this machine may lack. So what is measured is what grows with N on the
controller: the tasks Ansible runs per host (loop items counted one each) and the CPU seconds of
ansible-playbook and everything it started (templating, forks, the local module runs), per host.

A flat cost per host is the goal: cluster-wide data built once, O(1) module calls per node. The last
line compares the largest cluster with the smallest.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

PLAYBOOK = """---
- name: hosts_file and ssh_trust on the fake cluster
  hosts: scc_cluster
  gather_facts: false
  tasks:
    # Stands in for setup: the facts the roles read (cacheable facts are the host's ansible_facts).
    - name: Give every node its facts
      ansible.builtin.set_fact:
        nodename: "{{ inventory_hostname }}"
        hostname: "{{ inventory_hostname }}"
        cacheable: true
    - name: Apply hosts_file
      ansible.builtin.import_role:
        name: scc.training.hosts_file
    - name: Apply ssh_trust
      ansible.builtin.import_role:
        name: scc.training.ssh_trust
"""

# Stand-ins for the node-side commands (see the module docstring).
STANDINS = {
    "getent": """#!/bin/sh
# getent hosts NAME, answered from the hosts file the role wrote for node1 (every node's is the same).
[ "$1" = hosts ] || exec /usr/bin/getent "$@"
awk -v name="$2" '!/^#/ { for (i = 2; i <= NF; i++) if ($i == name) { print; found = 1; exit } }
  END { exit found ? 0 : 2 }' "$BENCH_HOSTS_FILE"
""",
    "ssh": """#!/bin/sh
# ssh [-o OPT]... PEER hostname: answers PEER.
while [ "$1" = -o ]; do shift 2; done
echo "$1"
""",
    "cat": """#!/bin/sh
# The node's host keys (this machine may have none); any other file: the real cat.
case "$1" in /etc/ssh/ssh_host_*) echo "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBenchBenchBenchBenchBenchBenchBenchBench root@bench";;
*) exec /bin/cat "$@";; esac
""",
}


def write_cluster(workdir: Path, size: int) -> Path:
    """The inventory of ``size`` local hosts, their cached facts, and the stand-ins; returns the inventory."""
    hosts = {}
    for index in range(1, size + 1):
        name = f"node{index}"
        address = f"127.0.{50 + index // 250}.{index % 250 + 1}"
        hosts[name] = {"ansible_host": address}
    nodes = workdir / "nodes"
    inventory = {
        "scc_cluster": {
            "hosts": hosts,
            "vars": {
                "ansible_connection": "local",
                "ansible_python_interpreter": sys.executable,
                "hosts_file_path": f"{nodes}/{{{{ inventory_hostname }}}}/hosts",
                "ssh_trust_known_hosts_file": f"{nodes}/{{{{ inventory_hostname }}}}/ssh_known_hosts",
                "ssh_trust_ssh_config_file": f"{nodes}/{{{{ inventory_hostname }}}}/ssh_config",
                "ssh_trust_key_dir": str(workdir / "controller-key"),
            },
        }
    }
    for name in hosts:
        (nodes / name / "root").mkdir(parents=True)
    (workdir / "inventory.json").write_text(json.dumps(inventory))
    bin_dir = workdir / "bin"
    bin_dir.mkdir()
    for command, text in STANDINS.items():
        (bin_dir / command).write_text(text)
        (bin_dir / command).chmod(0o755)
    (workdir / "playbook.yml").write_text(PLAYBOOK)
    return workdir / "inventory.json"


RESULT = re.compile(r"^(ok|changed|failed|fatal): \[")


def run(workdir: Path, size: int, tags: str | None) -> tuple[int, float, float]:
    """One ansible-playbook run: (task executions, CPU seconds of it and its children, wall seconds)."""
    inventory = write_cluster(workdir, size)
    env = dict(
        os.environ,
        ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"),
        ANSIBLE_COLLECTIONS_PATH=str(ROOT / ".collections"),
        ANSIBLE_CACHE_PLUGIN=str("ansible.builtin.memory"),
        ANSIBLE_FORKS="32",
        ANSIBLE_STDOUT_CALLBACK="ansible.builtin.default",
        ANSIBLE_CALLBACK_RESULT_FORMAT="json",
        PATH=f"{workdir / 'bin'}:{BIN}:{os.environ['PATH']}",
        BENCH_HOSTS_FILE=str(workdir / "nodes" / "node1" / "hosts"),
    )
    cmd = [str(BIN / "ansible-playbook"), "-i", str(inventory), str(workdir / "playbook.yml")]
    # root's home is a role variable (vars/), which only an extra variable outranks.
    cmd += ["-e", json.dumps({"_ssh_trust_home": str(workdir / "nodes" / "{{ inventory_hostname }}" / "root")})]
    if tags:
        cmd += ["--tags", tags]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, check=False)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-6000:] + proc.stderr[-2000:])
        raise SystemExit(f"bench-scale: the playbook failed at N={size}")
    executions = sum(1 for line in proc.stdout.splitlines() if RESULT.match(line))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return executions, cpu, wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="25,50,100")
    parser.add_argument("--tags", default=None, help="limit the roles' steps, e.g. hosts_file,ssh_trust_verify")
    args = parser.parse_args()
    rows = []
    for size in [int(s) for s in args.sizes.split(",")]:
        with tempfile.TemporaryDirectory(prefix=f"scc-bench-scale-{size}-") as tmp:
            executions, cpu, wall = run(Path(tmp), size, args.tags)
        rows.append((size, executions / size, cpu / size, wall))
        print(f"  N={size}: {executions} task executions, {cpu:.1f} CPU s, {wall:.1f} s wall", file=sys.stderr)

    print("hosts_file + ssh_trust on N local hosts (stand-in node commands); per host = total / N")
    print(f"{'hosts':>5} {'tasks/host':>11} {'cpu s/host':>11} {'wall s':>8}")
    for size, tasks, cpu, wall in rows:
        print(f"{size:>5} {tasks:>11.2f} {cpu:>11.3f} {wall:>8.1f}")
    (small, small_tasks, small_cpu, _wall), (large, large_tasks, large_cpu, _wall) = rows[0], rows[-1]
    print(
        f"bench-scale: per-host cpu ratio N={large}/N={small}: {large_cpu / small_cpu:.2f}; "
        f"per-host task ratio: {large_tasks / small_tasks:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
