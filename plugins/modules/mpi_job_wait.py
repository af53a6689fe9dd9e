# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
# The waiting is done by the action plugin plugins/action/mpi_job_wait.py on the controller; this module is
# what it runs on the host at every poll: it reads the ranks' progress files.

from __future__ import annotations

DOCUMENTATION = r"""
---
module: mpi_job_wait
short_description: Wait for an asynchronous mpi_job launch to end, showing its progress at every poll
version_added: 0.2.0
description:
  - Polls a job started with C(async) (its O(jid)) until it ends or O(timeout_s) passes, and at every poll
    reads the ranks' progress files (C(progress-rank<k>.json), written by the C(mpi_job) role's rank helper)
    in O(run_dir) on the host, then shows one line to the person watching - the steps done of the total,
    the last loss, samples per second (sequences, images) and an estimate of the time left - instead of an
    C(until) loop's C(FAILED - RETRYING) lines.
  - Only the progress files on the polled host are read (the first node of the job, where rank 0 runs); the
    files of every node are collected once the job has ended (the C(mpi_job) role's C(collect.yml)).
  - Never fails because the job failed or timed out; the result says how it ended (as C(async_status) does,
    with C(finished) false after a timeout).
  - In check mode there is no job to wait for, so the caller skips this task.
options:
  jid:
    description: The job id C(async) returned (C(ansible_job_id)).
    type: str
    required: true
  run_dir:
    description: Directory on the host where the ranks write C(progress-rank<k>.json).
    type: path
    required: true
  label:
    description: What the lines begin with (the job's name and run id).
    type: str
    default: job
  timeout_s:
    description: Seconds after which the waiting stops (the job's own timeout plus room to tear it down).
    type: int
    required: true
extends_documentation_fragment:
  - action_common_attributes
  - scc.training.progress_lines
author: scc.training developers (@scc-training)
"""

EXAMPLES = r"""
- name: Start the job
  ansible.builtin.command:
    argv: [mpirun, -np, "2", python3, train.py]
  async: 3600
  poll: 0
  register: started

- name: Wait for it, one progress line per poll
  scc.training.mpi_job_wait:
    jid: "{{ started.ansible_job_id }}"
    run_dir: /opt/scc-training/bert/runs/20260101
    label: bert run 20260101
    poll_s: 10
    timeout_s: 3720
  register: polled
"""

RETURN = r"""
finished:
  description: Whether the job ended before O(timeout_s) (false after a timeout).
  returned: always
  type: bool
rc:
  description: The job's exit status, when it ended.
  returned: when the job ended
  type: int
stdout:
  description: The job's standard output, when it ended.
  returned: when the job ended
  type: str
stderr:
  description: The job's standard error, when it ended.
  returned: when the job ended
  type: str
job_failed:
  description: Whether the job's command failed (a non-zero exit status), or async_status found no such job.
    The task itself does not fail for it.
  returned: always
  type: bool
polls:
  description: How many times the job was polled.
  returned: always
  type: int
progress:
  description: The job's position at the last poll (steps done by the slowest rank read, the total, the loss,
    samples per step and their unit, ranks read, failed ranks).
  returned: always
  type: dict
progress_lines:
  description: The last 50 lines shown (also when the stdout callback left them out).
  returned: always
  type: list
  elements: str
progress_files:
  description: What this module returns at each poll - the progress files of O(run_dir), parsed.
  returned: when the module itself runs
  type: list
  elements: dict
"""

import glob
import json
import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.scc.training.plugins.module_utils.job_progress import WAIT_ARGUMENT_SPEC


def _read(path):
    """One progress file, or None while it is being replaced or when it is not JSON."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def main():
    module = AnsibleModule(
        argument_spec=WAIT_ARGUMENT_SPEC,
        supports_check_mode=True,
    )
    pattern = os.path.join(glob.escape(module.params["run_dir"]), "progress-rank*.json")
    files = [data for data in map(_read, sorted(glob.glob(pattern))) if data is not None]
    module.exit_json(changed=False, progress_files=files)


if __name__ == "__main__":
    main()
