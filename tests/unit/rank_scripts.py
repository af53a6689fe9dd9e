"""What the trainers' unit tests (tests/unit/bert, tests/unit/resnet) share: the script's directory and mpi_job's
rank modules on sys.path (they import each other as they do next to each other on a node), the training stack
present (requirements-dev.txt pins it, so a venv without it is broken: fail with one message rather than skip, a
skipped test passes the build unseen), and a job of N ranks started as mpirun starts them."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest


def importable_like_on_a_node(suite: str, *script_dirs: Path, needs: tuple[str, ...]) -> None:
    for directory in script_dirs:
        sys.path.insert(0, str(directory))
    missing = []
    for name in needs:
        try:
            __import__(name)
        except ImportError as exc:
            missing.append(f"{name} ({exc})")
    if missing:
        raise pytest.UsageError(
            f"{suite} needs {', '.join(missing)} in {sys.executable}: "
            "requirements-dev.txt pins them (make venv installs them)"
        )


RANK_VARIABLES = ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "RANK", "WORLD_SIZE", "MASTER_ADDR")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def run_ranks(command, world: int = 2, env: dict | None = None, timeout: float = 180, rendezvous: bool = True):
    """``world`` processes with Open MPI's rank variables, as mpirun starts them on one node -> their outputs.

    ``command``: the argv, or rank -> argv. ``rendezvous`` adds torch.distributed's MASTER_ADDR/MASTER_PORT on
    loopback (a free port). Each rank must exit 0 (the assertion shows its output's tail); none outlives the call.
    """
    base = {k: v for k, v in os.environ.items() if k not in RANK_VARIABLES}
    base.update(env or {})
    if rendezvous:
        base.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()))
    processes = [
        subprocess.Popen(
            command(rank) if callable(command) else command,
            env={
                **base,
                "OMPI_COMM_WORLD_RANK": str(rank),
                "OMPI_COMM_WORLD_SIZE": str(world),
                "OMPI_COMM_WORLD_LOCAL_RANK": str(rank),
                "OMPI_COMM_WORLD_LOCAL_SIZE": str(world),
            },
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        for rank in range(world)
    ]
    outputs = []
    try:
        for rank, process in enumerate(processes):
            outputs.append(process.communicate(timeout=timeout)[0].decode(errors="replace"))
            assert process.returncode == 0, f"rank {rank} exited {process.returncode}:\n{outputs[-1][-3000:]}"
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    return outputs
