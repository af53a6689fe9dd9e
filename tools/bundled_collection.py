"""Extract one collection from the `ansible` wheel on PyPI (which bundles the community collections) into a
collections directory: the offline stand-in for `ansible-galaxy collection install` (Galaxy is out of reach here).

    python tools/bundled_collection.py WHEEL kubernetes.core .collections

The wheel is the one `pip download --require-hashes -r requirements-collections.txt` fetched (pip checked its
hash). Prints the collection's version from its MANIFEST.json; fails when the wheel does not hold it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import zipfile
from pathlib import Path


def extract(wheel: Path, collection: str, destination: Path) -> str:
    namespace, name = collection.split(".")
    prefix = f"ansible_collections/{namespace}/{name}/"
    target = destination / "ansible_collections" / namespace / name
    with zipfile.ZipFile(wheel) as archive:
        members = [m for m in archive.namelist() if m.startswith(prefix) and not m.endswith("/")]
        if not members:
            raise SystemExit(f"{wheel} holds no {prefix}")
        if target.exists():
            shutil.rmtree(target)
        for member in members:
            path = destination / member
            if ".." in Path(member).parts:
                raise SystemExit(f"{wheel}: unsafe path {member}")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(archive.read(member))
    return json.loads((target / "MANIFEST.json").read_text())["collection_info"]["version"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel", type=Path)
    parser.add_argument("collection")
    parser.add_argument("destination", type=Path)
    args = parser.parse_args(argv)
    print(f"{args.collection} {extract(args.wheel, args.collection, args.destination)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
