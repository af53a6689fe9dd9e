# -*- coding: utf-8 -*-
"""Issue 27's silent acceptances, now refused before anything changes, each naming its variable: paths that
reach elsewhere through '.' or '..' (read as the directory they name before any prefix rule), control
characters in the environment the ranks get, and a role's variables given incomplete to its filter."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.module_utils import (
    aiacc,
    artifacts,
    bert_launch,
    imagenet,
    input_checks,
    mellanox_fw,
    mpi_job,
    nccl_check,
    rdma,
    resnet_launch,
    wheels,
)
from ansible_collections.scc.training.plugins.module_utils.envfile import env_file
from ansible_collections.scc.training.plugins.plugin_utils import role_plans
from tests.unit.plugins.module_utils.test_digests import FETCH, PYTHON_ENV
from tests.unit.plugins.module_utils.test_imagenet import _settings as imagenet_settings
from tests.unit.plugins.module_utils.test_input_problems import AIACC, BERT, NCCL_CHECK, NIC_FIRMWARE, RDMA_STACK
from tests.unit.plugins.module_utils.test_resnet_launch import GOOD as RESNET

# case: (function, good settings, the change, the text the one problem holds: its variable first)
REFUSED = {
    "fetch_dest_up_and_out": (
        artifacts.artifact_fetch_input_problems,
        FETCH,
        {"artifact_fetch_dest": "/opt/../etc"},
        'artifact_fetch_dest ("/opt/../etc") must be an absolute path without \'.\' or \'..\' segments (it names '
        '"/etc").',
    ),
    "fetch_dest_ending_in_up": (
        artifacts.artifact_fetch_input_problems,
        FETCH,
        {"artifact_fetch_dest": "/opt/scc/.."},
        'artifact_fetch_dest ("/opt/scc/..")',
    ),
    "fetch_dest_dot": (
        artifacts.artifact_fetch_input_problems,
        FETCH,
        {"artifact_fetch_dest": "/opt/./artifacts"},
        'artifact_fetch_dest ("/opt/./artifacts")',
    ),
    "venv_into_the_wheelhouse_through_up": (
        wheels.python_env_input_problems,
        PYTHON_ENV,
        {"python_env_venv_path": "/opt/../mnt/cpfs/wheelhouse/venv"},
        "python_env_venv_path (\"/opt/../mnt/cpfs/wheelhouse/venv\") must be an absolute path without '.' or '..'",
    ),
    "venv_into_the_wheelhouse_through_double_slash": (
        wheels.python_env_input_problems,
        PYTHON_ENV,
        {"python_env_venv_path": "/mnt/cpfs//wheelhouse/venv"},
        'python_env_venv_path ("/mnt/cpfs//wheelhouse/venv") must not be inside python_env_wheelhouse_path',
    ),
    "wheelhouse_above_the_venv_through_double_slash": (
        wheels.python_env_input_problems,
        PYTHON_ENV,
        {"python_env_wheelhouse_path": "//opt/scc-training/"},
        'python_env_venv_path ("/opt/scc-training/venv") must not be inside python_env_wheelhouse_path',
    ),
    "wheelhouse_through_up": (
        wheels.python_env_input_problems,
        PYTHON_ENV,
        {"python_env_wheelhouse_path": "/opt/scc-training/venv/.."},
        'python_env_wheelhouse_path ("/opt/scc-training/venv/..")',
    ),
    "bert_env_newline": (
        bert_launch.bert_launch_input_problems,
        BERT,
        {"bert_launch_env": {"NCCL_DEBUG": "INFO\nLD_PRELOAD=/tmp/x.so"}},
        "bert_launch_env: the value of NCCL_DEBUG holds a control character",
    ),
    "bert_env_carriage_return": (
        bert_launch.bert_launch_input_problems,
        BERT,
        {"bert_launch_env": {"A": "1", "B": "x\r"}},
        "bert_launch_env: the value of B holds",
    ),
    "bert_env_nul": (
        bert_launch.bert_launch_input_problems,
        BERT,
        {"bert_launch_env": {"A": "x\x00y"}},
        "bert_launch_env: the value of A holds",
    ),
    "bert_aiacc_env_file_up": (
        bert_launch.bert_launch_input_problems,
        BERT,
        {"bert_launch_aiacc_env_file": "/etc/scc/../shadow"},
        "bert_launch_aiacc_env_file must be an absolute path (got /etc/scc/../shadow).",
    ),
    "bert_data_dir_up": (
        bert_launch.bert_launch_input_problems,
        BERT,
        {"bert_launch_data_dir": "/mnt/cpfs/../../etc"},
        "bert_launch_data_dir must be auto or an absolute path (got /mnt/cpfs/../../etc).",
    ),
    "bert_checkpoint_dir_up": (
        bert_launch.bert_launch_input_problems,
        BERT,
        {"bert_launch_checkpoint_dir": "/mnt/cpfs/.."},
        "bert_launch_checkpoint_dir must be auto or an absolute path",
    ),
    "bert_data_dir_auto_and_more": (
        bert_launch.bert_launch_input_problems,
        BERT,
        {"bert_launch_data_dir": "autox"},
        "bert_launch_data_dir must be auto or an absolute path (got autox).",
    ),
    "bert_secret_env_newline": (
        bert_launch.bert_launch_input_problems,
        BERT,
        {"bert_launch_secret_env": {"HF_TOKEN": "hf_secret\nX=1"}},
        "bert_launch_secret_env: the value of HF_TOKEN holds a control character",
    ),
    "bert_secret_env_line_separator": (
        bert_launch.bert_launch_input_problems,
        BERT,
        {"bert_launch_secret_env": {"HF_TOKEN": "hf_secret\u2028X=1"}},
        "bert_launch_secret_env: the value of HF_TOKEN holds a control character or a line end",
    ),
    "bert_secret_env_next_line": (
        bert_launch.bert_launch_input_problems,
        BERT,
        {"bert_launch_secret_env": {"HF_TOKEN": "hf_secret\x85X=1"}},
        "bert_launch_secret_env: the value of HF_TOKEN holds a control character or a line end",
    ),
    "bert_secret_env_a_number": (
        bert_launch.bert_launch_input_problems,
        BERT,
        {"bert_launch_secret_env": {"HF_TOKEN": 12345, "HF_HOME": "/x"}},
        "bert_launch_secret_env: the value of HF_TOKEN is not a string (quote it)",
    ),
    "resnet_secret_env_null": (
        resnet_launch.resnet_launch_input_problems,
        RESNET,
        {"resnet_launch_secret_env": {"TOKEN": None}},
        "resnet_launch_secret_env: the value of TOKEN is not a string (quote it)",
    ),
    "bert_secret_env_key": (
        bert_launch.bert_launch_input_problems,
        BERT,
        {"bert_launch_secret_env": {"HF-TOKEN": "hf_secret"}},
        'bert_launch_secret_env\'s keys must be environment variable names (got ["HF-TOKEN"]).',
    ),
    "bert_secret_env_also_public": (
        bert_launch.bert_launch_input_problems,
        BERT,
        {"bert_launch_secret_env": {"NCCL_DEBUG": "hf_secret"}},
        "bert_launch_secret_env and bert_launch_env both set NCCL_DEBUG: a secret goes in one only.",
    ),
    "bert_secret_env_not_a_mapping": (
        bert_launch.bert_launch_input_problems,
        BERT,
        {"bert_launch_secret_env": ["HF_TOKEN=hf_secret"]},
        "bert_launch_secret_env must be a mapping of environment variable names to values.",
    ),
    "resnet_secret_env_also_public": (
        resnet_launch.resnet_launch_input_problems,
        RESNET,
        {"resnet_launch_secret_env": {"OMP_PROC_BIND": "x"}},
        "resnet_launch_secret_env and resnet_launch_env both set OMP_PROC_BIND",
    ),
    "resnet_env_newline": (
        resnet_launch.resnet_launch_input_problems,
        RESNET,
        {"resnet_launch_env": {"OMP_PROC_BIND": "close\nX=1"}},
        "resnet_launch_env: the value of OMP_PROC_BIND holds a control character",
    ),
    "resnet_env_key": (
        resnet_launch.resnet_launch_input_problems,
        RESNET,
        {"resnet_launch_env": {"A-B": "1"}},
        "resnet_launch_env's keys must be environment variable names (got ['A-B']).",
    ),
    "resnet_data_dir_up": (
        resnet_launch.resnet_launch_input_problems,
        RESNET,
        {"resnet_launch_data_dir": "/mnt/cpfs/../etc"},
        "resnet_launch_data_dir (/mnt/cpfs/../etc) must be an absolute path",
    ),
    "aiacc_env_newline": (
        aiacc.aiacc_input_problems,
        AIACC,
        {"aiacc_env": {"PERSEUS_ALLREDUCE_STREAMS": "4\n"}},
        "aiacc_env: the value of PERSEUS_ALLREDUCE_STREAMS holds",
    ),
    "aiacc_venv_up": (
        aiacc.aiacc_input_problems,
        AIACC,
        {"aiacc_venv_path": "/opt/../usr"},
        "aiacc_venv_path (/opt/../usr) must be absolute.",
    ),
    "aiacc_artifacts_dot": (
        aiacc.aiacc_input_problems,
        AIACC,
        {"aiacc_artifacts_path": "/opt/./artifacts"},
        "aiacc_artifacts_path (/opt/./artifacts) must be absolute.",
    ),
    "nccl_check_env_tab": (
        nccl_check.nccl_check_input_problems,
        NCCL_CHECK,
        {"nccl_check_env": {"NCCL_DEBUG": "INFO\t"}},
        "nccl_check_env: the value of NCCL_DEBUG holds",
    ),
    "nccl_check_env_not_a_mapping": (
        nccl_check.nccl_check_input_problems,
        NCCL_CHECK,
        {"nccl_check_env": ["NCCL_DEBUG=INFO"]},
        'nccl_check_env must be a mapping of environment variable names to values, got ["NCCL_DEBUG=INFO"].',
    ),
    "nccl_check_build_dir_up": (
        nccl_check.nccl_check_input_problems,
        NCCL_CHECK,
        {"nccl_check_build_dir": "/opt/../root"},
        "nccl_check_build_dir (/opt/../root) must be absolute",
    ),
    "rdma_artifacts_path_up": (
        rdma.rdma_stack_input_problems,
        RDMA_STACK,
        {"rdma_stack_artifacts_path": "/opt/scc-training/../../tmp"},
        "rdma_stack_artifacts_path must be an absolute path (got /opt/scc-training/../../tmp).",
    ),
    "nic_firmware_image_dir_up": (
        mellanox_fw.nic_firmware_input_problems,
        NIC_FIRMWARE,
        {"nic_firmware_image_dir": "/var/cache/.."},
        "nic_firmware_image_dir (/var/cache/..) must be absolute.",
    ),
    "imagenet_data_dir_up": (
        imagenet.imagenet_prep_input_problems,
        imagenet_settings(),
        {"imagenet_prep_data_dir": "/mnt/cpfs/../etc"},
        "imagenet_prep_data_dir (/mnt/cpfs/../etc) must be an absolute directory on every node.",
    ),
}


# A path through '..' that also lands in the other directory is both problems, each named.
TWICE = {"venv_into_the_wheelhouse_through_up", "wheelhouse_through_up"}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_each_refusal_is_one_problem_naming_its_variable(case):
    function, good, change, text = REFUSED[case]
    assert function(good) == []
    problems = function({**good, **change})
    assert len(problems) == (2 if case in TWICE else 1) and text in problems[0], problems
    if case in TWICE:
        assert "must not be inside python_env_wheelhouse_path" in problems[1]


@pytest.mark.parametrize("variable", ["bert_launch_env", "bert_launch_secret_env"])
def test_a_refused_env_value_is_never_shown(variable):
    (problem,) = bert_launch.bert_launch_input_problems({**BERT, variable: {"TOKEN": "s3cret\n"}})
    assert "s3cret" not in problem


@pytest.mark.parametrize(
    "path, inside",
    [
        ("/mnt/cpfs/wheelhouse/venv", True),
        ("/mnt/cpfs//wheelhouse/./venv", True),
        ("//mnt/cpfs/wheelhouse", True),
        ("/mnt/cpfs/wheelhouse-2/venv", False),
        ("/mnt/cpfs/wheelhouse/../venv", False),
        ("/mnt", False),
    ],
)
def test_inside_compares_the_directories_the_paths_name(path, inside):
    assert input_checks.is_inside(path, "/mnt/cpfs/wheelhouse/") is inside


@pytest.mark.parametrize(
    "value", ["a\nb", "a\rb", "a\x1bb", "a\x7fb", "a\tb"] + ["a%sb" % c for c in input_checks.LINE_ENDS]
)
def test_an_env_file_refuses_a_control_character(value):
    with pytest.raises(ValueError, match="the value of X holds a control character"):
        env_file({"X": value})
    with pytest.raises(ValueError, match="the value of X holds a control character"):
        env_file({"X": value}, secret=True)


def test_line_ends_are_every_character_splitlines_splits_at():
    splitters = {chr(c) for c in range(0x110000) if len(("a%sb" % chr(c)).splitlines()) > 1}
    assert splitters == set(input_checks.LINE_ENDS)


@pytest.mark.parametrize("value", [12345, 1.5, True, None, ["a"], {"a": "b"}])
def test_a_secret_env_file_refuses_a_value_that_is_not_a_string(value):
    with pytest.raises(ValueError, match="the value of TOKEN is not a string"):
        env_file({"TOKEN": value}, secret=True)
    assert env_file({"TOKEN": "s3cret"}, secret=True) == "TOKEN=s3cret\n"


def test_the_launcher_refuses_a_control_character_in_the_ranks_env():
    job = {"argv": ["mpirun", "python"], "mpirun_path": "mpirun", "run_id": "r1", "state_dir": "/run/j"}
    assert "-x" in mpi_job.launcher_argv({**job, "env": {"A": "1"}})
    with pytest.raises(ValueError, match="the value of A holds a control character"):
        mpi_job.launcher_argv({**job, "env": {"A": "1\nB=2"}})


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: role_plans.artifact_plan([{"url": "/srv/a"}], "/srv", {}, "/opt"),
            "artifact_plan: the input lacks 'name'",
        ),
        (
            lambda: role_plans.artifacts_to_copy([{"src": "/srv/a"}], [{"checksum": "0" * 64}], []),
            "artifacts_to_copy: the input lacks 'path'",
        ),
    ],
    ids=["plan_file_without_name", "found_file_without_path"],
)
def test_a_filter_given_incomplete_input_names_what_is_missing(call, message):
    with pytest.raises(AnsibleFilterError, match="^" + message):
        call()


@pytest.mark.parametrize(
    "role, settings, message",
    [
        ("artifact_fetch", {"artifact_fetch_dest": "/opt"}, "role artifact_fetch: its rules read artifact_fetch_"),
        ("bert_launch", {"group_hosts": ["node1"]}, "role bert_launch: its rules read "),
    ],
    ids=["fetch_settings", "bert_settings"],
)
def test_the_input_rules_given_incomplete_input_name_what_is_missing(role, settings, message):
    from ansible.errors import AnsibleLookupError

    from ansible_collections.scc.training.plugins.lookup.role_input_problems import _Settings
    from ansible_collections.scc.training.plugins.module_utils import role_problems

    with pytest.raises(AnsibleLookupError, match="^role_input_problems: " + message):
        role_problems.problems(role, _Settings(role, settings))


@pytest.mark.parametrize(
    "value, ok", [(0, False), (-0.1, False), (0.5, True), (1, True), ("1.0", True), (1.01, False), (None, False)]
)
def test_a_fraction_is_in_0_exclusive_to_1_inclusive(value, ok):
    assert input_checks.fraction(value) is ok


@pytest.mark.parametrize(
    "value, ok", [(0, False), (1, True), (2, True), ("22", True), (65534, True), (65535, True), (65536, False)]
)
def test_a_port_is_1_to_65535(value, ok):
    assert input_checks.is_port(value) is ok
