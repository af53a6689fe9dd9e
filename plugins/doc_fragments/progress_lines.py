# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Shared documentation of the actions that show a line per poll while work runs on the host (mpi_job_wait,
pip_install_wait, download; their loop is plugins/plugin_utils/progress.py)."""

from __future__ import annotations


class ModuleDocFragment:
    DOCUMENTATION = r"""
notes:
  - The progress lines go through Ansible's display, so C(ansible-playbook), ansible-runner and AWX show them (as
    C(verbose) events there). They are left out under machine-readable stdout callbacks (C(json), C(jsonl),
    C(oneline) of C(ansible -o), C(minimal)) and for a C(no_log) task; the result's C(progress_lines) keeps the
    last 50 either way.
options:
  poll_s:
    description: Seconds between two polls (and two lines).
    type: int
    default: 10
attributes:
  check_mode:
    support: full
    details: At every poll the host is only read. What check mode does to the work waited for is said in the
      description.
  diff_mode:
    support: none
  platform:
    support: full
    platforms: posix
"""
