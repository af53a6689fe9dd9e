"""The collection as users get it: build the artifact, install it, and use it with nothing else.

`ansible-galaxy collection build` runs on a staged copy of the checkout (the files git tracks
plus untracked ones it does not ignore, without lab state), i.e. what a clean CI checkout
holds; `test_build_ignore_covers_local_state` checks separately that galaxy.yml's
build_ignore also keeps this working tree's local state out of a build made in place.

The installed collection is then used with ANSIBLE_COLLECTIONS_PATH set to only the install
dir, ANSIBLE_CONFIG an empty file and the cwd a temp dir, so neither the repo's ansible.cfg
nor its .collections symlink can make a missing file look present.
"""

from __future__ import annotations

import fnmatch
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
GALAXY = yaml.safe_load((ROOT / "galaxy.yml").read_text(encoding="utf-8"))
NAMESPACE, NAME, VERSION = GALAXY["namespace"], GALAXY["name"], str(GALAXY["version"])
FQCN = f"{NAMESPACE}.{NAME}"
# Never in the artifact: development-only trees (DEVELOPING.md, galaxy.yml build_ignore).
MUST_NOT_SHIP = (
    "lab",
    "tests",
    "molecule",
    "tools",
    ".ci",
    ".config",
    ".github",
    ".venv",
    ".collections",
    ".cache",
    ".ansible",
    "bench",
)
TIMEOUT = 300
PLANTED_CACHES = (
    "plugins/filter/.pytest_cache/v/cache/lastfailed",
    "roles/cuda/.pytest_cache/README.md",
    "plugins/module_utils/.ruff_cache/0.17.6/123",
    "roles/nccl_check/files/.ruff_cache/CACHEDIR.TAG",
    "plugins/modules/__pycache__/gpu_info.cpython-311.pyc",
    "runtime/scc_training_runtime/__pycache__/render_report.cpython-311.pyc",
    "plugins/filter/stale.pyc",
    "runtime/scc_training_runtime/.mypy_cache/3.11/cache.db",
    "roles/cuda/.ansible/roles/x.yml",
    ".pytest_cache/v/cache/nodeids",
    ".ruff_cache/CACHEDIR.TAG",
)
# Everything the artifact holds at its top level: a new entry is a decision (galaxy.yml build_ignore), not an accident.
SHIPPED_TOP_LEVEL = {
    "CHANGELOG.md",
    "FILES.json",
    "LICENSE",
    "MANIFEST.json",
    "README.md",
    "ansible.cfg",
    "bindep.txt",
    "changelogs",
    "docs",
    "inventories",
    "meta",
    "playbooks",
    "plugins",
    "requirements.txt",
    "requirements.yml",
    "roles",
    "runtime",
}

# ansible-galaxy's own always-ignored patterns and directory names
# (ansible/galaxy/collection/__init__.py, _build_files_manifest_walk, ansible-core 2.19).
_GALAXY_DEFAULT_IGNORES = [
    "MANIFEST.json",
    "FILES.json",
    "galaxy.yml",
    "galaxy.yaml",
    ".git",
    "*.pyc",
    "*.retry",
    "tests/output",
    f"{NAMESPACE}-{NAME}-*.tar.gz",
]
_GALAXY_IGNORE_DIRS = {"CVS", ".bzr", ".hg", ".git", ".svn", "__pycache__", ".tox"}


def _tool(name: str) -> str:
    path = BIN / name
    return str(path) if path.exists() else name


def _run(cmd, cwd, env=None, check=True):
    proc = subprocess.run(
        [str(c) for c in cmd],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    if check and proc.returncode != 0:
        pytest.fail(
            f"{' '.join(map(str, cmd))} exited {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}",
            pytrace=False,
        )
    return proc


def _git_files() -> list[str]:
    """Files of a clean checkout: tracked (still present) + untracked not ignored, without lab state."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    files = []
    for rel in sorted(set(filter(None, out.split("\0")))):
        if rel.split("/", 1)[0].startswith(".lab"):
            continue  # lab runtime state (python -m lab --dir .lab*), never in a checkout
        if os.path.lexists(ROOT / rel):
            files.append(rel)
    return files


def _galaxy_skips(rel: str) -> bool:
    """Whether `ansible-galaxy collection build` leaves out rel (a path relative to the collection root)."""
    patterns = _GALAXY_DEFAULT_IGNORES + list(GALAXY.get("build_ignore") or [])
    parts = rel.strip("/").split("/")
    for i in range(1, len(parts) + 1):
        sub = "/".join(parts[:i])
        is_dir = i < len(parts) or (ROOT / sub).is_dir()
        if is_dir and parts[i - 1] in _GALAXY_IGNORE_DIRS:
            return True
        if any(fnmatch.fnmatch(sub, p) for p in patterns):
            return True
    return False


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    base = tmp_path_factory.mktemp("collection")
    empty_cfg = base / "empty.cfg"
    empty_cfg.write_text("")
    home = base / "home"
    home.mkdir()
    (base / "cwd").mkdir()
    e = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
    e.update(
        ANSIBLE_CONFIG=str(empty_cfg),
        ANSIBLE_HOME=str(home / ".ansible"),
        ANSIBLE_COLLECTIONS_PATH=str(base / "collections"),
        ANSIBLE_COLLECTIONS_SCAN_SYS_PATH="false",
        ANSIBLE_ROLES_PATH=str(home / "roles"),
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
        HOME=str(home),
        PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    return {"base": base, "cwd": base / "cwd", "env": e, "collections": base / "collections"}


@pytest.fixture(scope="module")
def artifact(env):
    src = env["base"] / "src"
    for rel in _git_files():
        dst = src / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if (ROOT / rel).is_symlink():
            os.symlink(os.readlink(ROOT / rel), dst)
        else:
            shutil.copy2(ROOT / rel, dst)
    # Caches that tools leave inside the tree (pytest, ruff, mypy, Python, ansible-lint), planted in the staged copy:
    # galaxy.yml's build_ignore must keep them out at any depth.
    for rel in PLANTED_CACHES:
        planted = src / rel
        planted.parent.mkdir(parents=True, exist_ok=True)
        planted.write_text("a cache, never shipped\n")
    dist = env["base"] / "dist"
    dist.mkdir()
    _run([_tool("ansible-galaxy"), "collection", "build", "--output-path", dist, src], cwd=env["cwd"], env=env["env"])
    return dist


@pytest.fixture(scope="module")
def members(artifact):
    tarballs = list(artifact.glob("*.tar.gz"))
    assert len(tarballs) == 1, f"expected one artifact, got {tarballs}"
    with tarfile.open(tarballs[0]) as tar:
        return [m.name.removeprefix("./") for m in tar.getmembers()]


@pytest.fixture(scope="module")
def installed(env, artifact, members):
    tarball = artifact / f"{NAMESPACE}-{NAME}-{VERSION}.tar.gz"
    # galaxy.yml's dependencies, as users get them from Galaxy: here from `make collections`' copy (the `ansible`
    # wheel's, pinned in requirements-collections.txt), installed first so that the offline install resolves them.
    for dependency in GALAXY["dependencies"]:
        source = ROOT / ".collections" / "ansible_collections" / Path(*dependency.split("."))
        assert (source / "MANIFEST.json").is_file(), f"{dependency} is not in .collections: run make collections"
        _run(
            [_tool("ansible-galaxy"), "collection", "install", "--offline", "-p", env["collections"], source],
            cwd=env["cwd"],
            env=env["env"],
        )
    _run(
        [_tool("ansible-galaxy"), "collection", "install", "--offline", "-p", env["collections"], tarball],
        cwd=env["cwd"],
        env=env["env"],
    )
    root = env["collections"] / "ansible_collections" / NAMESPACE / NAME
    assert (root / "MANIFEST.json").is_file(), f"install left no {root}/MANIFEST.json"
    return env


def _doc_list(env, plugin_type: str) -> dict:
    proc = _run([_tool("ansible-doc"), "-t", plugin_type, "-l", FQCN, "--json"], cwd=env["cwd"], env=env["env"])
    return json.loads(proc.stdout or "{}")


# --- the artifact -------------------------------------------------------------------------


def test_artifact_is_named_from_galaxy_yml(artifact):
    names = sorted(p.name for p in artifact.iterdir())
    assert names == [f"{NAMESPACE}-{NAME}-{VERSION}.tar.gz"]


def test_artifact_leaves_out_development_trees(members):
    shipped = sorted({m.split("/", 1)[0] for m in members})
    leaked = sorted(m for m in members if m.split("/", 1)[0] in MUST_NOT_SHIP or m.split("/", 1)[0].startswith(".lab"))
    assert not leaked, f"galaxy.yml build_ignore lets these into the artifact: {leaked[:20]} (top level: {shipped})"


def test_artifact_holds_the_collection(members):
    for required in ("MANIFEST.json", "FILES.json", "meta/runtime.yml", "README.md"):
        assert required in members, f"{required} missing from the artifact"
    for role in sorted(p.name for p in (ROOT / "roles").iterdir() if p.is_dir()):
        assert any(m.startswith(f"roles/{role}/") for m in members), f"roles/{role} missing from the artifact"
    assert not [m for m in members if m.endswith(".pyc") or "/__pycache__" in m], "bytecode in the artifact"


def test_artifact_leaves_out_nested_caches(members):
    """The caches planted in the staged tree at every depth (fixture artifact) are not in the artifact."""
    cache_names = {".pytest_cache", ".ruff_cache", ".mypy_cache", "__pycache__", ".ansible"}
    leaked = [m for m in members if cache_names & set(m.split("/")) or m.endswith((".pyc", ".pyo"))]
    assert not leaked, f"galaxy.yml build_ignore lets caches into the artifact: {leaked}"


def test_artifact_lists_what_it_ships(members):
    """The artifact's listing: its top level exactly, every plugin, role, playbook and role file of the checkout
    (nothing git tracks there is left out), and changelogs/ without its fragments."""
    top = {m.split("/", 1)[0] for m in members if m}
    assert top == SHIPPED_TOP_LEVEL, (
        f"shipped, not expected: {sorted(top - SHIPPED_TOP_LEVEL)}; expected, not shipped: "
        f"{sorted(SHIPPED_TOP_LEVEL - top)}"
    )
    files = set(members)
    checkout = [
        rel for rel in _git_files() if rel.split("/", 1)[0] in ("plugins", "roles", "playbooks", "meta", "runtime")
    ]
    missing = sorted(rel for rel in checkout if rel not in files and not _galaxy_skips(rel))
    assert not missing, f"files of the checkout missing from the artifact: {missing[:20]}"
    for kind in ("modules", "filter", "inventory", "lookup", "action", "module_utils", "plugin_utils"):
        assert any(m.startswith(f"plugins/{kind}/") and m.endswith(".py") for m in members), f"no plugins/{kind}"
    assert {m for m in members if m.startswith("changelogs/") and m.count("/") == 1} == {
        "changelogs/changelog.yaml",
        "changelogs/config.yaml",
    }


def test_artifact_ships_what_ecosystem_tools_read(members):
    """antsibull-changelog's changelog.yaml (the Ansible package reads it from the artifact), and
    the requirements ansible-builder takes from an installed collection; not the unreleased
    changelog fragments."""
    for shipped in ("changelogs/changelog.yaml", "requirements.txt", "bindep.txt"):
        assert shipped in members, f"{shipped} missing from the artifact"
    assert not [m for m in members if m.startswith("changelogs/fragments")], "changelog fragments in the artifact"


def test_build_ignore_covers_local_state():
    """A build made in place (in this working tree) must not pick up local state either:
    every path git ignores and every lab directory (.lab*) must match galaxy.yml build_ignore."""
    top = sorted(p.name for p in ROOT.iterdir())
    ignored_top = set(
        subprocess.run(
            ["git", "check-ignore", "--", *top],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.split()
    )
    # Whole top-level entries git ignores, plus lab directories (git may not ignore those).
    flagged_top = ignored_top | {t for t in top if t.startswith(".lab")}
    candidates = sorted(flagged_top)
    # Ignored paths deeper in the tree (e.g. molecule/*/.molecule), outside the entries above.
    nested = (
        subprocess.run(
            ["git", "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    candidates += sorted(
        {p.rstrip("/") for p in nested if "/" in p.rstrip("/") and p.split("/", 1)[0] not in flagged_top}
    )
    leaking = [c for c in candidates if not _galaxy_skips(c)]
    assert not leaking, (
        "galaxy.yml build_ignore does not cover this local state, so an in-place "
        f"`ansible-galaxy collection build` would pack it: {leaking}"
    )


# --- the installed collection, alone -------------------------------------------------------


def test_ansible_doc_lists_every_module(installed):
    modules_dir = ROOT / "plugins" / "modules"
    expected = (
        sorted(f"{FQCN}.{p.stem}" for p in modules_dir.glob("*.py") if p.name != "__init__.py")
        if modules_dir.is_dir()
        else []
    )
    listed = sorted(_doc_list(installed, "module"))
    assert listed == expected


def test_ansible_doc_documents_mpi_hostfile_filter(installed):
    if not (ROOT / "plugins" / "filter" / "mpi.py").is_file():
        pytest.skip("plugins/filter/mpi.py does not exist yet")
    if not (ROOT / "plugins" / "filter" / "mpi_hostfile.yml").is_file():
        pytest.skip("plugins/filter/mpi_hostfile.yml (the filter's doc sidecar) does not exist yet")
    proc = _run(
        [_tool("ansible-doc"), "-t", "filter", f"{FQCN}.mpi_hostfile", "--json"],
        cwd=installed["cwd"],
        env=installed["env"],
    )
    doc = json.loads(proc.stdout)
    entry = doc.get(f"{FQCN}.mpi_hostfile")
    assert entry and entry.get("doc"), f"ansible-doc returned no documentation: {proc.stdout[:500]}"
    assert f"{FQCN}.mpi_hostfile" in _doc_list(installed, "filter")


def test_ansible_doc_lists_every_role(installed):
    expected = sorted(f"{FQCN}.{p.name}" for p in (ROOT / "roles").iterdir() if p.is_dir())
    listed = sorted(_doc_list(installed, "role"))
    assert listed == expected


def test_site_playbook_syntax_check(installed):
    if not (ROOT / "playbooks" / "site.yml").is_file():
        pytest.skip("playbooks/site.yml does not exist yet")
    _run(
        [_tool("ansible-playbook"), f"{FQCN}.site", "--syntax-check", "-i", "localhost,"],
        cwd=installed["cwd"],
        env=installed["env"],
    )


def test_role_inputs_lookup_reads_the_installed_roles_specs(installed):
    # The lookup finds the roles next to itself: installed, the collection's own roles dir, not the checkout's.
    assert f"{FQCN}.role_inputs" in _doc_list(installed, "lookup")
    spec = yaml.safe_load((ROOT / "roles" / "hosts_file" / "meta" / "argument_specs.yml").read_text())
    proc = _run(
        [
            _tool("ansible"),
            "localhost",
            "-m",
            "ansible.builtin.debug",
            "-a",
            f"msg={{{{ lookup('{FQCN}.role_inputs', 'hosts_file', entry_point='validate') | list }}}}",
        ],
        cwd=installed["cwd"],
        env=dict(installed["env"], ANSIBLE_STDOUT_CALLBACK="ansible.builtin.minimal"),
    )
    # minimal: "localhost | SUCCESS => {...}"
    msg = json.loads(proc.stdout.split("=>", 1)[1])["msg"]
    assert msg == list(spec["argument_specs"]["validate"]["options"])


def test_the_installed_collection_builds_the_checkouts_runtime_wheel_and_renders_the_report(installed, tmp_path):
    """python_env builds the runtime wheel on the controller from the installed collection's runtime/ (no galaxy.yml
    there: MANIFEST.json names the version): the same bytes as from this checkout; and cluster_report's renderer runs
    from that tree as a module."""
    root = installed["collections"] / "ansible_collections" / NAMESPACE / NAME
    built = [
        json.loads(
            _run(
                [sys.executable, str(where / "runtime" / "build_wheel.py"), "--out", str(tmp_path / name)],
                cwd=installed["cwd"],
                env=installed["env"],
            ).stdout
        )
        for name, where in (("installed", root), ("checkout", ROOT))
    ]
    assert built[0]["version"] == built[1]["version"] and built[0]["version"].split("+")[0] == VERSION
    assert built[0]["sha256"] == built[1]["sha256"], "the installed collection's runtime/ differs from the checkout's"
    env = dict(installed["env"], PYTHONPATH=str(root / "runtime"))
    report = tmp_path / "cluster-report.json"
    report.write_text(json.dumps({"summary": ["2 nodes, all green"]}))
    shown = _run(
        [sys.executable, "-m", "scc_training_runtime.render_report", "--summary", report], cwd=installed["cwd"], env=env
    )
    assert shown.stdout == "2 nodes, all green\n"
    version = _run([sys.executable, "-c", "import scc_training_runtime as r; print(r.__version__)"],
                   cwd=installed["cwd"], env=env)  # fmt: skip
    assert version.stdout.strip() == VERSION
