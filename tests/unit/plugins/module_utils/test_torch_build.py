# -*- coding: utf-8 -*-
"""Unit tests for python_env's torch build resolver and GPU judge (module_utils/torch_build.py),
their filters, and the matrix's torch rows against the arch lists of two real PyPI wheels."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.filter.torch_build import FilterModule, torch_build
from ansible_collections.scc.training.plugins.module_utils import _gpu_matrix as matrix
from ansible_collections.scc.training.plugins.module_utils import torch_build as tb
from ansible_collections.scc.training.plugins.plugin_utils.role_plans import torch_gpu_problems

ROOT = Path(__file__).resolve().parents[4]
FIXTURES = ROOT / "tests" / "fixtures" / "torch"
PINS = ["torch==2.13.0", "transformers==4.57.6", "tokenizers==0.22.1"]


def resolve(**request):
    return tb.resolve_torch_build(dict({"requirements": PINS}, **request))


# --- the real wheels ----------------------------------------------------------------------------


def wheel_arch_list(name):
    """(version, cuda, compute capabilities) of a fixture: our own listing of a PyPI wheel, whose
    header names the commands. The arch list is the compiled arch-flag string, i.e. what
    torch._C._cuda_getArchFlags() / torch.cuda.get_arch_list() return for that wheel."""
    text = (FIXTURES / name).read_text()
    version = re.search(r"^# torch/version.py: __version__ = '([^']+)'", text, re.M).group(1)
    cuda = re.search(r"^# torch/version.py: cuda: Optional\[str\] = '([^']+)'", text, re.M).group(1)
    flags = text.split("## compiled arch-flag string", 1)[1].splitlines()[2].split()
    return version, cuda, flags


@pytest.mark.parametrize(
    "fixture, has_sm70",
    [("torch-2.10.0-cp311-manylinux-arch.txt", True), ("torch-2.13.0-cp311-manylinux-arch.txt", False)],
)
def test_matrix_rows_agree_with_the_real_wheels(fixture, has_sm70):
    version, cuda, flags = wheel_arch_list(fixture)
    build = matrix.torch_builds(version)[cuda]
    assert sorted(flags) == sorted("sm_" + cc.replace(".", "") for cc in build.archs)
    assert ("sm_70" in flags) is has_sm70
    # and the resolver judges V100 by those very kernels
    assert matrix.arch_covers(flags, "7.0") is has_sm70
    assert matrix.check_stack({"torch": version, "torch_cuda": cuda, "compute_capability": "7.0"})["ok"] is has_sm70


def test_the_fixtures_are_the_pypi_default_builds():
    assert wheel_arch_list("torch-2.10.0-cp311-manylinux-arch.txt")[:2] == ("2.10.0+cu128", "12.8")
    assert wheel_arch_list("torch-2.13.0-cp311-manylinux-arch.txt")[:2] == ("2.13.0+cu130", "13.0")


# --- the resolver -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "gpus, driver, torch_cuda, index",
    [
        ("7.0", "580", "12.6", "cu126"),  # sccgn6 V100: CUDA 13 has no sm_70
        ("7.0", "", "12.6", "cu126"),
        ("7.5", "580", "13.0", "cu130"),  # T4
        ("8.0", "580", "13.0", "cu130"),  # A100
        ("8.9", "580", "13.0", "cu130"),  # L20, by its Ampere 8.6 kernels
        ("9.0", "580", "13.0", "cu130"),  # H100 / H20; 13.2 is experimental in 2.13
        ("9.0", "570", "12.6", "cu126"),  # R570 runs CUDA <= 12.8
        (["7.0", "9.0"], "580", "12.6", "cu126"),  # a mixed cluster: every GPU must be covered
    ],
)
def test_auto_picks_the_newest_stable_build_for_the_gpus_and_driver(gpus, driver, torch_cuda, index):
    result = resolve(compute_capability=gpus, driver=driver)
    assert result["ok"], result["problems"]
    assert result["torch"] == "2.13.0" and result["torch_cuda"] == torch_cuda
    assert result["index_url"] == "https://download.pytorch.org/whl/" + index
    assert result["pip_args"] == [
        "--index-url=https://download.pytorch.org/whl/" + index,
        "--extra-index-url=https://pypi.org/simple",
    ]


def test_torch_2_10_on_v100_takes_its_cuda_12_8_build():
    result = resolve(requirements=["torch==2.10.0"], compute_capability="7.0", driver="580")
    assert (result["torch_cuda"], result["candidates"]) == ("12.8", ["12.6", "12.8"])


def test_cpu_only_cluster_keeps_the_controllers_pip_configuration():
    # the lab: the CPU build, no index argument, so the wheelhouse key and download are as before
    result = resolve(cpu_only=True, compute_capability="7.0")
    assert result["ok"] and result["torch_cuda"] == "cpu"
    assert result["index_url"] == "" and result["pip_args"] == []


def test_no_torch_pin_resolves_nothing():
    result = resolve(requirements=["numpy==2.4.6"], compute_capability="7.0")
    assert result["ok"] and result["torch"] == "" and result["torch_cuda"] == "" and result["pip_args"] == []


def test_explicit_build_is_checked_not_replaced():
    result = resolve(torch_cuda="13.0", compute_capability="7.0")
    assert result["torch_cuda"] == "13.0" and not result["ok"]
    assert "python_env_torch_cuda=13.0" in result["problems"][0]
    assert "python_env_requirements pins torch 2.13.0" in result["problems"][0]


def test_no_build_fits_torch_2_15_on_v100():
    result = resolve(requirements=["torch==2.15.0"], compute_capability="7.0", driver="580")
    assert not result["ok"] and result["torch_cuda"] == "" and result["pip_args"] == []
    assert "torch 2.14 (CUDA 12.6)" in result["problems"][0]


def test_auto_with_a_driver_too_old_for_every_covering_build():
    result = resolve(requirements=["torch==2.15.0"], compute_capability="9.0", driver="570")
    assert not result["ok"]
    assert "python_env_torch_cuda=auto finds no stable build of torch 2.15.0" in result["problems"][0]
    assert "nvidia_driver_branch=570" in result["problems"][0]


def test_pip_extra_args_replace_the_index_but_the_build_is_still_resolved():
    mirror = ["--index-url=https://mirror.example/whl/cu126"]
    result = resolve(compute_capability="7.0", pip_extra_args=mirror)
    assert result["torch_cuda"] == "12.6" and result["pip_args"] == mirror
    assert result["index_url"] == "https://download.pytorch.org/whl/cu126"


def test_aiacc_picks_its_legacy_profile_and_needs_a_source():
    request = {
        "requirements": ["torch==1.10.2"],
        "compute_capability": "7.0",
        "driver": "580",
        "framework": "aiacc",
        "python": "python3.9",
    }
    result = tb.resolve_torch_build(request)
    assert result["torch_cuda"] == "10.2" and result["profile"] == "AIACC-Training 1.5.0 legacy profile"
    assert result["python"] == "3.9" and result["index_url"] == ""
    assert not result["ok"] and "python_env_pip_extra_args" in result["problems"][0]
    result = tb.resolve_torch_build(dict(request, pip_extra_args=["--find-links=/srv/wheels"]))
    assert result["ok"] and result["pip_args"] == ["--find-links=/srv/wheels"]


def test_aiacc_profile_restricts_the_builds_torch_1_6_has():
    # torch 1.6 has CUDA 10.1 and 10.2 builds in the AIACC-Training matrix; ACSpeed names only 10.1
    common = {"requirements": ["torch==1.6.0"], "compute_capability": "7.0", "pip_extra_args": ["--find-links=/w"]}
    assert tb.resolve_torch_build(dict(common, framework="aiacc"))["torch_cuda"] == "10.2"
    assert tb.resolve_torch_build(dict(common, framework="acspeed"))["torch_cuda"] == "10.1"


def test_a_torch_outside_the_profile_is_resolved_as_plain_torch():
    # the refusal is the aiacc role's (gpu_stack_check with the aiacc key), not the resolver's
    result = resolve(compute_capability="7.0", framework="aiacc")
    assert result["ok"] and result["torch_cuda"] == "12.6" and result["profile"] == ""


@pytest.mark.parametrize(
    "interpreter, version",
    [("python3.9", "3.9"), ("/usr/bin/python3.11", "3.11"), ("3.10", "3.10"), ("python3", ""), ("", "")],
)
def test_python_version_from_the_interpreter_name(interpreter, version):
    assert tb.python_version(interpreter) == version


def test_torch_pin():
    assert tb.torch_pin(["transformers==4.57.6", "torch==2.13.0"]) == "2.13.0"
    assert tb.torch_pin(["torchvision==0.28.0"]) == ""


# --- the GPU judge ------------------------------------------------------------------------------


def v100_probe(**changes):
    device = {"index": 0, "name": "Tesla V100-SXM2-16GB", "capability": "7.0"}
    device.update(max_abs_error=3.1e-5, max_abs_reference=101.7)
    probe = {
        "torch": "2.13.0+cu126",
        "cuda": "12.6",
        "size": 512,
        "available": True,
        "arch_list": ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"],
        "devices": [device, dict(device, index=1)],
    }
    probe.update(changes)
    return probe


def test_a_good_v100_host_has_no_problem():
    assert tb.torch_gpu_problems(v100_probe(), "12.6") == []


def test_the_cuda_13_wheel_on_v100():
    # what torch 2.13.0+cu130 (the PyPI default) reports on a V100: no sm_70, and the kernel is missing
    flags = wheel_arch_list("torch-2.13.0-cp311-manylinux-arch.txt")[2]
    device = {"index": 0, "name": "Tesla V100-SXM2-16GB", "capability": "7.0"}
    device["error"] = "CUDA error: no kernel image is available for execution on the device"
    problems = tb.torch_gpu_problems(v100_probe(torch="2.13.0", cuda="13.0", arch_list=flags, devices=[device]), "12.6")
    assert "not the build python_env resolved (CUDA 12.6)" in problems[0]
    assert "GPU 0 (Tesla V100-SXM2-16GB, compute capability 7.0) has no kernels" in problems[1]
    assert "sm_75 sm_80" in problems[1]
    assert "no kernel image is available" in problems[2]


def test_torch_without_cuda():
    problems = tb.torch_gpu_problems({"torch": "2.13.0+cpu", "cuda": None, "available": False}, "12.6")
    assert problems == [
        "torch 2.13.0+cpu (CUDA None build): torch.cuda.is_available() is false "
        "(no driver loaded, no GPU visible, or a CPU build)"
    ]


@pytest.mark.parametrize("error", [0.5, float("nan"), None])
def test_a_wrong_matmul_is_a_problem(error):
    probe = v100_probe()
    probe["devices"][1]["max_abs_error"] = error
    problems = tb.torch_gpu_problems(probe)
    assert len(problems) == 1 and problems[0].startswith("GPU 1 ") and "differs from the CPU's" in problems[0]


def test_no_device():
    assert "sees no GPU" in tb.torch_gpu_problems(v100_probe(devices=[]))[0]


# --- the filters --------------------------------------------------------------------------------


def test_filters_are_registered_and_check_their_input():
    filters = FilterModule().filters()
    assert (
        filters == {"torch_build": torch_build}
        and __import__("ansible_collections.scc.training.plugins.plugin_utils.role_plans", fromlist=["PLANS"]).PLANS[
            "torch_gpu_problems"
        ]
        is torch_gpu_problems
    )
    assert torch_build({"requirements": PINS, "compute_capability": "7.0"})["torch_cuda"] == "12.6"
    assert torch_gpu_problems(v100_probe(), "12.6", "1e-3") == []
    with pytest.raises(AnsibleFilterError, match="torch_build: input must be a dict"):
        torch_build(["torch==2.13.0"])
    with pytest.raises(AnsibleFilterError, match="torch_build: names must be a dict"):
        torch_build({}, ["x"])
    with pytest.raises(AnsibleFilterError, match="torch_gpu_problems: input"):
        torch_gpu_problems("{}")
    names = {"torch": "my_pins", "torch_cuda": "my_build"}
    problem = torch_build({"requirements": PINS, "torch_cuda": "13.0", "compute_capability": "7.0"}, names)["problems"]
    assert "my_pins pins torch 2.13.0" in problem[0] and "my_build=13.0" in problem[0]
