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
      compute capability >= 7.5, so not on V100).

    ``names`` maps those keys to the variable names shown in messages (defaults in
    ``DEFAULT_NAMES``), so that each role's message names ITS variables.

    Returns ``{"ok": bool, "problems": [str, ...], "resolved": {...}}``. Each problem names the
    variables involved and the supported choices. ``resolved`` holds what the matrix derived:
    ``compute_capability``, ``cuda_range`` ([min, max or None] for the GPU), ``cuda_max_for_driver``,
    ``driver_min_for_cuda``, ``driver_branch_max_for_gpu``, ``cudnn_cuda_majors``,
    ``nccl_cuda_majors``, ``cuda_choices`` (CUDA versions valid for the GPU and driver).

``compute_capability_for_name(name) -> str or None``: "Tesla V100-SXM2-16GB" -> "7.0".

Cluster-wide inventory variables the roles feed into ``stack`` (not role defaults; documented
in each GPU role README): ``scc_gpu_compute_capability`` (default "7.0", sccgn6 = V100) and
``scc_cpu_only`` (default false; true skips every GPU role after validation).

Sources (checked 2026-12-02; cite them when you change a row)
-------------------------------------------------------------
- Driver per CUDA: CUDA Toolkit release notes, table "CUDA Toolkit and Corresponding Driver
  Versions" (Linux x86_64, toolkit driver, GA release)
  https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html . This is the full-feature
  requirement, stricter than CUDA minor-version compatibility on purpose (no PTX JIT surprises).
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
- Open GPU kernel modules support Turing and later only:
  https://github.com/NVIDIA/open-gpu-kernel-modules (README, "Compatible GPUs").
"""

from __future__ import annotations

import re

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

# NCCL: CUDA major -> (first NCCL with a build for it, last one or None = current).
NCCL_CUDA_MAJORS = {
    "11": ("2.7.3", "2.21.5"),
    "12": ("2.16.2", None),
    "13": ("2.27.7", None),
}

# NVIDIA's open GPU kernel modules run on this compute capability and newer (Turing+).
OPEN_KERNEL_MODULES_CC_MIN = "7.5"
KERNEL_MODULES = ("proprietary", "open")

DEFAULT_NAMES = {
    "driver": "nvidia_driver_branch",
    "cuda": "cuda_version",
    "cudnn": "cudnn_version",
    "nccl": "nccl_version",
    "compute_capability": "scc_gpu_compute_capability",
    "gpu_name": "gpu name",
    "kernel_modules": "nvidia_driver_kernel_modules",
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


def cuda_versions():
    return sorted(CUDA_MIN_DRIVER, key=version_tuple)


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
    """The kernel module flavour: open needs OPEN_KERNEL_MODULES_CC_MIN."""
    flavour = ctx.stack.get("kernel_modules")
    if _blank(flavour):
        return
    if flavour not in KERNEL_MODULES:
        ctx.refuse("%s=%r is not one of %s", ctx.names["kernel_modules"], flavour, ", ".join(KERNEL_MODULES))
        return
    old = [c for c in gpus.ccs if _cmp(version_tuple(c), version_tuple(OPEN_KERNEL_MODULES_CC_MIN)) < 0]
    if flavour == "open" and old:
        ctx.refuse(
            "%s=open does not support compute capability %s (%s): the open kernel modules need >= %s; choose proprietary",
            ctx.names["kernel_modules"],
            ", ".join(old),
            ctx.names["compute_capability"],
            OPEN_KERNEL_MODULES_CC_MIN,
        )


def check_stack(stack, names=None):
    """See the module docstring: every component's check, each against the ones it depends on."""
    ctx = _Context(stack, names)
    driver, cuda, cudnn, nccl = (ctx.version(key) for key in ("driver", "cuda", "cudnn", "nccl"))
    gpus = _check_gpus(ctx)
    driver, driver_cuda_max = _check_driver(ctx, driver, gpus)
    cuda_mm = _check_cuda(ctx, cuda, gpus, driver, driver_cuda_max)
    ctx.resolved["cuda_choices"] = _cuda_choices(gpus, driver_cuda_max)
    if _check_library(ctx, "cudnn", CUDNN_CUDA_MAJORS, cudnn, cuda, cuda_mm) and gpus.ccs:
        _check_cudnn_gpus(ctx, cudnn, gpus)
    _check_library(ctx, "nccl", NCCL_CUDA_MAJORS, nccl, cuda, cuda_mm)
    _check_kernel_modules(ctx, gpus)
    return {"ok": not ctx.problems, "problems": ctx.problems, "resolved": ctx.resolved}
