"""Issue 36.5: one table over every bad-input case of `make test`, each refusal's message naming the variable given
and no unrelated variable of the collection (tests/refusal_names.py), and no Python error from any of them.

The tables, each kept beside the code it tests and read here:
* the roles' validate.yml cases (tests/unit/roles/*/test_*validate*.py; judged by Ansible in one run per role,
  tests/unit/roles/validate_runner.py, shared with those modules: no second run);
* the roles' <role>_input_problems cases (tests/unit/plugins/module_utils/test_input_problems.py: BAD, ONE_VARIABLE);
* provision.yml's scc_cloud_* cases (tests/unit/plugins/module_utils/test_cloud_inputs.py);
* validate.yml's own checks (below: scc_launcher, scc_instance_type, scc_jumbo_frames), with odd types.
A case names the variable given (or its refusal's expected text does); a rule across variables may also name the
variables the case sets or its expected text names, no other. `python tests/unit/test_refusal_cases.py` prints the
count of distinct bad-input cases per table; test_there_are_at_least_150 holds the floor.
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import pytest
import yaml

if __name__ == "__main__":  # python tests/unit/test_refusal_cases.py: the repo root on the path, as pytest has it
    sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[2] / ".collections")]

from ansible_collections.scc.training.plugins.module_utils import cloud_inputs, instance_families, k8s_jobs
from tests.refusal_names import ROOT, assert_names_only, named, variables
from tests.unit.roles import validate_runner

HUGE = "x" * 100_000
ODD = (None, ["a"], {"a": 1}, 7, 2.5, True, HUGE, "a\u2028b", "a\x85b")

# validate.yml's own checks (playbooks/validate.yml: the launcher, the cluster-wide instance type and jumbo frames).
VALIDATE_YML = {
    **{
        f"scc_launcher_{i}": (k8s_jobs.launcher_problems, value, "scc_launcher")
        for i, value in enumerate(("slurm", "MPIRUN", "mpirun\n", "", *ODD))
    },
    **{
        f"scc_instance_type_{i}": (
            lambda value: instance_families.cluster_input_problems({"scc_instance_type": value}),
            value,
            "scc_instance_type",
        )
        for i, value in enumerate((8, 8.0, True, ["ecs.ebmgn8v.48xlarge"], {"a": 1}))
    },
    **{
        f"scc_jumbo_frames_{i}": (
            lambda value: instance_families.cluster_input_problems({"scc_jumbo_frames": value}),
            value,
            "scc_jumbo_frames",
        )
        for i, value in enumerate(("maybe", 2, [True], {"a": 1}, "", "tru\u2028e"))
    },
}


def role_tables():
    """{role: its validate cases}: each role's test module imported, so that it registers its table."""
    for path in sorted((ROOT / "tests/unit/roles").glob("*/test_*validate*.py")):
        importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts))
    return validate_runner.TABLES


def input_problems_tables():
    module = importlib.import_module("tests.unit.plugins.module_utils.test_input_problems")
    bad = {name: case for name, case in module.BAD.items() if case[2] is not None}
    one = {f"{case[2]}={case[3]!r}"[:60]: case for case in module.ONE_VARIABLE}
    return bad, one


def cloud_table():
    return importlib.import_module("tests.unit.plugins.module_utils.test_cloud_inputs").CASES


def _first_variable(text):
    """The first variable of the collection that ``text`` names, or None."""
    known = variables()
    return next((word for word in re.findall(r"[a-z][a-z0-9_]*", text) if word in known), None)


def all_cases():
    """[(table, case id)] of every distinct bad-input case."""
    cases = [("role validate", f"{role}:{name}") for role, table in role_tables().items() for name in table]
    cases = [c for c in cases if role_tables()[c[1].split(":")[0]][c[1].split(":", 1)[1]][1] is not None]
    bad, one = input_problems_tables()
    cases += [("role input_problems", name) for name in bad] + [("role input_problems", name) for name in one]
    cases += [("scc_cloud (provision.yml)", name) for name in cloud_table()]
    cases += [("validate.yml", name) for name in VALIDATE_YML]
    return cases


ROLE_CASES = [
    (role, name) for role, table in role_tables().items() for name, case in sorted(table.items()) if case[1] is not None
]


@pytest.mark.parametrize("role, case", ROLE_CASES, ids=[f"{r}:{c}" for r, c in ROLE_CASES])
def test_a_role_validate_refusal_names_its_variable_alone(role, case, tmp_path_factory):
    variables_set, expected = validate_runner.TABLES[role][case]
    message = validate_runner.cached_results(role, tmp_path_factory)[case]
    assert message is not None, f"{role}:{case} was not refused"
    assert "Traceback" not in message
    variable = _first_variable(expected) or _first_variable(message)
    related = set(variables_set) | named(expected)
    assert_names_only(message, variable, related)


BAD_PROBLEMS, ONE_PROBLEMS = input_problems_tables()


@pytest.mark.parametrize("case", sorted(BAD_PROBLEMS))
def test_an_input_problems_refusal_names_its_variable_alone(case):
    function, settings, expected = BAD_PROBLEMS[case]
    [message] = function(settings)
    variable = _first_variable(expected) or _first_variable(message)
    assert_names_only(message, variable, named(expected))


@pytest.mark.parametrize("case", sorted(ONE_PROBLEMS))
def test_a_one_variable_rule_names_its_variable_alone(case):
    function, good, name, value, what = ONE_PROBLEMS[case]
    [message] = function({**good, name: value})
    assert_names_only(message, name, named(what))


CLOUD = cloud_table()


@pytest.mark.parametrize("case", sorted(CLOUD))
def test_a_provision_refusal_names_its_variable_alone(case):
    change, variable, _fragment, related = CLOUD[case]
    from tests.unit.plugins.module_utils.test_cloud_inputs import GOOD

    [message] = cloud_inputs.problems({**GOOD, **change})
    assert_names_only(message, variable, related)


@pytest.mark.parametrize("case", sorted(VALIDATE_YML))
def test_a_validate_yml_refusal_names_its_variable_alone(case):
    function, value, variable = VALIDATE_YML[case]
    [message] = function(value)
    assert_names_only(message, variable)
    assert "\n" not in message and "\u2028" not in message


# The values an argument spec lets through for each type (null always; for a string also a number, a huge string and
# a U+2028; nothing for a switch), given to every role variable of every good input_problems case: never an exception, and each sentence
# one bounded line naming that variable (or a partner of its rule). Not counted as refusal cases: some are accepted.
SPEC_ODD = {
    "str": (None, 7, HUGE, "a\u2028b"),
    "path": (None, 7, HUGE, "a\u2028b"),
    "raw": (None, ["a"], {"a": 1}, 7, HUGE, "a\u2028b"),
    # A switch left null reads as false, as Ansible's bool filter reads it; any other non-boolean the spec refuses.
    "bool": (),
}


def _spec_types():
    types = {}
    for spec in sorted((ROOT / "roles").glob("*/meta/argument_specs.yml")):
        entry = (yaml.safe_load(spec.read_text()).get("argument_specs") or {}).get("main") or {}
        types.update({name: option.get("type", "str") for name, option in (entry.get("options") or {}).items()})
    return types


def _judges():
    """Every role's input rules as its validate.yml reaches them (the lookup role_input_problems: the registry's
    function, each sentence made one readable line), by the function."""
    from ansible_collections.scc.training.plugins.module_utils import role_problems
    from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import readable_problem

    found = {}
    for rules in role_problems.REGISTRY.values():
        module = importlib.import_module("%s.%s" % (role_problems.MODULE_UTILS, rules.module))
        function = getattr(module, rules.function)
        found[function] = lambda settings, function=function: [readable_problem(p) for p in function(settings)]
    return found


def test_odd_types_never_raise_and_each_sentence_names_its_variable():
    module = importlib.import_module("tests.unit.plugins.module_utils.test_input_problems")
    types, tried, judges = _spec_types(), 0, _judges()
    for case, (function, good) in sorted(module.GOOD.items()):
        function = judges.get(function, function)
        for name in good:
            if name not in types:  # the role's internals (group_hosts, patterns), not a variable a user sets
                continue
            for value in SPEC_ODD.get(types[name], (None,)):
                tried += 1
                problems = function({**good, name: value})
                assert isinstance(problems, list), (case, name, value)
                for problem in problems:
                    assert isinstance(problem, str) and len(problem) < 2000, (case, name, problem[:300])
                    assert not re.search("[\n\r\u2028\u2029\x85]", problem), (case, name, problem[:300])
                    assert_names_only(problem, name)
    assert tried > 300


def test_there_are_at_least_150_bad_input_cases():
    cases = all_cases()
    assert len(set(cases)) == len(cases)
    assert len(cases) >= 150, len(cases)


if __name__ == "__main__":
    counts = {}
    for table, _name in all_cases():
        counts[table] = counts.get(table, 0) + 1
    for table, count in counts.items():
        print("%5d  %s" % (count, table))
    print("%5d  distinct bad-input cases in make test" % sum(counts.values()))
