"""STAND-IN for horovod.torch, for tests only: it is NOT Horovod.

Horovod needs a build against torch and MPI/NCCL, which this test machine cannot do, so this
module implements, on top of torch.distributed's gloo backend, the subset of the horovod.torch
API that runtime/scc_training_runtime/pretrain_bert.py uses: init, rank, size, local_rank,
local_size, shutdown, allreduce (Sum, Average), allgather (a different first dimension per
rank), broadcast, broadcast_parameters, broadcast_optimizer_state and DistributedOptimizer (with
synchronize and skip_synchronize). Running the script on it proves the script's use of that
API (the call order, and that the ranks stay identical), not Horovod's or AIACC's own behaviour.

Like hvd.init() under mpirun, init() takes the rank from Open MPI's OMPI_COMM_WORLD_*
environment. Rendezvous: every rank is a client of the TCPStore that the TEST process serves on
SCC_HVD_STANDIN_STORE_PORT (a port the kernel picked). shutdown() frees the gloo process group only because
mpi_job_framework.start_rank imports torch.distributed.nn.functional before init() (its
import_group_defaults says why); otherwise a rank aborts now and then at exit. When SCC_HVD_STANDIN_LOG is
set, every API call is appended to <SCC_HVD_STANDIN_LOG>.<rank> as one JSON line, with the
parameters' checksum after every optimizer step, for the tests to check.
"""

import contextlib
import datetime
import json
import os

import torch
import torch.distributed as dist

Sum = "Sum"
Average = "Average"

_STATE = {"module": __name__, "rank": None, "local_rank": None, "local_size": None}


def _set_module_name(name):
    _STATE["module"] = name


def _record(event, **fields):
    path = os.environ.get("SCC_HVD_STANDIN_LOG")
    if path and _STATE["rank"] is not None:
        with open(f"{path}.{_STATE['rank']}", "a", encoding="utf-8") as handle:
            handle.write(json.dumps(dict(fields, event=event)) + "\n")


def init():
    env = os.environ
    rank_ = int(env["OMPI_COMM_WORLD_RANK"])
    size_ = int(env["OMPI_COMM_WORLD_SIZE"])
    _STATE.update(
        rank=rank_,
        local_rank=int(env.get("OMPI_COMM_WORLD_LOCAL_RANK", rank_)),
        local_size=int(env.get("OMPI_COMM_WORLD_LOCAL_SIZE", size_)),
    )
    timeout = datetime.timedelta(seconds=120)
    dist.init_process_group(
        "gloo",
        store=dist.TCPStore("127.0.0.1", int(env["SCC_HVD_STANDIN_STORE_PORT"]), is_master=False, timeout=timeout),
        rank=rank_,
        world_size=size_,
        timeout=timeout,
    )
    _record("init", module=_STATE["module"], size=size_)


def rank():
    return _STATE["rank"]


def size():
    return dist.get_world_size()


def local_rank():
    return _STATE["local_rank"]


def local_size():
    return _STATE["local_size"]


def shutdown():
    dist.destroy_process_group()
    # Threads of a gloo group still alive (0 when destroy_process_group freed it), for the tests to check.
    tasks = [f"/proc/self/task/{task}/comm" for task in os.listdir("/proc/self/task")]
    _record("shutdown", gloo_threads=sum("gloo" in open(path, encoding="utf-8").read() for path in tasks))


def allreduce(tensor, op=Average, name=None):
    if op not in (Sum, Average):
        raise ValueError(f"stand-in allreduce: op {op!r} is not supported")
    out = tensor.detach().clone()
    dist.all_reduce(out, op=dist.ReduceOp.SUM)
    if op == Average:
        out /= size()
    _record("allreduce", op=op, name=name, shape=list(out.shape))
    return out


def allgather(tensor, name=None):
    """Concatenation of every rank's tensor along dimension 0 (first dimensions may differ)."""
    rows = torch.tensor([tensor.shape[0]], dtype=torch.int64)
    all_rows = [torch.zeros_like(rows) for unused in range(size())]
    dist.all_gather(all_rows, rows)
    longest = max(int(r.item()) for r in all_rows)
    padded = torch.zeros((longest,) + tuple(tensor.shape[1:]), dtype=tensor.dtype)
    padded[: tensor.shape[0]] = tensor
    parts = [torch.zeros_like(padded) for unused in range(size())]
    dist.all_gather(parts, padded)
    _record("allgather", name=name)
    return torch.cat([p[: int(r.item())] for p, r in zip(parts, all_rows)])


def broadcast(tensor, root_rank, name=None):
    out = tensor.detach().clone()
    dist.broadcast(out, src=root_rank)
    _record("broadcast", root_rank=root_rank, name=name)
    return out


def broadcast_parameters(params, root_rank):
    items = sorted(params.items()) if hasattr(params, "items") else list(params)
    for _name, value in items:
        with torch.no_grad():
            dist.broadcast(value, src=root_rank)
    _record("broadcast_parameters", root_rank=root_rank, count=len(items))


def broadcast_optimizer_state(optimizer, root_rank):
    # As Horovod does: a new optimizer has no state yet, so one step with zero gradients
    # (of the wrapped class, without an allreduce) creates it, then rank 0's is broadcast.
    if not optimizer.state_dict()["state"]:
        for group in optimizer.param_groups:
            for param in group["params"]:
                if param.requires_grad:
                    param.grad = torch.zeros_like(param)
        if isinstance(optimizer, _DistributedOptimizer):
            super(_DistributedOptimizer, optimizer).step()
        else:
            optimizer.step()
    tensors = 0
    for group in optimizer.param_groups:
        for param in group["params"]:
            for key in sorted(optimizer.state[param]):
                value = optimizer.state[param][key]
                if torch.is_tensor(value):
                    dist.broadcast(value, src=root_rank)
                    tensors += 1
    groups = [[{k: v for k, v in g.items() if k != "params"} for g in optimizer.param_groups]]
    dist.broadcast_object_list(groups, src=root_rank)
    for group, values in zip(optimizer.param_groups, groups[0]):
        group.update(values)
    _record("broadcast_optimizer_state", root_rank=root_rank, tensors=tensors)


class _DistributedOptimizer:
    """Mixed in before the optimizer's own class: step() averages the gradients first."""

    def synchronize(self):
        for group in self.param_groups:
            for param in group["params"]:
                if param.grad is not None:
                    dist.all_reduce(param.grad, op=dist.ReduceOp.SUM)
                    param.grad /= size()
        self._hvd_synchronized = True
        _record("synchronize")

    @contextlib.contextmanager
    def skip_synchronize(self):
        self._hvd_skip = True
        try:
            yield
        finally:
            self._hvd_skip = False

    def step(self, closure=None):
        if not getattr(self, "_hvd_skip", False):
            if getattr(self, "_hvd_synchronized", False):
                # Horovod warns here: the gradients would be allreduced twice.
                _record("step_after_synchronize_without_skip")
            self.synchronize()
        result = super().step(closure)
        self._hvd_synchronized = False
        with torch.no_grad():
            checksum = sum(float(p.double().sum()) for g in self.param_groups for p in g["params"])
        _record("step", checksum=checksum)
        return result


def DistributedOptimizer(optimizer, named_parameters=None, **unused):
    named = list(named_parameters or [])
    names = [name for name, unused_param in named]
    if len(set(names)) != len(names):
        raise ValueError("stand-in DistributedOptimizer: named_parameters has duplicate names")
    covered = {id(param) for unused_name, param in named}
    params = [p for g in optimizer.param_groups for p in g["params"]]
    missing = [p for p in params if id(p) not in covered]
    if named and missing:
        raise ValueError(
            f"stand-in DistributedOptimizer: {len(missing)} parameter(s) of the optimizer are not in named_parameters"
        )
    base = type(optimizer)
    optimizer.__class__ = type(base.__name__, (_DistributedOptimizer, base), {})
    _record("DistributedOptimizer", optimizer=base.__name__, named_parameters=len(named), params=len(params))
    return optimizer
