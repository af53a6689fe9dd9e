#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: mpi_job_stop
short_description: Stop the processes an earlier mpi_job run recorded on this node, and only those
version_added: 0.2.0
author: scc.training developers (@scc-training)
description:
  - Reads the records (C(<pid>.json), each with the pid and its start time from C(/proc/<pid>/stat)) that the
    mpi_job launcher (the mpirun of the first node) and every rank of its program wrote into O(path), and stops
    the recorded processes that still run. Never by process name.
  - A recorded pid now held by another process (another start time, the pid reused) is left alone, as is
    every process no record names, whatever its name.
  - Each process still ours gets C(SIGTERM); those alive after O(grace_s) seconds get C(SIGKILL). The records
    are then removed. It reports a change only when it stops a process; removing the records of processes
    that already ended is not one, so a re-run (or C(--check)) after a finished run changes nothing.
options:
  path:
    description: The directory of the records (the job's state directory on this node); missing means none.
    type: path
    required: true
  grace_s:
    description: Seconds between C(SIGTERM) and C(SIGKILL).
    type: int
    default: 10
attributes:
  check_mode:
    support: full
    description: Reports what it would stop and remove; signals and removes nothing.
  diff_mode:
    support: none
    description: No diff.
notes:
  - The start time (field 22 of C(/proc/<pid>/stat), proc(5)) is in clock ticks since boot, so a record made
    before a reboot never matches a process after it.
"""

EXAMPLES = r"""
- name: Stop an earlier BERT run of ours on every node
  scc.training.mpi_job_stop:
    path: /var/lib/scc-training/mpi_job/bert
    grace_s: 10
"""

RETURN = r"""
stopped:
  description: The records of the processes stopped (or, in check mode, that would be).
  returned: always
  type: list
  elements: dict
killed:
  description: The pids that outlived C(SIGTERM) and got C(SIGKILL).
  returned: always
  type: list
  elements: int
reused:
  description: Records whose pid another process holds now (left alone).
  returned: always
  type: list
  elements: dict
gone:
  description: Records of processes that no longer run.
  returned: always
  type: list
  elements: dict
invalid:
  description: Record files that are not a record (unreadable JSON, no integer pid or start time); removed.
  returned: always
  type: list
  elements: str
"""

import glob
import json
import os
import signal
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.scc.training.plugins.module_utils.mpi_job import processes_to_stop


def _read_stat(pid):
    try:
        with open("/proc/%d/stat" % pid, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def _still_ours(record):
    return bool(processes_to_stop([record], {record["pid"]: _read_stat(record["pid"])})["ours"])


def _read_records(path):
    """[(file, record or None)] of the directory's ``*.json`` files."""
    found = []
    for name in sorted(glob.glob(os.path.join(path, "*.json"))):
        try:
            with open(name, encoding="utf-8") as handle:
                found.append((name, json.load(handle)))
        except (OSError, ValueError):
            found.append((name, None))
    return found


def _signal_all(pids, signum):
    for pid in pids:
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass


def main():
    module = AnsibleModule(
        argument_spec={"path": {"type": "path", "required": True}, "grace_s": {"type": "int", "default": 10}},
        supports_check_mode=True,
    )
    path = module.params["path"]
    found = _read_records(path)
    records = [record for name, record in found if isinstance(record, dict)]
    stats = {}
    for record in records:
        if isinstance(record.get("pid"), int) and not isinstance(record.get("pid"), bool):
            stats[record["pid"]] = _read_stat(record["pid"])
    verdicts = processes_to_stop(records, stats)
    invalid = [name for name, record in found if not isinstance(record, dict)]
    invalid += [name for name, record in found if isinstance(record, dict) and record in verdicts["invalid"]]
    result = {
        # A change only when a process of ours is (or would be) stopped: the records of processes that
        # already ended are the launcher's own bookkeeping, removed without a change, so that --check
        # after a finished run predicts none.
        "changed": bool(verdicts["ours"]),
        "stopped": verdicts["ours"],
        "killed": [],
        "reused": verdicts["reused"],
        "gone": verdicts["gone"],
        "invalid": sorted(invalid),
    }
    if module.check_mode or not found:
        module.exit_json(**result)
    ours = [record["pid"] for record in verdicts["ours"]]
    _signal_all(ours, signal.SIGTERM)
    deadline = time.monotonic() + module.params["grace_s"]
    alive = ours
    while alive and time.monotonic() < deadline:
        time.sleep(0.1)
        alive = [record["pid"] for record in verdicts["ours"] if record["pid"] in alive and _still_ours(record)]
    # Checked again right before the KILL: a pid that exited meanwhile may have been reused.
    alive = [record["pid"] for record in verdicts["ours"] if record["pid"] in alive and _still_ours(record)]
    _signal_all(alive, signal.SIGKILL)
    result["killed"] = alive
    for name in dict(found):
        try:
            os.unlink(name)
        except FileNotFoundError:
            pass
    module.exit_json(**result)


if __name__ == "__main__":
    main()
