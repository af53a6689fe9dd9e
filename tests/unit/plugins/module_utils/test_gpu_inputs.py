"""module_utils/gpu_inputs.py and mpi.openmpi_input_problems: the GPU roles' and openmpi's variables that no argument
spec expresses, one sentence per problem naming the variable (their validate.yml judges them in one task per node;
the version matrix's verdict comes after, from the role's vars, when these are sound)."""

from __future__ import annotations

import pytest

from ansible_collections.scc.training.plugins.module_utils import gpu_inputs, mpi


def library(name: str, **changes) -> dict:
    settings = {
        f"{name}_version": {"cuda": "12.8", "cudnn": "9.10.2.21", "nccl": "2.27.5"}[name],
        f"{name}_prefix": f"/usr/local/{name}",
        f"{name}_artifacts_path": f"/mnt/cpfs/scc-training/{name}",
        f"{name}_source": "repo",
        f"{name}_mirror": "",
    }
    if name != "cuda":
        settings[f"{name}_cuda_version"] = "12.8"
    else:
        settings["cuda_pypi_packages"] = ["nvidia-cuda-runtime-cu12==12.8.90", "nvidia-cuda-nvcc-cu12==12.8.93"]
    return {**settings, **changes}


@pytest.mark.parametrize("name", ["cuda", "cudnn", "nccl"])
def test_the_defaults_pass(name):
    assert getattr(gpu_inputs, f"{name}_input_problems")(library(name)) == []


@pytest.mark.parametrize(
    ("name", "changes", "expected"),
    [
        ("cuda", {"cuda_version": "12"}, ["cuda_version (12) must be a CUDA version X.Y such as 12.8."]),
        (
            "cudnn",
            {"cudnn_version": "9.10.2"},
            ["cudnn_version (9.10.2) must be a cuDNN version W.X.Y.Z such as 9.10.2.21."],
        ),
        ("nccl", {"nccl_version": "2.27"}, ["nccl_version (2.27) must be an NCCL version X.Y.Z such as 2.27.5."]),
        (
            "nccl",
            {"nccl_cuda_version": "cu12"},
            ["nccl_cuda_version (cu12) must be the CUDA version X.Y it is built for."],
        ),
        ("cudnn", {"cudnn_prefix": "opt/cudnn"}, ['cudnn_prefix ("opt/cudnn") must be an absolute path.']),
        # Stricter than the '^/' the asserts checked before: a path under /opt must not climb out of it.
        (
            "cuda",
            {"cuda_artifacts_path": "/mnt/cpfs/../etc"},
            [
                "cuda_artifacts_path (\"/mnt/cpfs/../etc\") must be an absolute path without '.' or '..' segments "
                '(it names "/mnt/etc").'
            ],
        ),
        (
            "cudnn",
            {"cudnn_source": "mirror"},
            [
                'cudnn_mirror ("") must be an http(s):// URL or an absolute controller directory when cudnn_source is mirror.'
            ],
        ),
        (
            "cuda",
            {"cuda_source": "pypi", "cuda_pypi_packages": ["nvidia-cuda-runtime-cu12==12.9.79"]},
            [
                'cuda_pypi_packages (["nvidia-cuda-runtime-cu12==12.9.79"]) must be exact pins of CUDA 12.8\'s wheels '
                "(name==12.8.N)."
            ],
        ),
    ],
)
def test_each_rule_names_its_variable(name, changes, expected):
    assert getattr(gpu_inputs, f"{name}_input_problems")(library(name, **changes)) == expected


def test_cuda_pins_are_judged_only_for_the_wheel_sources_and_a_sound_version():
    wrong_pins = {"cuda_pypi_packages": ["nvidia-cuda-runtime-cu12>=12"]}
    assert gpu_inputs.cuda_input_problems(library("cuda", **wrong_pins)) == []  # repo: the pins are not used
    assert (
        len(gpu_inputs.cuda_input_problems(library("cuda", cuda_source="mirror", cuda_mirror="/srv", **wrong_pins)))
        == 1
    )
    # 12.8 must not pass as a regex for 1208 (escaped).
    assert gpu_inputs.cuda_input_problems(
        library("cuda", cuda_source="pypi", cuda_pypi_packages=["nvidia-cuda-runtime-cu12==1208.1"])
    )
    # A wrong version is said once, not again as wrong pins.
    assert gpu_inputs.cuda_input_problems(library("cuda", cuda_version="twelve", cuda_source="pypi")) == [
        "cuda_version (twelve) must be a CUDA version X.Y such as 12.8."
    ]


DRIVER = {"nvidia_driver_branch": "580", "nvidia_driver_version": "", "nvidia_driver_reboot_timeout": 1800}


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, []),
        ({"nvidia_driver_version": "580.95.05"}, []),
        ({"nvidia_driver_version": "580.95"}, []),
        ({"nvidia_driver_branch": "58"}, ["nvidia_driver_branch (58) must be a 3-digit branch such as 580."]),
        (
            {"nvidia_driver_version": "575.51.03"},
            ['nvidia_driver_version ("575.51.03") must be empty or a version of branch "580" such as 580.95.05.'],
        ),
        # A prefix of the branch is not the branch: 5800.1 is not of branch 580.
        (
            {"nvidia_driver_version": "5800.1"},
            ['nvidia_driver_version ("5800.1") must be empty or a version of branch "580" such as 580.95.05.'],
        ),
        ({"nvidia_driver_reboot_timeout": 30}, ["nvidia_driver_reboot_timeout (30) must be at least 60 (seconds)."]),
    ],
)
def test_nvidia_driver_rules(changes, expected):
    assert gpu_inputs.nvidia_driver_input_problems({**DRIVER, **changes}) == expected


OPENMPI = {
    "openmpi_version_min": "4.1",
    "openmpi_packages": ["openmpi-bin", "libopenmpi-dev"],
    "openmpi_extra_packages": [],
}


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, []),
        ({"openmpi_version_min": "4"}, []),
        ({"openmpi_version_min": "4.x"}, ['openmpi_version_min ("4.x") must be a version such as "4.1".']),
        (
            {"openmpi_packages": ["openmpi-bin libopenmpi-dev"]},
            [
                "openmpi_packages ([\"openmpi-bin libopenmpi-dev\"]) must list one package name per item, without spaces "
                "and not starting with '-'."
            ],
        ),
        (
            {"openmpi_extra_packages": ["ok", "--allow-unauthenticated"]},
            [
                "openmpi_extra_packages ([\"--allow-unauthenticated\"]) must list one package name per item, without "
                "spaces and not starting with '-'."
            ],
        ),
    ],
)
def test_openmpi_rules(changes, expected):
    assert mpi.openmpi_input_problems({**OPENMPI, **changes}) == expected


def test_the_filters_refuse_what_is_not_the_roles_variables():
    from ansible.errors import AnsibleFilterError, AnsibleLookupError

    from ansible_collections.scc.training.plugins.filter import gpu_matrix
    from ansible_collections.scc.training.plugins.lookup.role_input_problems import _Settings
    from ansible_collections.scc.training.plugins.module_utils import role_problems

    filters = gpu_matrix.FilterModule().filters()
    assert set(filters) == {"gpu_stack_check", "verdict_problems"}
    assert role_problems.problems("nccl", _Settings("nccl", library("nccl"))) == []
    with pytest.raises(AnsibleLookupError, match="role nccl: its rules read nccl_mirror, which it lacks"):
        role_problems.problems(
            "nccl", _Settings("nccl", {k: v for k, v in library("nccl").items() if k != "nccl_mirror"})
        )
    for role in ("nvidia_driver", "cuda", "cudnn", "nccl"):
        assert role_problems.rules(role).module == "gpu_inputs"
    with pytest.raises(AnsibleFilterError, match="verdict_problems: input must be a dict, got list"):
        filters["verdict_problems"](["a problem"])


def test_a_verdicts_refusals_become_one_sentence_and_none_become_no_problem():
    from ansible_collections.scc.training.plugins.module_utils import _gpu_matrix

    refused = _gpu_matrix.check_stack({"cuda": "13.0", "compute_capability": "7.0", "driver": "535"})
    assert len(refused["problems"]) == 2
    assert gpu_inputs.verdict_problems(refused) == ["; ".join(refused["problems"])]
    assert gpu_inputs.verdict_problems(_gpu_matrix.check_stack({"cuda": "12.8", "compute_capability": "7.0"})) == []
    assert gpu_inputs.verdict_problems({"ok": True}) == []
