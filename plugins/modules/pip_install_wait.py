# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
# The waiting is done by the action plugin plugins/action/pip_install_wait.py on the controller; this module is
# what it runs on the host at every poll: it lists the venv's finished dist-info directories, and weighs the wheels
# the report names (the action passes them at the first poll only: their sizes do not change during the install).

from __future__ import annotations

DOCUMENTATION = r"""
---
module: pip_install_wait
short_description: Wait for an asynchronous pip install to end, showing the wheels installed at every poll
version_added: 0.2.0
description:
  - Polls a C(pip install) started with C(async) (its O(jid)) until it ends or O(timeout_s) passes, and at every
    poll counts the wheels of pip's dry run (O(report)) whose C(<name>-<version>.dist-info) directory is finished
    (its C(RECORD) written, what pip writes last) in the site-packages of O(venv), then shows one line to the
    person watching - wheels done of the total, their bytes (the wheel files' sizes), the last one installed, the
    time elapsed and an estimate of the time left - instead of the bare C(ASYNC POLL) lines of a polled task.
  - Never fails because pip failed or timed out; the result carries pip's C(rc), C(stdout) and C(stderr) as the
    install task returned them, with C(finished) false (and no C(rc)) after a timeout. The job's status file is
    removed once pip ended.
  - In check mode there is no install to wait for, so the caller skips this task.
options:
  jid:
    description: The job id C(async) returned (C(ansible_job_id)) for the C(pip install).
    type: str
    required: true
  venv:
    description: The virtual environment pip installs into (its C(lib/python*/site-packages) are read).
    type: path
    required: true
  report:
    description:
      - The report of a dry run of the same install (C(pip install --dry-run --report -), parsed). Its C(install)
        list names the wheels counted (C(metadata.name), C(metadata.version)); a C(file://) C(download_info.url)
        gives the wheel's size.
      - The action passes the module only these keys.
    type: dict
    required: true
  timeout_s:
    description: Seconds after which the waiting stops (the install's C(async) limit).
    type: int
    required: true
  label:
    description: What the lines begin with (the role and the host).
    type: str
    default: pip install
extends_documentation_fragment:
  - action_common_attributes
  - scc.training.progress_lines
author: scc.training developers (@scc-training)
"""

EXAMPLES = r"""
- name: Ask pip what it would install
  ansible.builtin.command:
    argv: [/opt/venv/bin/python, -m, pip, install, --dry-run, --quiet, --report, "-", --no-index,
           --find-links=/opt/wheelhouse, --require-hashes, --requirement=/opt/venv/lock.txt]
  register: dry_run
  changed_when: false

- name: Start the install
  ansible.builtin.command:
    argv: [/opt/venv/bin/python, -m, pip, install, --no-index, --find-links=/opt/wheelhouse, --require-hashes,
           --requirement=/opt/venv/lock.txt]
  async: 3600
  poll: 0
  register: started
  changed_when: true

- name: Wait for pip, one progress line per poll
  scc.training.pip_install_wait:
    jid: "{{ started.ansible_job_id }}"
    venv: /opt/venv
    report: "{{ dry_run.stdout | from_json }}"
    label: python_env on {{ inventory_hostname }}
    timeout_s: 3600
  register: installed
"""

RETURN = r"""
finished:
  description: Whether pip ended before O(timeout_s) (false after a timeout).
  returned: always
  type: bool
rc:
  description: pip's exit status, when it ended.
  returned: when pip ended
  type: int
stdout:
  description: pip's standard output, when it ended.
  returned: when pip ended
  type: str
stderr:
  description: pip's standard error, when it ended.
  returned: when pip ended
  type: str
polls:
  description: How many times pip was polled.
  returned: always
  type: int
progress:
  description: The install at the last poll - wheels C(done) of the C(total), C(bytes_done) of C(bytes_total)
    (null when a wheel's size is unknown), the C(last) one installed (C(name version)).
  returned: always
  type: dict
progress_lines:
  description: The lines shown, the last 50 of them (kept also where the stdout callback left them out).
  type: list
  returned: always
  elements: str
installed:
  description: What this module returns at each poll - the finished dist-info directories of O(venv)
    (C(dist_info), C(finished_at) the time its RECORD was written).
  returned: when the module itself runs
  type: list
  elements: dict
wheel_bytes:
  description: What this module returns at each poll - the size of each wheel file of O(report), by its path (the
    action passes the wheels at the first poll only).
  returned: when the module itself runs
  type: dict
"""

import glob
import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.scc.training.plugins.module_utils.transfer_progress import (
    PIP_WAIT_ARGUMENT_SPEC,
    wanted_wheels,
)


def _finished_dist_infos(venv):
    """The dist-info directories of the venv's site-packages that have their RECORD, with its time."""
    found = []
    # lib64 is often a link to lib: each directory once.
    sites = {
        os.path.realpath(p) for p in glob.glob(os.path.join(glob.escape(venv), "lib*", "python*", "site-packages"))
    }
    for site in sorted(sites):
        for record in glob.glob(os.path.join(glob.escape(site), "*.dist-info", "RECORD")):
            try:
                finished_at = os.stat(record).st_mtime
            except OSError:
                continue
            found.append({"dist_info": os.path.basename(os.path.dirname(record)), "finished_at": finished_at})
    return found


def _sizes(paths):
    sizes = {}
    for path in paths:
        try:
            sizes[path] = os.stat(path).st_size
        except OSError:
            continue
    return sizes


def main():
    module = AnsibleModule(argument_spec=PIP_WAIT_ARGUMENT_SPEC, supports_check_mode=True)
    wheels = [w["wheel"] for w in wanted_wheels(module.params["report"]) if w["wheel"]]
    module.exit_json(changed=False, installed=_finished_dist_infos(module.params["venv"]), wheel_bytes=_sizes(wheels))


if __name__ == "__main__":
    main()
