"""plugins/lookup/hardware.py: the fact scc_hardware when set (resolved once), else the same fact resolved from the
declaration (a role run without validate.yml); dotted keys; errors naming the variable."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleLookupError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar

from ansible_collections.scc.training.plugins.lookup import hardware
from ansible_collections.scc.training.plugins.module_utils.hardware_fact import cluster_fact

try:  # ansible-core 2.19: only trusted strings are templates
    from ansible.template import trust_as_template
except ImportError:  # pragma: no cover - older ansible-core templates every string

    def trust_as_template(value):
        return value


def _run(variables, *terms, **options):
    lookup = hardware.LookupModule(loader=DataLoader(), templar=Templar(loader=DataLoader(), variables=variables))
    return lookup.run(list(terms), variables, **options)


def test_the_kept_fact_is_returned_as_is():
    # A fact that differs from what the declaration would give proves the fact, not a second resolution, is read.
    kept = dict(cluster_fact("ebmgn8is"), source="nodes")
    assert _run({"scc_hardware": kept, "scc_instance_type": "sccgn6"}) == [kept]
    assert _run({"scc_hardware": kept}, "compute_capability", "rdma_stack.source") == ["8.9", "erdma"]


def test_without_the_fact_the_declaration_resolves_it_templated():
    variables = {"family": "ebmgn8v", "scc_instance_type": trust_as_template("ecs.{{ family }}.48xlarge")}
    (fact,) = _run(variables)
    assert (fact["family"], fact["source"], fact["rdma_stack"]["source"]) == ("ebmgn8v", "scc_instance_type", "erdma")
    assert _run({"scc_jumbo_frames": "true", "scc_instance_type": "ebmgn8v"}, "rdma_stack.netdev_mtu") == [8500]
    assert _run({}, "compute_capability", "source") == ["7.0", "default"]
    assert _run({"scc_gpu_compute_capability": "9.0"}, "compute_capability") == ["9.0"]


def test_errors_name_the_variable_or_the_key():
    with pytest.raises(AnsibleLookupError, match="scc_instance_type='gn99'"):
        _run({"scc_instance_type": "gn99"})
    with pytest.raises(AnsibleLookupError, match=r"no key 'rdma\.nope'"):
        _run({}, "rdma.nope")
    with pytest.raises(AnsibleLookupError, match="unknown option"):
        hardware.LookupModule(loader=DataLoader(), templar=Templar(loader=DataLoader())).run([], {}, nodes={})


def test_contradictions_read_the_settings_by_name_templated():
    """contradictions=true: the settings named in hardware_fact.CONTRADICTION_SETTINGS, read from the variables in
    scope (templated), judged against the fact; one list, the lookup's one value."""
    variables = {
        "scc_instance_type": "ecs.ebmgn8v.48xlarge",
        "gpus": 9,
        "gpu_health_expected_gpus": trust_as_template("{{ gpus }}"),
        "rdma_stack_source": "erdma",
        "unrelated_gpus": 99,
    }
    (problems,) = _run(dict(variables, scc_gpu_compute_capability="7.0"), contradictions=True)
    assert [p.split("=")[0] for p in problems] == ["scc_gpu_compute_capability", "gpu_health_expected_gpus"], problems
    assert "gpu_health_expected_gpus=9 contradicts scc_instance_type=ecs.ebmgn8v.48xlarge (ebmgn8v)" in problems[1]
    assert _run({"scc_instance_type": "ebmgn8v", "nccl_check_gpus": 8}, contradictions="true") == [[]]
    # The kept fact decides: a fact resolved from the nodes (nothing declared) contradicts nothing.
    kept = dict(cluster_fact(None), source="nodes")
    assert _run({"scc_hardware": kept, "gpu_health_expected_gpus": 99}, contradictions=True) == [[]]
    assert _run({"gpu_health_expected_gpus": 99}, contradictions=False) == [cluster_fact(None)]


def test_contradictions_take_no_key_and_a_boolean():
    with pytest.raises(AnsibleLookupError, match="contradictions=true takes no key"):
        _run({}, "family", contradictions=True)
    with pytest.raises(AnsibleLookupError, match=r"contradictions \('maybe'\) must be true or false"):
        _run({}, contradictions="maybe")
