"""The collection's public filter surface (issue 38): docs/DEVELOPING.md's "Public filters" are the filters a
playbook of a user's own would call, each documented; the role-internal ones still published are listed below it, a
list that only shrinks.

- the filters the plugins publish are exactly the two lists (none unlisted, none listed twice or missing);
- at most 40 public filters;
- every filter that roles/ and playbooks/ call is published and listed, and playbooks/ call public ones only;
- the internal list does not grow (INTERNAL_MAX, lowered as filters move into their roles' modules and lookups).

`python tests/unit/test_public_filters.py` prints the counts and each internal filter's callers.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEVELOPING = ROOT / "docs" / "DEVELOPING.md"
PUBLIC_MAX = 40
# 95 filters after issue 38's first batches (124 before): 39 public, 56 internal. Lower it with each move; never raise.
INTERNAL_MAX = 57  # 56, then rdma_netdev_mtu_plan (rdma_stack sets the MTU, issue 35) came in the same release
_INTERNAL_HEADING = "### Role-internal filters still published"
_FILTER_CALL = re.compile(r"(?:\|\s*|map\(\s*'|select\(\s*'|reject\(\s*')scc\.training\.(\w+)")


def _section(text, heading):
    start = text.index(heading + "\n")
    end = text.find("\n## ", start + len(heading))
    return text[start : end if end != -1 else len(text)]


def documented():
    """(public, internal) as docs/DEVELOPING.md lists them, in its order."""
    text = DEVELOPING.read_text(encoding="utf-8")
    public_text = _section(text, "## Public filters")
    head, internal_text = public_text.split(_INTERNAL_HEADING, 1)
    public = re.findall(r"^\| `(\w+)` \|", head, re.M)
    internal = re.findall(r"`(\w+)`", internal_text)
    return public, internal


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


def callers():
    """filter name -> the roles (and playbooks/<file>) whose YAML or templates call it."""
    found = defaultdict(set)
    for folder in ("roles", "playbooks"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in (".yml", ".yaml", ".j2") or not path.is_file():
                continue
            rel = path.relative_to(ROOT)
            where = rel.parts[1] if folder == "roles" else "/".join(rel.parts[:2])
            for match in _FILTER_CALL.finditer(path.read_text(encoding="utf-8")):
                found[match.group(1)].add(where)
    return found


def test_the_published_filters_are_exactly_the_documented_lists():
    public, internal = documented()
    assert len(public) == len(set(public)), "a public filter listed twice"
    assert len(internal) == len(set(internal)), "an internal filter listed twice"
    assert not set(public) & set(internal), "listed as public and internal: %s" % sorted(set(public) & set(internal))
    names = set(published())
    assert not names - set(public) - set(internal), "published, not in DEVELOPING.md: %s" % sorted(
        names - set(public) - set(internal)
    )
    assert not (set(public) | set(internal)) - names, "in DEVELOPING.md, not published: %s" % sorted(
        (set(public) | set(internal)) - names
    )


def test_every_published_filter_has_its_documentation():
    for name, plugin in published().items():
        assert (ROOT / "plugins" / "filter" / ("%s.yml" % name)).is_file(), "%s (%s) has no %s.yml" % (
            name,
            plugin,
            name,
        )


def test_the_public_surface_is_small_and_the_internal_list_only_shrinks():
    public, internal = documented()
    assert len(public) <= PUBLIC_MAX, "%d public filters (at most %d)" % (len(public), PUBLIC_MAX)
    assert len(internal) <= INTERNAL_MAX, "%d internal filters published (at most %d: it only shrinks)" % (
        len(internal),
        INTERNAL_MAX,
    )


def test_roles_and_playbooks_call_only_listed_filters_and_playbooks_only_public_ones():
    public, internal = documented()
    calls = callers()
    unknown = {name: sorted(where) for name, where in calls.items() if name not in public and name not in internal}
    assert not unknown, "filters called but not listed in DEVELOPING.md: %s" % unknown
    from_playbooks = {
        name: sorted(w for w in where if w.startswith("playbooks/"))
        for name, where in calls.items()
        if name not in public and any(w.startswith("playbooks/") for w in where)
    }
    assert not from_playbooks, "playbooks call role-internal filters: %s" % from_playbooks


def test_the_call_finder_sees_the_forms_the_roles_use():
    text = "{{ x | scc.training.a }} {{ y |scc.training.b(1) }} {{ z | map('scc.training.c') }} scc.training.role"
    assert [m.group(1) for m in _FILTER_CALL.finditer(text)] == ["a", "b", "c"]


if __name__ == "__main__":  # pragma: no cover - a count for the issue, not a test
    sys.path.insert(0, str(ROOT / ".collections"))
    public, internal = documented()
    calls = callers()
    print(
        "published %d: public %d (at most %d), internal %d" % (len(published()), len(public), PUBLIC_MAX, len(internal))
    )
    for name in internal:
        print("  internal %s: %s" % (name, ", ".join(sorted(calls.get(name, ()))) or "no caller"))
