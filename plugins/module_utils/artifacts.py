# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The decisions of the artifact_fetch role ("fetch once on the controller, check sha256, distribute once").

- ``mirror_files``: an offline mirror's manifest.json + file-name prefixes -> the one file each
  prefix names, with its URL and sha256 (fails naming the mirror and the matches otherwise).
- ``artifact_plan``: what was fetched (files, a wheelhouse) -> each artifact's controller source and
  host destination, in copy order, and the host directories; wheels either flat in the destination
  or as a wheelhouse directory (wheels, requirements.txt, constraints.txt, manifest.json last).
- ``artifacts_to_copy``: the plan + the sha256 of each file found on the controller and on a host ->
  what that host still needs: a file is trusted by the sha256 of the copy itself, never by its size
  (a same-size file altered on the host is copied again, then re-hashed before use). The
  controller's own copy is held to the sha256 it was downloaded against, so a cache altered after
  its check is refused too.
- ``mirror_manifest_sha256``: the sha256 the inventory pins a mirror's manifest.json to. A mirror
  never vouches for itself: the sha256 of each of its files comes from a manifest whose own sha256
  the inventory holds (``artifact_fetch_mirror_manifests``), so a tampered mirror is refused.
- ``artifact_fetch_input_problems``: the role's variables -> one sentence per problem, naming the variable.
- ``path_is_shared``: whether a host path lies on a directory the cluster proved shared
  (``scc_shared_paths``): then each artifact is copied once, through the first host.

Pure Python, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import posixpath
import re

from ansible_collections.scc.training.plugins.module_utils.input_checks import (
    MIRROR,
    SHA256,
    absolute_path_problems,
    show,
    text,
)
from ansible_collections.scc.training.plugins.module_utils.redact import redact_text

LAYOUTS = ("flat", "wheelhouse")
# The files a wheelhouse directory holds next to its wheels; the manifest goes last: it marks the
# copy complete for a reader that trusts it.
_WHEELHOUSE_FILES = ("requirements.txt", "constraints.txt", "manifest.json")
_FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*\Z")
_FILE_URL = re.compile(r"^(https?://|file://|/)")
_PIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*==[A-Za-z0-9.+!_-]+\Z")


def _mirror_key(mirror):
    """A mirror as the inventory names it: the same location with or without its trailing slash."""
    return text(mirror).rstrip("/")


def mirror_manifest_sha256(pins, mirror):
    """The sha256 ``pins`` ({mirror: sha256}, artifact_fetch_mirror_manifests) holds for ``mirror``'s manifest.json."""
    wanted = _mirror_key(mirror)
    found = [
        text(sha).lower()
        for location, sha in (pins if isinstance(pins, dict) else {}).items()
        if _mirror_key(location) == wanted
    ]
    if len(found) != 1 or not SHA256.match(found[0]):
        raise ValueError(
            "artifact_fetch_mirror_manifests must pin the mirror %s: {%s: <sha256 of its manifest.json>}, got %s."
            % (show(wanted), show(wanted), show(pins or {}))
        )
    return found[0]


def mirror_pin_problems(pins, mirror, variable):
    """[] when ``mirror`` (named by ``variable``) is empty or pinned in ``pins``, else the sentence that says so."""
    if not text(mirror):
        return []
    try:
        mirror_manifest_sha256(pins, mirror)
    except ValueError as exc:
        return ["%s (%s): %s" % (variable, show(text(mirror)), exc)]
    return []


def _file_problems(files):
    problems = []
    for item in files or []:
        item = item if isinstance(item, dict) else {}
        name, url, sha256 = text(item.get("name")), text(item.get("url")), text(item.get("sha256"))
        if not _FILE_NAME.match(name):
            problems.append("artifact_fetch_files: the name %s must be a plain file name." % show(name))
        if not _FILE_URL.match(url):
            problems.append(
                "artifact_fetch_files: %s's url %s must be http(s)://, file:// or an absolute controller path."
                % (name, show(url))
            )
        if not SHA256.match(sha256):
            problems.append(
                "artifact_fetch_files: %s's sha256 %s must be 64 lowercase hex digits." % (name, show(sha256))
            )
    return problems


def artifact_fetch_input_problems(settings):
    """artifact_fetch's variables -> one sentence per problem, naming the variable and its value ([] when all is well)."""
    mirror, select = text(settings["artifact_fetch_mirror"]), settings["artifact_fetch_mirror_select"] or []
    problems = absolute_path_problems("artifact_fetch_dest", settings["artifact_fetch_dest"])
    problems.extend(_file_problems(settings["artifact_fetch_files"]))
    bad_pins = [w for w in settings["artifact_fetch_wheels"] or [] if not _PIN.match(text(w))]
    if bad_pins:
        problems.append("artifact_fetch_wheels must be exact pins name==version, got %s." % show(bad_pins))
    if mirror and not MIRROR.match(mirror):
        problems.append(
            "artifact_fetch_mirror (%s) must be an http(s):// URL or an absolute controller directory." % show(mirror)
        )
    if bool(mirror) != bool(select):
        problems.append(
            "artifact_fetch_mirror (%s) and artifact_fetch_mirror_select (%s) go together: a mirror and the files "
            "taken from it." % (show(mirror), show(select))
        )
    problems.extend(mirror_pin_problems(settings["artifact_fetch_mirror_manifests"], mirror, "artifact_fetch_mirror"))
    return problems


def mirror_files(manifest, prefixes, mirror):
    """For each prefix, the one manifest entry whose name starts with it: [{name, sha256, url}]."""
    entries = (manifest or {}).get("artifacts") or []
    chosen = []
    for prefix in prefixes:
        matches = [e for e in entries if str(e.get("name", "")).startswith(prefix)]
        if len(matches) != 1:
            raise ValueError(
                "The mirror %s lists %d files named %s* in its manifest.json (%s); exactly one is needed."
                % (redact_text(mirror), len(matches), prefix, ", ".join(e["name"] for e in matches))
            )
        entry = matches[0]
        chosen.append(
            {"name": entry["name"], "sha256": entry["sha256"], "url": mirror.rstrip("/") + "/" + entry["name"]}
        )
    return chosen


def artifact_plan(files, files_dir, wheelhouse, dest, layout="flat"):
    """Where each artifact comes from and goes to.

    files: [{name, ...}] fetched into files_dir; wheelhouse: the scc.training.wheelhouse result
    ({wheelhouse, wheels: [{name, ...}]}) or empty; dest: the host directory.
    Returns {artifacts: [{name, src, dest}] in copy order, dirs: [host directories, parents first],
    wheelhouse: the host directory of the wheels ('' without wheels), sha256: {name: sha256} of each
    file and wheel checked on the controller (what a host's pip --require-hashes is given)}.
    """
    if layout not in LAYOUTS:
        raise ValueError("layout must be one of %s, got %r" % (", ".join(LAYOUTS), layout))
    dest = dest.rstrip("/") or "/"
    items = [
        {"name": f["name"], "src": posixpath.join(files_dir, f["name"]), "dest": posixpath.join(dest, f["name"])}
        for f in files
    ]
    dirs = [dest]
    host_wheelhouse = ""
    wheels = (wheelhouse or {}).get("wheels") or []
    if wheels:
        source = wheelhouse["wheelhouse"]
        names = [w["name"] for w in wheels]
        host_wheelhouse = dest
        if layout == "wheelhouse":
            host_wheelhouse = posixpath.join(dest, posixpath.basename(source.rstrip("/")))
            dirs.append(host_wheelhouse)
            names += list(_WHEELHOUSE_FILES)
        items += [
            {"name": n, "src": posixpath.join(source, n), "dest": posixpath.join(host_wheelhouse, n)} for n in names
        ]
    seen = set()
    for item in items:
        if item["dest"] in seen:
            raise ValueError("two artifacts land at %s" % item["dest"])
        seen.add(item["dest"])
    digests = {f["name"]: f["sha256"] for f in list(files) + list(wheels) if f.get("sha256")}
    return {"artifacts": items, "dirs": dirs, "wheelhouse": host_wheelhouse, "sha256": digests}


def _digests(found, where):
    digests = {}
    for item in found or []:
        checksum = text(item["checksum"] if "checksum" in item else "").lower()
        if not SHA256.match(checksum):
            raise ValueError(
                "%s's find must hash each file with sha256 (get_checksum: true, checksum_algorithm: sha256): %s has "
                "checksum %s" % (where, item["path"], show(checksum))
            )
        digests[item["path"]] = checksum
    return digests


def artifacts_to_copy(items, controller_files, host_files, pinned=None):
    """Plan artifacts whose destination is missing on the host or whose sha256 differs from the controller's file.

    controller_files / host_files: the ``files`` of ansible.builtin.find with ``get_checksum: true`` and
    ``checksum_algorithm: sha256`` ({path, checksum, ...}); pinned: {name: sha256} each file was checked against
    when it was fetched (the plan's ``sha256``): the controller's copy must still have it.
    """
    source, host = _digests(controller_files, "the controller"), _digests(host_files, "the host")
    missing = [i["src"] for i in items if i["src"] not in source]
    if missing:
        raise ValueError("the controller lacks %s" % ", ".join(missing))
    for item in items:
        want = text((pinned or {}).get(item["name"])).lower()
        if want and source[item["src"]] != want:
            raise ValueError(
                "the controller's %s has sha256 %s, not the %s it was fetched against: its cache was altered after "
                "the check" % (item["src"], source[item["src"]], want)
            )
    return [i for i in items if host.get(i["dest"]) != source[i["src"]]]


def path_is_shared(path, shared_paths):
    """True when ``path`` is one of ``shared_paths`` or lies under one (directories every host of the cluster was
    proven to see alike: the cluster fact ``scc_shared_paths``, published by cpfs_mount's proof)."""
    if not isinstance(path, str) or not path.startswith("/"):
        raise ValueError("the path must be absolute, got %r" % (path,))
    if isinstance(shared_paths, str) or not hasattr(shared_paths, "__iter__"):
        raise ValueError("the shared paths must be a list of directories, got %r" % (shared_paths,))
    path = posixpath.normpath(path)
    for shared in shared_paths:
        shared = posixpath.normpath(str(shared))
        if shared.startswith("/") and (path == shared or path.startswith(shared.rstrip("/") + "/")):
            return True
    return False
