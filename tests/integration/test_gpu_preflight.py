"""GPU stack preflights (issue 3, part A).

- The version-matrix refusals through the roles' validate entry points, in one playbook run on
  localhost: every impossible case fails with a message naming its variables, the control
  case passes, and nothing changes. The same run feeds nvidia_driver's preflight made-up OS
  facts: unsupported releases are refused naming the OS (only that first check: the made-up
  facts do not carry the rest of the preflight). Plus playbooks/validate.yml itself refusing CUDA 13 on V100.
- On one lab host (no GPU, no NIC, address 127.0.12.11): CPU-only declared -> both roles skip
  with changed=0; no GPU without CPU-only -> the documented nvidia_driver failure; NIC firmware
  targets without a NIC -> the documented failure; a STAND-IN mlxfwmanager (a shell script that
  prints a real published ConnectX-6 Dx query) with a different target -> the documented
  failure, and in --check the difference is shown without failing or changing anything.
"""

import os
import subprocess
from pathlib import Path

import pytest

from tests.lab_runner import (
    assert_outcomes,
    changed,
    failed,
    gathered_facts,
    lab_fixture,
    localhost_inventory,
    ok_messages,
    run_playbook,
)

ROOT = Path(__file__).resolve().parents[2]
PLAYBOOKS = Path(__file__).resolve().parent / "playbooks"
FIXTURE = ROOT / "tests" / "fixtures" / "nic_firmware" / "mlxfwmanager-connectx6dx-forced-update.txt"
ADDRESS = "127.0.12.11"
STANDIN = "/usr/local/bin/scc-test-mlxfwmanager"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the lab needs root")

V100 = {"nvidia_driver_gpu_compute_capability": "7.0"}
# (id, role, vars, words the refusal must contain; None = must be accepted)
CASES = [
    ("control-580-cuda12.9-v100", "scc.training.nvidia_driver", {**V100, "nvidia_driver_cuda_version": "12.9"}, None),
    (
        "cuda13-on-v100",
        "scc.training.nvidia_driver",
        {**V100, "nvidia_driver_cuda_version": "13.0"},
        ["nvidia_driver_cuda_version=13.0", "nvidia_driver_gpu_compute_capability", "9.0 to 12.9"],
    ),
    (
        "branch590-on-v100",
        "scc.training.nvidia_driver",
        {**V100, "nvidia_driver_branch": "590"},
        ["nvidia_driver_branch=590", "580"],
    ),
    (
        "branch535-cuda12.4",
        "scc.training.nvidia_driver",
        {**V100, "nvidia_driver_branch": "535", "nvidia_driver_cuda_version": "12.4"},
        ["nvidia_driver_branch=535", "550.54.14", "<= 12.2"],
    ),
    (
        "branch550-cuda12.8",
        "scc.training.nvidia_driver",
        {**V100, "nvidia_driver_branch": "550", "nvidia_driver_cuda_version": "12.8"},
        ["nvidia_driver_branch=550", "570.26"],
    ),
    (
        "branch575-cuda13-h100",
        "scc.training.nvidia_driver",
        {
            "nvidia_driver_gpu_compute_capability": "9.0",
            "nvidia_driver_branch": "575",
            "nvidia_driver_cuda_version": "13.0",
        },
        ["nvidia_driver_cuda_version=13.0", "<= 12.9"],
    ),
    (
        "branch470-on-h100",
        "scc.training.nvidia_driver",
        {"nvidia_driver_gpu_compute_capability": "9.0", "nvidia_driver_branch": "470"},
        ["nvidia_driver_branch=470", "11.8"],
    ),
    (
        "open-modules-on-v100",
        "scc.training.nvidia_driver",
        {**V100, "nvidia_driver_kernel_modules": "open"},
        ["nvidia_driver_kernel_modules=open", "proprietary"],
    ),
    (
        "cuda12.7-unknown",
        "scc.training.nvidia_driver",
        {**V100, "nvidia_driver_cuda_version": "12.7"},
        ["nvidia_driver_cuda_version=12.7", "12.6, 12.8"],
    ),
    (
        "kepler-unknown",
        "scc.training.nvidia_driver",
        {"nvidia_driver_gpu_compute_capability": "3.5"},
        ["nvidia_driver_gpu_compute_capability=3.5"],
    ),
    (
        "pin-outside-branch",
        "scc.training.nvidia_driver",
        {**V100, "nvidia_driver_version": "575.51.03"},
        ["nvidia_driver_version", "580.95.05"],
    ),
    (
        "branch-not-3-digits",
        "scc.training.nvidia_driver",
        {**V100, "nvidia_driver_branch": "58"},
        ["nvidia_driver_branch (58) must be a 3-digit branch"],
    ),
    (
        "os-centos7",
        "scc.training.nvidia_driver",
        {
            "tasks_from": "preflight",
            "facts": {
                "distribution": "CentOS",
                "distribution_major_version": "7",
                "distribution_version": "7.9",
                "os_family": "RedHat",
            },
        },
        ["CentOS 7.9 on localhost is not supported", "Alibaba Cloud Linux 3"],
    ),
    (
        "os-ubuntu18",
        "scc.training.nvidia_driver",
        {
            "tasks_from": "preflight",
            "facts": {
                "distribution": "Ubuntu",
                "distribution_major_version": "18",
                "distribution_version": "18.04",
                "os_family": "Debian",
            },
        },
        ["Ubuntu 18.04 on localhost is not supported"],
    ),
    (
        "nic-bad-psid",
        "scc.training.nic_firmware",
        {"nic_firmware_targets": [{"psid": "ConnectX6", "version": "22.39.1002"}]},
        ["nic_firmware_targets", "MT_0000000359"],
    ),
    (
        "nic-burn-without-image",
        "scc.training.nic_firmware",
        {"nic_firmware_burn": True, "nic_firmware_targets": [{"psid": "MT_0000000359", "version": "22.39.1002"}]},
        ["nic_firmware_burn is true", "MT_0000000359", "no image"],
    ),
]


def run(playbook, inventory, extravars=None, check=False, workdir=None):
    """One ansible-runner run; returns (status, rc, events)."""
    return run_playbook(playbook, inventory, workdir, extravars, check=check)


def failures(events):
    return [(host, msg) for host, _task, msg in failed(events)]


def test_refusals_through_the_roles_validate_entry_points(tmp_path):
    cases = []
    for case in CASES:
        entry = {
            "id": case[0],
            "role": case[1],
            "vars": {k: v for k, v in case[2].items() if k not in ("tasks_from", "facts")},
        }
        entry.update({k: v for k, v in case[2].items() if k in ("tasks_from", "facts")})
        cases.append(entry)
    status, rc, events = run(
        PLAYBOOKS / "gpu_refusals.yml", localhost_inventory(tmp_path), {"gpu_refusals_cases": cases}, workdir=tmp_path
    )
    assert (status, rc) == ("successful", 0), failures(events)
    assert changed(events) == []
    assert_outcomes(CASES, events, min_refused=10)


lab = lab_fixture(1, ADDRESS, directory=ROOT / ".lab-issue3a")


def test_validate_playbook_refuses_cuda13_on_v100_before_any_host(lab, tmp_path):
    status, rc, events = run(
        ROOT / "playbooks" / "validate.yml",
        lab.inventory,
        {"nvidia_driver_cuda_version": "13.0", "scc_cpu_only": False},
        workdir=tmp_path,
    )
    assert status == "failed" and rc != 0
    assert any("nvidia_driver_cuda_version=13.0" in failure[1] for failure in failures(events)), failures(events)
    assert changed(events) == []
    assert not gathered_facts(events)


def test_cpu_only_lab_host_skips_with_no_change(lab, tmp_path):
    # The lab declares scc_cpu_only: true (lab/cluster.py); a re-run must change nothing either.
    for check in (False, True):
        status, rc, events = run(PLAYBOOKS / "gpu_preflight_lab.yml", lab.inventory, check=check, workdir=tmp_path)
        assert (status, rc) == ("successful", 0), failures(events)
        assert changed(events) == []
        assert "no NVIDIA/Mellanox NIC found on node1" in ok_messages(events)


def test_no_gpu_without_cpu_only_fails_with_the_documented_message(lab, tmp_path):
    status, _rc, events = run(
        PLAYBOOKS / "gpu_preflight_lab.yml", lab.inventory, {"scc_cpu_only": False}, workdir=tmp_path
    )
    assert status == "failed"
    ((host, msg),) = failures(events)
    assert host == "node1" and "no NVIDIA GPU on node1" in msg and "scc_cpu_only: true" in msg
    assert changed(events) == []


def test_nic_targets_without_a_nic_fail(lab, tmp_path):
    targets = [{"psid": "MT_0000000359", "version": "22.39.1002"}]
    status, _rc, events = run(
        PLAYBOOKS / "gpu_preflight_lab.yml", lab.inventory, {"nic_firmware_targets": targets}, workdir=tmp_path
    )
    assert status == "failed"
    ((_host, msg),) = failures(events)
    assert "nic_firmware_targets is set but node1 has no NVIDIA/Mellanox NIC" in msg
    assert changed(events) == []


def test_nic_firmware_mismatch_fails_and_check_mode_shows_it(lab, tmp_path):
    # STAND-IN for MFT's mlxfwmanager on a host without a ConnectX NIC: prints a real published query.
    body = FIXTURE.read_text(encoding="utf-8").split("\n", 1)[1]
    script = "#!/bin/sh\n[ \"$1\" = --query ] || exit 9\ncat <<'SCC_EOF'\n" + body + "SCC_EOF\n"
    proc = subprocess.run(
        [
            "ssh",
            "-i",
            str(lab.key),
            "-o",
            f"UserKnownHostsFile={lab.known_hosts}",
            "-o",
            "StrictHostKeyChecking=yes",
            "-o",
            "BatchMode=yes",
            f"root@{ADDRESS}",
            f"cat > {STANDIN} && chmod 0755 {STANDIN}",
        ],
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    extravars = {
        "nic_firmware_tool": "mlxfwmanager",
        "nic_firmware_tool_path": STANDIN,
        "nic_firmware_targets": [{"psid": "MT_0000000359", "version": "22.39.1002"}],
    }
    status, rc, events = run(PLAYBOOKS / "gpu_preflight_lab.yml", lab.inventory, extravars, workdir=tmp_path)
    assert status == "failed"
    ((_host, msg),) = failures(events)
    assert "MT_0000000359 22.32.0498 (target 22.39.1002)" in msg and "Set nic_firmware_burn: true" in msg
    assert changed(events) == []

    status, rc, events = run(
        PLAYBOOKS / "gpu_preflight_lab.yml", lab.inventory, extravars, check=True, workdir=tmp_path
    )
    assert (status, rc) == ("successful", 0), failures(events)
    assert "running 22.32.0498, target 22.39.1002 -> would burn (nic_firmware_burn is false)" in ok_messages(events)
    assert changed(events) == []
