"""The RFC 1123 host-name rule (cluster.host_name_problems) at its edges: a leading hyphen alone (a name ssh would
read as an option), the last hyphen, 253 characters in all and 63 per label, each on either side of the bound."""

from __future__ import annotations

import pytest

from ansible_collections.scc.training.plugins.module_utils.cluster import host_name_problems


@pytest.mark.parametrize(
    "name",
    ["node1", "n", "1node", "gpu-node-01", "node1.cluster.example", "node1.", "a" * 63, "10.0.0.1"],
)
def test_a_host_name_passes(name):
    assert host_name_problems([name]) == []


@pytest.mark.parametrize(
    "name",
    ["-v", "-oProxyCommand=x", "node-", "-", "a" * 64, "node_1", "node 1", "node..x", "", ".node"],
    ids=["dash_v", "ssh_option", "trailing_hyphen", "hyphen_alone", "label_64", "underscore", "space", "empty_label",
         "empty", "leading_dot"],
)  # fmt: skip
def test_a_name_that_is_not_a_host_name_is_refused(name):
    assert host_name_problems([name]) == [
        "%r is not an RFC 1123 host name (letters, digits and inner hyphens, dot-separated labels of 1-63 "
        "characters, 253 in all)" % name
    ]


def test_253_characters_pass_and_254_are_refused():
    at_most = ".".join(["a" * 63] * 3 + ["a" * 61])
    over = ".".join(["a" * 63] * 3 + ["a" * 62])
    assert (len(at_most), len(over)) == (253, 254)
    assert host_name_problems([at_most]) == []
    assert len(host_name_problems([over])) == 1


def test_each_bad_name_is_one_problem_in_order():
    assert [p.split(" ")[0] for p in host_name_problems(["node1", "-v", "node2", "x_y"])] == ["'-v'", "'x_y'"]
