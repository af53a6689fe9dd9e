"""cpfs_mount's validate.yml: good inputs of every protocol pass, bad ones fail naming the variable."""

from tests.unit.roles.validate_runner import validate_tests

CPFS_NFS_SOURCE = "cpfs-196f91a8e58b1234-195ceeac7b6ac1234.cn-chengdu.cpfs.aliyuncs.com:/share/fileset"
SHA256 = "0123456789abcdef" * 4
RPM = "aliyun-alinas-utils-1.1-8.20240527201444.2012cc.al7.noarch.rpm"
DEB = "aliyun-alinas-utils_1.1-8_all.deb"
# cpfs-nfs with the rpm from a URL, its sha256 and its signing key (dnf's gpgcheck)
CPFS_NFS = {
    "cpfs_mount_protocol": "cpfs-nfs",
    "cpfs_mount_source": CPFS_NFS_SOURCE,
    "cpfs_mount_alinas_package": RPM,
    "cpfs_mount_alinas_url": "https://mirror.example/cpfs/" + RPM,
    "cpfs_mount_alinas_sha256": SHA256,
    "cpfs_mount_alinas_gpg_key": "/srv/keys/alinas.asc",
}
MIRROR = "http://127.0.0.1:8080/cpfs"


def cpfs_nfs(variable, **change):
    """A cpfs-nfs case with ``change`` applied, refused naming ``variable``."""
    return {**CPFS_NFS, **change}, variable


CASES = {
    "ok_none": ({}, None),
    "ok_bind": (
        {"cpfs_mount_protocol": "bind", "cpfs_mount_source": "/mnt/cpfs", "cpfs_mount_path": "/mnt/shared"},
        None,
    ),
    "ok_nfs": ({"cpfs_mount_protocol": "nfs", "cpfs_mount_source": "0a1b2c.cn-shanghai.nas.aliyuncs.com:/"}, None),
    "ok_cpfs_nfs_url": (CPFS_NFS, None),
    "ok_cpfs_nfs_deb_url_without_key": (
        {**CPFS_NFS, "cpfs_mount_alinas_package": DEB, "cpfs_mount_alinas_gpg_key": ""},
        None,
    ),
    "ok_cpfs_nfs_mirror_deb": (
        {
            "cpfs_mount_protocol": "cpfs-nfs",
            "cpfs_mount_source": "ptc-197ed6a00f2b1234-a1b2c3.cn-shanghai.cpfs.aliyuncs.com:/",
            "cpfs_mount_alinas_package": DEB,
            "cpfs_mount_alinas_mirror": MIRROR,
            "artifact_fetch_mirror_manifests": {MIRROR + "/": SHA256},
            "cpfs_mount_options": ["vers=3", "hard", "_netdev"],
        },
        None,
    ),
    # The default client (auto) with no package: the distribution's NFS client, nothing more to give.
    "ok_cpfs_nfs_auto_bare": ({"cpfs_mount_protocol": "cpfs-nfs", "cpfs_mount_source": CPFS_NFS_SOURCE}, None),
    "ok_cpfs_nfs_client_nfs": (
        {"cpfs_mount_protocol": "cpfs-nfs", "cpfs_mount_source": CPFS_NFS_SOURCE, "cpfs_mount_cpfs_nfs_client": "nfs"},
        None,
    ),
    "ok_cpfs_nfs_client_alinas": ({**CPFS_NFS, "cpfs_mount_cpfs_nfs_client": "alinas"}, None),
    "bad_cpfs_nfs_client_choice": cpfs_nfs("cpfs_mount_cpfs_nfs_client", cpfs_mount_cpfs_nfs_client="kernel"),
    "bad_cpfs_nfs_client_nfs_with_package": cpfs_nfs("cpfs_mount_cpfs_nfs_client", cpfs_mount_cpfs_nfs_client="nfs"),
    "bad_cpfs_nfs_client_alinas_no_package": (
        {
            "cpfs_mount_protocol": "cpfs-nfs",
            "cpfs_mount_source": CPFS_NFS_SOURCE,
            "cpfs_mount_cpfs_nfs_client": "alinas",
        },
        "cpfs_mount_alinas_package",
    ),
    "bad_cpfs_nfs_auto_helper_option": (
        {"cpfs_mount_protocol": "cpfs-nfs", "cpfs_mount_source": CPFS_NFS_SOURCE, "cpfs_mount_options": ["tls"]},
        "cpfs_mount_options",
    ),
    "bad_protocol": ({"cpfs_mount_protocol": "lustre"}, "cpfs_mount_protocol"),
    # CPFS 1.0 (Lustre) and the CPFS POSIX client are refused with their reasons.
    "bad_cpfs_lustre_refused": (
        {"cpfs_mount_protocol": "cpfs", "cpfs_mount_source": "a@tcp:/fs"},
        "cpfs_mount_protocol cpfs is refused: CPFS 1.0's Lustre client",
    ),
    "bad_cpfs_posix_refused": (
        {"cpfs_mount_protocol": "cpfs-posix", "cpfs_mount_source": "x"},
        "cpfs_mount_protocol cpfs-posix is refused",
    ),
    "bad_path_relative": (
        {"cpfs_mount_protocol": "bind", "cpfs_mount_source": "/mnt/cpfs", "cpfs_mount_path": "mnt/x"},
        "cpfs_mount_path",
    ),
    "bad_path_root": (
        {"cpfs_mount_protocol": "bind", "cpfs_mount_source": "/mnt/cpfs", "cpfs_mount_path": "/"},
        "cpfs_mount_path",
    ),
    "bad_bind_same": (
        {"cpfs_mount_protocol": "bind", "cpfs_mount_source": "/mnt/cpfs/", "cpfs_mount_path": "/mnt/cpfs"},
        "cpfs_mount_source",
    ),
    "bad_nfs_source": ({"cpfs_mount_protocol": "nfs", "cpfs_mount_source": "/export"}, "cpfs_mount_source"),
    # mount.cpfs-nfs accepts only *.cpfs.aliyuncs.com: the CPFS 1.0 domain (cpfs.nas.aliyuncs.com) is not one.
    "bad_cpfs_nfs_source_cpfs1_domain": cpfs_nfs(
        "cpfs_mount_source", cpfs_mount_source="cpfs-0237.cn-shenzhen.cpfs.nas.aliyuncs.com:/share"
    ),
    "bad_cpfs_nfs_source_no_export": cpfs_nfs(
        "cpfs_mount_source", cpfs_mount_source="cpfs-0237.cn-shenzhen.cpfs.aliyuncs.com"
    ),
    "bad_cpfs_nfs_vers4": cpfs_nfs("cpfs_mount_options", cpfs_mount_options=["vers=4.1", "_netdev"]),
    "bad_cpfs_nfs_no_package": cpfs_nfs("cpfs_mount_alinas_package", cpfs_mount_alinas_package=""),
    "bad_cpfs_nfs_other_package": cpfs_nfs(
        "cpfs_mount_alinas_package", cpfs_mount_alinas_package="cpfs-client-1.2.1-centos.x86_64.rpm"
    ),
    "bad_cpfs_nfs_no_source": cpfs_nfs("cpfs_mount_alinas_url", cpfs_mount_alinas_url=""),
    "bad_cpfs_nfs_url_and_mirror": cpfs_nfs("cpfs_mount_alinas_mirror", cpfs_mount_alinas_mirror="/srv/mirror"),
    "bad_cpfs_nfs_url_without_sha256": cpfs_nfs("cpfs_mount_alinas_sha256", cpfs_mount_alinas_sha256=""),
    "bad_cpfs_nfs_sha256_uppercase": cpfs_nfs("cpfs_mount_alinas_sha256", cpfs_mount_alinas_sha256=SHA256.upper()),
    "bad_cpfs_nfs_url_scheme": cpfs_nfs("cpfs_mount_alinas_url", cpfs_mount_alinas_url="ftp://mirror.example/" + RPM),
    "bad_cpfs_nfs_mirror_relative": cpfs_nfs(
        "cpfs_mount_alinas_mirror", cpfs_mount_alinas_url="", cpfs_mount_alinas_mirror="mirror/cpfs"
    ),
    # A .deb carries no signature apt or dpkg check: a key with it would promise a check that never runs.
    "bad_cpfs_nfs_key_with_deb": cpfs_nfs(
        "cpfs_mount_alinas_gpg_key",
        cpfs_mount_alinas_package=DEB,
        cpfs_mount_alinas_url="https://mirror.example/" + DEB,
        cpfs_mount_alinas_gpg_key="/srv/keys/alinas.asc",
    ),
    # An rpm is installed with gpgcheck: no key, no install (no key of Alibaba's is published to pin by default).
    "bad_cpfs_nfs_rpm_without_key": cpfs_nfs("cpfs_mount_alinas_gpg_key", cpfs_mount_alinas_gpg_key=""),
    # The mirror's manifest holds the package's sha256: the inventory must pin the manifest itself.
    "bad_cpfs_nfs_mirror_unpinned": cpfs_nfs(
        "artifact_fetch_mirror_manifests must pin the mirror", cpfs_mount_alinas_url="", cpfs_mount_alinas_mirror=MIRROR
    ),
    "bad_cpfs_nfs_mirror_pinned_elsewhere": cpfs_nfs(
        "cpfs_mount_alinas_mirror",
        cpfs_mount_alinas_url="",
        cpfs_mount_alinas_mirror=MIRROR,
        artifact_fetch_mirror_manifests={"http://127.0.0.1:8080/other": SHA256},
    ),
    "bad_cpfs_nfs_key_relative": cpfs_nfs("cpfs_mount_alinas_gpg_key", cpfs_mount_alinas_gpg_key="alinas.asc"),
    "bad_cpfs_nfs_unverified_not_bool": cpfs_nfs(
        "cpfs_mount_alinas_allow_unverified_os", cpfs_mount_alinas_allow_unverified_os="maybe"
    ),
    "bad_options_string": (
        {"cpfs_mount_protocol": "nfs", "cpfs_mount_source": "h:/", "cpfs_mount_options": "vers=3"},
        "cpfs_mount_options",
    ),
    "bad_options_comma": (
        {"cpfs_mount_protocol": "nfs", "cpfs_mount_source": "h:/", "cpfs_mount_options": ["vers=3,nolock"]},
        "cpfs_mount_options",
    ),
    "bad_proof": ({"cpfs_mount_proof": "yes please"}, "cpfs_mount_proof"),
}


results, test_validate = validate_tests("cpfs_mount", CASES)
