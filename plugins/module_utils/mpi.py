# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""MPI decisions shared by the filters and the roles.

- ``node_slots``: how many MPI processes a node of the hostfile may run.

Pure Python, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


def _positive(value):
    return value is not None and not isinstance(value, bool) and str(value).strip() != "" and int(value) > 0


def node_slots(slots=None, gpu_count=None, gpu_devices=0, vcpus=None):
    """A node's slots: ``slots`` when set, else its declared GPU count when above 0, else its count of
    ``/dev/nvidia[0-9]*`` devices when above 0, else its vCPUs. One rank per GPU, or per CPU without GPUs."""
    for value in (slots, gpu_count, gpu_devices, vcpus):
        if _positive(value):
            return int(value)
    raise ValueError("no slot count: slots, GPU count, GPU devices and vCPUs are all unset or 0")
