"""variable_names: the names of the collection's namespaces that nothing declares, and group_vars Ansible skips."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ansible_collections.scc.training.plugins.module_utils import variable_names as vn
from lab.cluster import LAB_GROUP_VARS

ROOT = Path(__file__).resolve().parents[4]
ROLES = vn.role_names(str(ROOT))
PREFIXES = vn.namespaces(ROLES)
DECLARED = vn.declared_names(str(ROOT), ROLES)


def test_the_namespaces_are_scc_and_every_role():
    assert "scc_" in PREFIXES and "bert_launch_" in PREFIXES and "nccl_check_" in PREFIXES
    assert len(PREFIXES) == len(ROLES) + 1 and len(ROLES) >= 30


def test_spec_options_published_facts_and_cluster_settings_are_declared():
    # An option of a spec, a fact a role publishes, a cluster-wide setting a role reads only through default().
    for name in ("bert_launch_batch_size", "gpu_health_report", "scc_healthy_nodes", "scc_transport"):
        assert name in DECLARED, name


@pytest.mark.parametrize(
    ("typo", "meant"),
    [
        ("bert_launch_batchsize", "bert_launch_batch_size"),
        ("scc_instance_typ", "scc_instance_type"),
        ("nccl_check_min_busbw", None),
    ],
)
def test_a_misspelt_name_is_named_with_the_closest_declared_one(typo, meant):
    if meant is not None:
        assert meant in DECLARED
    (warning,) = vn.undeclared_variables({"node1": [typo, "bert_launch_steps"]}, DECLARED, PREFIXES)
    assert warning.startswith("%s (set for node1) is not a variable of scc.training" % typo)
    if meant:
        assert warning.endswith("did you mean %s?" % meant)


def test_names_outside_the_namespaces_and_declared_names_draw_nothing():
    names = ["ansible_host", "ecs_private_ip", "my_own_var", "__bert_launch_run", "bert_launch_steps"]
    assert vn.undeclared_variables({"node1": names}, DECLARED, PREFIXES) == []


def test_one_warning_per_name_naming_its_nodes_and_how_many_more():
    by_node = {"node%d" % i: ["scc_transprot"] for i in range(1, 8)}
    by_node["node8"] = ["ib_check_expected_port"]
    warnings = vn.undeclared_variables(by_node, DECLARED, PREFIXES)
    assert len(warnings) == 2
    assert warnings[1].startswith("scc_transprot (set for node1, node2, node3 and 4 more)")
    assert "did you mean scc_transport?" in warnings[1]
    assert warnings[0].startswith("ib_check_expected_port (set for node8)")


def _shipped_variable_names():
    """Every variable the shipped inventories, examples, the lab and molecule set for the cluster."""
    names = set(LAB_GROUP_VARS)
    for path in [*ROOT.glob("inventories/**/*.yml"), *ROOT.glob("molecule/**/*.yml"), *ROOT.glob(".config/**/*.yml")]:
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            stack = [doc]
            while stack:
                item = stack.pop()
                if isinstance(item, dict):
                    names.update(k for k in item if isinstance(k, str))
                    stack.extend(item.values())
                elif isinstance(item, list):
                    stack.extend(item)
    return names


def test_no_shipped_example_lab_or_molecule_variable_draws_a_warning():
    names = _shipped_variable_names()
    assert {"scc_cloud_instance_type", "bert_launch_model_size", "scc_instance_type"} <= names
    assert vn.undeclared_variables({"shipped": names}, DECLARED, PREFIXES) == []


def test_comments_do_not_declare_a_name():
    text = "# bert_launch_old_name was removed\nbert_launch_steps: 10  # not bert_launch_other\n"
    assert vn.names_in_yaml_text(text, PREFIXES) == {"bert_launch_steps"}


def test_group_vars_of_a_group_the_inventory_lacks_are_named(tmp_path):
    group_vars = tmp_path / "group_vars"
    (group_vars / "gpu_nodes").mkdir(parents=True)
    for name in ("scc_cluster.yml", "all.yml", "gpus.json", ".hidden.yml"):
        (group_vars / name).write_text("---\n")
    warnings = vn.stale_group_vars([str(tmp_path), None], {"gpu_nodes": ["n1"], "gpu": ["n1"]})
    assert [w.split(" holds ")[0] for w in warnings] == [
        str(group_vars / "gpus.json"),
        str(group_vars / "scc_cluster.yml"),
    ]
    assert "group gpus, which the inventory does not have" in warnings[0] and "did you mean group gpu" in warnings[0]
    assert vn.stale_group_vars([str(tmp_path / "none")], {}) == []
