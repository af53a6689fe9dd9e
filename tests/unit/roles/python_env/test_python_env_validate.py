"""python_env's validate.yml for the torch build: the version matrix's refusals name the variables,
auto resolves, and no host is contacted (one ansible-playbook run for every case)."""

from tests.unit.roles.validate_runner import validate_tests

GPU = {"scc_cpu_only": False}
V100, H100 = {**GPU, "scc_gpu_compute_capability": "7.0"}, {**GPU, "scc_gpu_compute_capability": "9.0"}


def pins(torch):
    return {"python_env_requirements": [f"torch=={torch}", "transformers==4.57.6", "tokenizers==0.22.1"]}


CASES = {
    # The defaults on sccgn6 (V100): auto resolves torch 2.13.0's CUDA 12.6 build.
    "ok_default_v100": (V100, None),
    "ok_default_unset_gpus": (GPU, None),
    "ok_lab_cpu_only": ({"scc_cpu_only": True}, None),
    "bad_install_timeout": ({"scc_cpu_only": True, "python_env_install_timeout_s": 0}, "python_env_install_timeout_s"),
    "ok_2.13_cu126_on_v100": ({**V100, "python_env_torch_cuda": "12.6"}, None),
    "ok_2.10_cu128_on_v100": ({**V100, **pins("2.10.0"), "python_env_torch_cuda": "12.8"}, None),
    "ok_2.13_cu130_on_h100": ({**H100, "python_env_torch_cuda": "13.0", "nvidia_driver_branch": "580"}, None),
    "bad_2.13_cu130_on_v100": ({**V100, "python_env_torch_cuda": "13.0"}, "python_env_requirements pins torch 2.13.0"),
    "bad_2.13_cu130_on_v100_names_torch_cuda": (
        {**V100, "python_env_torch_cuda": "13.0"},
        "python_env_torch_cuda=13.0",
    ),
    "bad_2.11_cu128_on_v100": (
        {**V100, **pins("2.11.0"), "python_env_torch_cuda": "12.8"},
        "python_env_torch_cuda=12.8",
    ),
    "bad_2.15_on_v100": ({**V100, **pins("2.15.0")}, "torch 2.14 (CUDA 12.6)"),
    "bad_cu130_driver_570": (
        {**H100, "python_env_torch_cuda": "13.0", "nvidia_driver_branch": "570"},
        "nvidia_driver_branch=570",
    ),
    "bad_cpu_build_on_gpus": ({**V100, "python_env_torch_cuda": "cpu"}, "python_env_torch_cuda=cpu"),
    "bad_torch_cuda_spelling": ({**V100, "python_env_torch_cuda": "cu126"}, "python_env_torch_cuda='cu126'"),
    "bad_torch_not_in_matrix": ({**V100, **pins("2.7.0")}, "not in the version matrix"),
    "bad_no_such_build": ({**V100, "python_env_torch_cuda": "12.8"}, "has no CUDA 12.8 build"),
    # Issue 37: python_env reads scc_instance_type itself (no templated copy): a number is refused naming it on every
    # ansible-core version.
    "bad_instance_type_a_number": ({**GPU, "scc_instance_type": 8}, "scc_instance_type (8) must be a string"),
    # The AIACC-Training legacy profile resolves, and needs a source for its legacy wheels.
    "bad_aiacc_legacy_without_source": (
        {**V100, **pins("1.10.2"), "bert_launch_framework": "aiacc", "python_env_python": "python3.9"},
        "python_env_pip_extra_args",
    ),
    "ok_aiacc_legacy_with_source": (
        {
            **V100,
            **pins("1.10.2"),
            "bert_launch_framework": "aiacc",
            "python_env_python": "python3.9",
            "python_env_pip_extra_args": ["--find-links=/srv/legacy-wheels"],
        },
        None,
    ),
    "ok_unknown_torch_on_cpu_only": ({"scc_cpu_only": True, **pins("2.7.0")}, None),
    # Paths, pins and names (the lookup scc.training.role_input_problems): each refusal names its variable.
    "bad_venv_relative": ({**V100, "python_env_venv_path": "venv"}, 'python_env_venv_path ("venv")'),
    "bad_wheelhouse_relative": ({**V100, "python_env_wheelhouse_path": "wh"}, 'python_env_wheelhouse_path ("wh")'),
    # The hash lock each host's pip checks the shared wheels against lives in the venv, never beside them.
    "bad_venv_inside_the_wheelhouse": (
        {
            **V100,
            "python_env_wheelhouse_path": "/mnt/cpfs/wheelhouse",
            "python_env_venv_path": "/mnt/cpfs/wheelhouse/v",
        },
        'python_env_venv_path ("/mnt/cpfs/wheelhouse/v") must not be inside python_env_wheelhouse_path',
    ),
    "bad_requirement_unpinned": (
        {**V100, "python_env_requirements": ["torch==2.13.0", "transformers"]},
        "python_env_requirements must be a non-empty list of exact pins",
    ),
    "bad_verify_import": ({**V100, "python_env_verify_imports": ["torch vision"]}, "python_env_verify_imports"),
    "bad_constraints_relative": ({**V100, "python_env_constraints_file": "lock.txt"}, "python_env_constraints_file"),
    "bad_cache_dir_empty": ({**V100, "python_env_cache_dir": ""}, "python_env_cache_dir"),
}


results, test_validate = validate_tests("python_env", CASES)
