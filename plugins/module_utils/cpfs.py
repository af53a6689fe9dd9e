# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""cpfs_mount's rules across its variables (its validate.yml): ``cpfs_mount_input_problems``; and which client
mounts CPFS through its protocol service on one host (its preflight.yml): ``cpfs_nfs_client``.

The refused protocols, the source forms, the package pattern and the list of OSes aliyun-alinas-utils' authors
verified stay in roles/cpfs_mount/vars/main.yml with their sources; the role passes them in. Pure Python, no Ansible
imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.scc.training.plugins.module_utils.artifacts import mirror_pin_problems
from ansible_collections.scc.training.plugins.module_utils.input_checks import (
    SHA256,
    boolean,
    group_problems,
    matches,
    show,
    text,
)

_PATH_PART = re.compile(r"\s|/\.\.?(/|$)")
_NFS_VERSION = re.compile(r"^(nfs)?vers=")

# cpfs_mount_cpfs_nfs_client: who mounts CPFS's protocol service (NFSv3) for cpfs_mount_protocol cpfs-nfs.
CPFS_NFS_CLIENTS = ("auto", "alinas", "nfs")
# The options only Alibaba's mount.cpfs-nfs reads (ALINAS_ONLY_OPTIONS of aliyun-alinas-utils'
# src/cpfs/mount_cpfs/__init__.py, commit 2b9ad89d): mount.nfs refuses them, so they go with client alinas only.
ALINAS_ONLY_OPTIONS = (
    "tls",
    "proxy",
    "proxy_port",
    "nas_ip",
    "backup_ip",
    "direct",
    "verify",
    "no_start_watchdog",
    "alitimeo",
    "hp_config_dir",
)
_ALINAS_SOURCE_VARIABLES = (
    "cpfs_mount_alinas_url",
    "cpfs_mount_alinas_sha256",
    "cpfs_mount_alinas_mirror",
    "cpfs_mount_alinas_gpg_key",
)


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


def _options_problems(options, protocol, client):
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
    helper_only = [o for o in options if o.split("=", 1)[0] in ALINAS_ONLY_OPTIONS]
    if protocol == "cpfs-nfs" and client != "alinas" and helper_only:
        return [
            "cpfs_mount_options %s are read only by Alibaba's mount.cpfs-nfs, and cpfs_mount_cpfs_nfs_client %s may mount"
            " with the distribution's mount.nfs, which refuses them: set cpfs_mount_cpfs_nfs_client alinas to use them."
            % (show(helper_only), client)
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


def _client_problems(settings, client):
    """cpfs_mount_cpfs_nfs_client against the package variables: nfs installs no package; auto without a package
    mounts with the distribution's client everywhere, so a package source without the package is a mistake."""
    package = text(settings["cpfs_mount_alinas_package"])
    given = [v for v in _ALINAS_SOURCE_VARIABLES if text(settings[v])]
    if client == "nfs":
        named = (["cpfs_mount_alinas_package"] if package else []) + given
        if named:
            return [
                "cpfs_mount_cpfs_nfs_client nfs mounts with the distribution's NFS client and installs no package, yet"
                " %s %s set: leave %s empty, or set cpfs_mount_cpfs_nfs_client auto or alinas."
                % (", ".join(named), "is" if len(named) == 1 else "are", "it" if len(named) == 1 else "them")
            ]
        return []
    if client == "auto" and not package and given:
        return [
            "cpfs_mount_alinas_package is empty while %s %s set: name the aliyun-alinas-utils package those fetch"
            " and verify, or leave them empty (cpfs_mount_cpfs_nfs_client auto then mounts with the distribution's"
            " NFS client)." % (", ".join(given), "is" if len(given) == 1 else "are")
        ]
    return []


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
    client = settings["cpfs_mount_cpfs_nfs_client"]
    client = client if isinstance(client, str) else show(client)
    problems.extend(_options_problems(settings["cpfs_mount_options"], protocol, client))
    if protocol == "cpfs-nfs":
        if client not in CPFS_NFS_CLIENTS:
            problems.append(
                "cpfs_mount_cpfs_nfs_client must be one of %s, got %s." % (", ".join(CPFS_NFS_CLIENTS), show(client))
            )
            return problems
        client_problems = _client_problems(settings, client)
        problems.extend(client_problems)
        # alinas: the package is required; auto: its rules apply once it is named (it is then used where it fits).
        if not client_problems and (
            client == "alinas" or (client == "auto" and text(settings["cpfs_mount_alinas_package"]))
        ):
            problems.extend(_alinas_problems(settings, settings["alinas_package_pattern"]))
    return problems


def _os_names(host):
    """The names a host's OS matches in the verified list: its distribution alone, with its major version, with its
    full version (``Alibaba``, ``Alibaba 3``, ``Alibaba 3.2104``)."""
    distribution = text(host.get("distribution"))
    return [
        distribution,
        "%s %s" % (distribution, text(host.get("distribution_major_version"))),
        "%s %s" % (distribution, text(host.get("distribution_version"))),
    ]


def _alinas_host_problems(settings, host):
    """Why Alibaba's CPFS-NFS client package does not suit this host ([] when it does): an OS outside the list its
    authors verified (unless cpfs_mount_alinas_allow_unverified_os), a format the host's package manager does not
    take in this role."""
    package = text(settings["cpfs_mount_alinas_package"])
    os_name = "%s %s" % (text(host.get("distribution")), text(host.get("distribution_version")))
    verified = list(settings["verified_os"])
    problems = []
    if not boolean(settings["cpfs_mount_alinas_allow_unverified_os"]) and not set(_os_names(host)) & set(verified):
        problems.append(
            "aliyun-alinas-utils is verified by its authors on %s; this host runs %s (set"
            " cpfs_mount_alinas_allow_unverified_os: true once you have checked the client works there)."
            % (", ".join(verified), os_name)
        )
    fmt = "." + package.rsplit(".", 1)[-1] if "." in package else ""
    managers = list(settings["package_managers"].get(fmt, []))
    pkg_mgr = text(host.get("pkg_mgr"))
    if pkg_mgr not in managers:
        problems.append(
            "cpfs_mount_alinas_package %s is a %s package, installed here with %s; this host (%s) uses %s."
            % (package, fmt or "(no format)", " or ".join(managers) or "nothing", os_name, pkg_mgr)
        )
    return problems


def cpfs_nfs_client(settings, host):
    """Which client mounts CPFS's protocol service on one host -> ``{client, reason, problems}``.

    ``client``: ``alinas`` (Alibaba's CPFS-NFS client, aliyun-alinas-utils, fstab type cpfs-nfs) or ``nfs`` (the
    distribution's NFS client, fstab type nfs, the options mount.cpfs-nfs itself hands mount.nfs). ``reason``: one
    sentence saying why. ``problems``: the refusals of an explicit ``alinas`` on a host it does not suit ([] otherwise:
    ``auto`` never refuses, it picks ``nfs`` there).

    ``settings``: ``cpfs_mount_cpfs_nfs_client`` (auto, alinas or nfs), ``cpfs_mount_alinas_package``,
    ``cpfs_mount_alinas_allow_unverified_os``, and the role's ``verified_os`` (the package's verified OSes, as
    "<distribution>[ <version>]") and ``package_managers`` ({".deb": [...], ".rpm": [...]}). ``host``: the host's facts
    ``distribution``, ``distribution_version``, ``distribution_major_version`` and ``pkg_mgr``.

    ``auto`` picks Alibaba's client only where its package can be verified: a package is named (validate then holds
    its sha256 pin, and for an rpm its signing key), the host's OS is one the package's authors verified (or the user
    vouched for it) and the host's package manager takes the package's format. Everywhere else it picks the
    distribution's NFS client.
    """
    requested = settings["cpfs_mount_cpfs_nfs_client"]
    if requested not in CPFS_NFS_CLIENTS:
        raise ValueError(
            "cpfs_mount_cpfs_nfs_client must be one of %s, got %s" % (", ".join(CPFS_NFS_CLIENTS), show(requested))
        )
    if requested == "nfs":
        return {"client": "nfs", "reason": "cpfs_mount_cpfs_nfs_client is nfs.", "problems": []}
    if requested == "auto" and not text(settings["cpfs_mount_alinas_package"]):
        return {
            "client": "nfs",
            "reason": "cpfs_mount_cpfs_nfs_client is auto and no cpfs_mount_alinas_package is given.",
            "problems": [],
        }
    problems = _alinas_host_problems(settings, host)
    if requested == "alinas":
        return {"client": "alinas", "reason": "cpfs_mount_cpfs_nfs_client is alinas.", "problems": problems}
    if problems:
        return {
            "client": "nfs",
            "reason": "cpfs_mount_cpfs_nfs_client is auto and Alibaba's client does not suit this host: %s"
            % " ".join(problems),
            "problems": [],
        }
    return {
        "client": "alinas",
        "reason": "cpfs_mount_cpfs_nfs_client is auto, the package is pinned and verified, and this host is one its"
        " authors verified (or cpfs_mount_alinas_allow_unverified_os) with a package manager that takes it.",
        "problems": [],
    }
