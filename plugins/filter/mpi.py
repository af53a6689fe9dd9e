# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""MPI helper filters for scc.training.

``mpi_hostfile`` renders an Open MPI hostfile (``host slots=N`` lines) from a list
of ``{host, slots}`` dicts. Its documentation lives in the sidecar ``mpi_hostfile.yml``.
"""

from __future__ import annotations

import re

from ansible.errors import AnsibleFilterError

_ALLOWED_KEYS = frozenset(("host", "slots"))
_WHITESPACE = re.compile(r"\s")


def _check_entry(index, entry, seen):
    """Validate one entry; return ``(host, slots)`` or raise AnsibleFilterError."""
    where = "mpi_hostfile: entry %d" % index
    if not isinstance(entry, dict):
        raise AnsibleFilterError(
            "%s must be a dict with keys 'host' and 'slots', got %s" % (where, type(entry).__name__)
        )
    unknown = sorted(str(k) for k in set(entry) - _ALLOWED_KEYS)
    if unknown:
        raise AnsibleFilterError("%s has unknown key(s) %s; allowed: host, slots" % (where, ", ".join(unknown)))
    if "host" not in entry:
        raise AnsibleFilterError("%s has no 'host'" % where)
    if "slots" not in entry:
        raise AnsibleFilterError("%s (host %r) has no 'slots'" % (where, entry["host"]))

    host = entry["host"]
    if not isinstance(host, str) or not host:
        raise AnsibleFilterError("%s: host must be a non-empty string, got %r" % (where, host))
    if _WHITESPACE.search(host):
        raise AnsibleFilterError("%s: host %r must not contain whitespace" % (where, host))
    if host in seen:
        raise AnsibleFilterError(
            "%s: duplicate host %r (already entry %d); each host must appear once" % (where, host, seen[host])
        )

    slots = entry["slots"]
    # bool is a subclass of int: True would silently become "slots=1".
    if isinstance(slots, bool) or not isinstance(slots, int):
        raise AnsibleFilterError(
            "%s (host %s): slots must be an integer >= 1, got %r (%s)" % (where, host, slots, type(slots).__name__)
        )
    if slots < 1:
        raise AnsibleFilterError("%s (host %s): slots must be an integer >= 1, got %d" % (where, host, slots))
    seen[host] = index
    return host, slots


def mpi_hostfile(entries):
    """Render ``entries`` (list of ``{host, slots}``) as Open MPI hostfile text.

    Lines keep the input order (the first host is rank 0's host) and the text ends with a newline.
    """
    if isinstance(entries, (str, bytes, dict)) or not hasattr(entries, "__iter__"):
        raise AnsibleFilterError(
            "mpi_hostfile: input must be a list of {host, slots} dicts, got %s" % type(entries).__name__
        )
    entries = list(entries)
    if not entries:
        raise AnsibleFilterError("mpi_hostfile: input is empty; a hostfile needs at least one host")
    seen = {}
    lines = []
    for index, entry in enumerate(entries):
        host, slots = _check_entry(index, entry, seen)
        lines.append("%s slots=%d" % (host, slots))
    return "\n".join(lines) + "\n"


class FilterModule(object):
    """scc.training MPI filters."""

    def filters(self):
        return {"mpi_hostfile": mpi_hostfile}
