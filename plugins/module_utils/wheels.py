# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Which binary wheels a Linux host runs, which it installs, and python_env's inputs.

- ``wheel_platforms``: the manylinux platform tags for a host's architecture and glibc.
- ``wheel_hash_lock``: the sha256 of each wheel checked on the controller -> the requirements file a
  host's ``pip install --require-hashes`` takes, so a wheel changed on shared storage is refused.
- ``pip_hash_mismatches``: pip's output -> the wheels it refused for their hashes.
- ``venv_version_problems``: the pins and what the venv reported -> one sentence per pin the venv does not hold.
- ``python_env_input_problems``: python_env's variables -> one sentence per problem, naming the variable.

Platform tags:

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

import posixpath
import re

from ansible_collections.scc.training.plugins.module_utils.input_checks import (
    absolute_path_problems,
    at_least,
    is_inside,
    normal_path,
    show,
    text,
)

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


# PEP 427: {distribution}-{version}(-{build tag})?-{python tag}-{abi tag}-{platform tag}.whl
_WHEEL_FILE = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+)(-[0-9][^-]*)?-[^-]+-[^-]+-[^-]+\.whl$")
# pip's hash-checking refusal names each file it refused: "    six==1.17.0 from file:///w/six-...whl (from -r ...):"
_PIP_REFUSED = re.compile(r"^\s+\S+ from (?P<url>\S+?\.whl)\b")
_PIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*==[A-Za-z0-9.+!_-]+$")
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")


def wheel_hash_lock(digests):
    """{wheel file name: sha256} -> "name==version --hash=sha256:HEX ..." lines, one per distribution, sorted.

    Every wheel the controller checked is pinned with its hash, dependencies included: pip's
    hash-checking mode needs the whole set, and refuses a file whose hash is not listed.
    Names that are not wheels (other artifacts) are left out.
    """
    pins = {}
    for name, sha256 in sorted((digests or {}).items()):
        if not name.endswith(".whl"):
            continue
        match = _WHEEL_FILE.match(name)
        if not match or not re.match(r"^[0-9a-f]{64}$", text(sha256)):
            raise ValueError("cannot pin the wheel %s with sha256 %s" % (show(name), show(sha256)))
        # PEP 503 normalisation: one distribution whatever the spelling in the file name.
        project = re.sub(r"[-_.]+", "-", match.group("name")).lower()
        pins.setdefault((project, match.group("version")), []).append(sha256)
    if not pins:
        raise ValueError("no wheel to pin: the wheelhouse lists no wheel with its sha256")
    return "".join(
        "%s==%s %s\n" % (project, version, " ".join("--hash=sha256:" + h for h in hashes))
        for (project, version), hashes in sorted(pins.items())
    )


def pip_hash_mismatches(output):
    """The wheel files pip refused because their sha256 is not the lock's ([] when none was)."""
    refused, inside = [], False
    for line in text(output).splitlines():
        if "DO NOT MATCH THE HASHES" in line:
            inside = True
            continue
        match = _PIP_REFUSED.match(line) if inside else None
        if match:
            wheel = posixpath.basename(match.group("url"))
            if wheel not in refused:
                refused.append(wheel)
    return refused


def venv_version_problems(requirements, versions):
    """Each ``name==version`` pin the venv does not hold, as a sentence ([] when it holds them all).

    ``versions`` is what the venv's Python reported: ``dists`` (distribution -> version, importlib.metadata) and
    ``modules`` (distribution -> its module's ``__version__``, for those imported; "" when it has none). A pin
    without a local part is held by a build with one (``2.4.1`` by ``2.4.1+cu121``: PyPI's torch names no build);
    a pin with one only by itself. A module that reports a version other than its distribution's means a second copy
    shadows the venv's (PYTHONPATH, a user site)."""
    dists, modules = versions.get("dists") or {}, versions.get("modules") or {}
    problems = []
    for requirement in requirements:
        parts = text(requirement).partition("==")
        name, pin = parts[0], parts[2]
        installed = text(dists.get(name, ""))
        module = text(modules.get(name) or installed)
        held = installed == pin or ("+" not in pin and installed.partition("+")[0] == pin)
        if not held or module != installed:
            problems.append(
                "%s %s (module reports %s), python_env_requirements pins %s"
                % (name, installed or "not installed", module or "nothing", pin)
            )
    return problems


def python_env_input_problems(settings):
    """python_env's variables -> one sentence per problem, naming the variable and its value ([] when all is well)."""
    venv, wheelhouse = text(settings["python_env_venv_path"]), text(settings["python_env_wheelhouse_path"])
    requirements, imports = settings["python_env_requirements"] or [], settings["python_env_verify_imports"] or []
    problems = absolute_path_problems("python_env_venv_path", venv)
    problems += absolute_path_problems("python_env_wheelhouse_path", wheelhouse)
    # Both compared as the directories they name: /mnt/cpfs//wheelhouse/venv lies in /mnt/cpfs/wheelhouse too.
    if venv and normal_path(venv) == normal_path(wheelhouse):
        problems.append("python_env_venv_path and python_env_wheelhouse_path must differ, both are %s." % show(venv))
    # The lock a host's pip checks the shared wheelhouse against lives in the venv: never on the shared storage.
    if venv.startswith("/") and wheelhouse.startswith("/") and is_inside(venv, wheelhouse):
        problems.append(
            "python_env_venv_path (%s) must not be inside python_env_wheelhouse_path (%s): the hash lock each host's "
            "pip checks the wheels against lives in the venv, apart from the wheels." % (show(venv), show(wheelhouse))
        )
    if not text(settings["python_env_cache_dir"]):
        problems.append("python_env_cache_dir must be a controller directory, got %s." % show(""))
    bad = [r for r in requirements if not _PIN.match(text(r))]
    if not requirements or bad:
        problems.append(
            "python_env_requirements must be a non-empty list of exact pins name==version, got %s." % show(requirements)
        )
    bad = [m for m in imports if not _MODULE.match(text(m))]
    if bad:
        problems.append("python_env_verify_imports must be module names, got %s." % show(bad))
    constraints = text(settings["python_env_constraints_file"])
    if constraints and not constraints.startswith("/"):
        problems.append(
            "python_env_constraints_file (%s) must be empty or an absolute path on the controller." % show(constraints)
        )
    if not at_least(settings.get("python_env_install_timeout_s", 3600), 60):
        problems.append(
            "python_env_install_timeout_s must be at least 60 seconds, got %s."
            % show(settings.get("python_env_install_timeout_s"))
        )
    return problems
