"""aiacc_component: which AIACC component the launchers' frameworks need (prepare.yml installs the aiacc role,
validate.yml checks it, only then), and the refusal of two different ones in python_env's one venv."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.filter.envfile import FilterModule
from ansible_collections.scc.training.plugins.module_utils.aiacc import aiacc_component

FILTER = FilterModule().filters()["aiacc_component"]


@pytest.mark.parametrize(
    "bert, resnet, expected",
    [
        ("torch", "torch", ""),
        ("horovod", "torch", ""),
        ("aiacc", "torch", "aiacc"),
        # ResNet alone asks for it: the BERT-only condition this replaces missed this case.
        ("torch", "acspeed", "acspeed"),
        ("acspeed", "acspeed", "acspeed"),
    ],
)
def test_the_component_any_launcher_asks_for(bert, resnet, expected):
    frameworks = {"bert_launch_framework": bert, "resnet_launch_framework": resnet}
    assert aiacc_component(frameworks) == expected
    assert FILTER(frameworks) == expected


def test_two_different_components_are_refused_naming_both_variables():
    with pytest.raises(AnsibleFilterError) as caught:
        FILTER({"resnet_launch_framework": "acspeed", "bert_launch_framework": "aiacc"})
    message = str(caught.value)
    assert "bert_launch_framework=aiacc and resnet_launch_framework=acspeed" in message
    assert "aiacc_framework" in message


def test_a_list_is_refused():
    with pytest.raises(AnsibleFilterError, match="expected a dict"):
        FILTER(["aiacc"])
