"""nvidia_repo: NVIDIA's repository keys are pinned for apt and dnf, so Alibaba Cloud Linux 3 and Ubuntu need no
fingerprint from the user (issue 35, point 4).

The fingerprints are the ones NVIDIA prints in its verification guide,
https://github.com/NVIDIA/cuda-repo-management/blob/ee8303dff360b1523307eb18c45a6a5b987512ce/SIGNATURES.md
("Primary key fingerprint" for 3bf863cc.pub and for rhel8's repomd.xml.key / D42D0685.pub).
"""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest
import yaml

ROLE = Path(__file__).resolve().parents[4] / "roles" / "nvidia_repo"
VARS = yaml.safe_load((ROLE / "vars" / "main.yml").read_text(encoding="utf-8"))


def _wanted(pkg_mgr, pinned=""):
    """_nvidia_repo_key_fingerprint_wanted as the role computes it, for one package manager."""
    template = jinja2.Environment().from_string(VARS["_nvidia_repo_key_fingerprint_wanted"])
    return template.render(
        nvidia_repo_key_fingerprint=pinned,
        _nvidia_repo_pkg_mgr=pkg_mgr,
        _nvidia_repo_nvidia_key_fingerprint=VARS["_nvidia_repo_nvidia_key_fingerprint"],
    ).strip()


@pytest.mark.parametrize(
    ("pkg_mgr", "key_file"),
    [("apt", "3bf863cc.pub"), ("dnf", "D42D0685.pub")],
)
def test_each_package_manager_has_nvidias_key_pinned(pkg_mgr, key_file):
    wanted = _wanted(pkg_mgr)
    # A v4 fingerprint (40 hex digits) whose last 8 digits are the key id the repository names its file after.
    assert len(wanted) == 40 and int(wanted, 16) >= 0
    assert wanted.endswith(key_file.split(".")[0].upper())
    # The key file the role downloads by default is that one.
    assert key_file in VARS["_nvidia_repo_key_url_resolved"]


def test_the_pins_are_nvidias_published_fingerprints():
    assert _wanted("apt") == "EB693B3035CD5710E231E123A4B469963BF863CC"
    assert _wanted("dnf") == "610C7B14E068A878070DA4E99CD0A493D42D0685"


def test_a_pinned_fingerprint_wins_spaces_and_case_ignored():
    assert _wanted("dnf", "610c 7b14 e068 a878 070d  a4e9 9cd0 a493 d42d 0685") == (
        "610C7B14E068A878070DA4E99CD0A493D42D0685"
    )
    assert _wanted("zypper") == ""  # another package manager: the role asks for nvidia_repo_key_fingerprint


def test_no_refusal_is_left_for_dnf_hosts():
    tasks = (ROLE / "tasks" / "repository.yml").read_text(encoding="utf-8")
    assert "no full fingerprint" not in tasks
    assert "apt and dnf only" in tasks


def test_alibaba_cloud_linux_3_takes_the_rhel8_directory():
    assert "'rhel8' if ansible_facts['distribution'] == 'Alibaba'" in VARS["_nvidia_repo_distro"]
