# -*- coding: utf-8 -*-
"""plugins/plugin_utils/filter_errors.py: the type checks and the errors that name the filter."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    require_list,
    require_mapping,
    require_settings,
    require_text,
)


def test_require_text():
    assert require_text("out", "parse_x") == "out"
    with pytest.raises(AnsibleFilterError, match=r"^parse_x: input must be the command's output as a string, got int$"):
        require_text(3, "parse_x")
    with pytest.raises(AnsibleFilterError, match=r"^parse_x: input must be the XML text, got NoneType$"):
        require_text(None, "parse_x", "the XML text")


def test_require_mapping():
    value = {"a": 1}
    assert require_mapping(value, "f") is value
    with pytest.raises(AnsibleFilterError, match=r"^f: input must be a dict, got list$"):
        require_mapping([1], "f")
    with pytest.raises(AnsibleFilterError, match=r"^f: hostvars must be a mapping, got str$"):
        require_mapping("node1", "f", "hostvars must be a mapping")


@pytest.mark.parametrize("value", [("a", "b"), ["a", "b"], iter(["a", "b"])])
def test_require_list_takes_any_iterable_of_items(value):
    assert require_list(value, "f") == ["a", "b"]


@pytest.mark.parametrize("value, kind", [("ab", "str"), (b"ab", "bytes"), ({"a": 1}, "dict"), (3, "int")])
def test_require_list_refuses_text_mappings_and_scalars(value, kind):
    """Text and a mapping iterate too (characters, keys): taking them would judge the wrong items."""
    with pytest.raises(AnsibleFilterError, match=r"^f: input must be a list of node names, got %s$" % kind):
        require_list(value, "f", "input must be a list of node names")


def test_filter_call_names_the_filter_and_keeps_the_cause():
    assert filter_call("f", int, "7") == 7
    with pytest.raises(AnsibleFilterError, match=r"^f: invalid literal") as info:
        filter_call("f", int, "x")
    assert isinstance(info.value.__cause__, ValueError)


def test_filter_call_names_the_key_the_input_lacks():
    with pytest.raises(AnsibleFilterError, match=r"^f: the input lacks 'k'$") as info:
        filter_call("f", {}.__getitem__, "k")
    assert isinstance(info.value.__cause__, KeyError)
    with pytest.raises(TypeError):
        filter_call("f", len, 3)


def test_require_settings_names_the_missing_variable():
    settings = require_settings({"a_x": 1}, "a_input_problems")
    assert settings["a_x"] == 1 and settings.get("a_y", 2) == 2 and dict(settings) == {"a_x": 1}
    with pytest.raises(AnsibleFilterError, match=r"^a_input_problems: the input lacks the variable a_y$"):
        settings["a_y"]
