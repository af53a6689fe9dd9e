#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: nccl_bisect
short_description: Run nccl-tests across the cluster and, when it is slow, find the slow nodes by bisection
version_added: 0.2.0
author: scc.training developers (@scc-training)
description:
  - Runs on the first node. Round 1 runs O(command) (an nccl-tests binary such as C(all_reduce_perf)) over every node
    of O(nodes) with O(mpirun), O(slots) ranks per node, and judges it against O(threshold_gbps) (busbw at the largest
    size; C(#wrong) or values out of bounds fail it).
  - When round 1 fails, the slow nodes are searched in rounds of group runs (plugins/module_utils/nccl_bisect.py).
    Every slow group is split in halves and all the halves of a round run at once, each its own C(mpirun) with its
    own hostfile; a lone suspect runs with a node already proven good. One bad node among N takes 1 + ceil(log2 N)
    rounds, never the N^2 pairs.
  - Read-only for the cluster (the hostfiles go to a temporary directory that is removed); it runs the same in check
    mode. A slow node is a result, not a failure; the module fails only on bad arguments.
options:
  nodes:
    description:
      - The nodes in rank order, each with C(host) (the name results use) and C(address) (the hostfile's),
        as P(scc.training.cluster_addresses#filter) returns them; other keys are ignored.
    type: list
    elements: dict
    required: true
  slots:
    description: Ranks per node (its GPUs, one rank each).
    type: int
    required: true
  mpirun:
    description:
      - C(mpirun) and its options up to the hosts (plan C(nccl_tests_mpirun) of P(scc.training.role_plan#lookup)); the module adds
        C(--hostfile <group's hostfile> -np <ranks>) and O(command).
    type: list
    elements: str
    required: true
  command:
    description: The program every rank runs, for example V([/opt/nccl-tests/build/all_reduce_perf, -b, 8, -e, 1G, -f, 2, -g, 1]).
    type: list
    elements: str
    required: true
  threshold_gbps:
    description: The busbw, GB/s, a group run must reach at its largest message size.
    type: float
    required: true
  timeout:
    description: Seconds a group run may take (C(timeout) around its C(mpirun)); one still running then is killed and judged slow.
    type: int
    default: 900
extends_documentation_fragment:
  - scc.training.read_only
seealso:
  - name: nccl-tests
    description: NVIDIA's NCCL performance tests, whose output P(scc.training.parse_nccl_tests#filter) reads.
    link: https://github.com/NVIDIA/nccl-tests
"""

EXAMPLES = r"""
- name: Run all_reduce across the cluster, bisect when slow
  scc.training.nccl_bisect:
    nodes: "{{ groups['scc_cluster'] | scc.training.cluster_addresses(hostvars) }}"
    slots: 8
    mpirun: "{{ lookup('scc.training.role_plan', 'nccl_tests_mpirun', {'mpirun_path': '/usr/bin/mpirun', 'bind_to': 'none',
                 'map_by': 'slot', 'tcp_interface': 'eth0', 'transport': 'tcp'}) }}"
    command: [/opt/scc-training/nccl-tests/build/all_reduce_perf, -b, "8", -e, 1G, -f, "2", -g, "1"]
    threshold_gbps: 4.38
  run_once: true
  register: nccl_cluster
"""

RETURN = r"""
cluster:
  description:
    - The cluster's verdict, C(nccl_check_cluster) of the nccl_check role. C(multi_node) is round 1 (every node);
      C(bisection) is null when round 1 passed.
  returned: always
  type: dict
  contains:
    ok:
      description: Round 1 passed.
      type: bool
    threshold_gbps:
      description: O(threshold_gbps).
      type: float
    multi_node:
      description: C(hosts), C(busbw_gbps), C(ok), C(curve) (C(size_bytes), C(busbw_gbps) per row) and C(problems) of round 1.
      type: dict
    bisection:
      description:
        - C(rounds) (C(round), C(groups) of C(hosts), C(busbw_gbps), C(ok)), C(bad_nodes), C(unresolved) (suspects no
          run could tell apart) and C(unreproduced) (slow groups whose halves were all fast); null when round 1 passed.
      type: dict
runs:
  description: Every group run, C(round), C(hosts), C(rc) and C(problems), for the log.
  returned: always
  type: list
  elements: dict
"""

import os
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.scc.training.plugins.module_utils import nccl_bisect, nccl_check
from ansible_collections.scc.training.plugins.module_utils.mpi import render_hostfile
from ansible_collections.scc.training.plugins.module_utils.nccl_tests import parse_nccl_tests


def round_runner(run_command):
    """A round's runner: ``run_command(argv) -> (rc, stdout, stderr)`` for every command of the round
    at once (a thread each: a run blocks until its mpirun ends); rc 127 when it could not start."""

    def start(argv):
        try:
            return run_command(argv)
        except OSError as exc:
            return 127, "", str(exc)

    def run(argvs):
        with ThreadPoolExecutor(max_workers=max(len(argvs), 1)) as pool:
            return list(pool.map(start, argvs))

    return run


def judge(rc, stdout, stderr, threshold):
    """One group run's verdict (nccl_check.run_verdict), an exit code or a timeout named first."""
    verdict = nccl_check.run_verdict(parse_nccl_tests(stdout), threshold)
    if rc != 0:
        why = "timed out (killed by timeout)" if rc in (124, 137) else "exit code %d" % rc
        tail = (stderr or "").strip().splitlines()[-1:]
        verdict["problems"].insert(0, why + (": %s" % tail[0] if tail else ""))
        verdict["ok"] = False
    return verdict


def bisect_cluster(params, runner):
    """Round 1 over every node, then the bisection; ``(cluster, runs)``."""
    address = {}
    for node in params["nodes"]:
        if not node.get("host") or not node.get("address"):
            raise ValueError("every node needs a host and an address, got %r" % (node,))
        address[str(node["host"])] = str(node["address"])
    names = list(address)
    slots, threshold = params["slots"], params["threshold_gbps"]
    state = nccl_bisect.new_state(names)
    workdir = tempfile.mkdtemp(prefix="nccl-bisect-")
    runs, first = [], None
    try:
        while not state["done"]:
            groups = nccl_bisect.next_round(state)
            argvs = []
            for index, group in enumerate(groups):
                hostfile = os.path.join(workdir, "round%d-group%d" % (len(state["rounds"]) + 1, index + 1))
                with open(hostfile, "w") as handle:
                    handle.write(render_hostfile([{"host": address[h], "slots": slots} for h in group]))
                argvs.append(
                    ["timeout", "--kill-after=30", str(params["timeout"])]
                    + list(params["mpirun"])
                    + ["--hostfile", hostfile, "-np", str(slots * len(group))]
                    + list(params["command"])
                )
            results = []
            for group, (rc, out, err) in zip(groups, runner(argvs)):
                verdict = judge(rc, out, err, threshold)
                first = first or verdict
                runs.append(
                    {"round": len(state["rounds"]) + 1, "hosts": group, "rc": rc, "problems": verdict["problems"]}
                )
                results.append({"hosts": group, "ok": verdict["ok"], "busbw_gbps": verdict["busbw_gbps"]})
            state = nccl_bisect.record(state, results)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    bisection = nccl_bisect.summary(state) if not first["ok"] else None
    return nccl_check.cluster_report(first, names, bisection), runs


def main():
    module = AnsibleModule(
        argument_spec={
            "nodes": {"type": "list", "elements": "dict", "required": True},
            "slots": {"type": "int", "required": True},
            "mpirun": {"type": "list", "elements": "str", "required": True},
            "command": {"type": "list", "elements": "str", "required": True},
            "threshold_gbps": {"type": "float", "required": True},
            "timeout": {"type": "int", "default": 900},
        },
        supports_check_mode=True,
    )
    if module.params["slots"] < 1 or module.params["timeout"] < 1:
        module.fail_json(msg="slots and timeout must be >= 1")
    try:
        runner = round_runner(lambda argv: module.run_command(argv, handle_exceptions=False))
        cluster, runs = bisect_cluster(module.params, runner)
    except ValueError as exc:
        module.fail_json(msg="nccl_bisect: %s" % exc)
    module.exit_json(changed=False, cluster=cluster, runs=runs)


if __name__ == "__main__":
    main()
