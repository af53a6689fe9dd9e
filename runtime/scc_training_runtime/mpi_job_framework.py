"""The data-parallel framework of an mpi_job program (--framework of pretrain_bert.py and train_resnet.py),
behind one interface; the scc.training.mpi_job role installs it next to the program.

- TorchDDP (torch): the rank comes from Open MPI's environment (OMPI_COMM_WORLD_RANK, _SIZE,
  _LOCAL_RANK, _LOCAL_SIZE; torchrun's as a fallback); connect() joins a torch.distributed
  process group over TCP (MASTER_ADDR:MASTER_PORT; --backend: NCCL on GPUs, gloo on CPUs), and
  the model is wrapped in DistributedDataParallel, which averages the gradients in backward.
- ACSpeedDDP (acspeed): TorchDDP with Alibaba's ACSpeed, a plug-in for native DDP, imported
  right after torch as its install guide shows (`import torch; import acspeed`; help.aliyun.com,
  "Install and use AIACC-ACSpeed"). It needs CUDA devices (NCCL): Alibaba documents it for its
  GPU instances. No environment is set for it: Alibaba documents none.
- HorovodAPI (horovod: horovod.torch; aiacc: perseus.torch.horovod, Alibaba's AIACC-Training,
  which has Horovod's API): hvd.init() gives rank, size and local rank; the optimizer is wrapped
  in hvd.DistributedOptimizer, rank 0's parameters and optimizer state are broadcast, and each
  step runs Horovod's order for AMP and clipping. Only the core Horovod API is used (no
  broadcast_object/allgather_object/barrier), so older Horovod-based releases work too.

Both offer the collectives the run needs: all_gather_object, broadcast_object, allreduce_sum,
barrier and close.
"""

from __future__ import annotations

import datetime as _dt
import importlib
import pickle
import sys
from typing import Any, Callable, Mapping

from . import mpi_job_device, mpi_job_rank
from .mpi_job_device import UsageError

# --framework -> the module it imports besides torch (None: torch.distributed + DDP alone).
FRAMEWORK_MODULES: dict[str, str | None] = {
    "torch": None,
    "horovod": "horovod.torch",
    "aiacc": "perseus.torch.horovod",
    "acspeed": "acspeed",
}
# Those whose module has Horovod's API; the others run DistributedDataParallel.
HOROVOD_API = ("horovod", "aiacc")


def _import(name: str):
    """The framework's module, or a usage error naming it."""
    module = FRAMEWORK_MODULES[name]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise UsageError(f"--framework {name} needs the module {module} in this python ({exc})") from exc


def rank_info(environ: Mapping[str, str]) -> dict[str, int]:
    """rank, world_size, local_rank, local_size from OpenMPI's (or torchrun's) environment."""
    for prefix, names in (
        ("OMPI_COMM_WORLD_", ("RANK", "SIZE", "LOCAL_RANK", "LOCAL_SIZE")),
        ("", ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE")),
    ):
        if prefix + names[0] in environ and prefix + names[1] in environ:
            rank = int(environ[prefix + names[0]])
            world = int(environ[prefix + names[1]])
            local_rank = int(environ.get(prefix + names[2], rank))
            local_size = int(environ.get(prefix + names[3], world))
            break
    else:
        rank, world, local_rank, local_size = 0, 1, 0, 1
    if not (world >= 1 and 0 <= rank < world and 0 <= local_rank < local_size):
        raise ValueError(
            f"inconsistent rank environment: rank={rank} world_size={world} "
            f"local_rank={local_rank} local_size={local_size}"
        )
    return {"rank": rank, "world_size": world, "local_rank": local_rank, "local_size": local_size}


def _unscale_and_clip(optimizer, scaler, parameters) -> None:
    """The gradients back to their true scale (fp16 loss scaling), then clipped to norm 1."""
    import torch

    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(parameters, 1.0)


class TorchDDP:
    """torch.distributed + DistributedDataParallel (--framework torch)."""

    name = "torch"
    # GPU local_rank % GPUs: torchrun and mpirun users may start more ranks than GPUs.
    pin_local_rank = False

    def __init__(self, environ: Mapping[str, str]):
        ranks = rank_info(environ)
        self.rank, self.world_size = ranks["rank"], ranks["world_size"]
        self.local_rank, self.local_size = ranks["local_rank"], ranks["local_size"]
        self.backend: str | None = None
        self.master: str | None = None
        self.dist: Any = None

    def connect(self, args: Any, use_cuda: bool) -> None:
        """Join the process group: `args` holds backend, master_addr, master_port, init_timeout."""
        import torch.distributed as dist

        backend = args.backend if args.backend != "auto" else ("nccl" if use_cuda else "gloo")
        if backend == "nccl" and not use_cuda:
            raise UsageError("backend nccl needs CUDA devices")
        master_addr = args.master_addr or ("127.0.0.1" if self.world_size == 1 else "")
        if not master_addr:
            raise UsageError("--master-addr (or MASTER_ADDR) is required with more than one rank")
        host_part = f"[{master_addr}]" if ":" in master_addr else master_addr
        dist.init_process_group(
            backend=backend,
            init_method=f"tcp://{host_part}:{args.master_port}",
            rank=self.rank,
            world_size=self.world_size,
            timeout=_dt.timedelta(seconds=args.init_timeout),
        )
        self.dist, self.backend, self.master = dist, backend, f"{master_addr}:{args.master_port}"

    def wrap_model(self, model, device, use_cuda: bool, options: Mapping[str, Any] | None = None):
        """DistributedDataParallel with `options` (bucket_cap_mb, gradient_as_bucket_view, static_graph)."""
        from torch.nn.parallel import DistributedDataParallel

        return DistributedDataParallel(model, device_ids=[device.index] if use_cuda else None, **(options or {}))

    def distribute(self, model, optimizer):
        """DDP keeps the ranks in step by itself: the optimizer stays as it is."""
        return optimizer

    def step(self, optimizer, scaler, parameters) -> None:
        """Unscale and clip the gradients DDP averaged, then step."""
        _unscale_and_clip(optimizer, scaler, parameters)
        scaler.step(optimizer)

    def all_gather_object(self, obj: Any) -> list[Any]:
        out: list[Any] = [None] * self.world_size
        self.dist.all_gather_object(out, obj)
        return out

    def broadcast_object(self, obj: Any) -> Any:
        payload = [obj]
        self.dist.broadcast_object_list(payload, src=0)
        return payload[0]

    def allreduce_sum(self, tensor):
        self.dist.all_reduce(tensor, op=self.dist.ReduceOp.SUM)
        return tensor

    def barrier(self) -> None:
        self.dist.barrier()

    def close(self) -> None:
        self.dist.barrier()
        self.dist.destroy_process_group()


class ACSpeedDDP(TorchDDP):
    """TorchDDP with ACSpeed plugged in (--framework acspeed)."""

    name = "acspeed"

    def __init__(self, environ: Mapping[str, str]):
        super().__init__(environ)
        import torch  # noqa: F401  (ACSpeed plugs into the torch imported before it)

        self.plugin = _import(self.name)

    def connect(self, args: Any, use_cuda: bool) -> None:
        if not use_cuda:
            raise UsageError("--framework acspeed needs CUDA devices (ACSpeed plugs into DDP over NCCL)")
        super().connect(args, use_cuda)


class HorovodAPI:
    """Horovod's API (horovod.torch or perseus.torch.horovod).

    Objects travel as pickled bytes in uint8 tensors through hvd.broadcast and hvd.allgather
    (which takes a different first dimension per rank): only the core API, which every
    Horovod-based release has, so the script does not depend on broadcast_object and friends.
    """

    # Horovod's examples pin local rank N to GPU N.
    pin_local_rank = True
    # Horovod does its own rendezvous (MPI under mpirun): no torch master.
    master = None

    def __init__(self, name: str):
        self.hvd = _import(name)
        self.hvd.init()
        # The backend it reports is the framework's name.
        self.name = self.backend = name
        self.rank, self.world_size = self.hvd.rank(), self.hvd.size()
        self.local_rank, self.local_size = self.hvd.local_rank(), self.hvd.local_size()

    def connect(self, args: Any, use_cuda: bool) -> None:
        """hvd.init() did the rendezvous already."""

    def wrap_model(self, model, device, use_cuda: bool, options: Mapping[str, Any] | None = None):
        """Horovod averages in its optimizer: no wrapper, DDP's options do not apply."""
        return model

    def distribute(self, model, optimizer):
        """hvd.DistributedOptimizer, and every rank starts from rank 0's parameters and state."""
        optimizer = self.hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        self.hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        self.hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        return optimizer

    def step(self, optimizer, scaler, parameters) -> None:
        """Horovod's order with AMP and clipping: finish the allreduce, then unscale and clip the
        averaged gradients, and step without allreducing again."""
        optimizer.synchronize()
        _unscale_and_clip(optimizer, scaler, parameters)
        with optimizer.skip_synchronize():
            scaler.step(optimizer)

    def _to_tensor(self, obj: Any):
        import torch

        return torch.frombuffer(bytearray(pickle.dumps(obj)), dtype=torch.uint8)

    def all_gather_object(self, obj: Any) -> list[Any]:
        import torch

        data = self._to_tensor(obj)
        sizes = self.hvd.allgather(torch.tensor([data.numel()], dtype=torch.int64), name="object_sizes").tolist()
        gathered = self.hvd.allgather(data, name="objects")
        out, offset = [], 0
        for size in sizes:
            out.append(pickle.loads(gathered[offset : offset + size].numpy().tobytes()))
            offset += size
        return out

    def broadcast_object(self, obj: Any) -> Any:
        import torch

        data = self._to_tensor(obj) if self.hvd.rank() == 0 else None
        size = torch.tensor([data.numel() if data is not None else 0], dtype=torch.int64)
        size = int(self.hvd.broadcast(size, root_rank=0, name="object_size").item())
        if data is None:
            data = torch.zeros(size, dtype=torch.uint8)
        data = self.hvd.broadcast(data, root_rank=0, name="object")
        return pickle.loads(data.numpy().tobytes())

    def allreduce_sum(self, tensor):
        return self.hvd.allreduce(tensor, op=self.hvd.Sum, name="metrics")

    def barrier(self) -> None:
        import torch

        self.hvd.allreduce(torch.zeros(1), op=self.hvd.Sum, name="barrier")

    def close(self) -> None:
        self.barrier()
        self.hvd.shutdown()


def open_framework(name: str, environ: Mapping[str, str]):
    """The framework object of --framework `name`: its ranks known, not yet connected."""
    if name in HOROVOD_API:
        return HorovodAPI(name)
    return ACSpeedDDP(environ) if name == "acspeed" else TorchDDP(environ)


def start_rank(args: Any, environ: Mapping[str, str]):
    """A rank's start, the same for every program: its framework (the rank, Horovod's after hvd.init(), else Open
    MPI's environment), its pid recorded before the rendezvous (which may wait: the next launch must find a rank stuck
    there), its device and precision, then the rendezvous. `args` holds framework, run_id, device, precision,
    threads, backend, master_addr, master_port and init_timeout. -> (framework, device); UsageError when it cannot."""
    import_group_defaults()  # first: hvd.init() may make a torch process group too (the tests' stand-in does)
    # The job's secrets (mpi_job_secret_env) into this process's environment, from their 0600 file.
    mpi_job_rank.load_secret_env()
    framework = open_framework(args.framework, environ)
    mpi_job_rank.record_pid(framework.rank, args.run_id)
    device = mpi_job_device.select_device(args, framework.local_rank, framework.local_size, framework.pin_local_rank)
    framework.connect(args, device.use_cuda)
    return framework, device


def run_rank(
    program: str,
    args: Any,
    environ: Mapping[str, str],
    unit: str,
    global_batch: Callable[[Any, Any], int],
    train: Callable[[Any, Any, Any], str],
) -> int:
    """A rank of `program` from its start to its exit status, the same for every program: start_rank, then the
    progress file (`global_batch(framework, device)` `unit`s a step), `train(framework, device, progress)` -> its
    status ("ok", or the non-finite loss's), the progress file's end and the framework's close. A usage error (before
    the rendezvous, or found once the ranks met: a checkpoint that cannot resume) is said on stderr as
    "<program>: ..." and exits EXIT_USAGE; any other exception marks the progress file failed and propagates."""
    try:
        framework, device = start_rank(args, environ)
    except UsageError as exc:
        print(f"{program}: {exc}", file=sys.stderr)
        return mpi_job_rank.EXIT_USAGE
    progress = mpi_job_rank.Progress(args.output_dir, framework.rank, args.steps, global_batch(framework, device), unit)
    try:
        status = train(framework, device, progress)
    except UsageError as exc:
        progress.finish("failed", f"UsageError: {exc}")
        print(f"{program}: {exc}", file=sys.stderr)
        framework.close()
        return mpi_job_rank.EXIT_USAGE
    except Exception as exc:
        progress.finish("failed", f"{type(exc).__name__}: {exc}")
        raise
    progress.finish(status)
    framework.close()
    return mpi_job_rank.EXIT_OK if status == "ok" else mpi_job_rank.EXIT_NON_FINITE


def import_group_defaults() -> None:
    """Import torch.distributed.nn.functional while no process group exists. Its collectives take
    `group=group.WORLD` as a default argument, evaluated at import: imported after the rendezvous (transformers'
    modeling_utils imports it, through torch.distributed.fsdp) they hold the default group past
    destroy_process_group(), so close() leaves its gloo threads running into the interpreter's exit, where one that
    releases a finished allreduce's tensor aborts the rank ("terminate called without an active exception", found
    with gdb under torch 2.13)."""
    import torch.distributed

    if torch.distributed.is_available():
        import torch.distributed.nn.functional  # for its import-time defaults (above), while they are None
