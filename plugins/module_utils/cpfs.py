# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""cpfs_mount's rules across its variables (its validate.yml): ``cpfs_mount_input_problems``.

The refused protocols, the source forms and the package pattern stay in roles/cpfs_mount/vars/main.yml
with their sources; the role passes them in. Pure Python, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.scc.training.plugins.module_utils.artifacts import mirror_pin_problems
from ansible_collections.scc.training.plugins.module_utils.input_checks import (
    SHA256,
    group_problems,
    matches,
    show,
    text,
)

_PATH_PART = re.compile(r"\s|/\.\.?(/|$)")
_NFS_VERSION = re.compile(r"^(nfs)?vers=")


def _mount_problems(settings, protocol, forms):
    path, source = text(settings["cpfs_mount_path"]), text(settings["cpfs_mount_source"])
    problems = []
    if not (matches(r"^/.", path) and not _PATH_PART.search(path)):
        problems.append(
            "cpfs_mount_path must be an absolute path other than / without whitespace, . or .., got %s." % show(path)
        )
    same_as_path = protocol == "bind" and source.rstrip("/") == path.rstrip("/")
    if not matches(forms[protocol]["pattern"], source) or same_as_path:
        problems.append(
            "cpfs_mount_source must be %s for protocol %s, got %s." % (forms[protocol]["text"], protocol, show(source))
        )
    return problems


def _options_problems(options, protocol):
    # A string passes the argument spec as a list (it splits on commas), so that is refused here.
    if not isinstance(options, list) or any(not isinstance(o, str) or re.search(r"^$|[\s,]", o) for o in options):
        return [
            "cpfs_mount_options must be a list of non-empty options without commas or whitespace, got %s."
            % show(options)
        ]
    # CPFS serves NFSv3 only (alinas-utils README; the NAS API's CreateProtocolService: NFSv3).
    versions = [o for o in options if _NFS_VERSION.match(o)]
    if protocol == "cpfs-nfs" and any(not re.match(r"^(nfs)?vers=3\Z", o) for o in versions):
        return [
            "CPFS serves NFSv3 only, so cpfs_mount_options must not ask protocol cpfs-nfs for another version, got %s."
            % show(versions)
        ]
    return []


def _alinas_source_problems(url, sha256, mirror):
    """Where the aliyun-alinas-utils package comes from: cpfs_mount_alinas_url with its cpfs_mount_alinas_sha256, or
    cpfs_mount_alinas_mirror, exactly one; the one rule broken, never the list of all."""
    if url and mirror:
        return [
            "cpfs_mount_alinas_mirror (%s) and cpfs_mount_alinas_url (%s) are both set: the aliyun-alinas-utils package"
            " comes from one of them." % (show(mirror), show(url))
        ]
    if not url and not mirror:
        return [
            "cpfs_mount_alinas_url (%s) must name the aliyun-alinas-utils package (http(s)://, file:// or an absolute"
            " controller path), or cpfs_mount_alinas_mirror a mirror that holds it." % show(url)
        ]
    if mirror:
        if not matches(r"^(https?://|/)", mirror):
            return [
                "cpfs_mount_alinas_mirror (%s) must be an http(s):// URL or an absolute controller directory."
                % show(mirror)
            ]
        return []
    if not matches(r"^(https?://|file://|/)", url):
        return ["cpfs_mount_alinas_url (%s) must start with http://, https://, file:// or /." % show(url)]
    if not SHA256.match(sha256):
        return ["cpfs_mount_alinas_sha256 (%s) must be the package's sha256, 64 lowercase hex digits." % show(sha256)]
    return []


def _alinas_problems(settings, package_pattern):
    package = text(settings["cpfs_mount_alinas_package"])
    url, sha256 = text(settings["cpfs_mount_alinas_url"]), text(settings["cpfs_mount_alinas_sha256"])
    mirror, gpg_key = text(settings["cpfs_mount_alinas_mirror"]), text(settings["cpfs_mount_alinas_gpg_key"])
    problems = []
    if not matches(package_pattern, package):
        problems.append(
            "protocol cpfs-nfs installs Alibaba's CPFS-NFS client: cpfs_mount_alinas_package must be its file name, "
            "aliyun-alinas-utils-<version>...(.rpm|.deb), got %s." % show(package)
        )
    # No default URL: no source confirms where Alibaba publishes the package today.
    problems.extend(_alinas_source_problems(url, sha256, mirror))
    # A mirror's manifest holds the package's sha256: the inventory pins the manifest (artifact_fetch).
    if mirror and matches(r"^(https?://|/)", mirror):
        pins = settings["artifact_fetch_mirror_manifests"]
        problems.extend(mirror_pin_problems(pins, mirror, "cpfs_mount_alinas_mirror"))
    # rpm: installed with gpgcheck, so the signing key is required (Alibaba publishes none we could pin).
    if package.endswith(".rpm") and not gpg_key:
        problems.append(
            "cpfs_mount_alinas_gpg_key must be the controller path of the key that signs %s: an rpm is installed "
            "with gpgcheck (its signature checked, besides its sha256), and no key is pinned by default."
            % show(package)
        )
    # apt and dpkg check no signature of a .deb file: there the sha256 is the check.
    if gpg_key and not (gpg_key.startswith("/") and package.endswith(".rpm")):
        problems.append(
            "cpfs_mount_alinas_gpg_key must be an absolute path on the controller, and only goes with an rpm "
            "cpfs_mount_alinas_package (a .deb file carries no signature apt or dpkg check; its sha256 is checked); "
            "got cpfs_mount_alinas_gpg_key=%s for %s." % (show(gpg_key), show(package))
        )
    return problems


def cpfs_mount_input_problems(settings):
    """cpfs_mount's variables -> one sentence per problem, naming the variable and its value ([] when all is well).

    ``settings``: the ``cpfs_mount_*`` variables, ``group_hosts`` (the hosts of cpfs_mount_group) and the
    role's ``refused_protocols`` ({protocol: why}), ``source_forms`` ({protocol: {pattern, text}}) and
    ``alinas_package_pattern``.
    """
    protocol, forms = settings["cpfs_mount_protocol"], settings["source_forms"]
    # A value no spec choice holds (a list, a mapping, null) is shown as text: never a key looked up as it is.
    protocol = protocol if isinstance(protocol, str) else show(protocol)
    problems = group_problems(settings, "cpfs_mount_group")
    if protocol in settings["refused_protocols"]:
        problems.append("cpfs_mount_protocol %s is refused: %s" % (protocol, settings["refused_protocols"][protocol]))
    if protocol in forms:
        problems.extend(_mount_problems(settings, protocol, forms))
    problems.extend(_options_problems(settings["cpfs_mount_options"], protocol))
    if protocol == "cpfs-nfs":
        problems.extend(_alinas_problems(settings, settings["alinas_package_pattern"]))
    return problems
