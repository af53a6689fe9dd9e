"""Issue 36: a validator's pattern ends at the value's very end. Python's `$` also matches before a final newline, so
"train\\n" passed as a cluster name, an instance type or a DNS label and reached an API request or a manifest; each
validator below accepts the value and refuses the same value with a newline after it."""

from __future__ import annotations

import pytest

from ansible_collections.scc.training.plugins.module_utils import ack, data_prep, envfile, input_checks, k8s_jobs

GOOD_CLUSTER = {"name": "train", "state": "present", "vpc_id": "vpc-abc", "vswitch_ids": ["vsw-abc"]}


def ack_name(value):
    return [e for e in ack.validate_cluster({**GOOD_CLUSTER, "name": value}) if e.startswith("name ")]


def ack_vswitch(value):
    return [e for e in ack.validate_cluster({**GOOD_CLUSTER, "vswitch_ids": [value]}) if "vswitch_ids" in e]


def ack_instance(value):
    return [e for e in ack.validate_nodes({"cluster_id": "c123", "instance_ids": [value]}) if "instance_ids" in e]


def env_name(value):
    try:
        envfile.env_file({value: "1"})
    except ValueError as error:
        return [str(error)]
    return []


CASES = [
    ("ack cluster name", ack_name, "train"),
    ("ack vSwitch id", ack_vswitch, "vsw-abc"),
    ("ack instance id", ack_instance, "i-abc123"),
    ("data-prep instance type", data_prep._instance_type_problems, "ecs.g7.8xlarge"),
    ("DNS label", lambda value: k8s_jobs._label_problem("k8s_training_job_name", value), "bert-run"),
    ("a pattern check", lambda value: [] if input_checks.pattern(r"^[a-z]+$")(value) else ["no"], "abc"),
    ("a sha256", lambda value: [] if input_checks.SHA256.match(value) else ["no"], "0" * 64),
    ("an environment file's name", env_name, "HF_HOME"),
]


@pytest.mark.parametrize(("validator", "good"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_the_value_passes_and_the_same_with_a_final_newline_is_refused(validator, good):
    assert validator(good) == []
    assert validator(good + "\n") != []
