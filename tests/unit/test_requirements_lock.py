"""requirements.txt, requirements.in and requirements.lock (make lock: pip-compile --generate-hashes of
requirements.in) and their use.

requirements.txt is the collection's own list, which ansible-builder introspect copies into any execution
environment beside other collections' lists: compatible ranges only (no exact pin, no ansible-core or ansible-runner,
which an image brings itself). requirements.in adds the controller's ansible-core and ansible-runner pins; the lock
holds every requirement of both at one version that satisfies it, each file with its sha256, and make venv installs
the lock with --require-hashes before anything else."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]


def _entries(text: str) -> dict:
    """{name: (version, [sha256])} of a pip-compile lock (continuation lines joined)."""
    entries = {}
    for block in re.sub(r"\\\n\s*", " ", text).splitlines():
        block = block.split("#", 1)[0].strip()
        if block:
            pin, *options = block.split()
            name, version = pin.split("==")
            entries[canonicalize_name(name)] = (
                version,
                [o.split(":", 1)[1] for o in options if o.startswith("--hash=sha256:")],
            )
    return entries


def _requirements(path: Path) -> list[Requirement]:
    """The requirements of a requirements file and of the files it includes with -r."""
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("-r "):
            found += _requirements(path.parent / line[3:].strip())
        elif line:
            found.append(Requirement(line))
    return found


LOCK = _entries((ROOT / "requirements.lock").read_text(encoding="utf-8"))


def test_every_locked_requirement_carries_sha256s():
    assert LOCK and all(
        hashes and all(re.fullmatch(r"[0-9a-f]{64}", h) for h in hashes) for _v, hashes in LOCK.values()
    )


@pytest.mark.parametrize("source", ["requirements.txt", "requirements.in"])
def test_the_lock_satisfies_every_requirement(source):
    for requirement in _requirements(ROOT / source):
        name = canonicalize_name(requirement.name)
        assert name in LOCK, f"make lock: {requirement} ({source}) is not in requirements.lock"
        assert requirement.specifier.contains(LOCK[name][0], prereleases=True), (
            f"make lock: requirements.lock holds {name}=={LOCK[name][0]}, outside {source}'s {requirement}"
        )


def test_the_collections_requirements_are_ranges_for_a_shared_image():
    """No exact pin (it would force one version on every collection in an execution environment) and no unbounded
    major version of an SDK: every requirement has a lower bound; ansible-core and ansible-runner are the image's."""
    for requirement in _requirements(ROOT / "requirements.txt"):
        operators = {spec.operator for spec in requirement.specifier}
        assert "==" not in operators and "===" not in operators, f"{requirement}: an exact pin"
        assert operators & {">=", ">", "~="}, f"{requirement}: no lower bound"
        assert canonicalize_name(requirement.name) not in {"ansible-core", "ansible", "ansible-base", "ansible-runner"}


def test_the_controller_pins_ansible_core_and_runner_exactly():
    pins = {canonicalize_name(r.name): r for r in _requirements(ROOT / "requirements.in")}
    for name in ("ansible-core", "ansible-runner"):
        (spec,) = pins[name].specifier
        assert spec.operator == "==" and LOCK[name][0] == spec.version


def test_make_venv_installs_the_lock_by_sha256_first():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile[makefile.index("$(BIN)/.installed:") :].split("\n\n", 1)[0]
    lock = recipe.index("$(BIN)/pip install -q --require-hashes -r requirements.lock")
    assert lock < recipe.index("-r requirements-dev.txt")
    assert "requirements.in" in recipe.split("\n", 1)[0], "make venv must rerun when requirements.in changes"
    lock_recipe = makefile[makefile.index("\nlock:") :].split("\n\n", 1)[0]
    assert "-o requirements.lock requirements.in" in lock_recipe


def _pins(path: Path) -> dict:
    """{name: version} of the == pins of a requirements file."""
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, version = line.split("==")
            pins[canonicalize_name(name)] = version
    return pins


def test_the_ansible_core_matrix_locks_its_version_and_requirements_txt_pins():
    """Each older ansible-core of the matrix (docs/ansible-core.md): its lock holds that version, every pin of its .in,
    each file's sha256; a package requirements.txt pins too is at requirements.txt's version, one requirements-dev.txt
    pins at that one's; make core-venvs installs it with --require-hashes; and meta/runtime.yml's floor is the matrix's oldest version. The main venv's versions
    are requirements.lock's (requirements.txt holds ranges)."""
    main = {name: version for name, (version, _hashes) in _entries((ROOT / "requirements.lock").read_text()).items()}
    # The test-only pins (requirements-dev.txt: the Tea SDK models of the cloud emulator's contract check...).
    dev = _pins(ROOT / "requirements-dev.txt")
    versions = sorted(
        p.name[len("requirements-") : -len(".in")] for p in (ROOT / "tests" / "ansible_core").glob("*.in")
    )
    assert versions, "tests/ansible_core: no requirements-<version>.in"
    for version in versions:
        pins = _pins(ROOT / "tests" / "ansible_core" / f"requirements-{version}.in")
        lock = _entries((ROOT / "tests" / "ansible_core" / f"requirements-{version}.lock").read_text(encoding="utf-8"))
        assert pins["ansible-core"].startswith(version + "."), pins["ansible-core"]
        for name, pinned in pins.items():
            assert lock[name][0] == pinned, "make core-lock: %s==%s differs from its lock" % (name, pinned)
            if name in main and name != "ansible-core":
                assert pinned == main[name], "%s: %s==%s, requirements.lock pins %s" % (
                    version,
                    name,
                    pinned,
                    main[name],
                )
            elif name in dev:
                assert pinned == dev[name], "%s: %s==%s, requirements-dev.txt pins %s" % (
                    version,
                    name,
                    pinned,
                    dev[name],
                )
        assert all(hashes and all(re.fullmatch(r"[0-9a-f]{64}", h) for h in hashes) for _v, hashes in lock.values())
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^CORE_VERSIONS \?= %s$" % " ".join(versions), makefile, re.M)
    assert "pip install -q --require-hashes -r $<" in makefile
    # The proven range: the matrix's oldest version up to the main venv's (requirements.lock), no further.
    major, minor = (int(part) for part in main["ansible-core"].split(".")[:2])
    runtime = (ROOT / "meta" / "runtime.yml").read_text(encoding="utf-8")
    expected = 'requires_ansible: ">=%s.0,<%d.%d"' % (versions[0], major, minor + 1)
    assert expected in runtime.splitlines(), runtime
