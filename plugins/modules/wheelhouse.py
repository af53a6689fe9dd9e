#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: wheelhouse
short_description: Download pinned wheels once into a keyed wheelhouse (for other hosts' Python and platform)
version_added: 0.2.0
author: scc.training developers (@scc-training)
description:
  - Runs C(pip download --only-binary=:all:) for O(requirements) under O(constraints_file), for the Python
    version and platform tags given (not the ones of the machine it runs on), into a directory under O(path)
    named by a hash of every input. A directory whose C(manifest.json) matches that hash and whose files are all
    there at their sizes is complete, and then nothing runs and nothing is downloaded.
  - The directory holds the wheels, C(requirements.txt), C(constraints.txt) and C(manifest.json), which lists
    each wheel this resolution uses with its size and sha256 (pip checks the hashes an index publishes while it
    downloads; the manifest lets every later copy be checked against them).
  - Meant to run on the controller (C(delegate_to) V(localhost), C(run_once)) so that a cluster costs one upstream
    download; the scc.training.artifact_fetch role does that. Two runs filling the same directory at once take a
    file lock and the second finds it complete.
options:
  path:
    description: Directory under which the keyed wheelhouses live (created when missing).
    type: path
    required: true
  requirements:
    description: Requirements to download, each an exact pin C(name==version).
    type: list
    elements: str
    required: true
  constraints_file:
    description: Constraints (lock) file the resolution obeys; copied into the wheelhouse as C(constraints.txt).
    type: path
  no_deps:
    description: V(true) downloads only O(requirements), without their dependencies (C(pip --no-deps)).
    type: bool
    default: false
  python_version:
    description: The Python the wheels are for, C(3.11) or just C(3) for pure or C(py3) wheels.
    type: str
    required: true
  implementation:
    description: The Python implementation tag the wheels are for.
    type: str
    default: cp
  platforms:
    description: Wheel platform tags, e.g. from the C(scc.training.wheel_platforms) filter.
    type: list
    elements: str
    required: true
  pip_args:
    description:
      - Extra C(pip download) arguments, one per item, e.g. C(--index-url=URL).
      - Credentials in a URL here (C(https://user:token@host/simple)) are used as given, but masked as pip masks
        them (C(user:****@host), C(****@host)) in the result, pip's output and the wheelhouse's C(manifest.json).
    type: list
    elements: str
    default: []
  python:
    description: The Python whose pip downloads (its pip configuration applies). Defaults to the one running the module.
    type: path
  name_prefix:
    description: A readable prefix of the directory name, e.g. C(cp311-x86_64).
    type: str
    default: ''
  stats_file:
    description:
      - A JSON file that a fill which downloaded writes, C(bytes_downloaded), C(files) (what this fill fetched),
        C(wheelhouse), C(seconds) and C(time). Left alone when nothing was downloaded.
    type: path
attributes:
  check_mode:
    support: full
    description: Reports whether a download is due, and downloads nothing.
  diff_mode:
    support: none
    description: No diff.
notes:
  - Binary wheels only; a pin without a wheel for the platforms fails with pip's message in RV(output).
"""

EXAMPLES = r"""
- name: Fill the controller's wheelhouse for the first host (one upstream download per cluster)
  scc.training.wheelhouse:
    path: ~/.cache/scc-training/wheelhouse/wheels
    requirements: [torch==2.13.0, transformers==4.57.6]
    constraints_file: "{{ role_path }}/files/constraints.txt"
    python_version: "3.11"
    platforms: "{{ 'x86_64' | scc.training.wheel_platforms('2.36') }}"
    python: "{{ ansible_playbook_python }}"
    name_prefix: cp311-x86_64
    stats_file: ~/.cache/scc-training/wheelhouse/download-stats.json
  delegate_to: localhost
  run_once: true
  register: __wheelhouse
"""

RETURN = r"""
wheelhouse:
  description: The keyed wheelhouse directory.
  returned: always
  type: str
  sample: /root/.cache/scc-training/wheelhouse/wheels/cp311-x86_64-3f1c0a9e5b2d
key:
  description: The full hash of the inputs (the directory name ends with its first 12 digits).
  returned: always
  type: str
wheels:
  description: The wheels of this resolution, as the manifest lists them (empty in check mode when a download is due).
  returned: always
  type: list
  elements: dict
  contains:
    name:
      description: File name.
      type: str
      sample: torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl
    size:
      description: Size in bytes.
      type: int
    sha256:
      description: sha256 of the file.
      type: str
bytes_downloaded:
  description: Bytes this run fetched (0 when the wheelhouse was complete).
  returned: always
  type: int
  sample: 242311492
files:
  description: Files this run fetched.
  returned: always
  type: list
  elements: str
seconds:
  description: How long pip ran.
  returned: when pip ran
  type: float
output:
  description: The end of pip's output.
  returned: when pip failed
  type: str
"""

import sys

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.scc.training.plugins.module_utils.redact import url_secrets
from ansible_collections.scc.training.plugins.module_utils.wheelhouse import fill


def main():
    module = AnsibleModule(
        argument_spec={
            "path": {"type": "path", "required": True},
            "requirements": {"type": "list", "elements": "str", "required": True},
            "constraints_file": {"type": "path"},
            "no_deps": {"type": "bool", "default": False},
            "python_version": {"type": "str", "required": True},
            "implementation": {"type": "str", "default": "cp"},
            "platforms": {"type": "list", "elements": "str", "required": True},
            "pip_args": {"type": "list", "elements": "str", "default": []},
            "python": {"type": "path"},
            "name_prefix": {"type": "str", "default": ""},
            "stats_file": {"type": "path"},
        },
        supports_check_mode=True,
    )
    # Each URL's password or token: Ansible masks it wherever the result holds it, the invocation
    # (module_args, shown at -vvv and kept in a registered variable) included.
    module.no_log_values.update(url_secrets(module.params["pip_args"]))
    params = dict(module.params, python=module.params["python"] or sys.executable)

    def run(cmd):
        rc, out, err = module.run_command(cmd)
        return rc, out + err

    result = fill(params, run, check_mode=module.check_mode)
    if result.pop("failed", False):
        module.fail_json(**result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
