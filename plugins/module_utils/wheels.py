# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Which binary wheels a Linux host runs: the manylinux platform tags for its architecture and glibc.

The rule is pip's (``packaging.tags``, ``_manylinux.platform_tags``), which implements
PEP 600 (``manylinux_<glibc major>_<glibc minor>_<arch>``: a wheel built against glibc 2.Y runs
on glibc >= 2.Y) and the legacy aliases of PEP 513/571/599:
``manylinux1`` = ``manylinux_2_5`` and ``manylinux2010`` = ``manylinux_2_12`` (x86_64 and i686
only), ``manylinux2014`` = ``manylinux_2_17`` (also aarch64, armv7l, ppc64, ppc64le, s390x).
The oldest glibc a tag exists for is 2.5 on x86_64/i686 and 2.17 elsewhere.
https://peps.python.org/pep-0600/ , https://peps.python.org/pep-0599/ ,
https://github.com/pypa/packaging/blob/main/src/packaging/_manylinux.py

Pure Python, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

# PEP 599's architectures; 32-bit x86 hosts report i386..i686, the wheel tag is i686.
_ARCH_ALIASES = {"i386": "i686", "i486": "i686", "i586": "i686", "amd64": "x86_64", "arm64": "aarch64"}
_PEP599_ARCHES = ("x86_64", "i686", "aarch64", "armv7l", "ppc64", "ppc64le", "s390x")
_X86 = ("x86_64", "i686")
_LEGACY = {5: "manylinux1", 12: "manylinux2010", 17: "manylinux2014"}
_GLIBC = re.compile(r"^(?:glibc\s+)?2\.([0-9]+)(?:\.[0-9]+)?$")


def wheel_platforms(arch, glibc):
    """Platform tags, newest first, each legacy alias right after the tag it equals (pip's order).

    ``arch``: ``uname -m`` (x86_64, aarch64, ...); ``glibc``: ``2.36`` or ``getconf GNU_LIBC_VERSION``'s
    ``glibc 2.36``. Raises ValueError for an unknown architecture, an unreadable glibc version, or a
    glibc older than any manylinux tag of that architecture.
    """
    arch = _ARCH_ALIASES.get(str(arch).strip(), str(arch).strip())
    if arch not in _PEP599_ARCHES:
        raise ValueError(
            "no manylinux wheels exist for architecture %r (known: %s)" % (arch, ", ".join(_PEP599_ARCHES))
        )
    match = _GLIBC.match(str(glibc).strip())
    if not match:
        raise ValueError("cannot read a glibc 2.x version from %r" % (glibc,))
    newest = int(match.group(1))
    oldest = 5 if arch in _X86 else 17
    if newest < oldest:
        raise ValueError("glibc 2.%d is older than every manylinux tag for %s (glibc 2.%d)" % (newest, arch, oldest))
    tags = []
    for minor in range(newest, oldest - 1, -1):
        tags.append("manylinux_2_%d_%s" % (minor, arch))
        legacy = _LEGACY.get(minor)
        if legacy and (minor == 17 or arch in _X86):
            tags.append("%s_%s" % (legacy, arch))
    return tags
