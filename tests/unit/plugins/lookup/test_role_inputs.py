"""plugins/lookup/role_inputs.py: a role's inputs come from its argument spec, never from a second hand list.

- the lookup returns exactly the options of the spec's entry point (every role, both entry points), each
  templated, null when the variable is not defined;
- no role lists its own variable names by hand again (tasks/ or vars/): every role judges its settings through
  the lookup role_input_problems (which reads them as this one does), for its own name;
- the choices that Python no longer judges are still in the specs (the one place they are checked).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from ansible.errors import AnsibleLookupError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar

from ansible_collections.scc.training.plugins.lookup import role_inputs

ROOT = Path(__file__).resolve().parents[4]
ROLES_DIR = ROOT / "roles"
ROLES = sorted(p.name for p in ROLES_DIR.iterdir() if (p / "meta" / "argument_specs.yml").is_file())

try:  # ansible-core 2.19: only trusted strings are templates
    from ansible.template import trust_as_template
except ImportError:  # pragma: no cover - older ansible-core templates every string

    def trust_as_template(value):
        return value


def _spec(role):
    return yaml.safe_load((ROLES_DIR / role / "meta" / "argument_specs.yml").read_text())["argument_specs"]


def _run(role, variables, **kwargs):
    lookup = role_inputs.LookupModule(loader=DataLoader(), templar=Templar(loader=DataLoader(), variables=variables))
    return lookup.run([role], variables, **kwargs)


def test_the_plugin_finds_this_collections_roles():
    assert Path(role_inputs.ROLES_DIR).resolve() == ROLES_DIR.resolve()


@pytest.mark.parametrize("role", ROLES)
def test_the_lookup_returns_exactly_the_specs_options(role):
    spec = _spec(role)
    for entry_point, body in spec.items():
        options = list((body or {}).get("options") or {})
        assert role_inputs.spec_options(role, entry_point) == options, (role, entry_point)
    defaults = yaml.safe_load((ROLES_DIR / role / "defaults" / "main.yml").read_text()) or {}
    # Only the plain defaults: a templated one may read variables of the play (scc_cpu_only, another role's).
    plain = {k: v for k, v in defaults.items() if not (isinstance(v, str) and "{{" in v)}
    (got,) = _run("scc.training." + role, plain)
    assert list(got) == list(spec["main"]["options"])
    assert all(got[name] == value for name, value in plain.items())
    assert all(got[name] is None for name in got if name not in plain and name not in defaults)


def test_values_are_templated_and_undefined_options_are_null():
    variables = {
        "scc_cluster_group": "gpu_nodes",
        "hosts_file_group": trust_as_template("{{ scc_cluster_group }}"),
        "hosts_file_path": "/etc/hosts",
    }
    (got,) = _run("hosts_file", variables)
    assert got["hosts_file_group"] == "gpu_nodes" and got["hosts_file_path"] == "/etc/hosts"
    assert got["hosts_file_marker"] is None
    assert "scc_cluster_group" not in got


def test_an_unknown_role_or_entry_point_is_refused_by_name():
    with pytest.raises(AnsibleLookupError, match="no_such_role"):
        _run("no_such_role", {})
    with pytest.raises(AnsibleLookupError, match="no entry point 'nope'"):
        _run("hosts_file", {}, entry_point="nope")
    with pytest.raises(AnsibleLookupError, match="not a role name"):
        _run("../roles/hosts_file", {})


def _name_lists(role, node, key=None):
    """(key, list) for every YAML list of two or more strings, each one of the role's own variable names: a hand list
    of its inputs (tags excepted)."""
    own = re.compile(r"^%s_[a-z0-9_]+$" % re.escape(role))
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _name_lists(role, v, k)
    elif isinstance(node, list):
        if key != "tags" and len(node) >= 2 and all(isinstance(i, str) and own.match(i) for i in node):
            yield key, node
        for item in node:
            yield from _name_lists(role, item, key)


@pytest.mark.parametrize("role", ROLES)
def test_no_role_lists_its_inputs_by_hand(role):
    problems = []
    for folder in ("tasks", "vars"):
        for path in sorted((ROLES_DIR / role / folder).glob("*.yml")):
            rel = path.relative_to(ROOT)
            problems += [
                "%s: %s lists %s by hand" % (rel, key, names)
                for key, names in _name_lists(role, yaml.safe_load(path.read_text()))
            ]
    validate = ROLES_DIR / role / "tasks" / "validate.yml"
    text = validate.read_text() if validate.is_file() else ""
    if "query('ansible.builtin.vars'" in text:
        problems.append("%s: variables by a list of names" % validate.relative_to(ROOT))
    if (
        "scc.training.role_input_problems" in text
        and "lookup('scc.training.role_input_problems', '%s'" % role not in text
    ):
        problems.append("%s: role_input_problems judges another role's settings" % validate.relative_to(ROOT))
    if "_input_problems }}" in text.replace("scc_cluster_input_problems }}", ""):
        problems.append(
            "%s: a <role>_input_problems filter (the route is role_input_problems)" % validate.relative_to(ROOT)
        )
    assert not problems, problems


def test_the_hand_list_check_finds_one():
    play = yaml.safe_load(
        "- vars:\n    __names: [hosts_file_group, hosts_file_path]\n  tags: [hosts_file_a, hosts_file_b]\n"
    )
    assert list(_name_lists("hosts_file", play)) == [("__names", ["hosts_file_group", "hosts_file_path"])]


@pytest.mark.parametrize(
    "role, option, choices",
    [
        # k8s_jobs.py: cpfs_volume_problems, training_job_problems
        (
            "k8s_cpfs_volume",
            "k8s_cpfs_volume_access_mode",
            ["ReadWriteMany", "ReadWriteOnce", "ReadOnlyMany", "ReadWriteOncePod"],
        ),
        ("k8s_cpfs_volume", "k8s_cpfs_volume_reclaim_policy", ["Retain", "Delete"]),
        ("k8s_training_job", "k8s_training_job_workload", ["bert", "resnet"]),
        # _gpu_matrix.py: _check_kernel_modules
        ("nvidia_driver", "nvidia_driver_kernel_modules", ["proprietary", "open"]),
        # bert_levers.py: the choice levers
        ("bert_launch", "bert_launch_mlm_head", ["auto", "full", "masked"]),
        ("bert_launch", "bert_launch_attention", ["auto", "eager", "sdpa"]),
        ("bert_launch", "bert_launch_optimizer", ["auto", "adamw", "lamb"]),
        ("bert_launch", "bert_launch_fused_adamw", ["auto", "on", "off"]),
        ("bert_launch", "bert_launch_ddp_compression", ["auto", "none", "fp16", "bf16"]),
        ("bert_launch", "bert_launch_data", ["auto", "inline", "shards"]),
        # ack.py: ack_input_problems
        ("scc_cloud", "scc_cloud_ack_cluster_spec", ["ack.pro.small", "ack.standard"]),
    ],
)
def test_choices_python_no_longer_judges_are_in_the_spec(role, option, choices):
    for entry_point, body in _spec(role).items():
        options = body.get("options") or {}
        if option in options:
            assert options[option].get("choices") == choices, (role, entry_point, option)
