"""What the tests of pretrain_bert.py share: where its files are, and small runs of it
(conftest.py puts the files on sys.path)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

# A rank's place in a job, which a run of one process must not inherit from the test's environment.
from tests.unit.rank_scripts import RANK_VARIABLES

FILES = Path(__file__).resolve().parents[3] / "runtime" / "scc_training_runtime"
# mpi_job_rank.py, which the scc.training.mpi_job role installs next to pretrain_bert.py on the nodes.
# The directory above the package: what a source checkout puts on sys.path (an installed wheel needs none).
RUNTIME = FILES.parent


def small_run(output_dir, steps, *options):
    """pretrain_bert.py's arguments for a few tiny steps on one CPU thread, the first one a warm-up."""
    return ["--output-dir", str(output_dir), "--steps", str(steps), "--warmup-steps", "1"] + [
        "--seq-len", "32", "--batch-size", "2", "--threads", "1", *options,
    ]  # fmt: skip


def run_alone(argv):
    """pretrain_bert.main(argv) as a job of one process, on a free rendezvous port; its exit status."""
    from scc_training_runtime import pretrain_bert

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    saved = dict(os.environ)
    for name in RANK_VARIABLES:
        os.environ.pop(name, None)
    try:
        return pretrain_bert.main([*argv, "--master-port", str(port)])
    finally:
        os.environ.clear()
        os.environ.update(saved)
        _release_process_group()


def _release_process_group():
    """The run's process group, when it ended by an exception after the rendezvous (the script leaves it to the
    process's exit, as a rank of several must not wait at a barrier for ranks that died): the next run in this test
    process starts its own."""
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()
