#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: bandwidth_round
short_description: Run this node's side of one round of a pairwise bandwidth test (iperf3 or ib_write_bw)
version_added: 0.2.0
author: scc.training developers (@scc-training)
description:
  - One task runs a whole round on every node at once. The server of each pair serves one client and exits, the
    client runs its test against it, a node sitting out returns at once. No node waits on the controller between
    starting its server and the client's test, so a round costs one task whatever the number of nodes.
  - The client retries while its server does not listen yet (the two start in the same task, in no set order)
    until O(timeout_s); a test that fails once connected is not retried. A test connection would not do, being the
    one-off server's only client.
  - The client parses its output (iperf3 C(-J), the received rate; ib_write_bw, the last row's average; in Gb/s)
    and appends O(measurement) with C(gbps) and C(detail) to O(record) as one JSON line.
options:
  side:
    description: This node's side of the round.
    type: str
    choices: [client, server, none]
    required: true
  tool:
    description: C(tcp) (argv is an iperf3 command, the client with C(--json)) or C(rdma) (perftest ib_write_bw).
    type: str
    choices: [tcp, rdma]
    required: true
  argv:
    description: The command of this side (ignored for C(none)).
    type: list
    elements: str
    default: []
  timeout_s:
    description: Seconds the server waits for its client, and the client for its server to listen, before failing.
    type: int
    default: 60
  record:
    description: The client appends its measurement to this file (JSON lines).
    type: path
  measurement:
    description: What the client records besides C(gbps) and C(detail) (the pair, its round, rail and ports).
    type: dict
    default: {}
attributes:
  check_mode:
    support: none
    description: A measurement is no change; the roles leave it out in check mode.
  diff_mode:
    support: none
    description: No diff.
"""

EXAMPLES = r"""
- name: Run this node's side of round 3 over TCP
  scc.training.bandwidth_round:
    side: client
    tool: tcp
    argv: [iperf3, --client, 10.0.0.2, --port, "5201", --time, "5", --json]
    record: /tmp/bandwidth-tcp.jsonl
    measurement: {round: 3, rail: 1, client: node1, server: node2}
"""

RETURN = r"""
rc:
  description: Exit status of the last attempt (0 for C(none)).
  returned: always
  type: int
attempts:
  description: Runs of the command (a client's retries while its server did not listen, plus one).
  returned: always
  type: int
measurement:
  description: The client's record (C(measurement) with C(gbps) and C(detail)); empty on the other sides.
  returned: always
  type: dict
"""

import json
import subprocess
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.scc.training.plugins.module_utils.perftest import (
    PerftestParseError,
    bandwidth_attempt_retry,
    bandwidth_gbps,
)


def _run(argv, timeout_s):
    """(rc, stdout, stderr) of argv, ended after timeout_s (rc 124, as timeout(1) reports it)."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired as exc:
        return 124, exc.stdout or "", "no peer within %ss" % timeout_s
    return done.returncode, done.stdout, done.stderr


def main():
    module = AnsibleModule(
        argument_spec={
            "side": {"type": "str", "choices": ["client", "server", "none"], "required": True},
            "tool": {"type": "str", "choices": ["tcp", "rdma"], "required": True},
            "argv": {"type": "list", "elements": "str", "default": []},
            "timeout_s": {"type": "int", "default": 60},
            "record": {"type": "path"},
            "measurement": {"type": "dict", "default": {}},
        },
        required_if=[("side", "client", ["record"]), ("side", "client", ["argv"]), ("side", "server", ["argv"])],
        supports_check_mode=False,
    )
    side, tool, argv, timeout_s = (module.params[k] for k in ("side", "tool", "argv", "timeout_s"))
    if side == "none":
        module.exit_json(changed=False, rc=0, attempts=0, measurement={})
    if side == "server":
        rc, out, err = _run(argv, timeout_s)
        if rc != 0:
            module.fail_json(msg="%s server failed (rc %s): %s" % (tool, rc, (err or out).strip()[-2000:]), rc=rc)
        module.exit_json(changed=False, rc=rc, attempts=1, measurement={})
    deadline = time.monotonic() + timeout_s
    attempts = 0
    while True:
        attempts += 1
        rc, out, err = _run(argv, timeout_s)
        if not bandwidth_attempt_retry(rc, out + err) or time.monotonic() >= deadline:
            break
        time.sleep(0.5)
    peer = module.params["measurement"].get("server", "its server")
    try:
        if rc != 0:
            raise PerftestParseError((err.strip() + " | " + "\n".join(out.splitlines()[-5:])).strip(" |"))
        gbps, detail = bandwidth_gbps(tool, out)
    except PerftestParseError as exc:
        module.fail_json(msg="%s test to %s failed (rc %s): %s" % (tool, peer, rc, exc), rc=rc, attempts=attempts)
    measurement = dict(module.params["measurement"], gbps=gbps, detail=detail)
    with open(module.params["record"], "a", encoding="utf-8") as handle:
        handle.write(json.dumps(measurement, sort_keys=True) + "\n")
    module.exit_json(changed=False, rc=rc, attempts=attempts, measurement=measurement)


if __name__ == "__main__":
    main()
