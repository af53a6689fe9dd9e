"""requirements.lock (make lock: pip-compile --generate-hashes of requirements.txt) and its use: every pin of
requirements.txt is locked at the same version, every locked requirement carries at least one sha256, and
make venv installs the lock with --require-hashes before anything else."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _entries(text: str) -> dict:
    """{name: (version, [sha256])} of a pip-compile lock (continuation lines joined)."""
    entries = {}
    for block in re.sub(r"\\\n\s*", " ", text).splitlines():
        block = block.split("#", 1)[0].strip()
        if block:
            pin, *options = block.split()
            name, version = pin.split("==")
            entries[name.lower()] = (version, [o.split(":", 1)[1] for o in options if o.startswith("--hash=sha256:")])
    return entries


def test_every_pin_is_locked_at_its_version_with_sha256s():
    lock = _entries((ROOT / "requirements.lock").read_text(encoding="utf-8"))
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, version = line.split("==")
            assert lock[name.lower()][0] == version, "make lock: %s differs from requirements.lock" % line
    assert lock and all(
        hashes and all(re.fullmatch(r"[0-9a-f]{64}", h) for h in hashes) for _v, hashes in lock.values()
    )


def test_make_venv_installs_the_lock_by_sha256_first():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile[makefile.index("$(BIN)/.installed:") :].split("\n\n", 1)[0]
    lock = recipe.index("$(BIN)/pip install -q --require-hashes -r requirements.lock")
    assert lock < recipe.index("-r requirements-dev.txt")


def _pins(path: Path) -> dict:
    """{name: version} of the == pins of a requirements file."""
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, version = line.split("==")
            pins[name.lower()] = version
    return pins


def test_the_ansible_core_matrix_locks_its_version_and_requirements_txt_pins():
    """Each older ansible-core of the matrix (docs/ansible-core.md): its lock holds that version, every pin of its .in,
    each file's sha256; a package requirements.txt pins too is at requirements.txt's version; make core-venvs installs
    it with --require-hashes; and meta/runtime.yml's floor is the matrix's oldest version."""
    main = _pins(ROOT / "requirements.txt")
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
                assert pinned == main[name], "%s: %s==%s, requirements.txt pins %s" % (
                    version,
                    name,
                    pinned,
                    main[name],
                )
        assert all(hashes and all(re.fullmatch(r"[0-9a-f]{64}", h) for h in hashes) for _v, hashes in lock.values())
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^CORE_VERSIONS \?= %s$" % " ".join(versions), makefile, re.M)
    assert "pip install -q --require-hashes -r $<" in makefile
    # The proven range: the matrix's oldest version up to the main venv's (requirements.txt), no further.
    major, minor = (int(part) for part in main["ansible-core"].split(".")[:2])
    runtime = (ROOT / "meta" / "runtime.yml").read_text(encoding="utf-8")
    expected = 'requires_ansible: ">=%s.0,<%d.%d"' % (versions[0], major, minor + 1)
    assert expected in runtime.splitlines(), runtime
