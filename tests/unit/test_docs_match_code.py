"""docs/DEVELOPING.md and README.md name only what exists, and mark the internal roles as their metadata does.

Read at test time (other changes add rows to both files all the time), never a frozen list:
- every repository path that docs/DEVELOPING.md writes in backticks exists (paths from the repository root,
  `unit/...` style paths from tests/, `module_utils/...` style paths from plugins/, and bare file names such as
  `mpi.py` anywhere in the repository); globs (`*`) and placeholders (`<role>`, `DIR/`) are not paths;
- the house map's role column names every role under roles/, and nothing else;
- docs/testing.md's "Tests per role" table names every role under roles/ and nothing else, each molecule scenario it
  names is a directory under molecule/ and in the Makefile's SCENARIOS, and every test path it names exists;
- a role is internal when its meta/main.yml has the galaxy tag `internal` (DEVELOPING.md, "Internal roles");
  then, and only then, its README's title line ends with "(internal)", its `main` entry point's short description
  says so, README.md's role list starts its concern with "internal:", and DEVELOPING.md lists it among the
  internal roles.
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEVELOPING = ROOT / "docs" / "DEVELOPING.md"
README = ROOT / "README.md"
TESTING = ROOT / "docs" / "testing.md"
INTERNAL_TAG = "internal"
COVERAGE_HEADING = "## Tests per role"
# Directories that are not the repository's content: virtualenvs, lab state, caches, build output.
_SKIP_DIRS = {".git", ".venv", ".collections", ".lab", ".cache", ".tox", "node_modules", "__pycache__", "results"}
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_IDENTIFIER = re.compile(r"[a-z][a-z0-9_]*")
# A file name as the docs write one alone (`mpi.py`, `test_ack.py`, `config.yml`): checked anywhere in the tree.
_BARE_FILE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\.(?:py|ya?ml|sh|j2|md|cfg|toml|ini|txt)")
# Relative to the tests/ or the plugins/ directory, as the house map writes its test and helper paths.
_BASES = (ROOT, ROOT / "tests", ROOT / "plugins")
# A role's own layout (`tasks/validate.yml`, `files/pretrain_bert.py`): some role has it.
_ROLE_DIRS = {"defaults", "files", "handlers", "meta", "tasks", "templates", "vars"}


def _roles() -> set[str]:
    return {p.name for p in (ROOT / "roles").iterdir() if (p / "meta").is_dir()}


@cache
def _file_names() -> frozenset[str]:
    """Every file and directory name in the repository (skipping virtualenvs, caches and lab state)."""
    names = set()
    for _dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS]
        names.update(dirnames)
        names.update(filenames)
    return frozenset(names)


def _load_yaml(path: Path):
    return yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _tags(role: str) -> list[str]:
    meta = _load_yaml(ROOT / "roles" / role / "meta" / "main.yml") or {}
    return list((meta.get("galaxy_info") or {}).get("galaxy_tags") or [])


def _internal_roles() -> set[str]:
    return {role for role in _roles() if INTERNAL_TAG in _tags(role)}


def is_placeholder(span: str) -> bool:
    """A template or a placeholder, not a path: `<role>_register`, `DIR/x`, `{{ x }}`, `$HOME/x`, `roles/.../files`,
    a command line (a space). A glob (`unit/roles/*validate*`) is a pattern, checked by what it matches."""
    if any(char in span for char in "?<>{}$[] |=,"):
        return True
    if "..." in span:
        return True
    first = span.split("/", 1)[0]
    return first.isupper()  # DIR/inventory.yml: a variable part written in capitals


def path_candidates(span: str) -> list[Path] | None:
    """Where a backticked span would be if it is a repository path (any one of them must exist); None when the
    span is not a repository path (a placeholder, an absolute or host path, a name, a URL)."""
    span = span.strip()
    if is_placeholder(span) or "://" in span or span.startswith(("/", "~", "-", ".venv", ".lab", ".cache")):
        return None
    if "/" in span:
        relative = span.rstrip("/")
        first = relative.split("/", 1)[0]
        # Only paths whose first part is a directory of the repository (from the root, tests/ or plugins/, or a
        # role's own layout such as `files/pretrain_bert.py`): a host path such as `etc/hosts` is not one.
        bases = [base for base in _BASES if (base / first).is_dir()]
        if first in _ROLE_DIRS:
            bases += sorted(p for p in (ROOT / "roles").iterdir() if p.is_dir())
        return [base / relative for base in bases] or None
    if _BARE_FILE.fullmatch(span):
        return []  # a bare file name: checked by name, anywhere in the tree
    return None


def doc_paths(text: str) -> list[str]:
    """The spans of text that name a repository path or file (in order, without repeats)."""
    seen: dict[str, None] = {}
    for span in _CODE_SPAN.findall(text):
        if path_candidates(span) is not None:
            seen.setdefault(span.strip(), None)
    return list(seen)


def _exists(path: Path) -> bool:
    """path exists; a glob (`*` in it) matches at least one path."""
    if "*" not in str(path):
        return path.exists()
    return next(ROOT.glob(str(path.relative_to(ROOT))), None) is not None


def missing_paths(text: str) -> list[str]:
    missing = []
    for span in doc_paths(text):
        candidates = path_candidates(span)
        if candidates:
            if not any(_exists(candidate) for candidate in candidates):
                missing.append(span)
        elif span not in _file_names():
            missing.append(span)
    return missing


def _table_rows(lines: list[str]) -> list[list[str]]:
    """The cells of a Markdown table's body rows (header and rule left out)."""
    rows: list[list[str]] = []
    for line in lines:
        if not line.startswith("|"):
            continue
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        if all(re.fullmatch(r":?-+:?", cell) for cell in cells):
            if rows:
                rows.pop()  # the header row above the rule
            continue
        rows.append(cells)
    return rows


def _section(text: str, heading: str) -> list[str]:
    """The lines under `heading` up to the next heading of the same or a higher level."""
    lines = text.split("\n")
    level = len(heading) - len(heading.lstrip("#"))
    start = lines.index(heading) + 1
    end = next(
        (i for i in range(start, len(lines)) if re.match(r"#{1,%d} " % level, lines[i])),
        len(lines),
    )
    return lines[start:end]


def _names_outside_parentheses(cell: str) -> list[str]:
    """The backticked identifiers of a cell's text outside parentheses, up to its first ';' (role column)."""
    text = cell.split(";", 1)[0]
    while True:
        stripped = re.sub(r"\([^()]*\)", "", text)
        if stripped == text:
            break
        text = stripped
    return [span for span in _CODE_SPAN.findall(text) if _IDENTIFIER.fullmatch(span)]


def house_map_roles(text: str) -> list[str]:
    """The roles in the role column of DEVELOPING.md's house map (the table under "## The map of the house")."""
    rows = _table_rows(_section(text, "## The map of the house"))
    return [name for row in rows if len(row) > 1 for name in _names_outside_parentheses(row[1])]


def coverage_rows(text: str) -> list[list[str]]:
    return _table_rows(_section(text, COVERAGE_HEADING))


def makefile_scenarios() -> list[str]:
    match = re.search(r"^SCENARIOS\s*:?=\s*(.*)$", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M)
    assert match, "Makefile: no SCENARIOS := line"
    return match.group(1).split()


# --- the extraction itself --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "span",
    [
        "<role>_input_problems",
        "tests/unit/roles/<role>/",
        "DIR/inventory.yml",
        "{{ scc_cluster_group }}/x.yml",
        "/opt/scc-training/venv",
        "/etc/scc-training/mpihosts",
        "python -m lab up",
        "roles/.../files",
        "https://example.org/a/b.py",
        "scc_transport",
        "etc/hosts",
        "rdma | tcp",
    ],
)
def test_placeholders_and_host_paths_are_not_repository_paths(span):
    assert path_candidates(span) is None


@pytest.mark.parametrize(
    ("span", "where"),
    [
        ("plugins/module_utils/training_job.py", ROOT / "plugins/module_utils/training_job.py"),
        ("tests/unit/test_argument_specs.py", ROOT / "tests/unit/test_argument_specs.py"),
        ("roles/mpi_job", ROOT / "roles/mpi_job"),
        ("playbooks/site.yml", ROOT / "playbooks/site.yml"),
        ("unit/plugins/module_utils/test_mpi_argv.py", ROOT / "tests/unit/plugins/module_utils/test_mpi_argv.py"),
        ("molecule/cpfs_mount", ROOT / "molecule/cpfs_mount"),
        ("plugin_utils/filter_errors.py", ROOT / "plugins/plugin_utils/filter_errors.py"),
        ("files/torch_gpu_probe.py", ROOT / "roles/python_env/files/torch_gpu_probe.py"),
        ("tasks/validate.yml", ROOT / "roles/mpi_job/tasks/validate.yml"),
    ],
)
def test_repository_paths_resolve_from_the_root_tests_or_plugins(span, where):
    assert where in path_candidates(span)


def test_a_path_that_does_not_exist_is_reported():
    text = (
        "`plugins/module_utils/no_such_module.py`, `tests/unit/test_argument_specs.py`, `no_such_file.py`, "
        "`unit/roles/*validate*`, `unit/roles/no_such_role`, `mpi.py`, `unit/roles/*no_such*`, `files/no_such.py`"
    )
    assert missing_paths(text) == [
        "plugins/module_utils/no_such_module.py",
        "no_such_file.py",
        "unit/roles/no_such_role",
        "unit/roles/*no_such*",
        "files/no_such.py",
    ]


def test_the_role_column_names_the_roles_outside_parentheses():
    assert _names_outside_parentheses(
        "`aiacc` (AIACC or `x`) -> `artifact_fetch`; run when `aiacc_component` says"
    ) == [
        "aiacc",
        "artifact_fetch",
    ]
    assert _names_outside_parentheses("`bert_launch` -> `mpi_job` (entry points `resolve`, `main`) (with `a`)") == [
        "bert_launch",
        "mpi_job",
    ]


# --- the documents ----------------------------------------------------------------------------------------------


def test_developing_names_only_paths_that_exist():
    missing = missing_paths(DEVELOPING.read_text(encoding="utf-8"))
    assert not missing, f"docs/DEVELOPING.md names paths that do not exist: {missing}"


def test_developing_house_map_names_only_roles_that_exist():
    named = house_map_roles(DEVELOPING.read_text(encoding="utf-8"))
    assert len(named) >= 10, f"the house map's role column was not found or not read: {named}"
    unknown = sorted(set(named) - _roles())
    assert not unknown, f"docs/DEVELOPING.md's house map names roles that are not under roles/: {unknown}"
    unmapped = sorted(_roles() - set(named))
    assert not unmapped, f"roles missing from docs/DEVELOPING.md's house map (its role column): {unmapped}"


def test_developing_lists_the_internal_roles():
    text = DEVELOPING.read_text(encoding="utf-8")
    match = re.search(r"Internal roles \(([^)]*)\)", text)
    assert match, 'docs/DEVELOPING.md: no "Internal roles (`...`, ...)" sentence'
    assert set(_CODE_SPAN.findall(match.group(1))) == _internal_roles()


def test_testing_coverage_table_names_every_role_once():
    rows = coverage_rows(TESTING.read_text(encoding="utf-8"))
    named = [name for row in rows for name in _CODE_SPAN.findall(row[0])]
    assert sorted(named) == sorted(_roles()), (
        f"docs/testing.md's {COVERAGE_HEADING!r} table: missing {sorted(_roles() - set(named))}, "
        f"not roles {sorted(set(named) - _roles())}, twice {sorted({n for n in named if named.count(n) > 1})}"
    )


def test_testing_coverage_table_names_real_scenarios_and_tests():
    text = TESTING.read_text(encoding="utf-8")
    rows = coverage_rows(text)
    scenarios = set(makefile_scenarios())
    for row in rows:
        assert len(row) == 3, f"docs/testing.md coverage row without its 3 cells: {row}"
        for span in _CODE_SPAN.findall(row[1]):
            assert span.startswith("molecule/"), (
                f"{row[0]}: the molecule column names {span!r}, not molecule/<scenario>"
            )
            scenario = span.split("/")[1]
            assert (ROOT / "molecule" / scenario / "molecule.yml").is_file(), f"{row[0]}: no scenario {span}"
            assert scenario in scenarios, f"{row[0]}: {span} is not in the Makefile's SCENARIOS (make molecule)"
    assert sorted(scenarios) == sorted({p.name for p in (ROOT / "molecule").iterdir() if p.is_dir()})
    counts = [int(n) for n in re.findall(r"[Mm]olecule (?:scenarios of|has a scenario for) (\d+) roles", text)]
    assert counts, "docs/testing.md no longer says how many roles molecule covers"
    assert set(counts) == {len(scenarios)}, (
        f"docs/testing.md says molecule covers {counts} roles; SCENARIOS has {len(scenarios)}"
    )
    missing = missing_paths("\n".join(_section(text, COVERAGE_HEADING)))
    assert not missing, f"docs/testing.md's {COVERAGE_HEADING!r} names paths that do not exist: {missing}"


@pytest.mark.parametrize("role", sorted(_roles()))
def test_internal_roles_are_marked_internal_everywhere(role):
    internal = INTERNAL_TAG in _tags(role)
    title = (ROOT / "roles" / role / "README.md").read_text(encoding="utf-8").split("\n", 1)[0]
    assert title.startswith(f"# scc.training.{role}"), title
    assert title.endswith("(internal)") == internal, f"{role}/README.md's title {title!r}, galaxy tag {internal=}"

    specs = _load_yaml(ROOT / "roles" / role / "meta" / "argument_specs.yml")
    short = specs["argument_specs"]["main"]["short_description"]
    assert ("internal" in short.lower()) == internal, f"{role}: main's short_description {short!r}, {internal=}"

    rows = _table_rows(_section(README.read_text(encoding="utf-8"), "## Roles"))
    concerns = [row[1] for row in rows if role in _CODE_SPAN.findall(row[0])]
    assert len(concerns) == 1, f"README.md's role list has {len(concerns)} rows for {role}"
    assert concerns[0].startswith("internal:") == internal, f"README.md's role list: {role}: {concerns[0][:60]!r}"


def test_readme_leads_and_its_links_resolve():
    """README.md stays a front page (issue 38: at most 200 lines); every relative link it gives exists."""
    text = README.read_text(encoding="utf-8")
    lines = text.count("\n")
    assert lines <= 200, f"README.md has {lines} lines; move detail to docs/ and link it"
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if "://" not in link]
    assert "docs/testing.md" in local, "README.md no longer links the tests page"
    missing = sorted(link for link in local if not (ROOT / link).exists())
    assert not missing, f"README.md links files that do not exist: {missing}"
    anchors = set(re.findall(r"\]\(#([^)]+)\)", text))
    headings = {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-") for h in re.findall(r"^#+ (.+)$", text, re.M)}
    assert anchors <= headings, f"README.md links headings it does not have: {sorted(anchors - headings)}"
