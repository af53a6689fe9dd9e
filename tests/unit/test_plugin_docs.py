"""Every documented plugin and every role names its author and the release that added it.

antsibull-docs (make lint) checks the docs against the docs site's schema, which leaves `author` and
`version_added` optional; the collection requires both:
- every module, filter (its sidecar .yml), lookup and inventory plugin has a non-empty `author`;
- its `version_added` is a release of changelogs/changelog.yaml that lists it (antsibull-changelog lists a
  plugin under the release its version_added names), or, for a plugin no release lists, the one upcoming
  version: later than every release, the same for all of them. antsibull-changelog lists a new plugin only
  when its version_added is the version being released, so a plugin marked with a version never released
  would never appear in any release's changelog;
- the same rule for each role's `main` entry point (antsibull-changelog reads a role's version_added there).
Read at test time from the files and the changelog, never a frozen list.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest
import yaml
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
# Plugin directory -> the key antsibull-changelog uses in changelog.yaml (modules have their own list).
PLUGIN_DIRS = {"modules": "module", "filter": "filter", "lookup": "lookup", "inventory": "inventory"}


def _python_docs(path: Path) -> dict | None:
    """The DOCUMENTATION of a Python plugin, read without importing it (None: the file has none)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "DOCUMENTATION" for t in node.targets):
            return yaml.safe_load(ast.literal_eval(node.value))
    return None


def _plugins() -> list[tuple[str, str, Path]]:
    """(changelog type, name, file) of every documented plugin."""
    found = []
    for directory, kind in PLUGIN_DIRS.items():
        base = ROOT / "plugins" / directory
        # A filter's docs are its sidecar .yml; the .py files beside it hold several filters and no docs.
        files = sorted(base.glob("*.yml" if directory == "filter" else "*.py"))
        found += [(kind, f.stem, f) for f in files if not f.name.startswith("_") and f.name != "__init__.py"]
    return found


PLUGINS = _plugins()
ROLES = sorted(p.parent.parent.name for p in (ROOT / "roles").glob("*/meta/argument_specs.yml"))


def _docs(path: Path) -> dict:
    if path.suffix == ".yml":
        docs = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("DOCUMENTATION")
    else:
        docs = _python_docs(path)
    assert isinstance(docs, dict), f"{path.relative_to(ROOT)}: no DOCUMENTATION mapping"
    return docs


@cache
def _releases() -> dict[str, set[tuple[str, str]]]:
    """{version: {(type, name)}} of every release in changelogs/changelog.yaml."""
    data = yaml.safe_load((ROOT / "changelogs" / "changelog.yaml").read_text(encoding="utf-8"))
    releases = {}
    for version, release in (data.get("releases") or {}).items():
        listed = {("module", m["name"]) for m in release.get("modules") or []}
        for kind, entries in (release.get("plugins") or {}).items():
            listed |= {(kind, e["name"]) for e in entries}
        for kind, entries in (release.get("objects") or {}).items():
            listed |= {(kind, e["name"]) for e in entries}
        releases[str(version)] = listed
    return releases


def _version_problem(kind: str, name: str, version_added) -> str | None:
    releases = _releases()
    if not version_added:
        return "no version_added"
    version_added = str(version_added)
    if version_added in releases:
        if (kind, name) in releases[version_added]:
            return None
        return f"version_added {version_added} is a release that does not list it (changelogs/changelog.yaml)"
    latest = max(map(Version, releases)) if releases else Version("0")
    if Version(version_added) <= latest:
        return f"version_added {version_added} was never released, and is not later than the latest release {latest}"
    return None


def test_documented_plugins_found():
    kinds = {plugin[0] for plugin in PLUGINS}
    assert {"module", "filter", "lookup", "inventory"} <= kinds, kinds


@pytest.mark.parametrize(("kind", "name", "path"), PLUGINS, ids=[f"{plugin[0]}:{plugin[1]}" for plugin in PLUGINS])
def test_plugin_has_author_and_version_added(kind, name, path):
    docs = _docs(path)
    author = docs.get("author")
    authors = author if isinstance(author, list) else [author]
    problems = [] if authors and all(isinstance(a, str) and a.strip() for a in authors) else ["no author"]
    problem = _version_problem(kind, name, docs.get("version_added"))
    problems += [problem] if problem else []
    assert not problems, f"{path.relative_to(ROOT)}: " + "; ".join(problems)


@pytest.mark.parametrize("role", ROLES)
def test_role_version_added(role):
    specs = yaml.safe_load((ROOT / "roles" / role / "meta" / "argument_specs.yml").read_text(encoding="utf-8"))
    main = specs["argument_specs"].get("main") or {}
    problem = _version_problem("role", role, main.get("version_added"))
    assert problem is None, f"roles/{role}/meta/argument_specs.yml, entry point main: {problem}"


def test_unreleased_version_added_is_one_version():
    """Plugins and roles no release lists all carry the one version to come (not 0.2.0 here, 0.5.0 there)."""
    releases = _releases()
    upcoming = {}
    for kind, name, path in PLUGINS:
        version = str(_docs(path).get("version_added"))
        if version not in releases:
            upcoming.setdefault(version, []).append(f"{kind}:{name}")
    for role in ROLES:
        specs = yaml.safe_load((ROOT / "roles" / role / "meta" / "argument_specs.yml").read_text(encoding="utf-8"))
        version = str((specs["argument_specs"].get("main") or {}).get("version_added"))
        if version not in releases:
            upcoming.setdefault(version, []).append(f"role:{role}")
    assert len(upcoming) <= 1, "unreleased version_added values: " + "; ".join(
        f"{v}: {', '.join(sorted(names)[:5])}{' ...' if len(names) > 5 else ''}"
        for v, names in sorted(upcoming.items())
    )
