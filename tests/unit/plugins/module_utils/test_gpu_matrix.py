# -*- coding: utf-8 -*-
"""Unit tests for the GPU version matrix (module_utils/_gpu_matrix.py) and its filter."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.filter.gpu_matrix import FilterModule, gpu_stack_check
from ansible_collections.scc.training.plugins.module_utils import _gpu_matrix as m

V100 = "7.0"

# Impossible combinations: (stack, words every problem text must contain). Each must be refused.
IMPOSSIBLE = [
    pytest.param(
        {"cuda": "13.0", "compute_capability": V100}, ["cuda_version=13.0", "7.0", "9.0 to 12.9"], id="cuda13-on-v100"
    ),
    pytest.param(
        {"cuda": "13.0", "gpu_name": "Tesla V100-SXM2-16GB"}, ["cuda_version=13.0", "7.0"], id="cuda13-on-v100-by-name"
    ),
    pytest.param(
        {"driver": "535", "cuda": "12.4"},
        ["cuda_version=12.4", "nvidia_driver_branch=535", "<= 12.2"],
        id="driver535-cuda12.4",
    ),
    pytest.param(
        {"driver": "550.54.14", "cuda": "12.8"}, ["570.26", "nvidia_driver_branch=550.54.14"], id="driver550-cuda12.8"
    ),
    pytest.param({"driver": "575", "cuda": "13.0"}, ["cuda_version=13.0", "<= 12.9"], id="driver575-cuda13"),
    pytest.param(
        {"driver": "590", "compute_capability": V100}, ["nvidia_driver_branch=590", "580"], id="driver590-on-v100"
    ),
    pytest.param(
        {"driver": "470", "compute_capability": "9.0"},
        ["nvidia_driver_branch=470", "11.8", "520.61.05"],
        id="driver470-on-h100",
    ),
    pytest.param({"cuda": "11.8", "compute_capability": "10.0"}, ["cuda_version=11.8", "12.8"], id="cuda11.8-on-b200"),
    pytest.param(
        {"cuda": "12.9", "cudnn": "8.7.0"}, ["cudnn_version=8.7.0", "CUDA 11.x", "cudnn 8.8.0"], id="cudnn8.7-cuda12"
    ),
    pytest.param(
        {"cuda": "12.9", "cudnn": "9.12.0", "compute_capability": V100},
        ["cudnn_version=9.12.0", "7.0", "9.10.2"],
        id="cudnn9.12-on-v100",
    ),
    pytest.param(
        {"cuda": "11.8", "cudnn": "9.12.0"}, ["cudnn_version=9.12.0", "cuda_version=11.8"], id="cudnn9.12-cuda11"
    ),
    pytest.param({"cuda": "13.0", "cudnn": "9.10.2"}, ["cudnn_version=9.10.2", "cudnn 9.12.0"], id="cudnn9.10-cuda13"),
    pytest.param(
        {"cuda": "12.4", "nccl": "2.27.7", "compute_capability": "9.0", "driver": "580", "kernel_modules": "open"},
        [],
        id="ok-control",
    ),
    pytest.param(
        {"cuda": "11.8", "nccl": "2.23.4"},
        ["nccl_version=2.23.4", "cuda_version=11.8", "2.7.3 to 2.21.5"],
        id="nccl2.23-cuda11",
    ),
    pytest.param({"cuda": "13.0", "nccl": "2.26.2"}, ["nccl_version=2.26.2", "2.27.7"], id="nccl2.26-cuda13"),
    pytest.param({"cuda": "12.9", "nccl": "2.12.12"}, ["nccl_version=2.12.12", "no build"], id="nccl-too-old"),
    pytest.param({"cuda": "12.7"}, ["cuda_version=12.7", "12.6, 12.8"], id="cuda12.7-does-not-exist"),
    pytest.param({"driver": "418"}, ["nvidia_driver_branch=418", "older"], id="driver-older-than-matrix"),
    pytest.param(
        {"compute_capability": "3.5"},
        ["scc_gpu_compute_capability=3.5", "not in the version matrix"],
        id="kepler-unknown",
    ),
    pytest.param(
        {"gpu_name": "Mystery GPU 9000"}, ["Mystery GPU 9000", "scc_gpu_compute_capability"], id="unknown-gpu-name"
    ),
    pytest.param(
        {"kernel_modules": "open", "compute_capability": V100},
        ["nvidia_driver_kernel_modules=open", "7.0", "proprietary"],
        id="open-modules-on-v100",
    ),
    pytest.param(
        {"kernel_modules": "proprietary", "compute_capability": "12.0"},
        ["nvidia_driver_kernel_modules=proprietary", "12.0", "scc_gpu_compute_capability", "Blackwell", "open"],
        id="proprietary-modules-on-blackwell",
    ),
    pytest.param(
        {"kernel_modules": "proprietary", "compute_capability": "10.0", "driver": "580"},
        ["nvidia_driver_kernel_modules=proprietary", "10.0", "must use the open"],
        id="proprietary-modules-on-b200",
    ),
    pytest.param({"cuda": "twelve"}, ["cuda_version='twelve'", "not a version"], id="not-a-version"),
]


@pytest.mark.parametrize("stack, words", IMPOSSIBLE)
def test_impossible_combinations_are_refused(stack, words):
    result = m.check_stack(stack)
    if not words:  # the control row proves the checks are not blanket refusals
        assert result == {"ok": True, "problems": [], "resolved": result["resolved"]}
        return
    assert result["ok"] is False
    text = " | ".join(result["problems"])
    for word in words:
        assert word in text, "%r not in %r" % (word, text)


def test_at_least_ten_refusals():
    refused = [p for p in IMPOSSIBLE if not m.check_stack(p.values[0])["ok"]]
    assert len(refused) >= 10


def test_sccgn6_default_stack_is_valid_and_resolved():
    result = m.check_stack(
        {"driver": "580", "cuda": "12.9", "cudnn": "9.10.2.21", "nccl": "2.27.7-1", "compute_capability": V100}
    )
    assert result["problems"] == []
    r = result["resolved"]
    assert r["compute_capability"] == ["7.0"]
    assert r["cuda_range"] == ["9.0", "12.9"]
    assert r["cuda_max_for_driver"] == "13.0"
    assert r["driver_min_for_cuda"] == "575.51.03"
    assert r["driver_branch_max_for_gpu"] == 580
    assert r["cuda_choices"][-1] == "12.9" and "13.0" not in r["cuda_choices"]
    assert r["cudnn_cuda_majors"] == ["11", "12"]
    assert r["nccl_cuda_majors"] == ["12", "13"]


@pytest.mark.parametrize(
    "driver, cuda_max",
    [
        ("450", "11.0"),
        ("470", "11.4"),
        ("525", "12.0"),
        ("535", "12.2"),
        ("550", "12.4"),
        ("570", "12.8"),
        ("575", "12.9"),
        ("580", "13.0"),
        ("590", "13.1"),
        ("595", "13.2"),
        ("535.54.03", "12.2"),
        ("535.54.02", "12.1"),
        ("570.25", "12.6"),
        ("440", None),
    ],
)
def test_driver_branch_to_highest_cuda(driver, cuda_max):
    assert m.cuda_max_for_driver(driver) == cuda_max


@pytest.mark.parametrize(
    "name, cc",
    [
        ("Tesla V100-SXM2-16GB", "7.0"),
        ("Tesla V100-PCIE-32GB", "7.0"),
        ("Tesla V100S-PCIE-32GB", "7.0"),
        ("NVIDIA A100-SXM4-80GB", "8.0"),
        ("A100-SXM4-40GB", "8.0"),
        ("NVIDIA A10", "8.6"),
        ("NVIDIA A10G", "8.6"),
        ("Tesla T4", "7.5"),
        ("NVIDIA H100 80GB HBM3", "9.0"),
        ("NVIDIA H800", "9.0"),
        ("NVIDIA L40S", "8.9"),
        ("Tesla P100-PCIE-16GB", "6.0"),
        ("Tesla P4", "6.1"),
        ("NVIDIA B200", "10.0"),
        ("NVIDIA GeForce RTX 3090", "8.6"),
        ("NVIDIA RTX 5000 Ada Generation", "8.9"),
        ("NVIDIA RTX 2000 Ada Generation", "8.9"),
        ("NVIDIA GeForce RTX 5090", "12.0"),
        ("NVIDIA GeForce RTX 2080 Ti", "7.5"),
        ("NVIDIA B300", "10.3"),
        ("Quadro P2000", None),
        ("", None),
    ],
)
def test_compute_capability_by_name(name, cc):
    assert m.compute_capability_for_name(name) == cc


def test_mixed_cluster_takes_the_intersection():
    result = m.check_stack({"compute_capability": ["8.0", "7.0"], "cuda": "12.9"})
    assert result["ok"]
    assert result["resolved"]["cuda_range"] == ["11.0", "12.9"]
    assert not m.check_stack({"compute_capability": ["8.0", "7.0"], "cuda": "13.0"})["ok"]


@pytest.mark.parametrize("cc", ["7.0", 7.0, "sm_70", "70", "7"])
def test_compute_capability_spellings(cc):
    assert m.check_stack({"compute_capability": cc})["resolved"]["compute_capability"] == ["7.0"]


def test_empty_values_are_not_checked():
    result = m.check_stack({"driver": "", "cuda": None, "cudnn": "", "nccl": None, "compute_capability": []})
    assert result["ok"] and result["problems"] == []
    assert result["resolved"]["cuda_choices"] == m.cuda_versions()


def test_messages_name_the_callers_variables():
    result = m.check_stack(
        {"cuda": "13.0", "compute_capability": "7.0"}, names={"cuda": "mycuda", "compute_capability": "mycc"}
    )
    assert "mycuda=13.0" in result["problems"][0] and "(mycc)" in result["problems"][0]


def test_filter_is_registered_and_validates_input():
    assert FilterModule().filters()["gpu_stack_check"] is gpu_stack_check
    assert gpu_stack_check({"cuda": "12.9", "compute_capability": "7.0"})["ok"]
    with pytest.raises(AnsibleFilterError, match="unknown key"):
        gpu_stack_check({"cuda_version": "12.9"})
    with pytest.raises(AnsibleFilterError, match="must be a dict"):
        gpu_stack_check("12.9")
    with pytest.raises(AnsibleFilterError, match="names must be a dict"):
        gpu_stack_check({}, names=["x"])


def test_matrix_rows_are_consistent():
    # every CUDA row's driver is a version and drivers grow with CUDA
    drivers = [m.version_tuple(m.CUDA_MIN_DRIVER[c]) for c in m.cuda_versions()]
    assert drivers == sorted(drivers)
    for first, last in m.ARCH_CUDA_RANGE.values():
        assert first in m.CUDA_MIN_DRIVER or m.version_tuple(first) < (11, 0)
        assert last is None or last in m.CUDA_MIN_DRIVER


# --- the framework: torch builds, AIACC-Training, ACSpeed --------------------------------------

# The examples, and more: (stack, None if accepted, else words the problems must contain).
FRAMEWORK = [
    pytest.param(
        {"torch": "2.13.0", "torch_cuda": "13.0", "compute_capability": V100},
        ["python_env_requirements pins torch 2.13.0", "python_env_torch_cuda=13.0", "7.0", "CUDA 12.6"],
        id="2.13-cu130-on-v100",
    ),
    pytest.param({"torch": "2.13.0", "torch_cuda": "12.6", "compute_capability": V100}, None, id="2.13-cu126-on-v100"),
    pytest.param({"torch": "2.10.0", "torch_cuda": "12.8", "compute_capability": V100}, None, id="2.10-cu128-on-v100"),
    pytest.param(
        {"torch": "2.11.0", "torch_cuda": "12.8", "compute_capability": V100},
        ["python_env_requirements pins torch 2.11.0", "python_env_torch_cuda=12.8", "CUDA 12.6"],
        id="2.11-cu128-on-v100",
    ),
    pytest.param(
        {"torch": "2.15", "compute_capability": V100},
        ["python_env_requirements pins torch 2.15", "no build", "torch 2.14 (CUDA 12.6)"],
        id="2.15-on-v100",
    ),
    pytest.param(
        {"torch": "2.15.0", "torch_cuda": "13.0", "compute_capability": V100},
        ["python_env_torch_cuda=13.0", "torch 2.14 (CUDA 12.6)"],
        id="2.15-cu130-on-v100",
    ),
    pytest.param({"torch": "2.13.0", "torch_cuda": "13.0", "compute_capability": "9.0"}, None, id="2.13-cu130-on-h100"),
    pytest.param(
        {"torch": "2.13.0", "aiacc": "1.5.0"},
        ["aiacc_version=1.5.0 (AIACC-Training)", "torch 2.13.0 (python_env_requirements)", "CUDA 10.2: torch"],
        id="aiacc1.5-with-torch2.13",
    ),
    # the driver must run the build's CUDA (the driver rows of the CUDA toolkit)
    pytest.param(
        {"torch": "2.13.0", "torch_cuda": "13.0", "compute_capability": "9.0", "driver": "570"},
        ["python_env_torch_cuda=13.0", "580.65.06", "nvidia_driver_branch=570", "choose 12.6"],
        id="cu130-on-driver570",
    ),
    pytest.param(
        {"torch": "2.13.0", "torch_cuda": "12.6", "driver": "580", "compute_capability": V100}, None, id="sccgn6"
    ),
    pytest.param(
        {"torch": "2.13.0", "torch_cuda": "12.8", "compute_capability": V100},
        ["has no CUDA 12.8 build", "CUDA 12.6, 13.0, 13.2"],
        id="2.13-has-no-cu128",
    ),
    pytest.param(
        {"torch": "2.13.0", "torch_cuda": "cpu", "compute_capability": "8.0"},
        ["python_env_torch_cuda=cpu", "scc_cpu_only"],
        id="cpu-build-on-gpus",
    ),
    pytest.param({"torch": "2.13.0", "torch_cuda": "cpu"}, None, id="cpu-build-without-gpus"),
    pytest.param({"torch_cuda": "12.6"}, ["python_env_torch_cuda=12.6 needs a torch pin"], id="build-without-torch"),
    pytest.param(
        {"torch": "2.13.0", "torch_cuda": "cu126"}, ["python_env_torch_cuda='cu126'", "such as '12.6'"], id="spelling"
    ),
    pytest.param(
        {"torch": "2.7.1", "compute_capability": V100}, ["torch 2.7.1", "not in the version matrix"], id="unknown-torch"
    ),
    pytest.param({"torch": "2.7.1"}, None, id="unknown-torch-without-gpus"),
    # Ada (8.9) runs Ampere 8.6 kernels, Blackwell Ultra (10.3) 10.0's: same major, lower minor
    pytest.param({"torch": "2.13.0", "torch_cuda": "13.0", "compute_capability": ["8.9", "10.3"]}, None, id="l20-b300"),
    pytest.param(
        {"torch": "2.13.0", "torch_cuda": "12.6", "compute_capability": "10.0"},
        ["no kernels for compute capability 10.0", "CUDA 13.0, 13.2"],
        id="cu126-on-b200",
    ),
    # the AIACC-Training 1.5 legacy profile: torch <= 1.10, CUDA 10.0-11.0, Python 3.6-3.9
    pytest.param(
        {"torch": "1.10.2", "torch_cuda": "10.2", "aiacc": "1.5.0", "python": "3.9", "compute_capability": V100},
        None,
        id="aiacc-legacy-profile",
    ),
    pytest.param(
        {"torch": "1.10.2", "torch_cuda": "10.2", "aiacc": "1.5.0", "python": "3.11"},
        ["aiacc_version=1.5.0", "Python 3.6 to 3.9", "python_env_python=3.11"],
        id="aiacc-python3.11",
    ),
    pytest.param(
        {"torch": "1.10.2", "torch_cuda": "10.2", "aiacc": "1.5.0"},
        ["aiacc_version=1.5.0", "python_env_python", "python3.9"],
        id="aiacc-python-unknown",
    ),
    pytest.param(
        {"torch": "1.7.1", "torch_cuda": "10.2", "aiacc": "1.5.0", "python": "3.8"},
        ["only in its CUDA 11.0 build", "python_env_torch_cuda=10.2"],
        id="aiacc-torch1.7-cuda10.2",
    ),
    pytest.param(
        {"torch": "1.10.2", "torch_cuda": "10.2", "aiacc": "1.5.0", "python": "3.9", "compute_capability": "8.0"},
        ["no kernels for compute capability 8.0", "CUDA 10.2 cannot build for it"],
        id="aiacc-on-a100",
    ),
    pytest.param({"aiacc": "1.3.3"}, ["aiacc_version=1.3.3", "no documented version matrix"], id="aiacc-1.3.3"),
    # ACSpeed 1.1.0: PyTorch 1.6 (CUDA 10.1) ... 1.13.1 (11.6), 2.0.0 (11.7), Python 3.6-3.10
    pytest.param(
        {"torch": "2.0.0", "torch_cuda": "11.7", "acspeed": "1.1.0", "python": "3.10", "compute_capability": "8.0"},
        None,
        id="acspeed-torch2.0",
    ),
    pytest.param(
        {"torch": "2.13.0", "acspeed": "1.1.0", "python": "3.11"},
        ["(ACSpeed) does not support torch 2.13.0", "Python 3.6 to 3.10", "CUDA 11.7: torch 2.0.0"],
        id="acspeed-torch2.13",
    ),
]


@pytest.mark.parametrize("stack, words", FRAMEWORK)
def test_framework_rows(stack, words):
    result = gpu_stack_check(stack)
    if words is None:
        assert result["problems"] == [] and result["ok"]
        return
    assert not result["ok"]
    text = " | ".join(result["problems"])
    for word in words:
        assert word in text, "%r not in %r" % (word, text)


def test_resolved_torch_builds_for_v100():
    resolved = m.check_stack({"torch": "2.10.0", "compute_capability": V100, "driver": "580"})["resolved"]
    assert resolved["torch_builds"] == ["12.6", "12.8", "13.0"]
    assert resolved["torch_cuda_choices"] == ["12.6", "12.8"]  # 13.0 has no sm_70
    assert resolved["torch_cuda_stable"] == ["12.6", "12.8"]
    resolved = m.check_stack({"torch": "2.13.0", "torch_cuda": "12.6", "compute_capability": V100})["resolved"]
    assert "7.0" in resolved["torch_archs"]
    legacy = m.check_stack({"torch": "1.9.1", "torch_cuda": "10.2", "aiacc": "1.5.0", "python": "3.9"})["resolved"]
    assert legacy["torch_archs"] is None  # not documented: judged by what CUDA 10.2 can build
    assert legacy["aiacc_profile"]["name"] == "AIACC-Training 1.5.0 legacy profile"
    assert legacy["aiacc_profile"]["python"] == ["3.6", "3.9"]


@pytest.mark.parametrize(
    "archs, cc, covered",
    [
        (["sm_70", "sm_80"], "7.0", True),
        (["sm_75", "sm_80"], "7.0", False),
        (["sm_80", "sm_86"], "8.9", True),  # same major, lower minor
        (["sm_86"], "8.0", False),  # a higher minor does not run on a lower one
        (["sm_90a"], "9.0", True),
        (["compute_70"], "8.0", True),  # PTX is compiled by the driver for newer GPUs
        (["compute_80"], "7.0", False),
        (["7.0", "9.0"], "sm_70", True),
        ([], "7.0", False),
    ],
)
def test_arch_covers(archs, cc, covered):
    assert m.arch_covers(archs, cc) is covered


def test_release_matching():
    assert m.release_matches("1.10.2", "1.10") and not m.release_matches("1.10.2", "1.1")
    assert m.release_matches("2.13.0+cu126", "2.13")
    assert m.torch_builds("1.5.1") == {"10.1": m.TorchBuild(None, True), "10.2": m.TorchBuild(None, True)}
    assert m.torch_builds("1.5.0") is None and m.torch_builds("2.16.0") is None


def test_framework_rows_are_consistent():
    for builds in m.TORCH_BUILDS.values():
        for cuda, build in builds.items():
            assert cuda in m.CUDA_MIN_DRIVER  # the driver check needs the row
            assert all(len(m.version_tuple(cc)) == 2 for cc in build.archs)
    for profile in m.FRAMEWORK_PROFILES.values():
        for torch, cuda in profile.torch_cuda:
            assert m.torch_builds(torch)[cuda].archs is None


@pytest.mark.parametrize(
    ("torch_cuda", "driver", "ok"),
    [
        # A wheel bundles its CUDA runtime: minor-version compatibility (>= the X.0 driver) decides.
        ("12.6", "535", True),
        ("12.6", "520", False),
        ("13.0", "575", False),
        ("13.0", "580", True),
    ],
)
def test_torch_wheels_need_the_driver_of_their_cuda_major_only(torch_cuda, driver, ok):
    stack = {"torch": "2.13.0", "torch_cuda": torch_cuda, "driver": driver, "compute_capability": "8.0"}
    result = m.check_stack(stack)
    assert result["ok"] is ok, result["problems"]
    if not ok:
        assert any("python_env_torch_cuda" in p and "nvidia_driver_branch" in p for p in result["problems"])


@pytest.mark.parametrize(
    "nccl, rdma, ok",
    [
        ("2.18.5", "erdma", False),
        ("2.19.3", "erdma", True),
        ("2.27.7", "erdma", True),
        ("2.18.5", "roce_v2", True),
        ("2.18.5", "", True),
    ],
)
def test_nccl_on_erdma_needs_2_19(nccl, rdma, ok):
    """Alibaba PAI's eRDMA guide: NCCL 2.19 or later is required."""
    result = m.check_stack({"nccl": nccl, "cuda": "12.4", "compute_capability": "9.0", "rdma": rdma})
    assert result["ok"] is ok, result["problems"]
    if not ok:
        assert result["problems"] == [
            "nccl_version=%s is older than NCCL 2.19, which scc_instance_type on erdma needs (Alibaba PAI: NCCL 2.19 or "
            "later on eRDMA)" % nccl
        ]


@pytest.mark.parametrize("cc", ["7.5", "8.0", "8.9", "9.0"])
def test_either_flavour_runs_from_turing_to_hopper(cc):
    # NVIDIA recommends open there but supports both: only V100 (open) and Blackwell (proprietary) are refused.
    for flavour in ("open", "proprietary"):
        assert m.check_stack({"kernel_modules": flavour, "compute_capability": cc})["ok"], (cc, flavour)
