# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The GPU roles' variables that no argument spec expresses (nvidia_driver, cuda, cudnn, nccl): one sentence per
problem, naming the variable and its value. Each role's validate.yml judges these, then (when they are sound) its
version-matrix verdict (_gpu_matrix.py), in one task per node.

Pure Python, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.scc.training.plugins.module_utils.input_checks import (
    MIRROR,
    absolute_path_problems,
    at_least,
    matches,
    pattern,
    rule_problems,
    show,
    text,
)

CUDA_VERSION = r"^\d+\.\d+$"
# The forms of the versions the matrix knows (NVIDIA's release names: CUDA 12.8, cuDNN 9.10.2.21, NCCL 2.27.5).
_VERSION_RULES = {
    "cuda": ("cuda_version", CUDA_VERSION, "a CUDA version X.Y such as 12.8"),
    "cudnn": ("cudnn_version", r"^\d+\.\d+\.\d+\.\d+$", "a cuDNN version W.X.Y.Z such as 9.10.2.21"),
    "nccl": ("nccl_version", r"^\d+\.\d+\.\d+$", "an NCCL version X.Y.Z such as 2.27.5"),
}


def _library_problems(settings, library):
    """What cuda, cudnn and nccl share: the version's form, the CUDA it is built for, absolute paths, the mirror."""
    variable, regex, what = _VERSION_RULES[library]
    rules = [(variable, pattern(regex), what)]
    if library != "cuda":
        rules.append((library + "_cuda_version", pattern(CUDA_VERSION), "the CUDA version X.Y it is built for"))
    problems = rule_problems(settings, rules)
    for path in ("_prefix", "_artifacts_path"):
        problems += absolute_path_problems(library + path, settings[library + path])
    mirror = text(settings[library + "_mirror"])
    if settings[library + "_source"] == "mirror" and not MIRROR.match(mirror):
        problems.append(
            "%s_mirror (%s) must be an http(s):// URL or an absolute controller directory when %s_source is mirror."
            % (library, show(mirror), library)
        )
    return problems


def cuda_input_problems(settings):
    """cuda's variables; the PyPI wheels (cuda_source pypi or mirror) must be exact pins of cuda_version's release."""
    problems = _library_problems(settings, "cuda")
    version = text(settings["cuda_version"])
    if settings["cuda_source"] != "repo" and matches(CUDA_VERSION, version):
        # e.g. nvidia-cuda-runtime-cu12==12.8.90 for CUDA 12.8.
        pin = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*==" + re.escape(version) + r"\.[0-9][A-Za-z0-9.+!_-]*$")
        foreign = [item for item in settings["cuda_pypi_packages"] or [] if not pin.match(text(item))]
        if foreign:
            problems.append(
                "cuda_pypi_packages (%s) must be exact pins of CUDA %s's wheels (name==%s.N)."
                % (show(foreign), version, version)
            )
    return problems


def cudnn_input_problems(settings):
    """cudnn's variables."""
    return _library_problems(settings, "cudnn")


def nccl_input_problems(settings):
    """nccl's variables."""
    return _library_problems(settings, "nccl")


def nvidia_driver_input_problems(settings):
    """nvidia_driver's variables: a 3-digit branch, a pinned version of that branch (or none), a reboot timeout."""
    branch = text(settings["nvidia_driver_branch"])
    problems = rule_problems(
        settings,
        [
            ("nvidia_driver_branch", pattern(r"^[0-9]{3}$"), "a 3-digit branch such as 580"),
            ("nvidia_driver_reboot_timeout", lambda value: at_least(value, 60), "at least 60 (seconds)"),
        ],
    )
    version = text(settings["nvidia_driver_version"])
    if version and not re.match(r"^" + re.escape(branch) + r"(\.[0-9]+){1,2}$", version):
        problems.append(
            "nvidia_driver_version (%s) must be empty or a version of branch %s such as 580.95.05."
            % (show(version), show(branch))
        )
    return problems


def verdict_problems(verdict):
    """A version-matrix verdict's refusals as one sentence in a list ([] when it has none).

    Each role's validate.yml lists its input problems first and this only when they are none (the verdict
    reads the inputs): ``__input_problems or _<role>_matrix | scc.training.verdict_problems``.
    """
    problems = verdict.get("problems") or []
    return ["; ".join(problems)] if problems else []
