"""plugins/lookup/role_input_problems.py and plugins/module_utils/role_problems.py: the one route by which every role's
tasks/validate.yml judges its variables (the registry role -> rules, the role's settings from its spec, the extras its
rules read beyond them, each problem one readable line).

The rules themselves are tested in tests/unit/plugins/module_utils/test_input_problems.py and the roles' validate
runs (tests/unit/roles); here the route: that every role is reached, and reached with the values its rules read.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
import yaml
from ansible.errors import AnsibleLookupError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar

from ansible_collections.scc.training.plugins.lookup import role_input_problems
from ansible_collections.scc.training.plugins.module_utils import role_problems

ROOT = Path(__file__).resolve().parents[4]
ROLES_DIR = ROOT / "roles"

try:  # ansible-core 2.19: only trusted strings are templates
    from ansible.template import trust_as_template
except ImportError:  # pragma: no cover - older ansible-core templates every string

    def trust_as_template(value):
        return value


def _run(role, variables, **kwargs):
    lookup = role_input_problems.LookupModule(
        loader=DataLoader(), templar=Templar(loader=DataLoader(), variables=variables)
    )
    return lookup.run([role], variables, **kwargs)


def _defaults(role):
    return yaml.safe_load((ROLES_DIR / role / "defaults" / "main.yml").read_text()) or {}


def _callers():
    """role -> the task files that call the lookup for it."""
    found = {}
    for path in sorted(ROLES_DIR.glob("*/tasks/*.yml")):
        text = path.read_text()
        for role in role_problems.REGISTRY:
            if "lookup('scc.training.role_input_problems', '%s'" % role in text:
                found.setdefault(role, []).append(path.relative_to(ROOT))
    return found


def test_every_registered_role_exists_is_called_and_has_its_function():
    callers = _callers()
    assert sorted(callers) == sorted(role_problems.REGISTRY)
    for role, rules in role_problems.REGISTRY.items():
        assert (ROLES_DIR / role / "meta" / "argument_specs.yml").is_file(), role
        assert (ROLES_DIR / role / "tasks" / "validate.yml") in [ROOT / p for p in callers[role]], role
        module = importlib.import_module("%s.%s" % (role_problems.MODULE_UTILS, rules.module))
        assert callable(getattr(module, rules.function)), (role, rules)


def test_no_role_calls_an_input_problems_filter_any_more():
    for folder in ("roles", "playbooks"):
        for path in sorted((ROOT / folder).rglob("*.yml")):
            text = path.read_text()
            for role in role_problems.REGISTRY:
                assert "scc.training.%s_input_problems" % role not in text, path
    assert "scc.training.cloud_input_problems" not in (ROLES_DIR / "scc_cloud" / "tasks" / "teardown.yml").read_text()


@pytest.mark.parametrize(
    "value, expected",
    [
        (True, True),
        (False, False),
        ("yes", True),
        ("y", True),  # Ansible's BOOLEANS_TRUE has y and t too (convert_bool)
        ("t", True),
        (" True ", True),
        ("True", True),
        ("ON", True),
        ("1", True),
        (1, True),
        ("no", False),
        ("false", False),
        ("0", False),
        (0, False),
        (None, False),
        ("maybe", False),
        ([], False),
    ],
)
def test_as_bool_reads_a_switch_as_the_bool_filter_does(value, expected):
    assert role_problems.as_bool(value) is expected


def test_the_extras_of_a_role_are_added():
    variables = {
        "groups": {"gpu": ["node1", "node2"]},
        "bert_launch_group": "gpu",
        "bert_launch_cpu_only": "yes",
        "_bert_launch_seq_len_min": 8,
        "_bert_launch_seq_len_max": 512,
    }
    settings = role_problems.settings_of(
        "bert_launch",
        {"bert_launch_group": "gpu", "bert_launch_cpu_only": "yes"},
        lambda n, d=None: variables.get(n, d),
    )
    assert settings["group_hosts"] == ["node1", "node2"]
    assert settings["bert_launch_cpu_only"] is True
    assert settings["seq_len_range"] == [8, 512]
    # No such group: no hosts (the rule names the group variable), never an error here.
    get = {"groups": {}, "hosts_file_group": "nope"}.get
    assert role_problems.settings_of("hosts_file", {}, lambda n, d=None: get(n, d))["group_hosts"] == []


def test_cpfs_mount_reads_another_roles_variable_with_its_default():
    get = {"groups": {"g": ["a"]}, "cpfs_mount_group": "g", "_cpfs_mount_refused_protocols": ["smb"]}.get
    settings = role_problems.settings_of("cpfs_mount", {}, lambda n, d=None: get(n, d))
    assert settings["artifact_fetch_mirror_manifests"] == {}
    assert settings["refused_protocols"] == ["smb"] and settings["group_hosts"] == ["a"]


def test_rdma_bandwidth_reads_the_resolved_link_rate():
    get = {"_rdma_bandwidth_link_rate": {"gbps": 200, "source": "x"}}.get
    settings = role_problems.settings_of(
        "rdma_bandwidth", {"rdma_bandwidth_link_rate_gbps": None}, lambda n, d=None: get(n, d)
    )
    assert settings["rdma_bandwidth_link_rate_gbps"] == 200


def test_k8s_training_job_reads_the_launchers_secret_names_only():
    get = {"bert_launch_secret_env": {"WANDB_API_KEY": "s3cret"}}.get
    settings = role_problems.settings_of(
        "k8s_training_job", {"k8s_training_job_workload": "bert"}, lambda n, d=None: get(n, d)
    )
    assert settings["bert_launch_secret_env"] == ["WANDB_API_KEY"] and settings["check_launcher"] is False
    assert "s3cret" not in repr(settings)


def test_the_lookup_judges_a_role_with_its_spec_and_extras():
    defaults = _defaults("openmpi")
    (got,) = _run("openmpi", dict(defaults))
    assert got == []
    (got,) = _run("scc.training.openmpi", dict(defaults, openmpi_packages=["openmpi-bin libopenmpi-dev"]))
    assert len(got) == 1 and "openmpi_packages" in got[0]


def test_the_lookup_coerces_a_switch_before_the_rules_read_it():
    """aiacc_cpu_only given as a string 'yes' (a templated default renders one): the role is skipped as on a CPU
    cluster, as `| bool` did in validate.yml."""
    variables = {k: v for k, v in _defaults("aiacc").items() if not (isinstance(v, str) and "{{" in v)}
    variables["aiacc_cpu_only"] = trust_as_template("{{ 'yes' }}")
    settings = {}
    original = role_problems.problems

    def spy(role, found):
        settings.update(found)
        return original(role, found)

    role_problems.problems, saved = spy, role_problems.problems
    try:
        _run("aiacc", variables)
    finally:
        role_problems.problems = saved
    assert settings["aiacc_cpu_only"] is True


def test_each_problem_is_one_readable_line():
    defaults = _defaults("openmpi")
    (got,) = _run("openmpi", dict(defaults, openmpi_packages=["bad\u2028name " + "x" * 500]))
    assert got and all("\u2028" not in p and "\n" not in p and len(p) < 2200 for p in got)


def test_a_variable_the_rules_read_but_lack_is_named():
    with pytest.raises(AnsibleLookupError, match=r"role_input_problems: role cpfs_mount: its rules read \w+"):
        role_input_problems._Settings("cpfs_mount", {})["cpfs_mount_path"]


def test_an_unknown_role_or_option_is_refused_by_name():
    with pytest.raises(AnsibleLookupError, match="no_such_role"):
        _run("no_such_role", {})
    # A role with a spec but no rules of its own (cluster_report's are a few asserts in its validate.yml).
    with pytest.raises(AnsibleLookupError, match="no input rules for role 'cluster_report'"):
        _run("cluster_report", {})
    with pytest.raises(AnsibleLookupError, match="only entry_point"):
        _run("openmpi", {}, bogus=1)
    with pytest.raises(AnsibleLookupError, match="no entry point 'nope'"):
        _run("openmpi", {}, entry_point="nope")


def test_scc_cloud_teardown_reads_its_own_entry_point():
    (got,) = _run("scc_cloud", {}, entry_point="teardown")
    assert isinstance(got, list) and all(isinstance(p, str) for p in got)


def test_the_lookup_reads_the_groups_hosts_for_the_group_rule():
    variables = {k: v for k, v in _defaults("hosts_file").items() if not (isinstance(v, str) and "{{" in v)}
    variables.update(hosts_file_group="gpu", groups={"gpu": ["node1", "node2"], "all": ["node1", "node2"]})
    (got,) = _run("hosts_file", variables)
    assert not [p for p in got if "hosts_file_group" in p], got
    (got,) = _run("hosts_file", dict(variables, groups={"all": []}))
    assert [p for p in got if "hosts_file_group" in p], got
