# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Wheel filters for scc.training, thin wrappers over plugins/module_utils/wheels.py.
Their documentation lives in ``wheel_platforms.yml``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.module_utils.wheels import wheel_platforms as _wheel_platforms


def wheel_platforms(arch, glibc):
    """An architecture and a glibc version -> the manylinux platform tags pip accepts there."""
    try:
        return _wheel_platforms(arch, glibc)
    except ValueError as exc:
        raise AnsibleFilterError("wheel_platforms: %s" % exc) from exc


class FilterModule(object):
    """scc.training wheel filters."""

    def filters(self):
        return {"wheel_platforms": wheel_platforms}
