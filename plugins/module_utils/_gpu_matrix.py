# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The GPU software version matrix of scc.training: ONE place for every version fact.

Private module_util (leading underscore): used by the filter ``scc.training.gpu_stack_check``
(plugins/filter/gpu.py), by the ``gpu_info`` module (compute capability by GPU name) and,
through that filter, by the preflight of every GPU role (nvidia_driver, cuda, cudnn, nccl).

Interface
---------
``check_stack(stack, names=None) -> dict``
    ``stack`` is a dict; every key is optional, an empty value ('' or None) means "not chosen":

    - ``driver``: NVIDIA driver branch ("580") or full version ("580.95.05").
    - ``cuda``: CUDA toolkit version, "12.9" or "12.9.1" (major.minor is what is checked).
    - ``cudnn``: cuDNN version, "9.10.2" (a 4-part wheel version "9.10.2.21" is accepted).
    - ``nccl``: NCCL version, "2.27.7" (a "2.27.7-1" package release is accepted).
    - ``compute_capability``: "7.0" (V100), or a list of them (every GPU of the cluster).
    - ``gpu_name``: a GPU product name ("Tesla V100-SXM2-32GB"); used for the compute
      capability when ``compute_capability`` is empty.
    - ``kernel_modules``: "proprietary" or "open" (NVIDIA's open GPU kernel modules need
      compute capability >= 7.5, so not on V100; Blackwell, 10.0 and newer, needs open).
    - ``torch``: PyTorch version ("2.13.0"). Its builds are rows of ``TORCH_BUILDS``; with
      ``torch_cuda`` empty the check is that SOME build of it has kernels for every GPU.
    - ``torch_cuda``: the CUDA of the torch build ("12.6", "12.8", "13.0", ...) or "cpu": the
      build must exist, have kernels for every GPU (``arch_covers``) and a CUDA the driver runs.
    - ``aiacc``: AIACC-Training version ("1.5.0"); ``acspeed``: ACSpeed version ("1.1.0"). Each
      is checked against its vendor matrix (``FRAMEWORK_PROFILES``) with ``torch``,
      ``torch_cuda`` and ``python``.
    - ``rdma``: the cluster's RDMA kind, ``erdma`` or ``roce_v2`` (hardware_defaults' ``rdma.kind``): on eRDMA
      NCCL must be >= ``NCCL_MIN_FOR_RDMA["erdma"]`` (2.19, Alibaba PAI's eRDMA guide).
    - ``python``: CPython major.minor ("3.9"). Checked for AIACC-Training and ACSpeed (their
      documented ranges); with one of them and a torch, an unknown Python is refused. PyTorch's
      own Python ranges are not rows here (not gathered from RELEASE.md: UNCONFIRMED).

    ``names`` maps those keys to the variable names shown in messages (defaults in
    ``DEFAULT_NAMES``), so that each role's message names ITS variables.

    Returns ``{"ok": bool, "problems": [str, ...], "resolved": {...}}``. Each problem names the
    variables involved and the supported choices. ``resolved`` holds what the matrix derived:
    ``compute_capability``, ``cuda_range`` ([min, max or None] for the GPU), ``cuda_max_for_driver``,
    ``driver_min_for_cuda``, ``driver_branch_max_for_gpu``, ``cudnn_cuda_majors``,
    ``nccl_cuda_majors``, ``cuda_choices`` (CUDA versions valid for the GPU and driver), and with
    a torch: ``torch_builds`` (the CUDA builds of that release), ``torch_cuda_choices`` (those
    with kernels for every GPU and a CUDA the driver runs, oldest first), ``torch_cuda_stable``
    (the stable ones among them), ``torch_archs`` (the chosen build's compute capabilities, None
    where the wheel's list is not documented); with a framework: ``aiacc_profile`` /
    ``acspeed_profile`` (its documented legacy profile).

``compute_capability_for_name(name) -> str or None``: "Tesla V100-SXM2-16GB" -> "7.0".

``arch_covers(archs, cc) -> bool``: whether kernels built for ``archs`` ("7.0" or "sm_70"
spellings) run on a GPU of compute capability ``cc``: an exact SASS build, or one of the same
major version and a lower minor (NVIDIA's binary compatibility rule), or PTX of an equal or lower
capability ("compute_70", which the driver compiles).

Cluster-wide inventory variables the roles feed into ``stack`` (not role defaults; documented
in each GPU role README): ``scc_gpu_compute_capability`` (default "7.0", sccgn6 = V100) and
``scc_cpu_only`` (default false; true skips every GPU role after validation).

Sources (checked 2026-12-02; cite them when you change a row)
-------------------------------------------------------------
- Driver per CUDA: CUDA Toolkit release notes, table "CUDA Toolkit and Corresponding Driver
  Versions" (Linux x86_64, toolkit driver, GA release)
  https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html . This is the full-feature
  requirement, stricter than CUDA minor-version compatibility on purpose (no PTX JIT surprises).
  PyTorch wheels are judged by minor-version compatibility instead (``wheel_min_driver``: the X.0
  row of their CUDA major): they bundle their CUDA runtime and carry no PTX (the arch lists of the
  real 2.10.0 and 2.13.0 wheels, tests/fixtures/torch), and NVIDIA's "CUDA Compatibility" guide,
  section "Minor Version Compatibility" (https://docs.nvidia.com/deploy/cuda-compatibility/), lets
  a CUDA 12.x runtime run on any >= 525 driver and a 13.x runtime on >= 580.
- CUDA 13.0 removed offline compilation and library support for compute capability < 7.5
  (Maxwell, Pascal, Volta), and R580 is the last driver branch for them:
  https://developer.nvidia.com/blog/navigating-gpu-architecture-support-a-guide-for-nvidia-cuda-developers
- cuDNN per CUDA major: cuDNN support matrices
  https://docs.nvidia.com/deeplearning/cudnn/latest/reference/support-matrix.html (9.17.0: CUDA
  12.x/13.x, compute capability >= 7.5) and .../backend/v9.10.2 (CUDA 11.8/12.x, CC >= 5.0),
  the cuDNN 8.0.3 support matrix (8.0.2 is the first build for CUDA 11.0), NVIDIA's redistrib
  manifests (redistrib_8.8.0.json is the first with a cuda12 variant, redistrib_9.12.0.json the
  first with cuda13), and the PyPI release list of nvidia-cudnn-cu11 (last 9.10.2.21).
- NCCL per CUDA major: NVIDIA's +cudaX.Y builds https://developer.download.nvidia.com/compute/redist/nccl/
  (v2.7/nccl_2.7.3-1+cuda11.0 is the first for CUDA 11, v2.21.5 the last), NCCL 2.16.2's release
  note "Add support for CUDA 12.0", nvidia-nccl-cu13 from 2.27.7. PyPI wheels exist for a subset
  (nvidia-nccl-cu11 from 2.13.4): the pypi source's pins are checked by pip itself.
- CUDA 13.1 and 13.2 drivers (590.44.01, 595.45.04): the same release notes table; R590 and later
  no longer support Volta (R580 is the last), which ARCH_DRIVER_BRANCH_MAX says.
- Compute capability per GPU: https://developer.nvidia.com/cuda-gpus .
- NCCL on eRDMA: Alibaba Cloud PAI, "eRDMA: distributed training with high-performance networks" -- "NCCL 2.19
  or later is required" (https://www.alibabacloud.com/help/en/pai/user-guide/erdma-distributed-training-with-high-performance-networks).
- Open GPU kernel modules support Turing and later only:
  https://github.com/NVIDIA/open-gpu-kernel-modules (README, "Compatible GPUs"); NVIDIA Driver Installation Guide,
  "Kernel Modules" (https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/kernel-modules.html): the
  proprietary flavour "is required for older GPUs from the Maxwell, Pascal, or Volta architectures", the open one
  is "what you should use" on Turing and newer, and "Starting in the 560 driver release series, the open kernel
  module flavor is the default and suggested installation".
- Blackwell needs the open modules: NVIDIA, "NVIDIA Transitions Fully Towards Open-Source GPU Kernel Modules"
  (https://developer.nvidia.com/blog/nvidia-transitions-fully-towards-open-source-gpu-kernel-modules/): "For
  cutting-edge platforms such as NVIDIA Grace Hopper or NVIDIA Blackwell, you must use the open-source GPU kernel
  modules. The proprietary drivers are unsupported on these platforms." Blackwell is compute capability 10.0 and
  newer on https://developer.nvidia.com/cuda-gpus (B200 10.0, B300 10.3, Jetson T5000 11.0, RTX PRO Blackwell 12.0,
  GB10 12.1).
- PyTorch CUDA builds per release (TORCH_BUILDS), stable and experimental: pytorch/pytorch
  RELEASE.md "Release Compatibility Matrix" (2.8 to 2.14) and the issues it links: pt#157517
  (2.8), pt#159980 (2.9), pt#164471 (2.10), pt#172351/pt#172352 and PR pt#177975 (2.11: CUDA 13.0
  stable on PyPI, CUDA 12.8 without Volta, PR pt#172598), pt#178665 (2.12: 12.8 gone), pt#187075
  (2.13), pt#190355 (2.14: 13.2 stable); 2.15: pytorch/test-infra PR #8739 and RFC pt#190385
  (12.6 builds no longer published; the final 2.15 set beyond that is UNCONFIRMED).
  (pt#N = github.com/pytorch/pytorch issue or PR N; gathered in the project's hardware_facts.md 1.1.)
- Compute capabilities of each build (x86_64 wheels): RELEASE.md and dev-discuss.pytorch.org
  topics 3128 and 3432 (12.6: 5.0-9.0; 12.8 in 2.8-2.10: 7.0-12.0, Volta reintroduced, pt#160269;
  13.x: 7.5-12.0); 2.11's 12.8 build dropped 7.0 (pt#172352) and is otherwise taken to be 2.10's
  list (UNCONFIRMED beyond the missing 7.0). Checked against two real PyPI wheels, whose arch lists
  are fixtures of the unit tests (tests/fixtures/torch/): torch-2.10.0 (2.10.0+cu128) is built for
  sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120, torch-2.13.0 (2.13.0+cu130) for sm_75 sm_80 sm_86
  sm_90 sm_100 sm_120, and neither embeds PTX, so there is no JIT path to an older GPU.
- Which kernels run on a GPU (arch_covers): "a cubin generated for compute capability X.y will
  only execute on devices of compute capability X.z where z >= y", and PTX is compiled by the
  driver for equal or newer capabilities (CUDA C++ Programming Guide, "Binary Compatibility" and
  "PTX Compatibility", https://docs.nvidia.com/cuda/cuda-c-programming-guide/ ). torch 2.13's own
  warning (torch/cuda/__init__.py, _check_cubins) uses the looser "same major version".
- AIACC-Training 1.5.0 (FRAMEWORK_PROFILES["aiacc"]): Alibaba Cloud "Install AIACC-Training"
  (help doc 163494, egs/install-aiacc-training): CUDA 10.0 PyTorch 1.2, 1.3; CUDA 10.1 1.4, 1.5.1,
  1.6; CUDA 10.2 1.5.1, 1.6, 1.8.0, 1.8.2, 1.9, 1.10; CUDA 11.0 1.7.0, 1.7.1; Python 3.6 to 3.9 for
  PyTorch. Nothing newer is documented: it is a legacy profile (torch <= 1.10, CUDA <= 11.0).
- ACSpeed 1.1.0 (FRAMEWORK_PROFILES["acspeed"]): Alibaba Cloud "Install and use AIACC-ACSpeed"
  (help.aliyun.com/zh/egs/developer-reference/install-and-use-aiacc-acspeed): PyTorch 1.6 (CUDA
  10.1) ... 1.13.1 (CUDA 11.6), 2.0.0 (CUDA 11.7), Python 3.6 to 3.10. The versions between the
  ends are elided there, so only those three torch/CUDA pairs are rows (the others UNCONFIRMED).
- The torch builds those two matrices name (TORCH_LEGACY_BUILDS, e.g. 1.10 + CUDA 10.2) have no
  documented arch list here: they are judged by what their CUDA toolkit can build (ARCH_CUDA_RANGE),
  and python_env's verify reads the real list on the GPU host.
"""

from __future__ import annotations

import re
from collections import namedtuple

# --- the data ---------------------------------------------------------------------------

# CUDA major.minor -> minimum Linux x86_64 driver (toolkit driver of the GA release).
# There is no CUDA 12.7. Newer CUDA releases are refused until a row is added here.
CUDA_MIN_DRIVER = {
    "11.0": "450.51.05",
    "11.1": "455.23",
    "11.2": "460.27.03",
    "11.3": "465.19.01",
    "11.4": "470.42.01",
    "11.5": "495.29.05",
    "11.6": "510.39.01",
    "11.7": "515.43.04",
    "11.8": "520.61.05",
    "12.0": "525.60.13",
    "12.1": "530.30.02",
    "12.2": "535.54.03",
    "12.3": "545.23.06",
    "12.4": "550.54.14",
    "12.5": "555.42.02",
    "12.6": "560.28.03",
    "12.8": "570.26",
    "12.9": "575.51.03",
    "13.0": "580.65.06",
    "13.1": "590.44.01",
    "13.2": "595.45.04",
}

# Compute capability -> (first CUDA that supports it, last CUDA that does or None = current).
ARCH_CUDA_RANGE = {
    "6.0": ("8.0", "12.9"),  # Pascal P100
    "6.1": ("8.0", "12.9"),  # Pascal P4/P40
    "7.0": ("9.0", "12.9"),  # Volta V100 (sccgn6): CUDA 13 dropped it
    "7.2": ("10.0", "12.9"),  # Xavier
    "7.5": ("10.0", None),  # Turing T4
    "8.0": ("11.0", None),  # Ampere A100/A800/A30
    "8.6": ("11.1", None),  # Ampere A10/A40/RTX 30
    "8.7": ("11.4", None),  # Orin
    "8.9": ("11.8", None),  # Ada L4/L40/L20
    "9.0": ("11.8", None),  # Hopper H100/H800/H20/H200
    "10.0": ("12.8", None),  # Blackwell B200/GB200
    "10.3": ("12.9", None),  # Blackwell Ultra B300/GB300
    "11.0": ("13.0", None),  # Thor (sm_101 before CUDA 13)
    "12.0": ("12.8", None),  # Blackwell RTX PRO 6000 / RTX 50
    "12.1": ("12.9", None),  # GB10 (DGX Spark)
}

# Compute capability -> last driver branch that supports it (None = current).
ARCH_DRIVER_BRANCH_MAX = {"6.0": 580, "6.1": 580, "7.0": 580, "7.2": 580}

# GPU product name patterns (searched in the nvidia-smi product name) -> compute capability.
# The first match wins, so the longer names come first.
GPU_NAME_CC = (
    # Ada workstation cards ("RTX 5000 Ada", "RTX 2000 Ada") before the RTX 50/20 numbers.
    (r"RTX [0-9]{4} Ada", "8.9"),
    (r"\bGB300\b|\bB300\b", "10.3"),
    (r"\bGB200\b|\bB200\b|\bB100\b", "10.0"),
    (r"RTX PRO 6000 Blackwell|RTX 50[0-9]0", "12.0"),
    (r"\bH100\b|\bH800\b|\bH200\b|\bH20\b|\bGH200\b", "9.0"),
    (r"\bL40S?\b|\bL4\b|\bL20\b|RTX 40[0-9]0|RTX 6000 Ada", "8.9"),
    (r"\bA100\b|\bA800\b|\bA30\b", "8.0"),
    (r"\bA10G?\b|\bA40\b|\bA16\b|\bA2\b|RTX 30[0-9]0|RTX A[0-9]000", "8.6"),
    (r"\bT4\b|RTX 20[0-9]0|Quadro RTX", "7.5"),
    (r"\bV100S?\b|TITAN V\b", "7.0"),
    (r"\bP100\b", "6.0"),
    (r"\bP4\b|\bP40\b|GTX 10[0-9]0", "6.1"),
)

# cuDNN: CUDA major -> (first cuDNN with a build for it, last one or None = current).
CUDNN_CUDA_MAJORS = {
    "11": ("8.0.2", "9.10.2"),
    "12": ("8.8.0", None),
    "13": ("9.12.0", None),
}
# cuDNN from this version on supports compute capability >= 7.5 only (9.10.2 is the last with
# Maxwell/Pascal/Volta; the 9.17.0 matrix lists 7.5 and newer).
CUDNN_CC_MIN_FROM = ("9.11.0", "7.5")

# The oldest NCCL each RDMA kind runs on (eRDMA: PAI's "NCCL 2.19 or later is required").
NCCL_MIN_FOR_RDMA = {"erdma": "2.19"}

# NCCL: CUDA major -> (first NCCL with a build for it, last one or None = current).
NCCL_CUDA_MAJORS = {
    "11": ("2.7.3", "2.21.5"),
    "12": ("2.16.2", None),
    "13": ("2.27.7", None),
}

# NVIDIA's open GPU kernel modules run on this compute capability and newer (Turing+).
OPEN_KERNEL_MODULES_CC_MIN = "7.5"
# From this compute capability on (Blackwell) the proprietary modules are unsupported: open only.
OPEN_KERNEL_MODULES_REQUIRED_CC_MIN = "10.0"

# --- PyTorch builds and the frameworks built on them (sources: module docstring) ------------

# A CUDA build of a torch release: the compute capabilities its kernels are built for (None:
# not documented, judged by what its CUDA toolkit can build) and whether PyTorch calls it stable.
TorchBuild = namedtuple("TorchBuild", "archs stable")

_ARCHS_CU126 = ("5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0")
_ARCHS_CU128_VOLTA = ("7.0", "7.5", "8.0", "8.6", "9.0", "10.0", "12.0")  # 2.8-2.10
_ARCHS_CU128 = ("7.5", "8.0", "8.6", "9.0", "10.0", "12.0")  # 2.11: Volta dropped
_ARCHS_CU13 = ("7.5", "8.0", "8.6", "9.0", "10.0", "12.0")  # CUDA 13 cannot build sm_70

# torch release (major.minor, matching every patch release) -> {CUDA of the build: TorchBuild}.
TORCH_BUILDS = {
    "2.8": {
        "12.6": TorchBuild(_ARCHS_CU126, True),
        "12.8": TorchBuild(_ARCHS_CU128_VOLTA, True),
        "12.9": TorchBuild(_ARCHS_CU128_VOLTA, False),
    },
    "2.9": {
        "12.6": TorchBuild(_ARCHS_CU126, True),
        "12.8": TorchBuild(_ARCHS_CU128_VOLTA, True),
        "13.0": TorchBuild(_ARCHS_CU13, False),
    },
    "2.10": {
        "12.6": TorchBuild(_ARCHS_CU126, True),
        "12.8": TorchBuild(_ARCHS_CU128_VOLTA, True),
        "13.0": TorchBuild(_ARCHS_CU13, False),
    },
    "2.11": {
        "12.6": TorchBuild(_ARCHS_CU126, True),
        "12.8": TorchBuild(_ARCHS_CU128, True),
        "13.0": TorchBuild(_ARCHS_CU13, True),
    },
    "2.12": {
        "12.6": TorchBuild(_ARCHS_CU126, True),
        "13.0": TorchBuild(_ARCHS_CU13, True),
        "13.2": TorchBuild(_ARCHS_CU13, False),
    },
    "2.13": {
        "12.6": TorchBuild(_ARCHS_CU126, True),
        "13.0": TorchBuild(_ARCHS_CU13, True),
        "13.2": TorchBuild(_ARCHS_CU13, False),
    },
    "2.14": {
        "12.6": TorchBuild(_ARCHS_CU126, True),
        "13.0": TorchBuild(_ARCHS_CU13, True),
        "13.2": TorchBuild(_ARCHS_CU13, True),
    },
    # Proposed, not published (UNCONFIRMED): not stable, so `auto` never picks them; an explicit
    # python_env_torch_cuda still can.
    "2.15": {
        "13.0": TorchBuild(_ARCHS_CU13, False),
        "13.2": TorchBuild(_ARCHS_CU13, False),
    },
}

# Alibaba's frameworks on top of torch, each with the one release whose matrix is documented:
# (torch release, CUDA of its build) pairs (a torch "1.9" matches 1.9.x, "1.5.1" only itself),
# and the Python range. Both are legacy: nothing is documented for torch newer than 2.0.
FrameworkProfile = namedtuple("FrameworkProfile", "product releases torch_cuda python")
FRAMEWORK_PROFILES = {
    "aiacc": FrameworkProfile(
        "AIACC-Training",
        ("1.5.0",),
        (
            ("1.2", "10.0"),
            ("1.3", "10.0"),
            ("1.4", "10.1"),
            ("1.5.1", "10.1"),
            ("1.5.1", "10.2"),
            ("1.6", "10.1"),
            ("1.6", "10.2"),
            ("1.7.0", "11.0"),
            ("1.7.1", "11.0"),
            ("1.8.0", "10.2"),
            ("1.8.2", "10.2"),
            ("1.9", "10.2"),
            ("1.10", "10.2"),
        ),
        ("3.6", "3.9"),
    ),
    "acspeed": FrameworkProfile(
        "ACSpeed",
        ("1.1.0",),
        (("1.6", "10.1"), ("1.13.1", "11.6"), ("2.0.0", "11.7")),
        ("3.6", "3.10"),
    ),
}


def _legacy_builds():
    """The torch builds the framework matrices name, as TORCH_BUILDS rows without an arch list."""
    builds = {}
    for profile in FRAMEWORK_PROFILES.values():
        for torch, cuda in profile.torch_cuda:
            builds.setdefault(torch, {})[cuda] = TorchBuild(None, True)
    return builds


TORCH_LEGACY_BUILDS = _legacy_builds()

DEFAULT_NAMES = {
    "driver": "nvidia_driver_branch",
    "cuda": "cuda_version",
    "cudnn": "cudnn_version",
    "nccl": "nccl_version",
    "compute_capability": "scc_gpu_compute_capability",
    "rdma": "scc_instance_type",
    "gpu_name": "gpu name",
    "kernel_modules": "nvidia_driver_kernel_modules",
    "torch": "python_env_requirements",
    "torch_cuda": "python_env_torch_cuda",
    "python": "python_env_python",
    "aiacc": "aiacc_version",
    "acspeed": "aiacc_version",
}

# --- helpers ----------------------------------------------------------------------------

_VERSION = re.compile(r"^\s*(\d+(?:\.\d+)*)(?:[-+].*)?\s*$")


def version_tuple(value):
    """'580.95.05' -> (580, 95, 5); '2.27.7-1' -> (2, 27, 7); None/'' -> None; bad -> ValueError."""
    if value is None:
        return None
    text = str(value).strip()
    if not text:
        return None
    match = _VERSION.match(text)
    if not match:
        raise ValueError("not a version: %r" % (value,))
    return tuple(int(p) for p in match.group(1).split("."))


def _mm(value):
    """'12.9.1' -> '12.9' (major.minor text)."""
    parts = version_tuple(value)
    return "%d.%d" % (parts[0], parts[1] if len(parts) > 1 else 0)


def _cc_text(value):
    """7 / 7.0 / '7.0' / 'sm_70' / '70' -> '7.0'."""
    text = str(value).strip().lower()
    if text.startswith("sm_") or text.startswith("compute_"):
        digits = text.split("_", 1)[1]
        return "%s.%s" % (digits[:-1], digits[-1])
    if re.match(r"^\d{2,3}$", text):
        return "%s.%s" % (text[:-1], text[-1])
    parts = version_tuple(text)
    return "%d.%d" % (parts[0], parts[1] if len(parts) > 1 else 0)


def _cmp(a, b):
    """Compare two version tuples, padding the shorter with zeros."""
    n = max(len(a), len(b))
    a, b = a + (0,) * (n - len(a)), b + (0,) * (n - len(b))
    return (a > b) - (a < b)


def _in_range(version, first, last):
    v = version_tuple(version)
    if _cmp(v, version_tuple(first)) < 0:
        return False
    return last is None or _cmp(v[: len(version_tuple(last))], version_tuple(last)) <= 0


def compute_capability_for_name(name):
    """GPU product name -> compute capability text, or None if the matrix does not know it."""
    if not name:
        return None
    for pattern, cc in GPU_NAME_CC:
        if re.search(pattern, str(name), re.IGNORECASE):
            return cc
    return None


def cuda_max_for_driver(driver):
    """Highest CUDA (major.minor) a driver branch or version supports, or None if too old."""
    dv = version_tuple(driver)
    best = None
    for cuda, minimum in CUDA_MIN_DRIVER.items():
        mv = version_tuple(minimum)
        ok = dv[0] >= mv[0] if len(dv) == 1 else _cmp(dv, mv) >= 0
        if ok and (best is None or _cmp(version_tuple(cuda), version_tuple(best)) > 0):
            best = cuda
    return best


def _major(version):
    return str(version).split(".", maxsplit=1)[0]


def wheel_min_driver(cuda):
    """The oldest driver a PyTorch wheel built with CUDA ``cuda`` runs on: the wheel carries its CUDA
    runtime, which runs on any driver of its CUDA major from the X.0 release on (minor-version
    compatibility; the wheels carry no PTX to JIT, so its limits do not apply)."""
    return CUDA_MIN_DRIVER.get("%s.0" % _major(cuda))


def wheel_runs_on_driver(cuda, driver):
    minimum = wheel_min_driver(cuda)
    if minimum is None:
        # Older than every row (CUDA 10.x of the legacy profiles): drivers run older runtimes
        # (backward compatibility); a newer major than the table knows: no driver here runs it.
        oldest = min(int(_major(c)) for c in CUDA_MIN_DRIVER)
        return int(_major(cuda)) < oldest
    dv, mv = version_tuple(driver), version_tuple(minimum)
    return dv[0] >= mv[0] if len(dv) == 1 else _cmp(dv, mv) >= 0


def cuda_versions():
    return sorted(CUDA_MIN_DRIVER, key=version_tuple)


def release_matches(version, release):
    """'1.10.2' matches the release '1.10' (every patch release) and '1.10.2', not '1.1'."""
    wanted = version_tuple(release)
    return version_tuple(version)[: len(wanted)] == wanted


def torch_builds(torch):
    """The CUDA builds of a torch version, {cuda: TorchBuild}; None when the matrix has no row."""
    rows = list(TORCH_BUILDS.items()) + list(TORCH_LEGACY_BUILDS.items())
    found = [(release, builds) for release, builds in rows if release_matches(torch, release)]
    if not found:
        return None
    # the most specific release wins ("1.5.1" over a "1.5")
    return max(found, key=lambda item: len(version_tuple(item[0])))[1]


def _arch_parts(arch):
    """'sm_70' / 'compute_70' / '7.0' -> ('sm' | 'compute', major, minor)."""
    text = str(arch).strip().lower()
    kind = "compute" if text.startswith("compute_") else "sm"
    major, minor = version_tuple(_cc_text(text.rstrip("af") if text.startswith(("sm_", "compute_")) else text))[:2]
    return kind, major, minor


def arch_covers(archs, cc):
    """Whether kernels built for `archs` run on compute capability `cc` (see the module docstring)."""
    major, minor = version_tuple(_cc_text(cc))[:2]
    for arch in archs:
        kind, a_major, a_minor = _arch_parts(arch)
        if kind == "sm" and a_major == major and a_minor <= minor:
            return True
        if kind == "compute" and (a_major, a_minor) <= (major, minor):
            return True
    return False


def _build_covers(build, cuda, cc):
    """A torch build has kernels for cc: by its arch list, or (list not documented) by its toolkit's range."""
    if build.archs is not None:
        return arch_covers(build.archs, cc)
    first, last = ARCH_CUDA_RANGE[cc]
    return _in_range(cuda, first, last)


def _blank(value):
    return value is None or (isinstance(value, str) and not value.strip()) or value == []


# --- the checks -------------------------------------------------------------------------
# One function per component, composed by check_stack. Each appends its refusals to
# ctx.problems (naming the caller's variables through ctx.names) and its findings to ctx.resolved.


class _Context(object):
    """What the checks of one stack share: the input, the caller's names, problems, findings."""

    def __init__(self, stack, names):
        self.stack = dict(stack or {})
        self.names = dict(DEFAULT_NAMES, **(names or {}))
        self.problems = []
        self.resolved = {}

    def refuse(self, text, *args):
        self.problems.append(text % args)

    def version(self, key):
        """The stack's value for key as text; None when blank, or when not a version (refused)."""
        value = self.stack.get(key)
        if _blank(value):
            return None
        try:
            version_tuple(value)
        except ValueError:
            self.refuse("%s=%r is not a version number", self.names[key], value)
            return None
        return str(value).strip()


class _Gpus(object):
    """The cluster's compute capabilities and what they allow: CUDA range and last driver branch."""

    def __init__(self, ccs):
        self.ccs = ccs
        lows = [ARCH_CUDA_RANGE[cc][0] for cc in ccs]
        highs = [ARCH_CUDA_RANGE[cc][1] for cc in ccs if ARCH_CUDA_RANGE[cc][1] is not None]
        self.cuda_lo = max(lows, key=version_tuple) if lows else None
        self.cuda_hi = min(highs, key=version_tuple) if highs else None
        branches = [ARCH_DRIVER_BRANCH_MAX[cc] for cc in ccs if cc in ARCH_DRIVER_BRANCH_MAX]
        self.branch_max = min(branches) if branches else None


def _check_gpus(ctx):
    """Compute capabilities, declared or from the GPU name; those the matrix knows."""
    ccs = []
    raw = ctx.stack.get("compute_capability")
    if not _blank(raw):
        for item in raw if isinstance(raw, (list, tuple)) else [raw]:
            try:
                ccs.append(_cc_text(item))
            except (ValueError, IndexError):
                ctx.refuse("%s=%r is not a compute capability such as '7.0'", ctx.names["compute_capability"], item)
    elif not _blank(ctx.stack.get("gpu_name")):
        name = ctx.stack["gpu_name"]
        cc = compute_capability_for_name(name)
        if cc is None:
            ctx.refuse(
                "%s %r is not in the version matrix; set %s (e.g. '7.0' for V100)",
                ctx.names["gpu_name"],
                name,
                ctx.names["compute_capability"],
            )
        else:
            ccs.append(cc)
    known = []
    for cc in sorted(set(ccs), key=version_tuple):
        if cc in ARCH_CUDA_RANGE:
            known.append(cc)
        else:
            ctx.refuse(
                "%s=%s is not in the version matrix; known: %s",
                ctx.names["compute_capability"],
                cc,
                ", ".join(sorted(ARCH_CUDA_RANGE, key=version_tuple)),
            )
    gpus = _Gpus(known)
    ctx.resolved["compute_capability"] = known
    ctx.resolved["cuda_range"] = [gpus.cuda_lo, gpus.cuda_hi] if known else None
    ctx.resolved["driver_branch_max_for_gpu"] = gpus.branch_max
    return gpus


def _check_driver(ctx, driver, gpus):
    """The driver against the matrix and the GPUs; returns the highest CUDA it supports (or None)."""
    if driver is not None and version_tuple(driver)[0] > 10**4:
        ctx.refuse("%s=%s is not a driver branch or version such as '580' or '580.95.05'", ctx.names["driver"], driver)
        driver = None
    cuda_max = None
    if driver is not None:
        cuda_max = cuda_max_for_driver(driver)
        oldest = cuda_versions()[0]
        if cuda_max is None:
            ctx.refuse(
                "%s=%s is older than any driver in the version matrix (CUDA %s needs >= %s)",
                ctx.names["driver"],
                driver,
                oldest,
                CUDA_MIN_DRIVER[oldest],
            )
        if gpus.branch_max is not None and version_tuple(driver)[0] > gpus.branch_max:
            ctx.refuse(
                "%s=%s does not support compute capability %s (%s): the last driver branch for it is %d; "
                "choose a branch <= %d",
                ctx.names["driver"],
                driver,
                ", ".join(c for c in gpus.ccs if c in ARCH_DRIVER_BRANCH_MAX),
                ctx.names["compute_capability"],
                gpus.branch_max,
                gpus.branch_max,
            )
        if (
            cuda_max is not None
            and gpus.cuda_lo is not None
            and _cmp(version_tuple(cuda_max), version_tuple(gpus.cuda_lo)) < 0
        ):
            ctx.refuse(
                "%s=%s is too old for compute capability %s (%s): it needs CUDA >= %s, i.e. a driver >= %s",
                ctx.names["driver"],
                driver,
                gpus.ccs[-1],
                ctx.names["compute_capability"],
                gpus.cuda_lo,
                CUDA_MIN_DRIVER[gpus.cuda_lo],
            )
    ctx.resolved["cuda_max_for_driver"] = cuda_max
    return driver, cuda_max


def _check_cuda(ctx, cuda, gpus, driver, driver_cuda_max):
    """CUDA against the matrix, the GPUs and the driver; returns its major.minor (or None)."""
    if cuda is None:
        return None
    cuda_mm = _mm(cuda)
    if cuda_mm not in CUDA_MIN_DRIVER:
        ctx.refuse(
            "%s=%s is not in the version matrix; supported: %s", ctx.names["cuda"], cuda, ", ".join(cuda_versions())
        )
        return None
    ctx.resolved["driver_min_for_cuda"] = CUDA_MIN_DRIVER[cuda_mm]
    if gpus.ccs and not _in_range(cuda_mm, gpus.cuda_lo, gpus.cuda_hi):
        ctx.refuse(
            "%s=%s does not support compute capability %s (%s); supported for it: CUDA %s to %s",
            ctx.names["cuda"],
            cuda,
            ", ".join(gpus.ccs),
            ctx.names["compute_capability"],
            gpus.cuda_lo,
            gpus.cuda_hi or "newest",
        )
    if (
        driver is not None
        and driver_cuda_max is not None
        and _cmp(version_tuple(cuda_mm), version_tuple(driver_cuda_max)) > 0
    ):
        ctx.refuse(
            "%s=%s needs a driver >= %s but %s=%s supports CUDA <= %s; raise %s or choose %s <= %s",
            ctx.names["cuda"],
            cuda,
            CUDA_MIN_DRIVER[cuda_mm],
            ctx.names["driver"],
            driver,
            driver_cuda_max,
            ctx.names["driver"],
            ctx.names["cuda"],
            driver_cuda_max,
        )
    return cuda_mm


def _cuda_choices(gpus, driver_cuda_max):
    """CUDA versions that fit both the GPUs and the driver, for messages and for roles that pick one."""
    return [
        c
        for c in cuda_versions()
        if (not gpus.ccs or _in_range(c, gpus.cuda_lo, gpus.cuda_hi))
        and (driver_cuda_max is None or _cmp(version_tuple(c), version_tuple(driver_cuda_max)) <= 0)
    ]


def _check_library(ctx, key, table, value, cuda, cuda_mm):
    """cuDNN or NCCL: a build of it exists for the CUDA major; returns the CUDA majors it has builds for."""
    if value is None:
        return []
    majors = [m for m, (first, last) in sorted(table.items()) if _in_range(value, first, last)]
    ctx.resolved["%s_cuda_majors" % key] = majors
    if not majors:
        ctx.refuse(
            "%s=%s has no build in the version matrix; %s",
            ctx.names[key],
            value,
            "; ".join(
                "CUDA %s builds: %s to %s" % (m, first, last or "newest") for m, (first, last) in sorted(table.items())
            ),
        )
    elif cuda_mm is not None and cuda_mm.split(".")[0] not in majors:
        major = cuda_mm.split(".")[0]
        first, last = table.get(major, (None, None))
        supported = ("%s %s to %s" % (key, first, last or "newest")) if first else "none"
        ctx.refuse(
            "%s=%s has no build for %s=%s (its builds are for CUDA %s); for CUDA %s choose %s",
            ctx.names[key],
            value,
            ctx.names["cuda"],
            cuda,
            ", ".join(m + ".x" for m in majors),
            major,
            supported,
        )
    return majors


def _check_nccl_rdma(ctx, nccl):
    """NCCL new enough for the cluster's RDMA (eRDMA: >= 2.19)."""
    kind = ctx.stack.get("rdma")
    least = NCCL_MIN_FOR_RDMA.get(kind) if kind else None
    if least is None or nccl is None:
        return
    ctx.resolved["nccl_min_for_rdma"] = least
    if _cmp(version_tuple(nccl), version_tuple(least)) < 0:
        ctx.refuse(
            "%s=%s is older than NCCL %s, which %s on %s needs (Alibaba PAI: NCCL 2.19 or later on eRDMA)",
            ctx.names["nccl"],
            nccl,
            least,
            ctx.names["rdma"],
            kind,
        )


def _check_cudnn_gpus(ctx, cudnn, gpus):
    """cuDNN from CUDNN_CC_MIN_FROM on dropped the older compute capabilities."""
    since, cc_min = CUDNN_CC_MIN_FROM
    if _cmp(version_tuple(cudnn), version_tuple(since)) < 0:
        return
    old = [c for c in gpus.ccs if _cmp(version_tuple(c), version_tuple(cc_min)) < 0]
    if old:
        ctx.refuse(
            "%s=%s does not support compute capability %s (%s): cuDNN %s and newer need >= %s; choose cuDNN <= 9.10.2",
            ctx.names["cudnn"],
            cudnn,
            ", ".join(old),
            ctx.names["compute_capability"],
            since,
            cc_min,
        )


def _check_kernel_modules(ctx, gpus):
    """The kernel module flavour: open needs OPEN_KERNEL_MODULES_CC_MIN, Blackwell (OPEN_KERNEL_MODULES_REQUIRED_CC_MIN
    and newer) needs open. Its choices (proprietary, open) are nvidia_driver's argument spec's, the one caller that
    passes it: not judged again here."""
    flavour = ctx.stack.get("kernel_modules")
    if _blank(flavour):
        return
    old = [c for c in gpus.ccs if _cmp(version_tuple(c), version_tuple(OPEN_KERNEL_MODULES_CC_MIN)) < 0]
    new = [c for c in gpus.ccs if _cmp(version_tuple(c), version_tuple(OPEN_KERNEL_MODULES_REQUIRED_CC_MIN)) >= 0]
    if flavour == "open" and old:
        ctx.refuse(
            "%s=open does not support compute capability %s (%s): the open kernel modules need >= %s; choose proprietary",
            ctx.names["kernel_modules"],
            ", ".join(old),
            ctx.names["compute_capability"],
            OPEN_KERNEL_MODULES_CC_MIN,
        )
    if flavour == "proprietary" and new:
        ctx.refuse(
            "%s=proprietary does not support compute capability %s (%s): NVIDIA Blackwell GPUs (compute capability %s "
            "and newer) must use the open GPU kernel modules, the proprietary ones are unsupported on them; choose open",
            ctx.names["kernel_modules"],
            ", ".join(new),
            ctx.names["compute_capability"],
            OPEN_KERNEL_MODULES_REQUIRED_CC_MIN,
        )


def _torch_cuda(ctx):
    """The stack's torch_cuda: None (blank), 'cpu', or a CUDA major.minor (None and refused when bad)."""
    value = ctx.stack.get("torch_cuda")
    if _blank(value):
        return None
    text = str(value).strip().lower()
    if text == "cpu":
        return text
    if re.match(r"^\d+\.\d+$", text):
        return text
    ctx.refuse(
        "%s=%r is not a torch build: cpu or the CUDA of the build, such as '12.6'", ctx.names["torch_cuda"], value
    )
    return None


def _newest_torch_for(ccs):
    """'torch 2.14 (CUDA 12.6)': the newest release with a build that has kernels for every cc."""
    for release in sorted(TORCH_BUILDS, key=version_tuple, reverse=True):
        fits = [c for c, b in TORCH_BUILDS[release].items() if all(_build_covers(b, c, cc) for cc in ccs)]
        if fits:
            return "torch %s (CUDA %s)" % (release, ", ".join(sorted(fits, key=version_tuple)))
    return "none"


def _check_torch(ctx, torch, gpus, driver, driver_cuda_max):
    """torch and the CUDA of its build: the build exists, has kernels for every GPU, and the
    driver runs its CUDA. With torch_cuda empty: some build of the release has the kernels."""
    torch_cuda = _torch_cuda(ctx)
    pin = "%s pins torch %s" % (ctx.names["torch"], torch)
    if torch is None:
        if torch_cuda is not None:
            ctx.refuse("%s=%s needs a torch pin in %s", ctx.names["torch_cuda"], torch_cuda, ctx.names["torch"])
        return
    builds = torch_builds(torch)
    if builds is None:
        if gpus.ccs and torch_cuda != "cpu":
            ctx.refuse(
                "%s, which is not in the version matrix (its CUDA builds and their kernels are not known); known: "
                "torch %s, and the legacy builds of the AIACC-Training and ACSpeed profiles (torch %s)",
                pin,
                ", ".join(sorted(TORCH_BUILDS, key=version_tuple)),
                ", ".join(sorted(TORCH_LEGACY_BUILDS, key=version_tuple)),
            )
        return

    def runs(cuda):
        return driver is None or wheel_runs_on_driver(cuda, driver)

    covering = sorted(
        (c for c, b in builds.items() if all(_build_covers(b, c, cc) for cc in gpus.ccs)), key=version_tuple
    )
    choices = [c for c in covering if runs(c)]
    ctx.resolved["torch_builds"] = sorted(builds, key=version_tuple)
    ctx.resolved["torch_cuda_choices"] = choices
    ctx.resolved["torch_cuda_stable"] = [c for c in choices if builds[c].stable]
    ccs_text = "compute capability %s (%s)" % (", ".join(gpus.ccs), ctx.names["compute_capability"])
    if torch_cuda == "cpu":
        if gpus.ccs:
            ctx.refuse(
                "%s=cpu: the CPU build of torch cannot use the GPUs of %s; choose a CUDA build (%s) or declare the "
                "cluster CPU-only (scc_cpu_only)",
                ctx.names["torch_cuda"],
                ccs_text,
                ", ".join(choices) or "none fits",
            )
        return
    if torch_cuda is None:
        if gpus.ccs and not covering:
            ctx.refuse(
                "%s: no build of it has kernels for %s; the newest release with them: %s",
                pin,
                ccs_text,
                _newest_torch_for(gpus.ccs),
            )
        return
    if torch_cuda not in builds:
        ctx.refuse(
            "%s, which has no CUDA %s build (%s=%s); its builds: CUDA %s",
            pin,
            torch_cuda,
            ctx.names["torch_cuda"],
            torch_cuda,
            ", ".join(ctx.resolved["torch_builds"]),
        )
        return
    build = builds[torch_cuda]
    ctx.resolved["torch_archs"] = list(build.archs) if build.archs is not None else None
    missing = [cc for cc in gpus.ccs if not _build_covers(build, torch_cuda, cc)]
    if missing:
        ctx.refuse(
            "%s, whose CUDA %s build (%s=%s) has no kernels for compute capability %s (%s): it is built for %s; "
            "builds of it that have them: %s",
            pin,
            torch_cuda,
            ctx.names["torch_cuda"],
            torch_cuda,
            ", ".join(missing),
            ctx.names["compute_capability"],
            " ".join("sm_" + a.replace(".", "") for a in build.archs)
            if build.archs
            else "an undocumented arch list, and CUDA %s cannot build for it" % torch_cuda,
            ("CUDA " + ", ".join(covering))
            if covering
            else "none; the newest release with them: " + _newest_torch_for(gpus.ccs),
        )
    if driver is not None and not runs(torch_cuda):
        ctx.refuse(
            "%s=%s (torch %s) needs a driver >= %s (CUDA %s minor-version compatibility) but %s=%s; choose %s",
            ctx.names["torch_cuda"],
            torch_cuda,
            torch,
            wheel_min_driver(torch_cuda) or "newer",
            _major(torch_cuda),
            ctx.names["driver"],
            driver,
            ", ".join(choices) or "a newer driver",
        )


def _check_framework(ctx, key, torch):
    """AIACC-Training (aiacc) or ACSpeed (acspeed): a release with a documented matrix, and the
    torch, the CUDA of its build and the Python that matrix names (its legacy profile)."""
    release = ctx.version(key)
    if release is None:
        return
    profile = FRAMEWORK_PROFILES[key]
    by_cuda = {}
    for torch_release, cuda in profile.torch_cuda:
        by_cuda.setdefault(cuda, []).append(torch_release)
    pairs = "; ".join(
        "CUDA %s: torch %s" % (cuda, ", ".join(sorted(releases, key=version_tuple)))
        for cuda, releases in sorted(by_cuda.items(), key=lambda item: version_tuple(item[0]))
    )
    legacy = "%s %s legacy profile: %s; Python %s to %s" % (
        profile.product,
        profile.releases[-1],
        pairs,
        profile.python[0],
        profile.python[1],
    )
    ctx.resolved["%s_profile" % key] = {
        "name": "%s %s legacy profile" % (profile.product, profile.releases[-1]),
        "torch_cuda": [list(pair) for pair in profile.torch_cuda],
        "python": list(profile.python),
    }
    name = "%s=%s (%s)" % (ctx.names[key], release, profile.product)
    if not any(release_matches(release, r) for r in profile.releases):
        ctx.refuse("%s has no documented version matrix; documented: %s", name, legacy)
        return
    python = ctx.version("python")
    if python is not None and not _in_range(_mm(python), profile.python[0], profile.python[1]):
        ctx.refuse(
            "%s supports Python %s to %s, not %s=%s",
            name,
            profile.python[0],
            profile.python[1],
            ctx.names["python"],
            python,
        )
    if torch is None:
        return
    cudas = [cuda for release_, cuda in profile.torch_cuda if release_matches(torch, release_)]
    if not cudas:
        ctx.refuse("%s does not support torch %s (%s); its %s", name, torch, ctx.names["torch"], legacy)
        return
    torch_cuda = ctx.stack.get("torch_cuda")
    if not _blank(torch_cuda) and str(torch_cuda).strip() not in cudas:
        ctx.refuse(
            "%s supports torch %s only in its CUDA %s build, not %s=%s",
            name,
            torch,
            " or ".join(cudas),
            ctx.names["torch_cuda"],
            torch_cuda,
        )
    if python is None:
        ctx.refuse(
            "%s needs Python %s to %s, and the version of the interpreter is not known: name it with its version "
            "in %s (e.g. python%s)",
            name,
            profile.python[0],
            profile.python[1],
            ctx.names["python"],
            profile.python[1],
        )


def check_stack(stack, names=None):
    """See the module docstring: every component's check, each against the ones it depends on."""
    ctx = _Context(stack, names)
    driver, cuda, cudnn, nccl, torch = (ctx.version(key) for key in ("driver", "cuda", "cudnn", "nccl", "torch"))
    gpus = _check_gpus(ctx)
    driver, driver_cuda_max = _check_driver(ctx, driver, gpus)
    cuda_mm = _check_cuda(ctx, cuda, gpus, driver, driver_cuda_max)
    ctx.resolved["cuda_choices"] = _cuda_choices(gpus, driver_cuda_max)
    if _check_library(ctx, "cudnn", CUDNN_CUDA_MAJORS, cudnn, cuda, cuda_mm) and gpus.ccs:
        _check_cudnn_gpus(ctx, cudnn, gpus)
    _check_library(ctx, "nccl", NCCL_CUDA_MAJORS, nccl, cuda, cuda_mm)
    _check_nccl_rdma(ctx, nccl)
    _check_kernel_modules(ctx, gpus)
    _check_torch(ctx, torch, gpus, driver, driver_cuda_max)
    for framework in sorted(FRAMEWORK_PROFILES):
        _check_framework(ctx, framework, torch)
    return {"ok": not ctx.problems, "problems": ctx.problems, "resolved": ctx.resolved}
