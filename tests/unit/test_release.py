"""The release's promise (tools/release_check.py; make release runs the same checks around antsibull-changelog release
and on the built artifact): changelogs/changelog.yaml lists every module, plugin, role and playbook, every
version_added is a released version no newer than galaxy.yml's, and what no release lists yet is announced for the
next one (version_added, or a fragment's add object.* section for a role or playbook).

The first two tests fail between a new plugin's version_added and the release that lists it: they hold on a released
tree, which is what the collection ships from.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import release_check

GALAXY_VERSION = str(yaml.safe_load((ROOT / "galaxy.yml").read_text(encoding="utf-8"))["version"])


def _version_problems(problems):
    return [p for p in problems if "version_added" in p and "lists it" not in p]


def _listing_problems(problems):
    return [p for p in problems if "lists it under no release" in p or "listed under" in p]


@pytest.fixture(scope="module")
def released_problems():
    return release_check.released_problems(ROOT, GALAXY_VERSION)


def test_every_version_added_is_a_released_version_not_newer_than_galaxy_yml(released_problems):
    problems = _version_problems(released_problems)
    assert not problems, "\n".join(problems)


def test_the_changelog_lists_every_module_plugin_role_and_playbook(released_problems):
    problems = _listing_problems(released_problems)
    assert not problems, "\n".join(problems)


def test_the_next_release_will_list_what_no_release_lists_yet():
    """What no release lists must be announced for one next version; make release checks it for its VERSION."""
    listed = release_check.changelog_listing(ROOT / "changelogs" / "changelog.yaml")
    unlisted = {
        key: version_added for key, version_added in release_check.collection_plugins(ROOT).items() if key not in listed
    }
    releases = release_check.released_versions(ROOT / "changelogs" / "changelog.yaml")
    candidates = sorted({str(v) for v in unlisted.values()} - {"None"})
    assert len(candidates) <= 1, f"the plugins no release lists name several versions: {candidates}"
    if candidates:
        upcoming = candidates[0]
    else:
        major, minor, _patch = releases[-1].split(".")
        upcoming = f"{major}.{int(minor) + 1}.0"
    problems = release_check.next_release_problems(ROOT, upcoming, require_summary=False)
    assert not problems, "\n".join(problems)


def test_the_collection_has_every_kind_the_checks_read():
    plugins = release_check.collection_plugins(ROOT)
    objects = release_check.collection_objects(ROOT)
    kinds = {kind for kind, _name in plugins} | {kind for kind, _name in objects}
    assert {"module", "filter", "inventory", "lookup", "role", "playbook"} <= kinds
    assert ("filter", "mpi_hostfile") in plugins and ("module", "gpu_info") in plugins
    assert len([k for k in objects if k[0] == "role"]) == len([p for p in (ROOT / "roles").iterdir() if p.is_dir()])


# --- the checks themselves, on a small collection -----------------------------------------


def _collection(tmp_path, module_version="0.1.0", filter_version="0.2.0", released=("0.1.0",), fragments=None):
    root = tmp_path / "collection"
    (root / "plugins" / "modules").mkdir(parents=True)
    (root / "plugins" / "filter").mkdir(parents=True)
    (root / "roles" / "old_role" / "meta").mkdir(parents=True)
    (root / "roles" / "new_role" / "meta").mkdir(parents=True)
    (root / "playbooks").mkdir()
    (root / "changelogs" / "fragments").mkdir(parents=True)
    (root / "plugins" / "modules" / "thing.py").write_text(
        f'DOCUMENTATION = r"""\nmodule: thing\nshort_description: A thing.\nversion_added: {module_version}\n"""\n'
    )
    (root / "plugins" / "filter" / "helpers.py").write_text("class FilterModule:\n    pass\n")
    (root / "plugins" / "filter" / "shiny.yml").write_text(
        f"DOCUMENTATION:\n  name: shiny\n  short_description: Shiny.\n  version_added: {filter_version}\n"
    )
    for role in ("old_role", "new_role"):
        (root / "roles" / role / "meta" / "argument_specs.yml").write_text(
            "argument_specs:\n  main:\n    short_description: A role.\n    options: {}\n"
        )
    (root / "playbooks" / "site.yml").write_text("---\n[]\n")
    releases = {}
    for version in released:
        releases[version] = {
            "modules": [{"name": "thing", "description": "A thing.", "namespace": ""}],
            "objects": {
                "role": [{"name": "old_role", "description": "A role.", "namespace": None}],
                "playbook": [{"name": "site", "description": "Site.", "namespace": None}],
            },
            "release_date": "2026-12-02",
        }
    (root / "changelogs" / "changelog.yaml").write_text(yaml.safe_dump({"ancestor": None, "releases": releases}))
    for name, content in (fragments or {}).items():
        (root / "changelogs" / "fragments" / name).write_text(yaml.safe_dump(content))
    return root


ADD_NEW_ROLE = {"add object.role": [{"name": "new_role", "description": "A new role."}]}
SUMMARY = {"release_summary": "What 0.2.0 holds."}


def test_a_version_added_newer_than_galaxy_yml_is_refused(tmp_path):
    root = _collection(tmp_path, filter_version="0.3.0")
    problems = release_check.released_problems(root, "0.2.0")
    assert "filter shiny: version_added 0.3.0 is newer than galaxy.yml's version 0.2.0" in problems


def test_a_version_added_that_no_release_has_is_refused(tmp_path):
    root = _collection(tmp_path, filter_version="0.2.0")
    problems = release_check.released_problems(root, "0.2.0")
    assert any(p.startswith("filter shiny: version_added 0.2.0 is not a released version") for p in problems)
    assert "filter shiny: changelogs/changelog.yaml lists it under no release" in problems
    assert "role new_role: changelogs/changelog.yaml lists it under no release" in problems
    assert not [p for p in problems if p.startswith(("module thing", "role old_role", "playbook site"))]


def test_a_plugin_listed_under_another_release_than_its_version_added_is_refused(tmp_path):
    root = _collection(tmp_path, module_version="0.2.0")
    problems = release_check.released_problems(root, "0.2.0")
    assert "module thing: listed under 0.1.0 but its version_added is 0.2.0" in problems


def test_the_next_release_needs_version_added_and_add_object_sections(tmp_path):
    root = _collection(tmp_path, filter_version="0.3.0")
    problems = release_check.next_release_problems(root, "0.2.0")
    assert any(
        p.startswith("filter shiny: no release lists it and 0.2.0 would not (version_added 0.3.0)") for p in problems
    )
    assert any(p.startswith("role new_role: no release lists it") for p in problems)
    assert any("release_summary" in p for p in problems)
    assert release_check.next_release_problems(root, "0.1.0") == ["0.1.0 is not newer than the last release, 0.1.0"]


def test_a_fragment_that_adds_what_does_not_exist_is_refused(tmp_path):
    root = _collection(tmp_path, fragments={"a.yml": {"add object.role": [{"name": "typo", "description": "x"}]}})
    problems = release_check.next_release_problems(root, "0.2.0", require_summary=False)
    assert "role typo: a fragment adds it but the collection has no such role" in problems


def test_a_consistent_collection_passes_before_and_after_its_release(tmp_path):
    before = _collection(tmp_path / "before", fragments={"new.yml": ADD_NEW_ROLE, "0.2.0.yml": SUMMARY})
    assert release_check.next_release_problems(before, "0.2.0") == []
    after = _collection(tmp_path / "after", released=("0.1.0", "0.2.0"))
    changelog = yaml.safe_load((after / "changelogs" / "changelog.yaml").read_text())
    changelog["releases"]["0.2.0"] = {
        "plugins": {"filter": [{"name": "shiny", "description": "Shiny.", "namespace": None}]},
        "objects": {"role": [{"name": "new_role", "description": "A new role.", "namespace": None}]},
    }
    (after / "changelogs" / "changelog.yaml").write_text(yaml.safe_dump(changelog))
    assert release_check.released_problems(after, "0.2.0") == []


@pytest.mark.parametrize("argv,code", [(["--next", "not-a-version"], 1)])
def test_the_command_line_fails_on_a_problem(argv, code, capsys):
    assert release_check.main(argv) == code
    assert "'not-a-version' is not a version" in capsys.readouterr().err
