"""tools/mutation.py: an equivalent survivor is recognised by its lines, and, where one line occurs twice in a
file, by the line above it."""

from __future__ import annotations

import difflib
import subprocess
from pathlib import Path

from tools import mutation

WAITERS = Path(__file__).resolve().parents[3] / "plugins/module_utils/_alicloud_waiters.py"


def _mutant_diff(path, match_above, before, after):
    """The unified diff (as cosmic-ray records it) of ``before`` -> ``after`` on the line below ``match_above``."""
    lines = path.read_text().splitlines(True)
    index = next(i for i in range(1, len(lines)) if lines[i].strip() == before and lines[i - 1].strip() == match_above)
    mutated = list(lines)
    mutated[index] = mutated[index].replace(before, after)
    return "".join(difflib.unified_diff(lines, mutated, "a", "b"))


def _known(name):
    return {(entry[0], entry[1], entry[3] if len(entry) > 3 else None): entry[2] for entry in mutation.EQUIVALENT[name]}


def test_the_two_continues_of_wait_lines_are_told_apart():
    known = _known("cloud_waiters")
    no_state = _mutant_diff(WAITERS, "if not states:", "continue", "break")
    end_shown = _mutant_diff(WAITERS, "if end_shown:", "continue", "break")
    assert mutation._changed(no_state) == ("continue", "break", "if not states:")
    assert mutation._equivalent_reason(known, no_state)
    # Breaking out after a wait whose end was shown would hide every later wait: a test must kill it.
    assert mutation._equivalent_reason(known, end_shown) is None


def test_an_entry_without_a_line_above_matches_wherever_its_line_is():
    known = _known("cloud_waiters")
    diff = _mutant_diff(
        WAITERS,
        "over = bool(view.get(\"ready\")) or ended or index < len(views) - 1",
        "chain = states[max(0, count - 1) :] if count < len(states) else states[-1:]",
        "chain = states[max(0, count - 1) :] if count <= len(states) else states[-1:]",
    )
    assert mutation._equivalent_reason(known, diff) == "at count == len(states) both give the last state alone"
    assert mutation._equivalent_reason(known, diff.replace("count <= len", "count >= len")) is None


def test_every_equivalent_entry_names_a_line_of_its_target():
    root = Path(__file__).resolve().parents[3]
    stale = []
    for name, entries in mutation.EQUIVALENT.items():
        lines = [line.strip() for line in (root / mutation.TARGETS[name][0]).read_text().splitlines()]
        stale += ["%s: %s" % (name, entry[0]) for entry in entries if entry[0] not in lines]
        stale += ["%s: above %s" % (name, entry[3]) for entry in entries if len(entry) > 3 and entry[3] not in lines]
    assert stale == []


def _git(root, *args):
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def test_a_jobs_tree_is_the_working_tree_as_it_is_and_imports_itself(tmp_path):
    root = tmp_path / "root"
    (root / "plugins").mkdir(parents=True)
    (root / "plugins/kept.py").write_text("A = 1\n")
    (root / "plugins/gone.py").write_text("B = 1\n")
    (root / ".gitignore").write_text(".cache/\n.collections/\n")
    _git(root, "init", "-q")
    _git(root, "add", ".")
    (root / "plugins/kept.py").write_text("A = 2\n")  # edited, not committed: the copy has the edit
    (root / "plugins/new.py").write_text("C = 1\n")  # untracked, not ignored: copied
    (root / "plugins/gone.py").unlink()  # deleted, still in the index: not copied
    (root / ".cache").mkdir()
    (root / ".cache/big.sqlite").write_text("x")  # ignored: not copied
    collections = root / ".collections/ansible_collections"
    (collections / "scc").mkdir(parents=True)
    (collections / "scc/training").symlink_to("../../..")
    (collections / "kubernetes/core").mkdir(parents=True)

    tree = mutation.tree_copy(tmp_path / "trees/0", root)
    files = sorted(str(p.relative_to(tree)) for p in tree.rglob("*") if p.is_file() and ".collections" not in p.parts)
    assert files == [".gitignore", "plugins/kept.py", "plugins/new.py"]
    assert (tree / "plugins/kept.py").read_text() == "A = 2\n"
    # The collection a test imports is the copy's (its mutants), the others are the root's.
    assert (tree / ".collections/ansible_collections/scc/training").resolve() == tree.resolve()
    assert (tree / ".collections/ansible_collections/kubernetes").resolve() == (collections / "kubernetes").resolve()
    # A second run starts from a fresh copy: a mutant left behind by a killed run is gone.
    (tree / "plugins/kept.py").write_text("A = 'mutant'\n")
    again = mutation.tree_copy(tmp_path / "trees/0", root)
    assert (again / "plugins/kept.py").read_text() == "A = 2\n"


def test_jobs_take_the_largest_modules_first():
    order = mutation.by_size(["health", "cloud_inputs", "redact"])
    sizes = [(mutation.ROOT / mutation.TARGETS[name][0]).stat().st_size for name in order]
    assert sizes == sorted(sizes, reverse=True) and sorted(order) == ["cloud_inputs", "health", "redact"]
