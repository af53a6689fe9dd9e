"""plugins/lookup/role_plan.py and plugins/plugin_utils/role_plans.py: the route by which the roles reach their own
computations (issue 38: no role-internal filter is published).

Here the route: a plan's result keeps its type through ansible-core's lookup() (one-element list unwrapped: a str, an
int, a dict, a list, a bool), keyword arguments reach the plan, hostvars come from the lookup's variables, errors name
the plan. The plans themselves are tested with their module_utils (tests/unit/plugins/filter, module_utils); that every
registered plan is called by a role and every role call names one: tests/unit/test_public_filters.py. This file runs on
every ansible-core of the matrix (tests/ansible_core/run.sh: tests/unit/plugins/lookup).
"""

from __future__ import annotations

import pytest
from ansible import constants as C
from ansible.errors import AnsibleError, AnsibleLookupError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar

from ansible_collections.scc.training.plugins.lookup import role_plan
from ansible_collections.scc.training.plugins.plugin_utils import role_plans

try:  # ansible-core 2.19: only trusted strings are templates
    from ansible.template import trust_as_template
except ImportError:  # pragma: no cover - older ansible-core templates every string

    def trust_as_template(value):
        return value


NODES = [
    {"host": "node1", "address": "10.0.0.1", "names": ["node1"], "peer_names": ["node1"]},
    {"host": "node2", "address": "10.0.0.2", "names": ["node2"], "peer_names": ["node2"]},
]


def _run(terms, variables=None, **kwargs):
    lookup = role_plan.LookupModule(
        loader=DataLoader(), templar=Templar(loader=DataLoader(), variables=variables or {})
    )
    return lookup.run(terms, variables or {}, **kwargs)


def _template(expression, variables=None):
    """``{{ expression }}`` rendered as a task's argument is (native types, lookup() as the roles call it)."""
    templar = Templar(loader=DataLoader(), variables=variables or {})
    return templar.template(trust_as_template("{{ %s }}" % expression))


def test_the_lookup_returns_one_element_the_plans_result():
    assert _run(["bandwidth_round_count", 4, 1]) == [6]
    assert _run(["cluster_hosts_block", NODES]) == [role_plans.cluster_hosts_block(NODES)]
    assert _run(["bandwidth_round_side", 0, 4, 2]) == [role_plans.bandwidth_round_side(0, 4, 2)]


@pytest.mark.parametrize(
    ("expression", "expected_type"),
    [
        ("lookup('scc.training.role_plan', 'bandwidth_round_side', 0, 4, 2)", dict),
        ("lookup('scc.training.role_plan', 'cluster_ring_peers', ['a', 'b', 'c'], 'b')", list),
        ("lookup('scc.training.role_plan', 'pip_hash_mismatches', '')", list),
        ("lookup('scc.training.role_plan', 'cluster_hosts_block', nodes)", str),
        ("lookup('scc.training.role_plan', 'mpijob_conflict', none, {'spec': {}})", str),
    ],
)
def test_lookup_keeps_the_type_of_the_result(expression, expected_type):
    value = _template(expression, {"nodes": NODES})
    assert isinstance(value, expected_type), (expression, type(value))


@pytest.mark.parametrize(
    "test",
    [
        "lookup('scc.training.role_plan', 'bandwidth_round_count', 4, 1) is number",
        "lookup('scc.training.role_plan', 'bandwidth_round_count', 4, 1) + 1 == 7",
        "lookup('scc.training.role_plan', 'bandwidth_round_side', 0, 4, 2) is mapping",
        "lookup('scc.training.role_plan', 'cluster_ring_peers', ['a', 'b', 'c'], 'b') | length == 2",
        "lookup('scc.training.role_plan', 'cluster_hosts_block', nodes) is string",
        "lookup('scc.training.role_plan', 'cluster_hosts_block', nodes) is not mapping",
    ],
)
def test_within_an_expression_the_result_is_the_plans_value(test):
    # Inside one expression every ansible-core has the native value (2.16 to 2.18 render a whole template's int as
    # text, as they do a filter's: the roles write "| int" where they need a number in a variable).
    assert _template(test, {"nodes": NODES}) is True, test


def test_a_one_element_list_or_an_empty_one_is_not_unwrapped_twice():
    # ansible-core unwraps the lookup's own list only: a plan's list of one keeps its list, an empty one stays [].
    assert _template("lookup('scc.training.role_plan', 'cluster_ring_peers', ['a', 'b'], 'a')") == ["b"]
    assert _template("lookup('scc.training.role_plan', 'pip_hash_mismatches', 'all fine')") == []
    value = _template("lookup('scc.training.role_plan', 'mpi_framework_modules', 'horovod')")
    assert list(value) == list(role_plans.mpi_framework_modules("horovod")) and not isinstance(value, str)


def test_a_bool_and_keyword_arguments_reach_the_plan():
    expected = role_plans.cluster_node_problems(NODES, "interface lo", True, False)
    assert _run(["cluster_node_problems", NODES, "interface lo", True, False]) == [expected]
    outcome = _template(
        "lookup('scc.training.role_plan', 'dcgm_diag_outcome', {'stdout': '', 'stderr': '', 'rc': 0}, mode='false')"
    )
    assert outcome == role_plans.dcgm_diag_outcome({"stdout": "", "stderr": "", "rc": 0}, mode="false")


def test_hostvars_come_from_the_lookups_variables_never_a_term():
    hostvars = {"node1": {"scc_gpu_count": 8}, "node2": {"mpi_hostfile_slots": 2}}
    assert _run(["mpi_hostfile_slots", ["node1", "node2"]], {"hostvars": hostvars}) == [
        [{"host": "node1", "slots": 8}, {"host": "node2", "slots": 2}]
    ]
    assert _template("lookup('scc.training.role_plan', 'mpi_hostfile_slots', ['node1'])", {"hostvars": hostvars}) == [
        {"host": "node1", "slots": 8}
    ]
    raw = {"node1": {"raw": {"content": "eyJ0IjogMX0K"}}}  # base64 of '{"t": 1}\n'
    assert _run(["fabric_samples", ["node1", "node2"], "raw"], {"hostvars": raw}) == [{"node1": [{"t": 1}]}]


@pytest.mark.parametrize(
    ("terms", "kwargs", "message"),
    [
        ([], {}, r"^role_plan: the first term must be a plan's name"),
        (["no_such_plan"], {}, r"^role_plan: no plan 'no_such_plan' \(known: .*bandwidth_matrix"),
        ([["a list"]], {}, r"^role_plan: no plan \['a list'\]"),
        (["bandwidth_round_count"], {}, r"^role_plan: bandwidth_round_count\(node_count, rails=1\): missing"),
        (
            ["cluster_ring_peers", ["a"], "a"],
            {"scope": "x", "other": 1},
            r"^role_plan: cluster_ring_peers\(.*unexpected",
        ),
        (["cluster_hosts_block", "not a list"], {}, r"^cluster_hosts_block: the input \(cluster_addresses' nodes\)"),
        (["bandwidth_round_side", 5, 4, 0], {}, r"^bandwidth_round_side: "),
    ],
)
def test_errors_are_lookup_errors_naming_the_plan(terms, kwargs, message):
    with pytest.raises(AnsibleLookupError, match=message):
        _run(terms, **kwargs)


def test_a_templated_error_names_the_plan():
    with pytest.raises(AnsibleError, match="bandwidth_round_side: "):
        _template("lookup('scc.training.role_plan', 'bandwidth_round_side', 5, 4, 0)")


def test_with_unsafe_lookups_allowed_a_plan_runs_where_it_is_unwrapped_and_is_refused_where_not(monkeypatch):
    # The real templar of the ansible-core under test (the ansible-core matrix runs this file on 2.16 to 2.18).
    monkeypatch.setattr(C, "DEFAULT_ALLOW_UNSAFE_LOOKUPS", True)
    expression = "lookup('scc.training.role_plan', 'bandwidth_round_count', 4, 1)"
    if role_plan.unsafe_lookups_keep_the_list():
        with pytest.raises(AnsibleError, match="allow_unsafe_lookups is on"):
            _template(expression)
    else:
        assert _template(expression) == 6


def test_unsafe_lookups_keep_the_list_before_2_19_only(monkeypatch):
    monkeypatch.setattr(C, "DEFAULT_ALLOW_UNSAFE_LOOKUPS", True)
    assert role_plan.unsafe_lookups_keep_the_list("2.16.14") and role_plan.unsafe_lookups_keep_the_list("2.18.0")
    assert not role_plan.unsafe_lookups_keep_the_list("2.19.4") and not role_plan.unsafe_lookups_keep_the_list("3.0.0")
    monkeypatch.setattr(C, "DEFAULT_ALLOW_UNSAFE_LOOKUPS", False)
    assert not role_plan.unsafe_lookups_keep_the_list("2.16.14")
