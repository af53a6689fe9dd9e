"""Bring-up cost per host as the cluster grows: playbooks/validate.yml and playbooks/cluster.yml on N fake hosts.

No real hosts, nothing listens anywhere: every node of the inventory is ``ansible_connection: local``
with its own variables (address, GPU count, its own copies of the files the roles write under a
temporary directory: /etc/hosts, known_hosts, the ssh client drop-in, root's ~/.ssh, the MPI hostfile)
and its own facts. What is stubbed, and only that:

- STUB setup: cluster.yml's "Gather facts on every node" (tagged facts) is skipped with ``--skip-tags facts``;
  each node's facts (nodename, hostname, vCPUs, an SSH host key as setup's ssh_pub_keys reports it) are in a
  jsonfile fact cache that a seeding run (SEED, not measured) left, as a real setup would have.
- STUB node commands, on PATH: ``getent hosts -- NAME...`` answers from the hosts file the role wrote and
  ``ssh ... -- PEER hostname`` answers PEER.

What is measured is what grows with N on the controller: the task executions per host (a callback
counts them; a loop item counts one) and the CPU seconds of ansible-playbook and everything it started
(templating, forks: ``resource.getrusage`` of the children), per host, less the module runs and what they
start (the stand-ins above): here the nodes are this machine, on real hosts that work is the nodes'. The
module runs' CPU is printed apart (node-python, the fake nodes' interpreter, sums it with bash's ``times``). A flat
cost per host is the goal: cluster-wide data built once, O(1) module calls per node. The last line
compares the largest cluster with the smallest, both playbooks together.

prepare.yml's converged re-run cannot run on fake local nodes (its roles would act on this machine): it is
measured on a lab of 2 hosts (network namespaces with their own sshd, reached over ssh as real hosts are; `make
lab-deps`): prepare.yml once to converge, then the re-run, whose controller CPU includes ssh and its
ControlPersist masters (adopted by this process as their subreaper, ended and reaped after the run). The re-run runs
on the whole lab and on one host (--limit), twice each: its cost at N hosts is its fixed part (what runs once per run)
/ N + its part per host, the line's figure for the largest N.

Cost: about 8 CPU s per host for cluster.yml (6 of them the module runs) and under 0.3 for validate.yml, so the
default sizes (375 hosts in all) take about an hour on 2 busy cores (N = 25 and 100 took 28 minutes at a load of
20-40), plus a few minutes for the lab's prepare.yml; ``--sizes``, ``--playbooks``, ``--slice-size`` and
``--prepare-lab-hosts`` narrow it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
PLAYBOOKS = ("validate", "cluster")
# The slicing check: cluster.yml whole vs as SLICES parallel job slices, on SLICE_SIZE fake nodes.
SLICES, SLICE_SIZE = 4, 12
# prepare.yml is not among the fake-host playbooks: its roles act on the machine they reach (mount CPFS, install
# packages, build a venv, load kernel modules), and every fake node is this machine itself. Its converged re-run is
# measured on PREPARE_LAB_HOSTS lab hosts instead (network namespaces with their own sshd, reached over ssh as real
# hosts are): prepare.yml once to converge, then the measured re-run.
PREPARE_LAB_HOSTS, PREPARE_LAB_ADDRESS = 2, "127.0.44.11"
PR_SET_CHILD_SUBREAPER = 36  # prctl(2)

# Stand-ins for the node-side commands (see the module docstring).
STANDINS = {
    "getent": """#!/bin/sh
# STUB getent hosts [--] NAME...: answered from the hosts file the role wrote for one node, the first that has one
# (every node's is the same; the slicing check compares them all).
[ "$1" = hosts ] || exec /usr/bin/getent "$@"
shift
[ "$1" = -- ] && shift
for file in "$BENCH_NODES"/*/hosts; do [ -f "$file" ] && break; done
awk -v names="$*" 'BEGIN { n = split(names, want, " ") }
  FNR == NR && !/^#/ { for (i = 2; i <= NF; i++) line[$i] = $0; next }
  END { for (k = 1; k <= n; k++) { if (want[k] in line) print line[want[k]]; else missing = 1 } exit missing ? 2 : 0 }' \
  "$file"
""",
    "node-python": """#!/bin/bash
# The nodes' Python (ansible_python_interpreter): a module run and what it starts are the node's work (on real
# hosts they run there, not on the controller); their CPU seconds (bash's times, not in a pipe's subshell: its own
# and its children's user and system time) go to BENCH_NODE_CPU, which the bench tells apart from the controller's.
"$BENCH_PYTHON" "$@"
rc=$?
times >>"$BENCH_NODE_CPU"
exit $rc
""",
    "ssh": """#!/bin/sh
# STUB ssh [-o OPT]... [--] PEER hostname: answers PEER.
while [ "$1" = -o ]; do shift 2; done
[ "$1" = -- ] && shift
echo "$1"
""",
}


def node_address(index: int) -> str:
    """A distinct loopback address per node (never contacted: the connection is local)."""
    return f"127.0.{50 + index // 250}.{index % 250 + 1}"


def inventory(workdir: Path, size: int, key_dir: Path | None = None) -> dict:
    """The fake cluster: ``size`` local hosts, each writing its files under workdir/nodes/NAME; the controller's
    cluster key under key_dir (default workdir/controller-key)."""
    nodes = workdir / "nodes"
    per_node = f"{nodes}/{{{{ inventory_hostname }}}}"
    return {
        "scc_cluster": {
            "hosts": {f"node{index}": {"ansible_host": node_address(index)} for index in range(1, size + 1)},
            "vars": {
                "ansible_connection": "local",
                "ansible_python_interpreter": str(workdir / "bin" / "node-python"),
                "scc_gpu_count": 8,
                "hosts_file_path": f"{per_node}/hosts",
                "ssh_trust_known_hosts_file": f"{per_node}/ssh_known_hosts",
                "ssh_trust_ssh_config_file": f"{per_node}/scc-training.conf",
                "ssh_trust_key_dir": str(key_dir or workdir / "controller-key"),
                "mpi_hostfile_path": f"{per_node}/mpihosts",
            },
        }
    }


# STUB setup's cache: the facts cluster.yml's roles read, cached as setup would (cacheable facts are ansible_facts).
SEED = """---
- name: Cache every node's facts (stands in for setup)
  hosts: scc_cluster
  gather_facts: false
  tasks:
    - name: Give every node its facts
      ansible.builtin.set_fact:
        nodename: "{{ inventory_hostname }}"
        hostname: "{{ inventory_hostname }}"
        processor_vcpus: 96
        ssh_host_key_ed25519_public: AAAAC3NzaC1lZDI1NTE5AAAAIBenchBenchBenchBenchBenchBenchBenchBench
        ssh_host_key_ed25519_public_keytype: ssh-ed25519
        cacheable: true
"""


def write_cluster(workdir: Path, size: int, key_dir: Path | None = None) -> Path:
    """The inventory, the fact cache and the stand-ins under workdir; returns the inventory's path."""
    hosts = inventory(workdir, size, key_dir)
    for name in hosts["scc_cluster"]["hosts"]:
        (workdir / "nodes" / name / "root").mkdir(parents=True)
    (workdir / "seed.yml").write_text(SEED)
    (workdir / "inventory.json").write_text(json.dumps(hosts))
    bin_dir = workdir / "bin"
    bin_dir.mkdir()
    for command, text in STANDINS.items():
        (bin_dir / command).write_text(text)
        (bin_dir / command).chmod(0o755)
    return workdir / "inventory.json"


def environment(workdir: Path) -> dict:
    """ansible-playbook's environment: this checkout, the fake cluster's fact cache and stand-ins, the counter."""
    return dict(
        os.environ,
        ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"),
        ANSIBLE_COLLECTIONS_PATH=str(ROOT / ".collections"),
        ANSIBLE_CACHE_PLUGIN="ansible.builtin.jsonfile",
        ANSIBLE_CACHE_PLUGIN_CONNECTION=str(workdir / "facts"),
        ANSIBLE_CALLBACK_PLUGINS=str(Path(__file__).resolve().parent / "callback_plugins"),
        ANSIBLE_CALLBACKS_ENABLED="scale_count",
        ANSIBLE_STDOUT_CALLBACK="ansible.builtin.default",
        ANSIBLE_CALLBACK_RESULT_FORMAT="json",
        # As ansible.cfg does for ssh: the module goes over the connection's stdin, no temporary files.
        ANSIBLE_PIPELINING="True",
        SCC_BENCH_COUNTS=str(workdir / "counts.json"),
        PATH=f"{workdir / 'bin'}:{BIN}:{os.environ['PATH']}",
        BENCH_NODES=str(workdir / "nodes"),
        BENCH_PYTHON=sys.executable,
        BENCH_NODE_CPU=str(workdir / "node-cpu"),
    )


def seed(workdir: Path) -> None:
    """STUB setup: cache every node's facts (not measured)."""
    cmd = [str(BIN / "ansible-playbook"), "-i", str(workdir / "inventory.json"), str(workdir / "seed.yml")]
    subprocess.run(cmd, cwd=workdir, env=environment(workdir), capture_output=True, check=True)


def command(
    workdir: Path, playbook: str, tags: str | None = None, limit: list[str] | None = None, extravars: dict | None = None
) -> list[str]:
    """ansible-playbook's argv for playbooks/PLAYBOOK.yml on the fake cluster (a slice of it with ``limit``)."""
    cmd = [
        str(BIN / "ansible-playbook"),
        "-i",
        str(workdir / "inventory.json"),
        str(ROOT / "playbooks" / f"{playbook}.yml"),
    ]
    # STUB setup (see the module docstring); root's home is a role variable (vars/): only an extra variable outranks it.
    cmd += ["--skip-tags", "facts"]
    cmd += ["-e", json.dumps({"_ssh_trust_home": str(workdir / "nodes" / "{{ inventory_hostname }}" / "root")})]
    if tags:
        cmd += ["--tags", tags]
    if limit:
        cmd += ["--limit", ",".join(limit)]
    if extravars:
        cmd += ["-e", json.dumps(extravars)]
    return cmd


def node_cpu(workdir: Path) -> float:
    """The CPU seconds of every module run so far on the fake nodes (node-python's lines, user and system time:
    ``0m0.150s 0m0.030s``)."""
    path = workdir / "node-cpu"
    if not path.exists():
        return 0.0
    total = 0.0
    for line in path.read_text().splitlines():
        for field in line.split():
            minutes, seconds = field.rstrip("s").split("m")
            total += int(minutes) * 60 + float(seconds)
    return total


def failure_excerpt(output: str, stderr: str = "") -> str:
    """What a failed run's output says of its failure: each task that failed on some host, with its first failed
    host's line (one line per task, the recap of hundreds of hosts would hide it), then the end of the output."""
    lines, seen, excerpt, task = output.splitlines(), set(), [], ""
    for line in lines:
        if line.startswith("TASK ["):
            task = line
        elif line.startswith(("fatal:", "failed:")) and task not in seen:
            seen.add(task)
            excerpt += [task, line[:2000]]
    rest = [
        line for line in lines if not re.match(r"^\S+\s+: ok=", line) and not line.startswith(("fatal:", "failed:"))
    ]
    tail = "\n".join(rest[-40:])
    return "\n".join(excerpt + [tail, stderr[-2000:]]) + "\n"


def run(workdir: Path, size: int, playbook: str, tags: str | None) -> tuple[float, float, float, float]:
    """One ansible-playbook run of playbooks/PLAYBOOK.yml: (task executions, controller CPU seconds, node CPU
    seconds, wall seconds). Controller: ansible-playbook and everything it started, less the module runs."""
    env = environment(workdir)
    cmd = command(workdir, playbook, tags)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, check=False)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.stderr.write(failure_excerpt(proc.stdout, proc.stderr))
        raise SystemExit(f"bench-scale: playbooks/{playbook}.yml failed at N={size}")
    executions = sum(json.loads((workdir / "counts.json").read_text())["ran"].values())
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    nodes = node_cpu(workdir)
    return executions, cpu - nodes, nodes, wall


def our_children() -> set[int]:
    """The processes whose parent is this one (from /proc)."""
    children = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid():
            children.add(int(stat.parent.name))
    return children


def reap_left_behind(before: set[int]) -> int:
    """End and reap the processes a run left behind (ssh's ControlPersist masters, which detach from
    ansible-playbook and, this process being their subreaper, become its children): their CPU, the encryption of
    every module sent, then counts in RUSAGE_CHILDREN. Returns how many."""
    left = our_children() - before
    for pid in left:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    for pid in left:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    return len(left)


def cpu_seconds(before, after) -> float:
    """User and system seconds between two getrusage snapshots."""
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def by_role(roles: dict[str, int], hosts: int) -> str:
    """The executions per host of each role, most first (``-``: the playbooks' own tasks)."""
    ranked = sorted(roles.items(), key=lambda item: (-item[1], item[0]))
    return ", ".join(f"{name.removeprefix('scc.training.')} {count / hosts:.1f}" for name, count in ranked)


def recap_changed(output: str) -> int:
    """The sum of the PLAY RECAP's changed= counts."""
    return sum(int(count) for count in re.findall(r"\bchanged=(\d+)", output))


def changed_tasks(output: str) -> list[str]:
    """``TASK [...] on host`` of every task that reported a change, from a run's default-callback output."""
    found, task = [], ""
    for line in output.splitlines():
        if line.startswith("TASK ["):
            task = line.split("]", 1)[0][len("TASK [") :]
        else:
            match = re.match(r"^changed: \[([^\]]+)\]", line)
            if match:
                found.append("%s on %s" % (task, match.group(1)))
    return found


def at_scale(whole: float, one: float, hosts: int, scale: int) -> tuple[float, float, float]:
    """(per host at ``scale`` hosts, per-host part, fixed part) of a run's CPU, from its measured total on ``hosts``
    hosts (``whole``) and on one of them (``one``): linear in the hosts, ``fixed + hosts * per_host``."""
    per_host = (whole - one) / (hosts - 1)
    fixed = one - per_host
    return per_host + fixed / scale, per_host, fixed


def prepare_rerun(hosts: int, scale: int) -> tuple[float, int, float, float]:
    """prepare.yml on a fresh lab of ``hosts`` (>= 2) hosts, then re-runs: the (controller CPU s per host at ``scale``
    hosts, changed tasks, task executions per host, skipped tasks per host) of the converged re-run. Controller:
    ansible-playbook, its forks, ssh and the ControlPersist masters (adopted as subreaper).

    A lab holds a few hosts, a fleet hundreds: a run's cost is a fixed part (the run-once work: validate.yml, the
    downloads' plan, reading the playbooks) and a part per host. The re-run is measured on every lab host and, with
    --limit, on the first alone, twice each (the lower of each pair), and the cost per host at ``scale`` hosts is
    per-host part + fixed part / scale."""
    import ctypes

    sys.path.insert(0, str(ROOT))
    from lab.cluster import Lab

    if hosts < 2:
        raise SystemExit("bench-scale: --prepare-lab-hosts needs 2 hosts or more (a per-host part and a fixed part)")
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise SystemExit("bench-scale: prctl(PR_SET_CHILD_SUBREAPER) failed")
    with tempfile.TemporaryDirectory(prefix="scc-bench-prepare-") as tmp:
        workdir = Path(tmp)
        lab = Lab(workdir / "lab")
        lab.up(hosts, PREPARE_LAB_ADDRESS, log=lambda *_: None)
        try:
            env = dict(
                os.environ,
                ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"),
                ANSIBLE_COLLECTIONS_PATH=str(ROOT / ".collections"),
                ANSIBLE_CACHE_PLUGIN_CONNECTION=str(workdir / "facts"),
                ANSIBLE_SSH_CONTROL_PATH_DIR=str(workdir / "cp"),
                ANSIBLE_CALLBACK_PLUGINS=str(Path(__file__).resolve().parent / "callback_plugins"),
                ANSIBLE_CALLBACKS_ENABLED="scale_count",
                SCC_BENCH_COUNTS=str(workdir / "counts.json"),
                PATH=f"{BIN}:{os.environ['PATH']}",
            )
            cmd = [str(BIN / "ansible-playbook"), "-i", str(lab.inventory), str(ROOT / "playbooks" / "prepare.yml")]
            cpu = {"first run": [], "whole": [], "one": []}
            for kind in ("first run", "whole", "one", "whole", "one"):
                extra = ["--limit", "node1"] if kind == "one" else []
                before_children = our_children()
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                proc = subprocess.run(cmd + extra, cwd=workdir, env=env, capture_output=True, text=True, check=False)
                ran = resource.getrusage(resource.RUSAGE_CHILDREN)
                masters = reap_left_behind(before_children)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[kind].append(cpu_seconds(before, after))
                print(
                    f"  prepare.yml on {1 if kind == 'one' else hosts} lab host(s) ({kind}): ansible-playbook and its "
                    f"forks {cpu_seconds(before, ran):.1f} CPU s, {masters} ssh master(s) {cpu_seconds(ran, after):.1f} "
                    "CPU s",
                    file=sys.stderr,
                )
                if proc.returncode != 0:
                    sys.stderr.write(failure_excerpt(proc.stdout, proc.stderr))
                    raise SystemExit(f"bench-scale: playbooks/prepare.yml failed on the lab ({kind})")
                if kind == "whole":
                    whole_output = proc.stdout
                    for changed in changed_tasks(proc.stdout):
                        print("  prepare.yml re-run changed: %s" % changed, file=sys.stderr)
                    counts = json.loads((workdir / "counts.json").read_text())
        finally:
            lab.down(log=lambda *_: None)
    per_host_at_scale, per_host, fixed = at_scale(min(cpu["whole"]), min(cpu["one"]), hosts, scale)
    print(
        f"  prepare.yml re-run: {min(cpu['whole']):.1f} CPU s on {hosts} hosts, {min(cpu['one']):.1f} on one: "
        f"{fixed:.1f} fixed + {per_host:.1f} per host, {per_host_at_scale:.2f} per host at N={scale}",
        file=sys.stderr,
    )
    ran, skipped = (sum(counts[kind].values()) / hosts for kind in ("ran", "skipped"))
    print(f"  prepare.yml re-run, task executions per host by role: {by_role(counts['roles'], hosts)}", file=sys.stderr)
    print(
        f"  prepare.yml re-run, skipped tasks per host by role: {by_role(counts['skipped_roles'], hosts)}",
        file=sys.stderr,
    )
    return per_host_at_scale, recap_changed(whole_output), ran, skipped


def job_slices(hosts: list[str], count: int) -> list[list[str]]:
    """The hosts of each of ``count`` job slices, as AWX/AAP deals them: host i into slice i mod count."""
    return [hosts[first::count] for first in range(count)]


def node_files(workdir: Path) -> dict[str, tuple[str, bytes]]:
    """Every file the roles wrote for every node: path under workdir/nodes -> (mode, content), the fake cluster's
    own directory in a content (the paths the inventory gives the files) written as WORKDIR."""
    nodes = workdir / "nodes"
    return {
        str(path.relative_to(nodes)): (
            oct(path.stat().st_mode & 0o777),
            path.read_bytes().replace(str(workdir).encode(), b"WORKDIR"),
        )
        for path in sorted(nodes.rglob("*"))
        if path.is_file()
    }


def sliced_run(
    workdir: Path, size: int, count: int, key_dir: Path, extravars: dict | None = None
) -> subprocess.CompletedProcess | None:
    """cluster.yml as ``count`` job slices at once (``--limit`` of each) on a fake cluster whose facts are all
    cached (the SEED run stands in for the whole-group facts run); None when every slice succeeded, else the
    first failed slice's process."""
    write_cluster(workdir, size, key_dir)
    seed(workdir)
    hosts = list(inventory(workdir, size)["scc_cluster"]["hosts"])
    procs = [
        subprocess.Popen(
            command(workdir, "cluster", limit=part, extravars=extravars),
            cwd=workdir,
            env=dict(environment(workdir), SCC_BENCH_COUNTS=str(workdir / f"counts-{index}.json")),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for index, part in enumerate(job_slices(hosts, count))
    ]
    outputs = [proc.communicate()[0] for proc in procs]
    for proc, output in zip(procs, outputs):
        if proc.returncode != 0:
            return subprocess.CompletedProcess(proc.args, proc.returncode, output)
    return None


def sliced_equals_unsliced(size: int, count: int, extravars: dict | None = None) -> tuple[bool, list[str]]:
    """cluster.yml over the whole fake cluster, then as ``count`` parallel slices over a second one (same cluster
    key, made by the whole run): whether every node got the same files (path, mode, content), and the paths that
    differ. ``extravars`` go to every run."""
    with tempfile.TemporaryDirectory(prefix="scc-bench-slices-") as tmp:
        whole, sliced, key_dir = Path(tmp) / "whole", Path(tmp) / "sliced", Path(tmp) / "controller-key"
        whole.mkdir()
        sliced.mkdir()
        write_cluster(whole, size, key_dir)
        seed(whole)
        proc = subprocess.run(
            command(whole, "cluster", extravars=extravars),
            cwd=whole,
            env=environment(whole),
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            sys.stderr.write(failure_excerpt(proc.stdout))
            raise SystemExit(f"bench-scale: playbooks/cluster.yml failed at N={size} (unsliced)")
        failed = sliced_run(sliced, size, count, key_dir, extravars)
        if failed is not None:
            sys.stderr.write(failure_excerpt(failed.stdout))
            raise SystemExit(f"bench-scale: a slice of playbooks/cluster.yml failed at N={size}")
        expected, got = node_files(whole), node_files(sliced)
        differ = sorted(path for path in set(expected) | set(got) if expected.get(path) != got.get(path))
        return bool(expected) and not differ, differ


def ratios(rows: list[tuple[int, float, float]]) -> str:
    """The per-host CPU and task ratios of the largest cluster over the smallest.

    rows: (N, task executions per host, CPU seconds per host), smallest N first."""
    (small, small_tasks, small_cpu), (large, large_tasks, large_cpu) = rows[0], rows[-1]
    return (
        f"bench-scale: per-host cpu ratio N={large}/N={small}: {large_cpu / small_cpu:.2f}; "
        f"per-host task ratio: {large_tasks / small_tasks:.2f}"
    )


def last_line(rows: list[tuple[int, float, float]], cpu_at_largest: dict[str, float], sliced: bool | None) -> str:
    """The last line: the ratios, each playbook's CPU s per host at the largest N, and the slicing verdict.

    cpu_at_largest may hold "prepare" (the lab's converged re-run, see PREPARE_LAB_HOSTS); what it lacks reads "n/a"."""
    large = rows[-1][0]

    def cpu(playbook: str) -> str:
        return f"{cpu_at_largest[playbook]:.1f}" if playbook in cpu_at_largest else "n/a"

    verdict = "not run" if sliced is None else ("yes" if sliced else "no")
    return (
        f"{ratios(rows)}; cpu s per host at N={large}: cluster {cpu('cluster')}, validate {cpu('validate')}, "
        f"prepare-rerun {cpu('prepare')}; sliced {SLICES} = unsliced: {verdict}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="25,50,100,200")
    parser.add_argument("--playbooks", default=",".join(PLAYBOOKS), help="of: " + ", ".join(PLAYBOOKS))
    parser.add_argument("--tags", default=None, help="limit the roles' steps, e.g. hosts_file,ssh_trust_verify")
    parser.add_argument("--slice-size", type=int, default=SLICE_SIZE, help="fake nodes of the slicing check (0: skip)")
    parser.add_argument(
        "--prepare-lab-hosts",
        type=int,
        default=PREPARE_LAB_HOSTS,
        help="lab hosts of prepare.yml's converged re-run (0: skip)",
    )
    args = parser.parse_args()
    playbooks = args.playbooks.split(",")
    table, totals = [], []
    for size in sorted(int(s) for s in args.sizes.split(",")):
        tasks_total = cpu_total = 0.0
        for playbook in playbooks:
            with tempfile.TemporaryDirectory(prefix=f"scc-bench-scale-{size}-") as tmp:
                write_cluster(Path(tmp), size)
                if playbook == "cluster":
                    seed(Path(tmp))
                executions, cpu, nodes, wall = run(Path(tmp), size, playbook, args.tags)
            table.append((playbook, size, executions / size, cpu / size, nodes / size, wall))
            tasks_total, cpu_total = tasks_total + executions / size, cpu_total + cpu / size
            print(
                f"  {playbook}.yml N={size}: {executions} task executions, {cpu:.1f} controller CPU s, "
                f"{nodes:.1f} node CPU s (module runs), {wall:.1f} s wall",
                file=sys.stderr,
            )
        totals.append((size, tasks_total, cpu_total))

    print("playbooks on N local hosts (stubbed setup and node commands); per host = total / N")
    print("controller cpu: ansible-playbook and all it started, less the module runs (node cpu: on real hosts, theirs)")
    print(f"{'playbook':>9} {'hosts':>5} {'tasks/host':>11} {'cpu s/host':>11} {'node cpu s/host':>16} {'wall s':>8}")
    for playbook, size, tasks, cpu, nodes, wall in table:
        print(f"{playbook:>9} {size:>5} {tasks:>11.2f} {cpu:>11.3f} {nodes:>16.3f} {wall:>8.1f}")
    largest = max(row[1] for row in table)
    cpu_at_largest = {playbook: cpu for playbook, size, _tasks, cpu, _nodes, _wall in table if size == largest}
    sliced = None
    if args.slice_size:
        sliced, differ = sliced_equals_unsliced(args.slice_size, SLICES)
        print(
            f"cluster.yml as {SLICES} parallel job slices on {args.slice_size} nodes vs one run: differing files: "
            + (", ".join(differ) or "none")
        )
    if args.prepare_lab_hosts:
        cpu_at_largest["prepare"], changed, ran, skipped = prepare_rerun(args.prepare_lab_hosts, largest)
        print(
            f"prepare.yml re-run on {args.prepare_lab_hosts} converged lab hosts: {cpu_at_largest['prepare']:.2f} "
            f"controller CPU s per host at N={largest} (fixed part / N + per-host part), {ran:.0f} task executions and "
            f"{skipped:.0f} skipped per host, {changed} changed task(s) (a converged run changes nothing)"
        )
    print(last_line(totals, cpu_at_largest, sliced))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
