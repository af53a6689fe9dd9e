"""runtime/build_wheel.py: the training runtime's wheel, its version the collection's with a label of its files, the
same bytes from the same tree (python_env's hash lock and converged re-run depend on it), PEP 427's layout, and installable with no index and
no dependencies (hash-checking mode resolves nothing more)."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]
spec = importlib.util.spec_from_file_location("build_wheel", ROOT / "runtime" / "build_wheel.py")
build_wheel = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_wheel)
VERSION = str(yaml.safe_load((ROOT / "galaxy.yml").read_text(encoding="utf-8"))["version"])
PACKAGE = ROOT / "runtime" / "scc_training_runtime"


def build(out: Path) -> dict:
    done = subprocess.run(
        [sys.executable, str(ROOT / "runtime" / "build_wheel.py"), "--out", str(out)],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    return json.loads(done.stdout)


LABEL = build_wheel.source_label(build_wheel.package_files(str(PACKAGE)))


def test_the_wheel_carries_the_collections_version_and_is_not_rewritten_when_unchanged(tmp_path):
    first = build(tmp_path)
    assert first["version"] == "%s+%s" % (VERSION, LABEL) and first["changed"] is True
    assert first["name"] == "scc_training_runtime-%s+%s-py3-none-any.whl" % (VERSION, LABEL)
    data = Path(first["path"]).read_bytes()
    assert hashlib.sha256(data).hexdigest() == first["sha256"]
    stamp = os.stat(first["path"]).st_mtime_ns
    again = build(tmp_path)
    assert again == dict(first, changed=False) and os.stat(first["path"]).st_mtime_ns == stamp
    with zipfile.ZipFile(first["path"]) as wheel:
        assert wheel.read("scc_training_runtime/_version.py").decode() == 'VERSION = "%s+%s"\n' % (VERSION, LABEL)


def test_a_new_build_replaces_an_earlier_trees_wheel_and_leaves_other_files(tmp_path):
    earlier = tmp_path / ("scc_training_runtime-%s+g000000000000-py3-none-any.whl" % VERSION)
    earlier.write_bytes(b"an earlier tree's wheel")
    (tmp_path / "six-1.17.0-py2.py3-none-any.whl").write_bytes(b"another wheel")
    built = build(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([built["name"], "six-1.17.0-py2.py3-none-any.whl"])


def test_the_same_tree_gives_the_same_bytes_whatever_the_files_times_and_modes(tmp_path):
    copy = tmp_path / "scc_training_runtime"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for number, path in enumerate(sorted(copy.iterdir())):
        os.utime(path, (1_000_000 + number, 2_000_000_000 - number))
        path.chmod(0o600 if number % 2 else 0o755)
    (copy / "__pycache__").mkdir()
    (copy / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"cache")
    (copy / ".hidden.py").write_text("x = 1\n")
    ours = build_wheel.wheel_bytes(VERSION, build_wheel.package_files(str(PACKAGE)))
    theirs = build_wheel.wheel_bytes(VERSION, build_wheel.package_files(str(copy)))
    assert ours == theirs
    assert build_wheel.source_label(build_wheel.package_files(str(copy))) == LABEL
    # A changed module is another wheel, and another version: pip replaces an installed build with it.
    (copy / "bert_lamb.py").write_text((copy / "bert_lamb.py").read_text() + "\n# changed\n")
    assert build_wheel.wheel_bytes(VERSION, build_wheel.package_files(str(copy))) != ours
    assert build_wheel.source_label(build_wheel.package_files(str(copy))) != LABEL
    # The label covers the names too: the same bytes under another name are another tree.
    files = build_wheel.package_files(str(PACKAGE))
    renamed = sorted([("scc_training_runtime/other.py", files[0][1])] + files[1:])
    assert build_wheel.source_label(renamed) != LABEL
    assert LABEL[0] == "g" and len(LABEL) == 13 and set(LABEL[1:]) <= set("0123456789abcdef")


def test_the_layout_is_pep_427s_and_the_record_holds_every_files_hash(tmp_path):
    built = build(tmp_path)
    dist_info = "scc_training_runtime-%s+%s.dist-info" % (VERSION, LABEL)
    with zipfile.ZipFile(built["path"]) as wheel:
        names = wheel.namelist()
        infos = wheel.infolist()
        files = {name: wheel.read(name) for name in names}
    assert names[-3:] == [dist_info + "/METADATA", dist_info + "/WHEEL", dist_info + "/RECORD"]
    assert names[:-3] == sorted(names[:-3])
    assert all(info.date_time == (1980, 1, 1, 0, 0, 0) and info.external_attr >> 16 == 0o100644 for info in infos)
    shipped = {p.name for p in PACKAGE.iterdir() if p.suffix in (".py", ".txt")} | {"_version.py"}
    assert {n.split("/", 1)[1] for n in names if n.startswith("scc_training_runtime/")} == shipped
    wheel_meta = files[dist_info + "/WHEEL"].decode()
    assert "Wheel-Version: 1.0\n" in wheel_meta and "Root-Is-Purelib: true\n" in wheel_meta
    assert "Tag: py3-none-any\n" in wheel_meta
    metadata = files[dist_info + "/METADATA"].decode()
    assert "Name: scc-training-runtime\n" in metadata and "Version: %s+%s\n" % (VERSION, LABEL) in metadata
    assert "Requires-Dist" not in metadata  # python_env's pins bring torch and the rest: nothing to resolve
    record = [line.split(",") for line in files[dist_info + "/RECORD"].decode().splitlines()]
    assert [row[0] for row in record] == names and record[-1] == [dist_info + "/RECORD", "", ""]
    for name, digest, size in record[:-1]:
        expected = base64.urlsafe_b64encode(hashlib.sha256(files[name]).digest()).rstrip(b"=").decode()
        assert digest == "sha256=" + expected and int(size) == len(files[name]), name


def test_an_installed_collection_reads_its_version_from_manifest_json(tmp_path):
    (tmp_path / "MANIFEST.json").write_text(json.dumps({"collection_info": {"version": "9.8.7"}}))
    assert build_wheel.collection_version(str(tmp_path)) == "9.8.7"
    (tmp_path / "galaxy.yml").write_text("namespace: scc\nversion: 1.2.3 # a comment\n")
    assert build_wheel.collection_version(str(tmp_path)) == "1.2.3"


def test_pip_installs_it_with_no_index_and_no_dependencies_and_its_modules_run(tmp_path):
    built = build(tmp_path / "wheel")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_REQUIRE_VIRTUALENV")}
    lock = tmp_path / "lock.txt"
    lock.write_text("scc-training-runtime==%s --hash=sha256:%s\n" % (built["version"], built["sha256"]))
    # This venv's pip, installing into the new venv (--prefix): hash-checking mode, as python_env runs it.
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index", "--no-deps",
         "--find-links", str(tmp_path / "wheel"), "--require-hashes", "-r", str(lock), "--prefix", str(venv)],
        check=True, timeout=300, env=env,
    )  # fmt: skip
    python = str(venv / "bin" / "python")
    shown = subprocess.run(
        [python, "-c", "import scc_training_runtime as r; print(r.__version__, r.__file__)"],
        capture_output=True, text=True, check=True, env=env, cwd=tmp_path,
    )  # fmt: skip
    version, where = shown.stdout.split()
    assert version == built["version"] and where.startswith(str(venv))
    # bert_prep imports bert_data's shared helpers by package import; its check needs only the standard library.
    (tmp_path / "corpus.txt").write_text("one sentence.\nanother one.\n\nsecond document.\n", encoding="utf-8")
    checked = subprocess.run(
        [python, "-m", "scc_training_runtime.bert_prep", "check", "--corpus", str(tmp_path / "corpus.txt"), "--vocab", ""],
        capture_output=True, text=True, check=False, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stderr
    assert json.loads(checked.stdout)["problems"] == []
