"""Every download checked against a digest the inventory or the controller holds: artifact_fetch's and
python_env's input problems (each refusal names its variable), the hash lock a host's pip installs from,
and pip's refusal read back as the wheels it names."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.filter import wheels as wheel_filters
from ansible_collections.scc.training.plugins.module_utils.artifacts import artifact_fetch_input_problems
from ansible_collections.scc.training.plugins.module_utils.wheels import (
    pip_hash_mismatches,
    python_env_input_problems,
    wheel_hash_lock,
)
from ansible_collections.scc.training.plugins.plugin_utils import role_plans

SHA = "0123456789abcdef" * 4
FETCH = {
    "artifact_fetch_dest": "/opt/scc-training/artifacts",
    "artifact_fetch_files": [{"name": "fw.bin", "url": "https://x.example/fw.bin", "sha256": SHA}],
    "artifact_fetch_wheels": ["six==1.17.0"],
    "artifact_fetch_mirror": "http://127.0.0.1:8000/m",
    "artifact_fetch_mirror_select": ["nvidia_nccl_cu12-2.27.5-"],
    "artifact_fetch_mirror_manifests": {"http://127.0.0.1:8000/m/": SHA},
}
PYTHON_ENV = {
    "python_env_venv_path": "/opt/scc-training/venv",
    "python_env_wheelhouse_path": "/mnt/cpfs/wheelhouse",
    "python_env_cache_dir": "~/.cache/scc-training/wheelhouse",
    "python_env_requirements": ["torch==2.13.0", "transformers==4.57.6"],
    "python_env_verify_imports": ["torch", "transformers"],
    "python_env_constraints_file": "",
}


@pytest.mark.parametrize(
    "settings",
    [
        FETCH,
        {
            **FETCH,
            "artifact_fetch_mirror": "",
            "artifact_fetch_mirror_select": [],
            "artifact_fetch_mirror_manifests": {},
        },
        {**FETCH, "artifact_fetch_mirror": "/srv/m", "artifact_fetch_mirror_manifests": {"/srv/m": SHA.upper()}},
    ],
)
def test_good_artifact_fetch_inputs_have_no_problem(settings):
    assert artifact_fetch_input_problems(settings) == []


# case: (changed variables, the one problem's text: its variable, and its value)
FETCH_BAD = {
    "dest_relative": (
        {"artifact_fetch_dest": "artifacts"},
        'artifact_fetch_dest ("artifacts") must be an absolute path.',
    ),
    "file_name_with_directory": (
        {"artifact_fetch_files": [{"name": "a/fw.bin", "url": "/srv/fw.bin", "sha256": SHA}]},
        'artifact_fetch_files: the name "a/fw.bin" must be a plain file name.',
    ),
    "file_url_scheme": (
        {"artifact_fetch_files": [{"name": "fw.bin", "url": "ftp://x/fw.bin", "sha256": SHA}]},
        'artifact_fetch_files: fw.bin\'s url "ftp://x/fw.bin" must be',
    ),
    "file_without_sha256": (
        {"artifact_fetch_files": [{"name": "fw.bin", "url": "/srv/fw.bin"}]},
        'artifact_fetch_files: fw.bin\'s sha256 "" must be 64 lowercase hex digits.',
    ),
    "file_sha256_upper": (
        {"artifact_fetch_files": [{"name": "fw.bin", "url": "/srv/fw.bin", "sha256": SHA.upper()}]},
        "artifact_fetch_files: fw.bin's sha256",
    ),
    "wheel_not_pinned": (
        {"artifact_fetch_wheels": ["six>=1"]},
        'artifact_fetch_wheels must be exact pins name==version, got ["six>=1"].',
    ),
    "mirror_relative": (
        {"artifact_fetch_mirror": "mirror", "artifact_fetch_mirror_manifests": {"mirror": SHA}},
        'artifact_fetch_mirror ("mirror") must be an http(s):// URL or an absolute controller directory.',
    ),
    "mirror_without_select": ({"artifact_fetch_mirror_select": []}, "artifact_fetch_mirror_select ([]) go together"),
    "mirror_unpinned": (
        {"artifact_fetch_mirror_manifests": {}},
        'artifact_fetch_mirror ("http://127.0.0.1:8000/m"): artifact_fetch_mirror_manifests must pin the mirror '
        '"http://127.0.0.1:8000/m"',
    ),
    "mirror_pin_malformed": (
        {"artifact_fetch_mirror_manifests": {"http://127.0.0.1:8000/m": "sha256:" + SHA}},
        "artifact_fetch_mirror_manifests must pin the mirror",
    ),
}


@pytest.mark.parametrize("case", sorted(FETCH_BAD))
def test_each_bad_artifact_fetch_input_is_one_problem_naming_its_variable(case):
    change, text = FETCH_BAD[case]
    problems = artifact_fetch_input_problems({**FETCH, **change})
    assert len(problems) == 1 and text in problems[0], problems


def test_good_python_env_inputs_have_no_problem():
    assert python_env_input_problems(PYTHON_ENV) == []
    assert python_env_input_problems({**PYTHON_ENV, "python_env_constraints_file": "/srv/lock.txt"}) == []
    # The install timeout's least value is a minute.
    assert python_env_input_problems({**PYTHON_ENV, "python_env_install_timeout_s": 60}) == []


PYTHON_ENV_BAD = {
    "venv_relative": ({"python_env_venv_path": "venv"}, 'python_env_venv_path ("venv") must be an absolute path.'),
    "wheelhouse_relative": ({"python_env_wheelhouse_path": "wh"}, 'python_env_wheelhouse_path ("wh") must be'),
    "same_paths": (
        {"python_env_venv_path": "/mnt/cpfs/wheelhouse/"},
        'python_env_venv_path and python_env_wheelhouse_path must differ, both are "/mnt/cpfs/wheelhouse/".',
    ),
    "venv_inside_the_shared_wheelhouse": (
        {"python_env_venv_path": "/mnt/cpfs/wheelhouse/venv"},
        'python_env_venv_path ("/mnt/cpfs/wheelhouse/venv") must not be inside python_env_wheelhouse_path',
    ),
    "no_cache_dir": ({"python_env_cache_dir": ""}, "python_env_cache_dir must be a controller directory"),
    "no_requirements": ({"python_env_requirements": []}, "python_env_requirements must be a non-empty list"),
    "requirement_not_pinned": ({"python_env_requirements": ["torch"]}, 'exact pins name==version, got ["torch"].'),
    "import_not_a_module": (
        {"python_env_verify_imports": ["torch-gpu"]},
        'python_env_verify_imports must be module names, got ["torch-gpu"].',
    ),
    "install_timeout_under_a_minute": (
        {"python_env_install_timeout_s": 59},
        "python_env_install_timeout_s must be at least 60 seconds, got 59.",
    ),
    "constraints_relative": (
        {"python_env_constraints_file": "lock.txt"},
        'python_env_constraints_file ("lock.txt") must be empty or an absolute path',
    ),
}


@pytest.mark.parametrize("case", sorted(PYTHON_ENV_BAD))
def test_each_bad_python_env_input_is_one_problem_naming_its_variable(case):
    change, text = PYTHON_ENV_BAD[case]
    problems = python_env_input_problems({**PYTHON_ENV, **change})
    # The same path twice is also "inside": both sentences name the variables.
    assert (len(problems) == 1 or case == "same_paths") and text in problems[0], problems


def test_the_lock_pins_every_wheel_with_its_hash_dependencies_included():
    lock = wheel_hash_lock(
        {
            "torch-2.13.0+cu126-cp311-cp311-manylinux_2_28_x86_64.whl": "a" * 64,
            "Typing_Extensions-4.16.0-py3-none-any.whl": "b" * 64,
            "nvidia_cublas_cu12-12.6.4.1-1-py3-none-manylinux2014_x86_64.whl": "c" * 64,
            "nvidia_cublas_cu12-12.6.4.1-py3-none-manylinux_2_27_x86_64.whl": "d" * 64,
            "fw.bin": "e" * 64,
        }
    )
    assert lock.splitlines() == [
        "nvidia-cublas-cu12==12.6.4.1 --hash=sha256:%s --hash=sha256:%s" % ("c" * 64, "d" * 64),
        "torch==2.13.0+cu126 --hash=sha256:" + "a" * 64,
        "typing-extensions==4.16.0 --hash=sha256:" + "b" * 64,
    ]


@pytest.mark.parametrize(
    "digests,text",
    [
        ({}, "no wheel to pin"),
        ({"fw.bin": SHA}, "no wheel to pin"),
        ({"six.whl": SHA}, 'cannot pin the wheel "six.whl"'),
        ({"six-1.17.0-py2.py3-none-any.whl": "md5"}, 'with sha256 "md5"'),
    ],
)
def test_a_lock_without_every_hash_is_refused(digests, text):
    with pytest.raises(AnsibleFilterError, match="wheel_hash_lock: .*" + text):
        wheel_filters.wheel_hash_lock(digests)


# Re-typed in the layout pip 23 prints (pip/_internal/exceptions.py, HashErrors and HashMismatch).
PIP_REFUSAL = """\
Looking in links: /mnt/cpfs/wheelhouse/cp311-x86_64-0123456789ab
Processing /mnt/cpfs/wheelhouse/cp311-x86_64-0123456789ab/six-1.17.0-py2.py3-none-any.whl
ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you have updated the package \
versions, please update the hashes. Otherwise, examine the package contents carefully; someone may have tampered with them.
    six==1.17.0 from file:///mnt/cpfs/wheelhouse/cp311-x86_64-0123456789ab/six-1.17.0-py2.py3-none-any.whl \
(from -r /opt/scc-training/venv/scc-wheelhouse.lock (line 2)):
        Expected sha256 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
             Got        ab7ae7122974553370f0bdb919e1a960b2cd1bc1ef0276416d896db81c14582c
    idna==3.20 from file:///mnt/cpfs/wheelhouse/cp311-x86_64-0123456789ab/idna-3.20-py3-none-any.whl:
        Expected sha256 bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
             Got        cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc
"""


def test_pip_refusal_names_each_tampered_wheel():
    assert pip_hash_mismatches(PIP_REFUSAL) == ["six-1.17.0-py2.py3-none-any.whl", "idna-3.20-py3-none-any.whl"]
    assert role_plans.pip_hash_mismatches(PIP_REFUSAL + PIP_REFUSAL)[:1] == ["six-1.17.0-py2.py3-none-any.whl"]


@pytest.mark.parametrize(
    "output",
    [
        "",
        "Processing ./six-1.17.0-py2.py3-none-any.whl\nERROR: No matching distribution",
        # A wheel named before pip's hash error (here a resolver line) is not one it refused.
        "Looking in links: /mnt/cpfs/wheelhouse\n    six==1.17.0 from file:///mnt/cpfs/wheelhouse/six-1.17.0-py2.py3-none-any.whl\n"
        "ERROR: No matching distribution found for idna==3.20",
    ],
)
def test_other_pip_failures_name_no_wheel(output):
    assert pip_hash_mismatches(output) == []


def test_pip_hash_mismatches_needs_text():
    with pytest.raises(AnsibleFilterError, match="pip_hash_mismatches: input must be"):
        role_plans.pip_hash_mismatches(None)
