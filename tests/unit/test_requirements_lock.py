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
