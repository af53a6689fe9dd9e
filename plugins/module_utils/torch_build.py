# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Which torch build python_env installs, and whether the GPU hosts can run it.

Used by the filter ``scc.training.torch_build`` and the plan ``torch_gpu_problems`` (lookup scc.training.role_plan)
(plugins/filter/torch_build.py); the version facts are the matrix's (``_gpu_matrix``:
TORCH_BUILDS, FRAMEWORK_PROFILES, the driver rows, arch_covers).

``resolve_torch_build(request, names=None) -> dict``
    ``request`` keys (all optional):

    - ``requirements``: python_env's pins (``name==version``); the torch pin is the one resolved.
    - ``torch_cuda``: ``auto`` (the default), ``cpu`` or the CUDA of a build (``12.6``).
      ``auto`` is ``cpu`` on a CPU-only cluster, else the NEWEST STABLE build of the pinned torch
      whose kernels cover every GPU and whose CUDA the driver runs; with an Alibaba framework
      (``aiacc``, ``acspeed``) only the builds its legacy profile names for that torch count.
    - ``compute_capability``: the GPUs' compute capabilities (a string or a list).
    - ``driver``: the driver branch or version (empty: not checked).
    - ``cpu_only``: the cluster has no GPUs (``scc_cpu_only``).
    - ``framework``: ``bert_launch_framework`` (``torch``, ``horovod``, ``aiacc``, ``acspeed``).
    - ``python``: the interpreter python_env creates the venv with; its version is known when the
      name carries it (``python3.9``, ``/usr/bin/python3.11``), else empty.
    - ``pip_extra_args``: python_env_pip_extra_args; when set they are the download's source
      and the resolved index is only reported.

    Returns ``{ok, problems, torch, torch_cuda, index_url, pip_args, python, framework, profile,
    candidates}``: ``pip_args`` are the controller's extra ``pip download`` arguments
    (``--index-url=<index> --extra-index-url=https://pypi.org/simple`` for a CUDA build of a
    release the matrix documents; empty for the CPU build, which comes from the controller's pip
    configuration as it always did); ``problems`` are the matrix's refusals of the resulting
    build (``check_stack``), naming the caller's variables, plus the resolver's own.

``torch_gpu_problems(probe, torch_cuda="", tolerance=1e-3) -> [str]``
    Judges what ``roles/python_env/files/torch_gpu_probe.py`` printed on a GPU host: torch sees
    CUDA (``torch.cuda.is_available()``), its build is the resolved one, every GPU's compute
    capability is covered by ``torch.cuda.get_arch_list()`` (``arch_covers``), and one fp32
    matmul per GPU equals the CPU's float64 result within ``tolerance`` of its largest value.

Sources
-------
- The index of each CUDA build: PyTorch's install selector, https://pytorch.org/get-started/locally/
  (``pip3 install torch --index-url https://download.pytorch.org/whl/cu126``; ``/whl/cpu`` for the
  CPU build), the same ``/whl/cuXYZ`` pattern for every build RELEASE.md lists. PyTorch's index
  holds torch and its own dependencies only, hence PyPI as the extra index; a CUDA build's local
  version label (``2.13.0+cu126``) sorts above PyPI's plain ``2.13.0`` (PEP 440), so pip takes it.
- The legacy builds of the AIACC-Training and ACSpeed profiles (torch <= 2.0) are not on an index
  this module documents (PyTorch's "previous versions" page, https://pytorch.org/get-started/previous-versions/,
  lists their commands): they need ``python_env_pip_extra_args``.
"""

from __future__ import annotations

import math
import re

from ansible_collections.scc.training.plugins.module_utils import _gpu_matrix as matrix

TORCH_INDEX = "https://download.pytorch.org/whl/cu%s"
PYPI_INDEX = "https://pypi.org/simple"
AUTO = "auto"

_TORCH_PIN = re.compile(r"^\s*torch\s*==\s*([^\s;]+)\s*$", re.IGNORECASE)
_PYTHON_VERSION = re.compile(r"(\d+\.\d+)$")


def torch_pin(requirements):
    """The version of the ``torch==X`` pin among the requirements, or ''."""
    for line in requirements or []:
        match = _TORCH_PIN.match(str(line))
        if match:
            return match.group(1)
    return ""


def python_version(interpreter):
    """'python3.9' / '/usr/bin/python3.11' / '3.10' -> '3.9' / '3.11' / '3.10'; 'python3' -> ''."""
    match = _PYTHON_VERSION.search(str(interpreter or "").strip())
    return match.group(1) if match else ""


def torch_index_url(torch, torch_cuda):
    """PyTorch's index of that build, '' for the CPU build and for builds the matrix has no index for."""
    builds = matrix.TORCH_BUILDS.get(".".join(str(torch).split(".")[:2])) if torch else None
    if not builds or torch_cuda not in builds:
        return ""
    return TORCH_INDEX % torch_cuda.replace(".", "")


def _profile_cudas(framework, torch):
    """The CUDA builds the framework's legacy profile names for this torch (None: no profile)."""
    profile = matrix.FRAMEWORK_PROFILES.get(framework)
    if profile is None or not torch:
        return None, None
    name = "%s %s legacy profile" % (profile.product, profile.releases[-1])
    return name, [cuda for release, cuda in profile.torch_cuda if matrix.release_matches(torch, release)]


def resolve_torch_build(request, names_given=None):
    """See the module docstring."""
    names = dict(matrix.DEFAULT_NAMES, pip_extra_args="python_env_pip_extra_args")
    names.update(names_given or {})
    torch = torch_pin(request.get("requirements"))
    wanted = str(request.get("torch_cuda") or AUTO).strip().lower()
    cpu_only = bool(request.get("cpu_only"))
    ccs = [] if cpu_only else request.get("compute_capability") or []
    driver = request.get("driver") or ""
    framework = str(request.get("framework") or "torch")
    pip_extra_args = [str(arg) for arg in request.get("pip_extra_args") or []]
    stack = {"torch": torch, "compute_capability": ccs, "driver": driver}
    problems = []

    profile, profile_cudas = _profile_cudas(framework, torch)
    candidates = []
    if wanted != AUTO:
        chosen = wanted
    elif cpu_only:
        chosen = "cpu"
    elif not torch:
        chosen = ""
    else:
        candidates = matrix.check_stack(stack, names)["resolved"].get("torch_cuda_stable", [])
        if profile_cudas:
            candidates = [cuda for cuda in candidates if cuda in profile_cudas]
        chosen = candidates[-1] if candidates else ""

    check = matrix.check_stack(dict(stack, torch_cuda=chosen), names)
    problems.extend(check["problems"])
    if wanted == AUTO and torch and not chosen and not problems and matrix.torch_builds(torch) is not None:
        problems.append(
            "%s=auto finds no stable build of torch %s (%s) for compute capability %s (%s) that %s=%s runs%s; "
            "its builds: CUDA %s"
            % (
                names["torch_cuda"],
                torch,
                names["torch"],
                ", ".join(check["resolved"]["compute_capability"]),
                names["compute_capability"],
                names["driver"],
                driver or "(any)",
                " within the %s (CUDA %s)" % (profile, ", ".join(profile_cudas)) if profile_cudas else "",
                ", ".join(check["resolved"].get("torch_builds", [])),
            )
        )
    index_url = torch_index_url(torch, chosen)
    legacy = chosen not in ("", "cpu") and not index_url and matrix.torch_builds(torch) is not None
    if legacy and not pip_extra_args:
        problems.append(
            "torch %s in its CUDA %s build (%s, %s=%s) is a legacy build with no index in the version matrix: "
            "set %s to where its wheels are (https://pytorch.org/get-started/previous-versions/ lists them)"
            % (torch, chosen, names["torch"], names["torch_cuda"], wanted, names["pip_extra_args"])
        )
    if pip_extra_args:
        pip_args = pip_extra_args
    elif index_url:
        pip_args = ["--index-url=" + index_url, "--extra-index-url=" + PYPI_INDEX]
    else:
        pip_args = []
    return {
        "ok": not problems,
        "problems": problems,
        "torch": torch,
        "torch_cuda": chosen,
        "index_url": index_url,
        "pip_args": pip_args,
        "python": python_version(request.get("python")),
        "framework": framework,
        "profile": profile if profile_cudas else "",
        "candidates": candidates,
    }


def _finite(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def torch_gpu_problems(probe, torch_cuda="", tolerance=1e-3):
    """See the module docstring: one message per problem, [] when torch runs on every GPU."""
    build = "torch %s (CUDA %s build)" % (probe.get("torch"), probe.get("cuda"))
    if not probe.get("available"):
        return [
            "%s: torch.cuda.is_available() is false (no driver loaded, no GPU visible, or a CPU build)%s"
            % (build, ": " + probe["error"] if probe.get("error") else "")
        ]
    problems = []
    if torch_cuda and str(probe.get("cuda")) != str(torch_cuda):
        problems.append("%s is not the build python_env resolved (CUDA %s)" % (build, torch_cuda))
    devices = probe.get("devices") or []
    if not devices:
        problems.append("%s sees no GPU (torch.cuda.device_count() is 0)" % build)
    arch_list = probe.get("arch_list") or []
    for device in devices:
        gpu = "GPU %s (%s, compute capability %s)" % (device.get("index"), device.get("name"), device.get("capability"))
        if not matrix.arch_covers(arch_list, device.get("capability")):
            problems.append(
                "%s has no kernels in %s: torch.cuda.get_arch_list() is %s"
                % (gpu, build, " ".join(arch_list) or "empty")
            )
        if device.get("error"):
            problems.append("%s: the matmul failed: %s" % (gpu, device["error"]))
            continue
        error, scale = device.get("max_abs_error"), device.get("max_abs_reference")
        if not (_finite(error) and _finite(scale)) or error > tolerance * max(1.0, scale):
            problems.append(
                "%s: the %sx%s fp32 matmul differs from the CPU's by %s (largest value %s, tolerance %s of it)"
                % (gpu, probe.get("size"), probe.get("size"), error, scale, tolerance)
            )
    return problems
