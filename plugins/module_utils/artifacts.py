# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The decisions of the artifact_fetch role ("fetch once on the controller, check sha256, distribute once").

- ``mirror_files``: an offline mirror's manifest.json + file-name prefixes -> the one file each
  prefix names, with its URL and sha256 (fails naming the mirror and the matches otherwise).
- ``artifact_plan``: what was fetched (files, a wheelhouse) -> each artifact's controller source and
  host destination, in copy order, and the host directories; wheels either flat in the destination
  or as a wheelhouse directory (wheels, requirements.txt, constraints.txt, manifest.json last).
- ``artifacts_to_copy``: the plan + sizes found on the controller and on a host -> what that host
  still needs. A copy writes a temporary file and renames it, so a file of the right size is a
  finished copy of the checked artifact: re-runs do not re-hash gigabytes.

Pure Python, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import posixpath

LAYOUTS = ("flat", "wheelhouse")
# The files a wheelhouse directory holds next to its wheels; the manifest goes last: it marks the
# copy complete for a reader that trusts it.
_WHEELHOUSE_FILES = ("requirements.txt", "constraints.txt", "manifest.json")


def mirror_files(manifest, prefixes, mirror):
    """For each prefix, the one manifest entry whose name starts with it: [{name, sha256, url}]."""
    entries = (manifest or {}).get("artifacts") or []
    chosen = []
    for prefix in prefixes:
        matches = [e for e in entries if str(e.get("name", "")).startswith(prefix)]
        if len(matches) != 1:
            raise ValueError(
                "The mirror %s lists %d files named %s* in its manifest.json (%s); exactly one is needed."
                % (mirror, len(matches), prefix, ", ".join(e["name"] for e in matches))
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
    wheelhouse: the host directory of the wheels ('' without wheels)}.
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
    return {"artifacts": items, "dirs": dirs, "wheelhouse": host_wheelhouse}


def _sizes(found):
    return {f["path"]: f["size"] for f in found or []}


def artifacts_to_copy(items, controller_files, host_files):
    """Plan artifacts whose destination is missing on the host or differs in size from the controller's file.

    controller_files / host_files: the ``files`` of ansible.builtin.find ({path, size, ...}).
    """
    source, host = _sizes(controller_files), _sizes(host_files)
    missing = [i["src"] for i in items if i["src"] not in source]
    if missing:
        raise ValueError("the controller lacks %s" % ", ".join(missing))
    return [i for i in items if host.get(i["dest"]) != source[i["src"]]]
