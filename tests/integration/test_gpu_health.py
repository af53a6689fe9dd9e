"""gpu_health on 3 lab hosts, which have no GPU: per node, a STAND-IN nvidia-smi (a script answering
`-q -x` and `nvlink -s` from the re-typed 8x V100-SXM2 fixtures), a STAND-IN kernel-log command (a script
printing a journalctl-style log), a STAND-IN sysfs PCI tree (8 NVIDIA 3D controllers and a NIC) and a
STAND-IN dcgmi (printing a re-typed `dcgmi diag -r 1 -j` fixture, gpu_health_dcgm: true), all in
the lab's shared directory (/mnt/cpfs on every host), with faults injected per node:
node1 healthy (an informational Xid 43 only, DCGM passes), node2 an Xid 79 whose GPU is gone from nvidia-smi
(and no dcgmi), node3 a page pending retirement after an Xid 48 + 63, one NVLink down, and DCGM failing GPU 5
(exiting non-zero, as dcgmi does when a test fails).
The role judges each node, publishes gpu_health_report, writes gpu-health.json once, fails no task,
and changes nothing on the nodes (a re-run and --check change nothing at all). As verify.yml does after
it, cluster_health then names the healthy nodes once and mpi_hostfile keeps the two red nodes out."""

import json
import os
import shutil

import pytest

from tests.lab_runner import changed, failed, lab_fixture, ok_results, run_playbook
from tests.unit.plugins.nvidia_fixtures import (
    dcgm_diag,
    drop_gpu,
    drop_nvlink_gpu,
    link_down,
    retirement_pending,
    v100_nvlink,
    v100_xml,
)

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the lab needs root")

lab = lab_fixture(3, "127.0.21.11", name="gpuhealth")

PLAY = """
- name: Judge the GPUs, then the nodes, then write the hostfile of the healthy ones (as verify.yml does)
  hosts: scc_cluster
  gather_facts: false
  tasks:
    - name: Gather the facts mpi_hostfile reads
      ansible.builtin.setup:
        gather_subset: [min, hardware]
    - name: Judge the GPUs
      ansible.builtin.import_role:
        name: scc.training.gpu_health
    - name: Judge the nodes
      ansible.builtin.import_role:
        name: scc.training.cluster_health
    - name: Write the hostfile
      ansible.builtin.import_role:
        name: scc.training.mpi_hostfile
"""
STAND_IN = "/mnt/cpfs/gpu-health/{{ inventory_hostname }}"
# STAND-IN nvidia-smi: the lab has no GPU; it prints this node's fixture for the two calls gpu_health makes.
NVIDIA_SMI = """#!/bin/sh
# STAND-IN nvidia-smi for the lab (no GPU): prints this node's re-typed fixture.
here=$(dirname "$0")
case "$*" in
  "-q -x") exec cat "$here/smi.xml" ;;
  "nvlink -s") exec cat "$here/nvlink.txt" ;;
esac
echo "stand-in nvidia-smi: unsupported arguments: $*" >&2
exit 2
"""
# STAND-IN journalctl -k: prints this node's kernel log.
JOURNALCTL = """#!/bin/sh
# STAND-IN journalctl for the lab: prints this node's kernel log (journalctl -k short layout).
exec cat "$(dirname "$0")/kernel.log"
"""
# STAND-IN dcgmi: prints this node's re-typed `dcgmi diag -r 1 -j` output and its exit status.
DCGMI = """#!/bin/sh
# STAND-IN dcgmi for the lab (no GPU, no DCGM): prints this node's re-typed diag output.
here=$(dirname "$0")
[ "$*" = "diag -r 1 -j" ] || { echo "stand-in dcgmi: unsupported arguments: $*" >&2; exit 2; }
cat "$here/diag.json"
exit "$(cat "$here/diag.rc")"
"""
# node -> (fixture, exit status); node2 has no dcgmi. dcgmi exits non-zero when a test fails (Diag::GetFailureResult).
DCGM = {"node1": ("diag-r1-8xv100-pass-4.x-layout.txt", 0), "node3": ("diag-r1-8xv100-fail-4.x-layout.txt", 1)}
BOOT = (
    "Dec 03 09:58:01 {host} kernel: Linux version 6.1.0-28-amd64 (debian-kernel@lists.debian.org)\n"
    "Dec 03 09:58:09 {host} kernel: nvidia: loading out-of-tree module taints kernel.\n"
    "Dec 03 09:58:09 {host} kernel: NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.173.02\n"
)
GPU_BUSES = ["1a", "1b", "3d", "3e", "88", "89", "b1", "b2"]


def _node_files():
    """{host: (smi.xml, nvlink.txt, kernel.log)} with each node's faults."""
    xml, nvlink = v100_xml(), v100_nvlink()
    return {
        "node1": (
            xml,
            nvlink,
            BOOT.format(host="node1")
            + "Dec 03 10:20:44 node1 kernel: NVRM: Xid (PCI:0000:3e:00): 43, pid=51870, name=pt_main_thread, "
            "Ch 00000010\n",
        ),
        "node2": (
            drop_gpu(xml, "B1"),
            drop_nvlink_gpu(nvlink, 7),
            BOOT.format(host="node2")
            + "Dec 03 10:31:12 node2 kernel: NVRM: GPU at PCI:0000:b1:00: GPU-5c0f6e2a-1106-4e1b-9d3c-71a2b8c4d006\n"
            "Dec 03 10:31:12 node2 kernel: NVRM: Xid (PCI:0000:b1:00): 79, pid='<unknown>', name=<unknown>, "
            "GPU has fallen off the bus.\n"
            "Dec 03 10:31:12 node2 kernel: NVRM: GPU 0000:b1:00.0: GPU has fallen off the bus.\n",
        ),
        "node3": (
            retirement_pending(xml, "3D"),
            link_down(nvlink, 5, 3),
            BOOT.format(host="node3")
            + "Dec 03 10:40:02 node3 kernel: NVRM: Xid (PCI:0000:3d:00): 48, pid=40417, name=python3, "
            "An uncorrectable double bit error (DBE) has been detected on GPU (0000:3d:00).\n"
            "Dec 03 10:40:02 node3 kernel: NVRM: Xid (PCI:0000:3d:00): 63, pid='<unknown>', name=<unknown>, "
            "Dynamic Page Retirement: New retired page, reload the driver to activate. (0x00000000000c3f2a)\n",
        ),
    }


def _install_stand_ins(root):
    for host, (xml, nvlink, kernel_log) in _node_files().items():
        here = root / host
        here.mkdir(parents=True)
        for name, text in (("smi.xml", xml), ("nvlink.txt", nvlink), ("kernel.log", kernel_log)):
            (here / name).write_text(text)
        for name, script in (("nvidia-smi", NVIDIA_SMI), ("journalctl", JOURNALCTL)):
            (here / name).write_text(script)
            (here / name).chmod(0o755)
        if host in DCGM:
            fixture, status = DCGM[host]
            (here / "diag.json").write_text(dcgm_diag(fixture))
            (here / "diag.rc").write_text("%d\n" % status)
            (here / "dcgmi").write_text(DCGMI)
            (here / "dcgmi").chmod(0o755)
        devices = [(f"0000:{bus}:00.0", "0x10de", "0x030200") for bus in GPU_BUSES]
        devices.append(("0000:5e:00.0", "0x15b3", "0x020000"))  # the NIC: not a GPU
        for address, vendor, pci_class in devices:
            (here / "pci" / address).mkdir(parents=True)
            (here / "pci" / address / "vendor").write_text(vendor + "\n")
            (here / "pci" / address / "class").write_text(pci_class + "\n")


def _failing(report):
    return sorted((v["gpu"], v["check"], v["remedy"]) for v in report["verdicts"] if not v["ok"])


def test_gpu_health_judges_injected_faults_per_node(lab, tmp_path):
    root = lab.shared / "gpu-health"
    _install_stand_ins(root)
    playbook = tmp_path / "play.yml"
    playbook.write_text(PLAY)
    results = tmp_path / "results"
    extravars = {
        "gpu_health_cpu_only": False,  # the lab declares scc_cpu_only; the stand-ins play the GPUs
        "gpu_health_nvidia_smi_path": STAND_IN + "/nvidia-smi",
        "gpu_health_kernel_log_command": [STAND_IN + "/journalctl", "-k", "--no-pager"],
        "gpu_health_pci_devices_path": STAND_IN + "/pci",
        "gpu_health_dcgm": True,
        "gpu_health_dcgmi_path": STAND_IN + "/dcgmi",
        "gpu_health_results_dir": str(results),
        "cluster_health_results_dir": str(results),
        "mpi_hostfile_slots": 8,
        # No hosts_file in this lab: the node names do not resolve on the nodes.
        "mpi_hostfile_verify": False,
    }
    try:
        run = run_playbook(playbook, lab.inventory, tmp_path, extravars)
        assert run.status == "successful", failed(run.events)
        # The controller's new results directory, and the hostfile: gpu_health only reads the nodes.
        assert sorted(changed(run.events)) == sorted(
            [("node1", "Create the results directory")]
            + [
                (host, task)
                for host in ("node1", "node2", "node3")
                for task in ("Create the configuration directory", "Write the hostfile")
            ]
        )
        reports = {
            host: res["ansible_facts"]["gpu_health_report"]
            for host, res in ok_results(run.events, "Judge the GPUs of this node").items()
        }
        assert sorted(reports) == ["node1", "node2", "node3"]

        node1 = reports["node1"]
        assert (node1["status"], node1["ok"], node1["problems"]) == ("green", True, [])
        assert all(v["ok"] for v in node1["verdicts"])
        assert {v["gpu"] for v in node1["verdicts"]} == {"node"} | {f"GPU {i}" for i in range(8)}
        assert [v for v in node1["verdicts"] if v["check"].startswith("dcgm")] == [
            {
                "gpu": "node",
                "check": "dcgm",
                "ok": True,
                "detail": "dcgmi diag -r 1: 8 results passed, 0 skipped",
                "remedy": "none",
            }
        ]
        xid_node1 = next(v for v in node1["verdicts"] if v["gpu"] == "GPU 3" and v["check"] == "xid")
        assert xid_node1["detail"] == "Xid 43 x1 (Ch 00000010)"  # informational: ok

        node2 = reports["node2"]
        assert (node2["status"], node2["ok"]) == ("red", False)
        assert _failing(node2) == [
            ("PCI 0000:b1:00", "xid", "reboot"),
            ("node", "dcgm", "none"),
            ("node", "gpu_count", "reboot"),
        ]
        assert node2["problems"] == [
            "node gpu_count: 7 GPUs seen by nvidia-smi, 8 expected (remedy: reboot)",
            "PCI 0000:b1:00 xid: Xid 79 x1 (GPU has fallen off the bus.) (remedy: reboot)",
            "node dcgm: dcgmi diag -r 1 not read: dcgmi not found on this node (gpu_health_dcgm: true); not judged"
            " (remedy: none)",
        ]

        node3 = reports["node3"]
        assert (node3["status"], node3["ok"]) == ("red", False)
        assert _failing(node3) == [
            ("GPU 2", "ecc_aggregate_uncorrectable", "none"),
            ("GPU 2", "retired_pages_pending", "reset_gpu"),
            ("GPU 2", "xid", "reset_gpu"),
            ("GPU 5", "dcgm_software", "reset_gpu"),
            ("GPU 5", "nvlink", "reboot"),
        ]
        assert "GPU 5 nvlink: 5 of 6 NVLinks active, inactive: link 3 (remedy: reboot)" in node3["problems"]

        written = json.loads((results / "gpu-health.json").read_text())
        assert written == reports

        # Once for the cluster: node1 healthy; the red nodes named with their problems and remedy.
        health = json.loads((results / "cluster-health.json").read_text())
        assert health["healthy"] == ["node1"] and sorted(health["unhealthy"]) == ["node2", "node3"]
        assert [(c["host"], c["status"], c["remedy"]) for c in health["cards"]] == [
            ("node1", "green", None),
            ("node2", "red", "reboot"),
            ("node3", "red", "reboot"),
        ]
        assert (
            "gpu_health: PCI 0000:b1:00 xid: Xid 79 x1 (GPU has fallen off the bus.) (remedy: reboot)"
            in (health["unhealthy"]["node2"])
        )
        # Every node's hostfile lists the healthy node only.
        for host in lab.load():
            assert lab.ssh(host.address, "cat /etc/scc-training/mpihosts").stdout == "node1 slots=8\n"

        # A re-run and --check: the same verdicts, nothing changed, nothing failed.
        for check in (False, True):
            again = run_playbook(playbook, lab.inventory, tmp_path, extravars, check=check)
            assert again.status == "successful", failed(again.events)
            assert changed(again.events) == []
            statuses = {
                host: res["ansible_facts"]["gpu_health_report"]["status"]
                for host, res in ok_results(again.events, "Judge the GPUs of this node").items()
            }
            assert statuses == {"node1": "green", "node2": "red", "node3": "red"}
    finally:
        shutil.rmtree(root, ignore_errors=True)
