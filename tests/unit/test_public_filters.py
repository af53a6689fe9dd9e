"""The collection's public filter surface (issue 38): docs/DEVELOPING.md's "Public filters" are the filters a
playbook of a user's own would call, each documented; a role's own computations are plans of the lookup
scc.training.role_plan (registry plugins/plugin_utils/role_plans.py), never filters.

- the filters the plugins publish are exactly the public list (none unlisted, none listed twice or missing);
- at most 40 public filters;
- roles/ and playbooks/ call only public filters;
- every plan of the registry is a function and called by a role; every role_plan call names a registered plan.

`python tests/unit/test_public_filters.py` prints the counts and each plan's callers.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEVELOPING = ROOT / "docs" / "DEVELOPING.md"
PUBLIC_MAX = 40
# 124 filters before issue 38; 40 public after it, the 57 role-internal ones moved to lookup role_plan (0.5.0).
_FILTER_CALL = re.compile(r"(?:\|\s*|map\(\s*'|select\(\s*'|reject\(\s*')scc\.training\.(\w+)")
# lookup('scc.training.role_plan', '<plan>', ...) or query(...): the plan's name is the first term, a literal.
_PLAN_CALL = re.compile(r"(?:lookup|query)\(\s*'scc\.training\.role_plan'\s*,\s*(\S)(\w*)")


def _section(text, heading):
    start = text.index(heading + "\n")
    end = text.find("\n## ", start + len(heading))
    return text[start : end if end != -1 else len(text)]


def documented():
    """The public filters as docs/DEVELOPING.md lists them, in its order."""
    text = DEVELOPING.read_text(encoding="utf-8")
    return re.findall(r"^\| `(\w+)` \|", _section(text, "## Public filters"), re.M)


def published():
    """filter name -> its plugin file, as ansible's loader finds them (every FilterModule of plugins/filter)."""
    found = {}
    for path in sorted((ROOT / "plugins" / "filter").glob("*.py")):
        if path.stem == "__init__":
            continue
        module = importlib.import_module("ansible_collections.scc.training.plugins.filter." + path.stem)
        for name in module.FilterModule().filters():
            assert name not in found, "%s published by %s and %s" % (name, found[name], path.name)
            found[name] = path.name
    return found


def _sources():
    """(where, text) of every YAML file and template of roles/ and playbooks/ (where: the role, or playbooks/<file>)."""
    for folder in ("roles", "playbooks"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in (".yml", ".yaml", ".j2") or not path.is_file():
                continue
            rel = path.relative_to(ROOT)
            yield (rel.parts[1] if folder == "roles" else "/".join(rel.parts[:2])), path.read_text(encoding="utf-8")


def callers():
    """filter name -> the roles (and playbooks/<file>) whose YAML or templates call it."""
    found = defaultdict(set)
    for where, text in _sources():
        for match in _FILTER_CALL.finditer(text):
            found[match.group(1)].add(where)
    return found


def plan_callers():
    """plan name -> the roles (and playbooks/<file>) that call it through the lookup role_plan; a call whose first
    term is not a quoted name is recorded under its text (the test refuses it: the scan must see every plan)."""
    found = defaultdict(set)
    for where, text in _sources():
        for match in _PLAN_CALL.finditer(text):
            quote, name = match.groups()
            found[name if quote == "'" else quote + name].add(where)
    return found


def registry():
    from ansible_collections.scc.training.plugins.plugin_utils import role_plans

    return role_plans


def test_the_published_filters_are_exactly_the_documented_list():
    public = documented()
    assert len(public) == len(set(public)), "a public filter listed twice"
    names = set(published())
    assert not names - set(public), "published, not in DEVELOPING.md: %s" % sorted(names - set(public))
    assert not set(public) - names, "in DEVELOPING.md, not published: %s" % sorted(set(public) - names)


def test_every_published_filter_has_its_documentation():
    for name, plugin in published().items():
        assert (ROOT / "plugins" / "filter" / ("%s.yml" % name)).is_file(), "%s (%s) has no %s.yml" % (
            name,
            plugin,
            name,
        )


def test_the_public_surface_is_small():
    public = documented()
    assert len(public) <= PUBLIC_MAX, "%d public filters (at most %d)" % (len(public), PUBLIC_MAX)


def test_roles_and_playbooks_call_only_public_filters():
    public = set(documented())
    calls = callers()
    assert calls, "the scan found no filter call at all"
    other = {name: sorted(where) for name, where in calls.items() if name not in public}
    assert not other, "roles/playbooks call filters that are not public (use lookup role_plan): %s" % other


def test_every_plan_is_a_function_and_every_role_call_names_one():
    role_plans = registry()
    assert role_plans.PLANS, "an empty registry"
    for name, function in role_plans.PLANS.items():
        assert callable(function) and function.__name__ == name, name
        assert role_plans.plan(name) is function
    assert set(role_plans.READS_HOSTVARS) <= set(role_plans.PLANS)
    assert not set(role_plans.PLANS) & set(published()), "a plan that is also a published filter"
    calls = plan_callers()
    unknown = {name: sorted(where) for name, where in calls.items() if name not in role_plans.PLANS}
    assert not unknown, "role_plan calls of unregistered plans (or a name that is not a literal): %s" % unknown
    unused = sorted(set(role_plans.PLANS) - set(calls))
    assert not unused, "plans no role or playbook calls (delete them): %s" % unused


def test_a_plan_the_registry_lacks_is_refused_by_name():
    from ansible.errors import AnsibleFilterError

    with pytest.raises(AnsibleFilterError, match=r"role_plan: no plan 'nope' \(known: .*cluster_hosts_block"):
        registry().plan("nope")


def test_the_call_finders_see_the_forms_the_roles_use():
    text = "{{ x | scc.training.a }} {{ y |scc.training.b(1) }} {{ z | map('scc.training.c') }} scc.training.role"
    assert [m.group(1) for m in _FILTER_CALL.finditer(text)] == ["a", "b", "c"]
    text = "{{ lookup('scc.training.role_plan', 'p1', x) }} {{ query( 'scc.training.role_plan',  'p2') }} lookup('scc.training.role_plan', name)"
    assert [m.groups() for m in _PLAN_CALL.finditer(text)] == [("'", "p1"), ("'", "p2"), ("n", "ame")]


if __name__ == "__main__":  # pragma: no cover - a count for the issue, not a test
    sys.path.insert(0, str(ROOT / ".collections"))
    plans = plan_callers()
    print(
        "published %d: public %d (at most %d); plans %d" % (len(published()), len(documented()), PUBLIC_MAX, len(plans))
    )
    for name in sorted(plans):
        print("  plan %s: %s" % (name, ", ".join(sorted(plans[name]))))
