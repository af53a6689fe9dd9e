"""What a rank of an scc.training.mpi_job program does so that the launcher can stop it and report it
(the mpi_job role installs this file next to the program, which imports it). Standard library only.

- ``record_pid``: writes ``<pid>.json`` ({pid, starttime, rank, run_id, host, role}) into the directory
  named by ``SCC_MPI_JOB_PID_DIR`` (mpirun exports it), so that the next launch stops exactly this
  process on this node (the pid AND its start time, so that a reused pid is never taken for it).
- ``Progress``: writes ``progress-rank<k>.json`` ({rank, host, pid, step, steps, loss, status, error,
  updated_at, and samples_per_step and unit when the program names them}) into the run directory, atomically
  (a temporary file, then a rename), so that a failed job's steps, last loss and failing rank reach the
  controller, and the controller's wait (scc.training.mpi_job_wait) shows the steps, loss and samples/s.
- ``EXIT_*`` and ``add_job_arguments``: how a program exits (0 ok, 2 bad usage, 3 a non-finite loss) and the
  options every program takes (results, run id, device and precision, the torch.distributed rendezvous).
- ``load_secret_env``: the job's secret environment, from the 0600 file named by ``SCC_MPI_JOB_SECRET_ENV_FILE``
  (the mpi_job role writes it on every node from ``mpi_job_secret_env``; mpirun exports only its path), so that
  no secret is on mpirun's command line (``ps``) or in a log.
- ``test_only_fail``: TEST-ONLY fault injection, never set in production: ``SCC_TRAINING_TEST_ONLY_FAIL_AT``
  ``=<rank>:<step>`` makes that rank raise at that step (the lab test of a failed rank uses it).
"""

from __future__ import annotations

import json
import math
import os
import socket
import time

PID_DIR_ENV = "SCC_MPI_JOB_PID_DIR"
# The path of the job's secret environment file (NAME=value lines, mode 0600): the path travels, never a value.
SECRET_ENV_FILE_ENV = "SCC_MPI_JOB_SECRET_ENV_FILE"
# How a program exits: bad options (argparse's own code) and a diverged loss told apart from success.
EXIT_OK = 0
EXIT_USAGE = 2
EXIT_NON_FINITE = 3
# TEST ONLY: names a rank and a step at which that rank fails on purpose ("<rank>:<step>").
TEST_ONLY_FAIL_ENV = "SCC_TRAINING_TEST_ONLY_FAIL_AT"


def add_job_arguments(parser, environ=None) -> None:
    """The options of every mpi_job program: where rank 0 writes results.json, the run id, the device, backend,
    precision and CPU threads, and the torch.distributed rendezvous (mpirun exports MASTER_ADDR/MASTER_PORT)."""
    env = os.environ if environ is None else environ
    parser.add_argument("--output-dir", required=True, help="rank 0 writes results.json here")
    parser.add_argument("--run-id", default=env.get("SCC_TRAINING_RUN_ID", ""))
    parser.add_argument(
        "--backend",
        choices=["auto", "nccl", "gloo"],
        default="auto",
        help="torch.distributed backend (--framework torch only): auto is nccl on CUDA devices, gloo on CPUs",
    )
    parser.add_argument("--device", choices=["auto", "cuda", "cpu"], default="auto")
    parser.add_argument(
        "--precision",
        choices=["auto", "fp32", "fp16", "bf16"],
        default="auto",
        help="auto: bf16 on GPUs with compute capability >= 8.0, fp16 (with loss "
        "scaling) on older GPUs such as V100, fp32 on CPUs",
    )
    parser.add_argument(
        "--threads", type=int, default=0, help="torch intra-op threads per rank on CPU (0: cores / ranks on the node)"
    )
    parser.add_argument("--master-addr", default=env.get("MASTER_ADDR", ""))
    parser.add_argument("--master-port", type=int, default=int(env.get("MASTER_PORT", "29500")))
    parser.add_argument(
        "--init-timeout", type=int, default=300, help="seconds to wait for every rank to join the process group"
    )
    parser.add_argument("--log-every", type=int, default=10)


def load_secret_env(environ=None) -> list[str]:
    """Add the NAME=value lines of the file $SCC_MPI_JOB_SECRET_ENV_FILE names to `environ` (default os.environ);
    the names added (never the values). A file others may read (any group or other permission bit) is refused:
    a secret there is no longer one."""
    env = os.environ if environ is None else environ
    path = env.get(SECRET_ENV_FILE_ENV)
    if not path:
        return []
    with open(path, encoding="utf-8") as handle:
        mode = os.fstat(handle.fileno()).st_mode & 0o777
        if mode & 0o077:
            raise PermissionError("%s is mode %04o: a secret environment file must be 0600" % (path, mode))
        lines = handle.read().splitlines()
    names = []
    for number, line in enumerate(lines, 1):
        if not line or line.startswith("#"):
            continue
        name, sep, value = line.partition("=")
        if not sep or not name.isascii() or not name.replace("_", "a").isalnum() or name[0].isdigit():
            raise ValueError("%s: line %d is not NAME=value" % (path, number))
        env[name] = value
        names.append(name)
    return names


class TestOnlyInjectedFailure(RuntimeError):
    """Raised by test_only_fail: a failure the tests asked for, never a real one."""


def _write_json(path: str, data: dict) -> None:
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(data, handle, sort_keys=True, allow_nan=False)
        handle.write("\n")
    os.replace(tmp, path)


def record_pid(rank: int, run_id: str, env=None) -> str | None:
    """Record this process in $SCC_MPI_JOB_PID_DIR (of `env`, default os.environ); the path written, or None
    when the variable is unset."""
    where = (os.environ if env is None else env).get(PID_DIR_ENV)
    if not where:
        return None
    with open("/proc/self/stat", encoding="utf-8") as handle:
        # proc(5): field 22, starttime; the fields after the last ")" start at field 3.
        starttime = int(handle.read().rsplit(")", 1)[1].split()[19])
    pid = os.getpid()
    path = os.path.join(where, f"{pid}.json")
    record = {"pid": pid, "starttime": starttime, "rank": rank, "run_id": run_id, "host": socket.gethostname()}
    _write_json(path, dict(record, role="rank"))
    return path


class Progress:
    """progress-rank<rank>.json in ``run_dir``, rewritten at every update. ``samples_per_step`` (the global
    batch: what every rank together trains on in one step) and its ``unit`` (sequences, images) let the
    controller turn steps per second into samples per second."""

    def __init__(self, run_dir: str, rank: int, steps: int, samples_per_step: int | None = None, unit: str = ""):
        os.makedirs(run_dir, exist_ok=True)
        self.path = os.path.join(run_dir, f"progress-rank{rank}.json")
        self.state = {
            "rank": rank,
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "step": 0,
            "steps": steps,
            "loss": None,
            "status": "running",
            "error": None,
        }
        if samples_per_step:
            self.state.update(samples_per_step=samples_per_step, unit=unit or "samples")
        self._write()

    def _write(self) -> None:
        _write_json(self.path, dict(self.state, updated_at=time.time()))

    def update(self, step: int, loss: float | None) -> None:
        """``step`` steps done, the rank's own loss at the last one (None where not finite)."""
        self.state.update(step=step, loss=loss if loss is not None and math.isfinite(loss) else None)
        self._write()

    def finish(self, status: str, error: str | None = None) -> None:
        """The rank's end: ``ok``, ``failed`` (with the error) or the run's own status."""
        self.state.update(status=status, error=error)
        self._write()


def test_only_fail(rank: int, step: int, env=None) -> None:
    """TEST ONLY: raise TestOnlyInjectedFailure when $SCC_TRAINING_TEST_ONLY_FAIL_AT (of `env`, default
    os.environ) is ``<rank>:<step>``."""
    wanted = (os.environ if env is None else env).get(TEST_ONLY_FAIL_ENV, "")
    if wanted and wanted == f"{rank}:{step}":
        raise TestOnlyInjectedFailure(f"test-only failure injected at rank {rank}, step {step} ({TEST_ONLY_FAIL_ENV})")
