"""cpfs_mount's preflight (tasks_from: preflight): each host's CPFS-NFS client, chosen and checked against its OS and
package manager, judged on made-up facts in one local run (no host contacted, nothing installed).

Each case is an inventory host carrying its variables and its facts (the facts ansible would gather on
that OS). With cpfs_mount_cpfs_nfs_client alinas the preflight must accept the OSes aliyun-alinas-utils' README
verifies, refuse the others naming the override variable, and refuse a package format the host's package manager
does not take. With auto (the default) it never refuses: it chooses Alibaba's client where the package can be
verified and the distribution's NFS client elsewhere (Ubuntu 22.04/24.04 among them), and says which.
"""

from __future__ import annotations

import pytest
import yaml

from tests.lab_runner import failed, ok_results, run_playbook, unreachable

RPM = "aliyun-alinas-utils-1.1-8.20240527201444.2012cc.al7.noarch.rpm"
DEB = "aliyun-alinas-utils_1.1-8_all.deb"
AUTO = {
    "cpfs_mount_protocol": "cpfs-nfs",
    "cpfs_mount_source": "cpfs-0123.cn-shanghai.cpfs.aliyuncs.com:/share",
}
CPFS_NFS = {**AUTO, "cpfs_mount_alinas_mirror": "/srv/mirror", "cpfs_mount_cpfs_nfs_client": "alinas"}
ALINAS_NAME = "Alibaba's CPFS-NFS client"
NFS_NAME = "the distribution's NFS client"


def facts(distribution, version, pkg_mgr):
    return {
        "distribution": distribution,
        "distribution_version": version,
        "distribution_major_version": version.split(".")[0],
        "pkg_mgr": pkg_mgr,
    }


ALINUX3 = facts("Alibaba", "3", "dnf")
UBUNTU2204 = facts("Ubuntu", "22.04", "apt")
# (variables, facts, None = accepted, else words the refusal must contain)
CASES = {
    # auto, the default: nothing to hunt for on either OS family.
    "auto_no_package_alinux3": (AUTO, ALINUX3, None),
    "auto_no_package_ubuntu2204": (AUTO, UBUNTU2204, None),
    "auto_no_package_ubuntu2404": (AUTO, facts("Ubuntu", "24.04", "apt"), None),
    "auto_deb_ubuntu2204": ({**AUTO, "cpfs_mount_alinas_package": DEB}, UBUNTU2204, None),
    "auto_deb_ubuntu2004": ({**AUTO, "cpfs_mount_alinas_package": DEB}, facts("Ubuntu", "20.04", "apt"), None),
    "auto_rpm_alinux3": ({**AUTO, "cpfs_mount_alinas_package": RPM}, ALINUX3, None),
    "ok_alinux3_rpm": ({**CPFS_NFS, "cpfs_mount_alinas_package": RPM}, ALINUX3, None),
    "ok_rhel8_rpm": ({**CPFS_NFS, "cpfs_mount_alinas_package": RPM}, facts("RedHat", "8.10", "dnf"), None),
    "ok_ubuntu2004_deb": ({**CPFS_NFS, "cpfs_mount_alinas_package": DEB}, facts("Ubuntu", "20.04", "apt"), None),
    "ok_debian10_deb": ({**CPFS_NFS, "cpfs_mount_alinas_package": DEB}, facts("Debian", "10.13", "apt"), None),
    "ok_ubuntu2204_with_override": (
        {**CPFS_NFS, "cpfs_mount_alinas_package": DEB, "cpfs_mount_alinas_allow_unverified_os": True},
        UBUNTU2204,
        None,
    ),
    "ok_other_protocol_any_os": (
        {"cpfs_mount_protocol": "nfs", "cpfs_mount_source": "x.cn-shanghai.nas.aliyuncs.com:/"},
        UBUNTU2204,
        None,
    ),
    "bad_ubuntu2204": (
        {**CPFS_NFS, "cpfs_mount_alinas_package": DEB},
        UBUNTU2204,
        ["runs Ubuntu 22.04", "cpfs_mount_protocol cpfs-nfs", "cpfs_mount_alinas_allow_unverified_os", "Alibaba 3"],
    ),
    "bad_debian12": (
        {**CPFS_NFS, "cpfs_mount_alinas_package": DEB},
        facts("Debian", "12.7", "apt"),
        ["runs Debian 12.7", "cpfs_mount_alinas_allow_unverified_os"],
    ),
    "bad_rocky9": (
        {**CPFS_NFS, "cpfs_mount_alinas_package": RPM},
        facts("Rocky", "9.4", "dnf"),
        ["runs Rocky 9.4", "cpfs_mount_alinas_allow_unverified_os"],
    ),
    "bad_rpm_on_apt": (
        {**CPFS_NFS, "cpfs_mount_alinas_package": RPM},
        facts("Ubuntu", "20.04", "apt"),
        ["cpfs_mount_alinas_package", "is a .rpm package, installed here with dnf or dnf5", "uses apt"],
    ),
    "bad_deb_on_dnf": (
        {**CPFS_NFS, "cpfs_mount_alinas_package": DEB},
        ALINUX3,
        ["cpfs_mount_alinas_package", "is a .deb package, installed here with apt", "uses dnf"],
    ),
    # SLES 15 is on the package's list, but this role installs rpm packages with dnf only.
    "bad_rpm_on_zypper": (
        {**CPFS_NFS, "cpfs_mount_alinas_package": RPM},
        facts("SLES", "15.5", "zypper"),
        ["cpfs_mount_alinas_package", "uses zypper"],
    ),
}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """{case: None if it passed, else the failure message}, every case judged in one run."""
    tmp = tmp_path_factory.mktemp("cpfs_mount_preflight")
    hosts = {
        name: {"ansible_connection": "local", "__case_facts": case_facts, **variables}
        for name, (variables, case_facts, _words) in CASES.items()
    }
    (tmp / "inventory.yml").write_text(yaml.safe_dump({"scc_cluster": {"hosts": hosts}}))
    play = [
        {
            "name": "Preflight",
            "hosts": "scc_cluster",
            "gather_facts": False,
            "tasks": [
                {
                    "name": "Preflight",
                    "ansible.builtin.include_role": {"name": "scc.training.cpfs_mount", "tasks_from": "preflight"},
                    "vars": {"ansible_facts": "{{ __case_facts }}"},
                }
            ],
        }
    ]
    (tmp / "play.yml").write_text(yaml.safe_dump(play))
    run = run_playbook(tmp / "play.yml", tmp / "inventory.yml", tmp, envvars={"ANSIBLE_FORKS": "8"})
    assert not unreachable(run.events), unreachable(run.events)
    outcome = dict.fromkeys(CASES)
    for host, _task, msg in failed(run.events):
        outcome[host] = outcome[host] or msg
    said = {
        host: res["msg"] for host, res in ok_results(run.events, "Say which client mounts CPFS here, and why").items()
    }
    return outcome, said


@pytest.mark.parametrize("case", sorted(CASES))
def test_preflight(results, case):
    results = results[0]
    words = CASES[case][2]
    if words is None:
        assert results[case] is None, f"{case} should pass, failed with: {results[case]}"
        return
    assert results[case] is not None, f"{case} should be refused"
    for word in words:
        assert word in results[case], f"{case}: {word!r} not in {results[case]}"


# The client auto chooses, as the preflight says it: (case, client name, words of the reason)
CHOSEN = [
    ("auto_no_package_alinux3", NFS_NAME, "no cpfs_mount_alinas_package"),
    ("auto_no_package_ubuntu2204", NFS_NAME, "no cpfs_mount_alinas_package"),
    ("auto_no_package_ubuntu2404", NFS_NAME, "no cpfs_mount_alinas_package"),
    ("auto_deb_ubuntu2204", NFS_NAME, "runs Ubuntu 22.04"),
    ("auto_deb_ubuntu2004", ALINAS_NAME, "the package is pinned and verified"),
    ("auto_rpm_alinux3", ALINAS_NAME, "the package is pinned and verified"),
    ("ok_alinux3_rpm", ALINAS_NAME, "cpfs_mount_cpfs_nfs_client is alinas"),
]


@pytest.mark.parametrize(("case", "client", "words"), CHOSEN)
def test_preflight_says_the_client_it_chose(results, case, client, words):
    said = results[1].get(case, "")
    assert f"mounts {AUTO['cpfs_mount_source']} with {client}" in said, said
    assert words in said, said
