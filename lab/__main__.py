"""`python -m lab`: the local lab cluster (see lab/README.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .cloud import cli as cloud_cli
from .cluster import Lab, default_dir
from .errors import LabError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lab", description="Local lab cluster of namespace hosts.")
    parser.add_argument("--dir", type=Path, default=None, help="lab directory (default: $SCC_LAB_DIR or .lab/)")
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("up", help="start N hosts (builds and caches the base once)")
    up.add_argument("--hosts", type=int, default=2)
    up.add_argument("--first-address", default="127.0.0.11", help="loopback address of node1")
    sub.add_parser("down", help="stop the hosts this lab started and remove their state")
    sub.add_parser("status", help="show each host and whether its sshd answers")
    sub.add_parser("inventory", help="print the path of the Ansible inventory")
    cloud_cli.add_parser(sub)
    args = parser.parse_args(argv)
    if args.command == "cloud":
        return cloud_cli.run(args)
    lab = Lab(args.dir or default_dir())
    try:
        if args.command == "up":
            lab.up(args.hosts, args.first_address)
        elif args.command == "down":
            lab.down()
        elif args.command == "status":
            rows = lab.status()
            print(json.dumps(rows, indent=2) if rows else "no lab is up in " + str(lab.dir))
            return 0 if all(r["ssh"] for r in rows) else 1
        elif args.command == "inventory":
            if not lab.inventory.is_file():
                raise LabError(f"no lab is up in {lab.dir}: run `python -m lab up` first")
            print(lab.inventory)
    except LabError as exc:
        print(f"lab: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
