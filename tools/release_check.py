"""What a release of the collection must hold: every module, plugin, role and playbook listed in its changelog.

antsibull-changelog (`antsibull-changelog release`) lists a module or plugin under a release when its DOCUMENTATION's
`version_added` is that release's version, and a role when its argument spec's `main` entry point has that
`version_added`; a role or playbook is also listed from a fragment's `add object.role` / `add object.playbook` section.
Whatever has neither is silently left out of every release. This tool reads the same sources without running ansible-doc
(milliseconds), so that make release and tests/unit/test_release.py can check both sides:

  python tools/release_check.py --next 0.2.0     before `antsibull-changelog release`: the release will list everything
                                                 that no earlier release lists (make release runs it first)
  python tools/release_check.py                  after it: every version_added is a released version, none newer
                                                 than galaxy.yml's, and the changelog lists everything (unit tests)
  python tools/release_check.py --artifact X.tar.gz   the same on a built artifact: what it ships (its own galaxy
                                                 version, its own changelogs/changelog.yaml)

Exit status 1 and one line per problem when something is missing.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import tarfile
import tempfile
from pathlib import Path

import yaml
from packaging.version import InvalidVersion, Version

ROOT = Path(__file__).resolve().parents[1]
# ansible.constants.DOCUMENTABLE_PLUGINS (ansible-core 2.19): the plugin types ansible-doc (and so antsibull-changelog)
# knows; action plugins, doc fragments, module_utils and plugin_utils are never listed.
DOCUMENTABLE = (
    "become",
    "cache",
    "callback",
    "cliconf",
    "connection",
    "filter",
    "httpapi",
    "inventory",
    "lookup",
    "module",
    "netconf",
    "shell",
    "strategy",
    "test",
    "vars",
)


def _version(text):
    try:
        return Version(str(text))
    except InvalidVersion:
        return None


def _python_documentation(path: Path):
    """The DOCUMENTATION mapping of a Python plugin, or None when it has none."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "DOCUMENTATION" for t in node.targets
        ):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                return yaml.safe_load(node.value.value) or {}
    return None


def collection_plugins(root: Path) -> dict:
    """{(type, name): version_added or None} of every documented module and plugin of the collection at root.

    Filters and tests: each YAML doc sidecar (plugins/filter/NAME.yml) is one plugin; a Python file of those types
    holds several and has no DOCUMENTATION of its own. Other types: each Python file with a DOCUMENTATION block.
    """
    found = {}
    for plugin_type in DOCUMENTABLE:
        directory = root / "plugins" / ("modules" if plugin_type == "module" else plugin_type)
        if not directory.is_dir():
            continue
        for path in sorted(directory.iterdir()):
            if path.name.startswith(("_", ".")):
                continue
            if path.suffix in (".yml", ".yaml") and plugin_type in ("filter", "test"):
                doc = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("DOCUMENTATION") or {}
            elif path.suffix == ".py":
                doc = _python_documentation(path)
                if doc is None:
                    continue
            else:
                continue
            found[(plugin_type, path.stem)] = doc.get("version_added")
    return found


def collection_objects(root: Path) -> dict:
    """{(type, name): version_added or None} of every role (its argument spec's main entry point) and playbook."""
    found = {}
    roles = root / "roles"
    for role in sorted(p for p in roles.iterdir() if p.is_dir()) if roles.is_dir() else ():
        version_added = None
        for name in ("argument_specs.yml", "argument_specs.yaml"):
            spec = role / "meta" / name
            if spec.is_file():
                main = ((yaml.safe_load(spec.read_text(encoding="utf-8")) or {}).get("argument_specs") or {}).get(
                    "main"
                )
                version_added = (main or {}).get("version_added")
        found[("role", role.name)] = version_added
    playbooks = root / "playbooks"
    for playbook in sorted(playbooks.glob("*.y*ml")) if playbooks.is_dir() else ():
        found[("playbook", playbook.stem)] = None
    return found


def changelog_listing(changelog: Path) -> dict:
    """{(type, name): version} of everything a release of changelog.yaml lists (modules, plugins, objects)."""
    data = yaml.safe_load(changelog.read_text(encoding="utf-8")) or {}
    listed = {}
    for version, release in (data.get("releases") or {}).items():
        for module in release.get("modules") or ():
            listed[("module", module["name"])] = str(version)
        for section in ("plugins", "objects"):
            for kind, entries in (release.get(section) or {}).items():
                for entry in entries or ():
                    listed[(kind, entry["name"])] = str(version)
    return listed


def released_versions(changelog: Path) -> list:
    data = yaml.safe_load(changelog.read_text(encoding="utf-8")) or {}
    return sorted((str(v) for v in (data.get("releases") or {})), key=Version)


def fragment_adds(fragments: Path) -> set:
    """{(type, name)} that unreleased fragments add (sections `add plugin.TYPE`, `add object.TYPE`)."""
    added = set()
    for path in sorted(fragments.glob("*.y*ml")) if fragments.is_dir() else ():
        for section, entries in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items():
            if section.startswith("add ") and "." in section:
                kind = section.split(".", 1)[1]
                added |= {(kind, entry["name"]) for entry in entries or ()}
    return added


def _label(key):
    return f"{key[0]} {key[1]}"


def released_problems(root: Path, galaxy_version: str) -> list:
    """After a release: every version_added is a released version not newer than galaxy.yml's version, and the
    changelog lists every module, plugin, role and playbook (under the release its version_added names)."""
    changelog = root / "changelogs" / "changelog.yaml"
    releases = released_versions(changelog)
    listed = changelog_listing(changelog)
    current = _version(galaxy_version)
    problems = []
    for key, version_added in sorted({**collection_plugins(root), **collection_objects(root)}.items()):
        if version_added is not None:
            if _version(version_added) is None:
                problems.append(f"{_label(key)}: version_added {version_added!r} is not a version")
                continue
            if _version(version_added) > current:
                problems.append(
                    f"{_label(key)}: version_added {version_added} is newer than galaxy.yml's version {galaxy_version}"
                )
            elif str(version_added) not in releases:
                problems.append(
                    f"{_label(key)}: version_added {version_added} is not a released version "
                    f"(changelogs/changelog.yaml: {', '.join(releases) or 'none'})"
                )
        elif key[0] not in ("role", "playbook"):
            problems.append(f"{_label(key)}: no version_added in its DOCUMENTATION")
        if key not in listed:
            problems.append(f"{_label(key)}: changelogs/changelog.yaml lists it under no release")
        elif version_added is not None and str(version_added) != listed[key]:
            problems.append(f"{_label(key)}: listed under {listed[key]} but its version_added is {version_added}")
    return problems


def next_release_problems(root: Path, version: str, require_summary: bool = True) -> list:
    """Before `antsibull-changelog release` of version: what no release lists yet will be listed by this one (and,
    with require_summary, one fragment holds the release_summary)."""
    changelog = root / "changelogs" / "changelog.yaml"
    releases = released_versions(changelog)
    listed = changelog_listing(changelog)
    adds = fragment_adds(root / "changelogs" / "fragments")
    problems = []
    if _version(version) is None:
        return [f"{version!r} is not a version"]
    if releases and Version(version) <= Version(releases[-1]):
        return [f"{version} is not newer than the last release, {releases[-1]}"]
    everything = {**collection_plugins(root), **collection_objects(root)}
    for key, version_added in sorted(everything.items()):
        if key in listed:
            if version_added is not None and str(version_added) != listed[key]:
                problems.append(f"{_label(key)}: listed under {listed[key]} but its version_added is {version_added}")
            continue
        if key[0] in ("role", "playbook") and key in adds:
            continue
        if str(version_added) != version:
            how = (
                f"a fragment's 'add object.{key[0]}' section or version_added: {version}"
                if key[0] == "role"
                else f"a fragment's 'add object.{key[0]}' section"
                if key[0] == "playbook"
                else f"version_added: {version}"
            )
            problems.append(
                f"{_label(key)}: no release lists it and {version} would not (version_added {version_added}); "
                f"it needs {how}"
            )
    summaries = [
        path.name
        for path in sorted((root / "changelogs" / "fragments").glob("*.y*ml"))
        if "release_summary" in (yaml.safe_load(path.read_text(encoding="utf-8")) or {})
    ]
    if require_summary and len(summaries) != 1:
        problems.append(
            f"the fragments hold {len(summaries)} release_summary sections ({', '.join(summaries) or 'none'}): "
            "a release needs one, telling what it holds"
        )
    for key in sorted(adds - set(everything)):
        problems.append(f"{_label(key)}: a fragment adds it but the collection has no such {key[0]}")
    return problems


def artifact_problems(tarball: Path) -> list:
    """released_problems on what a built artifact ships: its MANIFEST.json version, its changelogs/changelog.yaml."""
    with tempfile.TemporaryDirectory() as tmp, tarfile.open(tarball) as tar:
        tar.extractall(tmp, filter="data")
        root = Path(tmp)
        version = json.loads((root / "MANIFEST.json").read_text())["collection_info"]["version"]
        if not (root / "changelogs" / "changelog.yaml").is_file():
            return [f"{tarball}: ships no changelogs/changelog.yaml"]
        problems = released_problems(root, version)
        listed = changelog_listing(root / "changelogs" / "changelog.yaml")
        if not any(v == version for v in released_versions(root / "changelogs" / "changelog.yaml")):
            problems.append(f"{tarball}: its changelog has no release {version}")
        everything = {**collection_plugins(root), **collection_objects(root)}
        counts = {
            kind: sum(1 for k in everything if k[0] == kind and k in listed) for kind in {k[0] for k in everything}
        }
        print(f"{tarball.name}: {version}, changelog lists " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
        return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--next", metavar="VERSION", help="check before releasing VERSION")
    group.add_argument("--artifact", type=Path, help="check a built collection artifact")
    args = parser.parse_args(argv)
    if args.artifact:
        problems = artifact_problems(args.artifact)
    elif args.next:
        problems = next_release_problems(ROOT, args.next)
    else:
        galaxy = yaml.safe_load((ROOT / "galaxy.yml").read_text(encoding="utf-8"))
        problems = released_problems(ROOT, str(galaxy["version"]))
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
