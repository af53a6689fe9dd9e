"""Build the training runtime's wheel (scc_training_runtime), byte for byte the same from the same tree.

    python runtime/build_wheel.py --out DIR [--root COLLECTION_ROOT]

Prints one JSON object: {"path", "name", "sha256", "version", "changed"}. The wheel is written only when its bytes
differ from the file already there (changed false otherwise), so python_env's hash lock and its converged re-run
stay still. Standard library only: the controller runs it with Ansible's Python, no build backend is downloaded.

Reproducible (the same tree gives the same sha256, whatever the files' mtimes, owners or the umask): entries sorted,
every timestamp 1980-01-01 00:00:00 (the zip format's first), mode 0644, deflate at level 9, no extra fields.
The layout is PEP 427's: the package, then <name>.dist-info/METADATA (core metadata 2.1), WHEEL and RECORD (the
sha256 of each file, urlsafe base64 without padding; RECORD's own line without a hash). The version is the
collection's (galaxy.yml in a checkout, MANIFEST.json in an installed collection) with a local part naming the
package's files: `0.6.0+g<the first 12 hex digits of their sha256>` (PEP 440's local version label; one alphanumeric
segment, so no tool reads it as a number). New bytes are a new version: pip, which keeps an installed version that
`name==version` satisfies, replaces a venv's runtime as soon as the tree differs, from the same hash lock as the
pinned wheels (python_env). It is also written into the wheel as scc_training_runtime/_version.py. The wheel
declares no dependencies (Requires-Dist): torch, transformers, tokenizers and numpy are pinned by
python_env_requirements, so pip's hash-checking mode resolves nothing more.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import os
import re
import sys
import zipfile

PACKAGE = "scc_training_runtime"
DISTRIBUTION = "scc-training-runtime"
FIXED_TIME = (1980, 1, 1, 0, 0, 0)
# Package files that ship: the modules and the corpus pretrain_bert reads by default.
SHIPPED_SUFFIXES = (".py", ".txt")
HERE = os.path.dirname(os.path.abspath(__file__))


def collection_version(root: str) -> str:
    """The collection's version: galaxy.yml's `version:` (a checkout), else MANIFEST.json's (an installed one)."""
    galaxy = os.path.join(root, "galaxy.yml")
    if os.path.isfile(galaxy):
        with open(galaxy, encoding="utf-8") as handle:
            match = re.search(r"^version:\s*['\"]?([^'\"\s#]+)", handle.read(), re.M)
        if match:
            return match.group(1)
    manifest = os.path.join(root, "MANIFEST.json")
    if os.path.isfile(manifest):
        with open(manifest, encoding="utf-8") as handle:
            return str(json.load(handle)["collection_info"]["version"])
    raise SystemExit("build_wheel: neither %s nor %s names the collection's version" % (galaxy, manifest))


def package_files(source: str) -> list[tuple[str, bytes]]:
    """(archive name, bytes) of every shipped file of the package, sorted; caches and hidden files left out."""
    files = []
    for directory, dirs, names in os.walk(source):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__pycache__")))
        for name in names:
            if name.startswith(".") or not name.endswith(SHIPPED_SUFFIXES) or name == "_version.py":
                continue
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, os.path.dirname(source)).replace(os.sep, "/")
            with open(path, "rb") as handle:
                files.append((relative, handle.read()))
    return sorted(files)


def source_label(files: list[tuple[str, bytes]]) -> str:
    """The local version label of `files`: "g" and 12 hex digits of the sha256 over each file's name and bytes."""
    digest = hashlib.sha256()
    for name, data in files:
        digest.update(b"%d:%s\0%d:" % (len(name.encode("utf-8")), name.encode("utf-8"), len(data)))
        digest.update(data)
    return "g" + digest.hexdigest()[:12]


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")


def wheel_bytes(version: str, files: list[tuple[str, bytes]]) -> bytes:
    """The wheel of `files` at `version`: PEP 427, deterministic."""
    dist_info = "%s-%s.dist-info" % (PACKAGE, version)
    metadata = (
        "Metadata-Version: 2.1\n"
        "Name: %s\n"
        "Version: %s\n"
        "Summary: scc.training's training runtime: BERT and ResNet trainers, the mpi_job rank framework, bert_prep, "
        "the cluster report\n"
        "License: Apache-2.0\n"
        "Requires-Python: >=3.9\n" % (DISTRIBUTION, version)
    )
    wheel = (
        "Wheel-Version: 1.0\nGenerator: scc.training runtime/build_wheel.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    entries = list(files) + [("%s/_version.py" % PACKAGE, ('VERSION = "%s"\n' % version).encode("ascii"))]
    entries = sorted(entries) + [
        ("%s/METADATA" % dist_info, metadata.encode("utf-8")),
        ("%s/WHEEL" % dist_info, wheel.encode("ascii")),
    ]
    record = "".join("%s,%s,%d\n" % (name, record_hash(data), len(data)) for name, data in entries)
    entries.append(("%s/RECORD" % dist_info, (record + "%s/RECORD,,\n" % dist_info).encode("utf-8")))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix, whatever system builds it
            archive.writestr(info, data, compresslevel=9)
    return buffer.getvalue()


def build(out: str, root: str = os.path.dirname(HERE)) -> dict:
    """Write the wheel into `out` unless a file of the same bytes is there; what was built."""
    files = package_files(os.path.join(HERE, PACKAGE))
    version = "%s+%s" % (collection_version(root), source_label(files))
    data = wheel_bytes(version, files)
    name = "%s-%s-py3-none-any.whl" % (PACKAGE, version)
    path = os.path.join(out, name)
    changed = True
    if os.path.isfile(path):
        with open(path, "rb") as handle:
            changed = handle.read() != data
    if changed:
        os.makedirs(out, exist_ok=True)
        partial = path + ".part"
        with open(partial, "wb") as handle:
            handle.write(data)
        os.chmod(partial, 0o644)
        os.replace(partial, path)
        # One build in `out`: an earlier tree's wheel (another label) would be a second candidate for
        # `sha256sum out/*.whl` and for whoever copies the directory.
        for other in os.listdir(out):
            if other.startswith(PACKAGE + "-") and other.endswith(".whl") and other != name:
                os.remove(os.path.join(out, other))
    return {
        "path": path,
        "name": name,
        "sha256": hashlib.sha256(data).hexdigest(),
        "version": version,
        "changed": changed,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the scc_training_runtime wheel (reproducible).")
    parser.add_argument("--out", required=True, help="directory the wheel goes into")
    parser.add_argument("--root", default=os.path.dirname(HERE), help="the collection's root (its version)")
    args = parser.parse_args(argv)
    print(json.dumps(build(os.path.abspath(args.out), args.root), sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
