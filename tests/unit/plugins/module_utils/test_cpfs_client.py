# -*- coding: utf-8 -*-
"""cpfs.cpfs_nfs_client: which client mounts CPFS's protocol service on one host. Alibaba's CPFS-NFS client only where
its package can be verified (named, on an OS its authors verified or vouched for, in a format the host takes), the
distribution's NFS client everywhere else; an explicit choice wins; and the validate rules of the new variable."""

from __future__ import annotations

import pytest
import yaml

from ansible_collections.scc.training.plugins.module_utils import cpfs
from tests.unit.plugins.module_utils.test_input_problems import CPFS, DEB, RPM

ROLE_VARS = yaml.safe_load(open("roles/cpfs_mount/vars/main.yml", encoding="utf-8"))


def settings(client="auto", package="", allow=False):
    return {
        "cpfs_mount_cpfs_nfs_client": client,
        "cpfs_mount_alinas_package": package,
        "cpfs_mount_alinas_allow_unverified_os": allow,
        # The role's own lists, so that a change there is judged here too.
        "verified_os": ROLE_VARS["_cpfs_mount_alinas_verified_os"],
        "package_managers": ROLE_VARS["_cpfs_mount_alinas_package_managers"],
    }


def host(distribution, version, pkg_mgr):
    return {
        "distribution": distribution,
        "distribution_version": version,
        "distribution_major_version": version.split(".")[0],
        "pkg_mgr": pkg_mgr,
    }


ALINUX3 = host("Alibaba", "3", "dnf")
UBUNTU2004 = host("Ubuntu", "20.04", "apt")
UBUNTU2204 = host("Ubuntu", "22.04", "apt")
UBUNTU2404 = host("Ubuntu", "24.04", "apt")
DEBIAN12 = host("Debian", "12.7", "apt")

# (settings, host, expected client, words of the reason)
CHOICES = {
    # The defaults (auto, no package): every OS mounts with its own NFS client, nothing to hunt for.
    "auto_no_package_alinux3": (settings(), ALINUX3, "nfs", ["no cpfs_mount_alinas_package"]),
    "auto_no_package_ubuntu2204": (settings(), UBUNTU2204, "nfs", ["no cpfs_mount_alinas_package"]),
    "auto_no_package_ubuntu2404": (settings(), UBUNTU2404, "nfs", ["no cpfs_mount_alinas_package"]),
    # A package given: Alibaba's client where its authors verified the OS and the host takes the format.
    "auto_rpm_alinux3": (settings(package=RPM), ALINUX3, "alinas", ["auto"]),
    "auto_rpm_rhel8": (settings(package=RPM), host("RedHat", "8.10", "dnf"), "alinas", ["auto"]),
    "auto_deb_ubuntu2004": (settings(package=DEB), UBUNTU2004, "alinas", ["auto"]),
    "auto_deb_debian10": (settings(package=DEB), host("Debian", "10.13", "apt"), "alinas", ["auto"]),
    # ... and the distribution's client where it cannot be verified, saying why.
    "auto_deb_ubuntu2204": (settings(package=DEB), UBUNTU2204, "nfs", ["runs Ubuntu 22.04", "Ubuntu 20.04"]),
    "auto_deb_ubuntu2404": (settings(package=DEB), UBUNTU2404, "nfs", ["runs Ubuntu 24.04"]),
    "auto_deb_debian12": (settings(package=DEB), DEBIAN12, "nfs", ["runs Debian 12.7"]),
    "auto_deb_on_dnf": (settings(package=DEB), ALINUX3, "nfs", ["is a .deb package", "uses dnf"]),
    "auto_rpm_on_apt": (settings(package=RPM), UBUNTU2004, "nfs", ["is a .rpm package", "uses apt"]),
    "auto_rpm_on_zypper": (settings(package=RPM), host("SLES", "15.5", "zypper"), "nfs", ["uses zypper"]),
    # The user vouched for the OS: auto takes Alibaba's client there.
    "auto_deb_ubuntu2204_vouched": (settings(package=DEB, allow=True), UBUNTU2204, "alinas", ["auto"]),
    "auto_deb_ubuntu2204_vouched_text": (settings(package=DEB, allow="yes"), UBUNTU2204, "alinas", ["auto"]),
    # Explicit choices win.
    "nfs_on_alinux3": (settings("nfs"), ALINUX3, "nfs", ["is nfs"]),
    "alinas_on_ubuntu2004": (settings("alinas", DEB), UBUNTU2004, "alinas", ["is alinas"]),
}


@pytest.mark.parametrize("case", sorted(CHOICES))
def test_choice(case):
    given, facts, client, words = CHOICES[case]
    choice = cpfs.cpfs_nfs_client(given, facts)
    assert choice["client"] == client, choice
    assert choice["problems"] == [], choice
    for word in words:
        assert word in choice["reason"], (word, choice["reason"])


@pytest.mark.parametrize(
    ("given", "facts", "words"),
    [
        (settings("alinas", DEB), UBUNTU2204, ["runs Ubuntu 22.04", "cpfs_mount_alinas_allow_unverified_os"]),
        (settings("alinas", DEB), DEBIAN12, ["runs Debian 12.7"]),
        (settings("alinas", RPM), UBUNTU2004, ["is a .rpm package, installed here with dnf or dnf5", "uses apt"]),
        (settings("alinas", DEB), host("Rocky", "9.4", "dnf"), ["runs Rocky 9.4", "uses dnf"]),
    ],
)
def test_explicit_alinas_on_a_host_it_does_not_suit_is_refused(given, facts, words):
    """alinas is the user's word: never silently replaced, refused with every reason."""
    choice = cpfs.cpfs_nfs_client(given, facts)
    assert choice["client"] == "alinas"
    joined = " ".join(choice["problems"])
    for word in words:
        assert word in joined, (word, joined)


def test_a_client_outside_the_choices_is_an_error():
    with pytest.raises(ValueError, match="cpfs_mount_cpfs_nfs_client must be one of auto, alinas, nfs"):
        cpfs.cpfs_nfs_client(settings("kernel"), ALINUX3)


NFS_CLIENT = {
    **CPFS,
    "cpfs_mount_cpfs_nfs_client": "nfs",
    "cpfs_mount_alinas_package": "",
    "cpfs_mount_alinas_url": "",
    "cpfs_mount_alinas_sha256": "",
    "cpfs_mount_alinas_gpg_key": "",
}
AUTO_BARE = {**NFS_CLIENT, "cpfs_mount_cpfs_nfs_client": "auto"}


@pytest.mark.parametrize(
    "given",
    [
        NFS_CLIENT,
        AUTO_BARE,
        {**CPFS, "cpfs_mount_cpfs_nfs_client": "auto"},
        {**CPFS, "cpfs_mount_cpfs_nfs_client": "alinas"},
        {**CPFS, "cpfs_mount_cpfs_nfs_client": "alinas", "cpfs_mount_options": ["vers=3", "tls", "_netdev"]},
    ],
)
def test_client_settings_accepted(given):
    assert cpfs.cpfs_mount_input_problems(given) == []


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ({**CPFS, "cpfs_mount_cpfs_nfs_client": "kernel"}, ["cpfs_mount_cpfs_nfs_client must be one of"]),
        ({**CPFS, "cpfs_mount_cpfs_nfs_client": ["nfs"]}, ["cpfs_mount_cpfs_nfs_client must be one of"]),
        # nfs installs no package: a package or its source is a contradiction, named.
        (
            {**CPFS, "cpfs_mount_cpfs_nfs_client": "nfs"},
            ["cpfs_mount_cpfs_nfs_client nfs", "cpfs_mount_alinas_package", "cpfs_mount_alinas_url"],
        ),
        ({**NFS_CLIENT, "cpfs_mount_alinas_mirror": "/srv/m"}, ["cpfs_mount_alinas_mirror is set"]),
        # auto with a source but no package: a mistake, not a silent fallback.
        ({**AUTO_BARE, "cpfs_mount_alinas_url": "https://m.example/x.rpm"}, ["cpfs_mount_alinas_package is empty"]),
        # auto with a package: its rules hold (an rpm needs its key).
        (
            {**CPFS, "cpfs_mount_cpfs_nfs_client": "auto", "cpfs_mount_alinas_gpg_key": ""},
            ["cpfs_mount_alinas_gpg_key must be the controller path"],
        ),
        # mount.cpfs-nfs' own options reach mount.nfs when the distribution's client mounts.
        (
            {**NFS_CLIENT, "cpfs_mount_options": ["vers=3", "tls"]},
            ['cpfs_mount_options ["tls"]', "cpfs_mount_cpfs_nfs_client alinas"],
        ),
        ({**AUTO_BARE, "cpfs_mount_options": ["alitimeo=30"]}, ['cpfs_mount_options ["alitimeo=30"]']),
        # NFSv3 only, whichever client.
        ({**NFS_CLIENT, "cpfs_mount_options": ["vers=4.1"]}, ["CPFS serves NFSv3 only"]),
    ],
)
def test_client_settings_refused(given, words):
    problems = cpfs.cpfs_mount_input_problems(given)
    assert len(problems) == 1, problems
    for word in words:
        assert word in problems[0], (word, problems)


def test_alinas_still_requires_its_package():
    """alinas without a package: refused as protocol cpfs-nfs always was (the package and where it comes from)."""
    problems = cpfs.cpfs_mount_input_problems({**NFS_CLIENT, "cpfs_mount_cpfs_nfs_client": "alinas"})
    assert [p.split(" ")[0] for p in problems] == ["protocol", "cpfs_mount_alinas_url"], problems
    assert "cpfs_mount_alinas_package must be its file name" in problems[0]
