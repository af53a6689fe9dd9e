"""The setup of one rank of an mpi_job program (pretrain_bert.py, train_resnet.py): its device, the
autocast precision and, on CPUs, torch's threads; the refusals that end a run with exit status 2;
rank 0's log lines (prefixed with the program's name). The scc.training.mpi_job role installs it next to
the program."""

from __future__ import annotations

import json
import os
import platform
import sys
from dataclasses import dataclass
from typing import Any


class UsageError(Exception):
    """The run cannot start as asked (pretrain_bert.py exits with status 2)."""


@dataclass
class Device:
    """Where this rank computes, and in which precision."""

    device: Any  # torch.device
    name: str
    use_cuda: bool
    precision: str

    @property
    def kind(self) -> str:
        """cuda or cpu."""
        return self.device.type


# The program's name (pretrain_bert, train_resnet) before each of rank 0's lines.
PROGRAM = os.path.splitext(os.path.basename(sys.argv[0]))[0] if sys.argv and sys.argv[0] else "rank"


def write_results(output_dir: str, results: Any) -> str:
    """output_dir/results.json, written atomically (a temporary file, then a rename: the controller's
    fetch never reads half a file); its path."""
    os.makedirs(output_dir, exist_ok=True)
    path = os.path.join(output_dir, "results.json")
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(results, handle, indent=2, sort_keys=True, allow_nan=False)
        handle.write("\n")
    os.replace(tmp, path)
    return path


def log(rank: int, message: str) -> None:
    if rank == 0:
        print(f"[{PROGRAM}] {message}", flush=True)


def select_device(args: Any, local_rank: int, local_size: int, pin_local_rank: bool) -> Device:
    """CUDA when asked or available, else the CPU; `args` holds device, precision and threads.

    On GPUs the rank takes GPU `local_rank` (Horovod's examples pin local rank N to GPU N,
    `pin_local_rank`; mpirun's --map-by keeps it in range), else `local_rank` modulo the GPUs.
    Precision auto: bf16 on compute capability 8.0 and newer, fp16 on older GPUs such as V100
    (no bf16 tensor cores), fp32 on CPUs, where torch gets `threads` (0: cores / ranks on the node).
    """
    import torch

    use_cuda = args.device == "cuda" or (args.device == "auto" and torch.cuda.is_available())
    if use_cuda:
        if not torch.cuda.is_available():
            raise UsageError("--device cuda, but torch sees no CUDA device")
        torch.cuda.set_device(local_rank if pin_local_rank else local_rank % torch.cuda.device_count())
        device = torch.device("cuda", torch.cuda.current_device())
        capability = torch.cuda.get_device_capability(device)
        precision = args.precision if args.precision != "auto" else ("bf16" if capability >= (8, 0) else "fp16")
        return Device(device, torch.cuda.get_device_name(device), True, precision)
    torch.set_num_threads(args.threads or max(1, (os.cpu_count() or 1) // local_size))
    name = platform.processor() or platform.machine() or "cpu"
    return Device(torch.device("cpu"), name, False, "fp32" if args.precision == "auto" else args.precision)
