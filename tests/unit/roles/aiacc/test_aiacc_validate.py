"""aiacc's validate.yml: the AIACC-Training or ACSpeed release against its vendor matrix, with the
torch python_env resolved (its fact python_env_torch_build, given here as a host variable). Both
matrices are legacy profiles, so the collection's torch is refused naming the variables; no host
is contacted (one ansible-playbook run for every case)."""

from tests.unit.roles.validate_runner import validate_tests

MIRROR = {"aiacc_mirror": "/srv/mirror", "scc_cpu_only": False}
AIACC = {**MIRROR, "aiacc_artifact_name": "perseus_torch-1.5.0-cp39-cp39-linux_x86_64.whl"}
ACSPEED = {**MIRROR, "aiacc_artifact_name": "acspeed-1.1.0.tar.gz", "bert_launch_framework": "acspeed"}


def resolved(torch, torch_cuda, python=""):
    """What python_env's validate publishes (the keys this role reads)."""
    return {"python_env_torch_build": {"torch": torch, "torch_cuda": torch_cuda, "python": python}}


CASES = {
    # Without python_env in the play only the release is checked (tests/integration/test_gpu_libs.py).
    "ok_aiacc_release_only": (AIACC, None),
    "bad_aiacc_with_torch_2.13": (
        {**AIACC, **resolved("2.13.0", "12.6", "3.11")},
        "torch 2.13.0 (python_env_requirements)",
    ),
    "bad_aiacc_names_the_framework": ({**AIACC, **resolved("2.13.0", "12.6")}, "aiacc_framework is aiacc"),
    "bad_aiacc_names_its_version": ({**AIACC, **resolved("2.13.0", "12.6")}, "aiacc_version=1.5.0 (AIACC-Training)"),
    "ok_aiacc_legacy_profile": ({**AIACC, **resolved("1.10.2", "10.2", "3.9")}, None),
    "bad_aiacc_legacy_on_python_3.11": ({**AIACC, **resolved("1.10.2", "10.2", "3.11")}, "python_env_python=3.11"),
    "bad_aiacc_legacy_python_unknown": ({**AIACC, **resolved("1.10.2", "10.2")}, "python_env_python (e.g. python3.9)"),
    "bad_aiacc_wrong_build": ({**AIACC, **resolved("1.8.0", "11.0", "3.8")}, "only in its CUDA 10.2 build"),
    "bad_aiacc_undocumented_release": (
        {**AIACC, "aiacc_version": "1.3.3", **resolved("1.10.2", "10.2", "3.9")},
        "aiacc_version=1.3.3 (AIACC-Training) has no documented version matrix",
    ),
    "ok_aiacc_cpu_only_skips_the_matrix": ({**AIACC, **resolved("2.13.0", "cpu"), "scc_cpu_only": True}, None),
    "bad_acspeed_with_torch_2.13": (
        {**ACSPEED, **resolved("2.13.0", "12.6", "3.11")},
        "(ACSpeed) does not support torch 2.13.0",
    ),
    "ok_acspeed_torch_2.0": ({**ACSPEED, **resolved("2.0.0", "11.7", "3.10")}, None),
    "bad_acspeed_python_3.11": ({**ACSPEED, **resolved("2.0.0", "11.7", "3.11")}, "Python 3.6 to 3.10"),
    "bad_framework_choice": ({**AIACC, "aiacc_framework": "horovod"}, "aiacc_framework"),
    "bad_verify_import": ({**AIACC, "aiacc_verify_import": "no spaces"}, "aiacc_verify_import"),
}


results, test_validate = validate_tests("aiacc", CASES)
