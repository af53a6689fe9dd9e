"""`python -m lab cloud`: serve the emulator until SIGINT/SIGTERM."""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path

from .server import CloudEmulator
from .store import Timings


def add_parser(sub) -> None:
    cloud = sub.add_parser("cloud", help="serve the offline ECS/NAS API emulator on loopback")
    cloud.add_argument("--port", type=int, required=True, help="TCP port (0: any free port, printed)")
    cloud.add_argument("--address", default="127.0.0.1", help="address to listen on: 127.0.0.1, the only one accepted")
    cloud.add_argument("--instance-seconds", type=float, default=2.0, help="Pending -> Running time of an instance")
    cloud.add_argument("--cpfs-seconds", type=float, default=5.0, help="Pending -> Running time of a CPFS file system")
    cloud.add_argument(
        "--back-with-lab",
        type=Path,
        default=None,
        metavar="LAB_DIR",
        help="back new instances with this lab's hosts (PrivateIpAddress = host address)",
    )


def run(args) -> int:
    """Credentials come from ALIBABA_CLOUD_ACCESS_KEY_ID / _SECRET (/ _SECURITY_TOKEN for STS)."""
    addresses = None
    if args.back_with_lab is not None:
        from ..cluster import Lab

        addresses = [h.address for h in Lab(args.back_with_lab).load()]
        if not addresses:
            print(f"lab: error: no lab is up in {args.back_with_lab}", file=sys.stderr)
            return 2
    half = args.instance_seconds / 2
    timings = Timings(instance_pending=half, instance_starting=half, file_system=args.cpfs_seconds)
    try:
        emu = CloudEmulator(
            port=args.port,
            address=args.address,
            timings=timings,
            host_addresses=addresses,
            security_token=os.environ.get("ALIBABA_CLOUD_SECURITY_TOKEN") or None,
        )
        emu.start()
    except (ValueError, OSError) as exc:
        print(f"lab: error: {exc}", file=sys.stderr)
        return 2
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    print(f"cloud emulator listening on http://{emu.endpoint}", flush=True)
    stop.wait()
    emu.stop()
    return 0
