"""The training loop of pretrain_bert.py: AdamW or LAMB with a linear warm-up and decay, the masked-LM
and next-sentence losses under autocast, gradient accumulation (DDP's no_sync on all but the last
micro-batch), the framework's step, checkpoints, and the timing of the steps after the warm-up (a
device synchronisation and a barrier at both ends).

No step makes the host wait for the device: masking runs on the device with fixed shapes, the
statistics add up in device tensors, and the progress file gets the newest loss whose copy to
pinned host memory has landed (a CUDA event's query, which does not wait). The loss, averaged
over the ranks, is read every --log-every steps: every rank sees the same value, so on a
non-finite loss they all stop together. Each micro-step's randomness (masking, dropout) comes
from (seed, rank, micro-step), so a resumed run draws what the uninterrupted one would have.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field
from typing import Any

from .bert_data import IGNORE_INDEX, batches, mask_tokens
from .mpi_job_device import Device, UsageError, log


def lr_factor(step: int, warmup: int, total: int) -> float:
    """Linear warm-up to 1 over `warmup` steps, then linear decay to 0 at `total`."""
    if warmup > 0 and step < warmup:
        return (step + 1) / warmup
    return max(0.0, (total - step) / max(1, total - warmup))


@dataclass
class Optimizer:
    """The optimizer the framework distributes, its schedule and the loss scaler."""

    optimizer: Any
    scheduler: Any
    scaler: Any
    name: str = "adamw"


# Parameters BERT trains without weight decay (google-research/bert optimization.py,
# exclude_from_weight_decay=["LayerNorm", "layer_norm", "bias"]; NVIDIA DeepLearningExamples the same).
NO_DECAY = ("LayerNorm", "layer_norm", "bias")
WEIGHT_DECAY = 0.01
# LAMB's learning rate when --learning-rate is not given: NVIDIA DeepLearningExamples' BERT phase 1
# (global batch 65536, scripts/run_pretraining.sh); the size table's rates are AdamW's.
LAMB_LEARNING_RATE = 6e-3
# Above this global batch `--optimizer auto` picks LAMB: the LAMB paper (arXiv:1904.00962) finds
# earlier large-batch techniques do not perform well for BERT beyond 8192.
LAMB_ABOVE_GLOBAL_BATCH = 8192


def optimizer_choice(choice: str, global_batch: int) -> str:
    """adamw or lamb: `choice` itself, or for auto LAMB above LAMB_ABOVE_GLOBAL_BATCH sequences."""
    if choice != "auto":
        return choice
    return "lamb" if global_batch > LAMB_ABOVE_GLOBAL_BATCH else "adamw"


def decay_groups(named_parameters) -> list[dict[str, Any]]:
    """Two parameter groups: weight decay on the weights, none on biases and LayerNorm (NO_DECAY)."""
    decay, plain = [], []
    for name, parameter in named_parameters:
        (plain if any(part in name for part in NO_DECAY) else decay).append(parameter)
    return [{"params": decay, "weight_decay": WEIGHT_DECAY}, {"params": plain, "weight_decay": 0.0}]


def build_optimizer(
    model,
    net,
    framework: Any,
    device: Device,
    lr: float,
    lr_warmup: int,
    steps: int,
    fused: bool = False,
    name: str = "adamw",
) -> Optimizer:
    """AdamW (BERT's betas, eps and weight decay; `fused`: one kernel for all parameters instead of
    foreach's per-tensor launches) or LAMB (bert_lamb.py), weight decay on the weights only
    (decay_groups), distributed by the framework, with the learning-rate schedule of lr_factor and
    a GradScaler for fp16 on GPUs."""
    import torch

    groups = decay_groups(net.named_parameters())
    if name == "lamb":
        from .bert_lamb import Lamb

        optimizer = Lamb(groups, lr=lr, betas=(0.9, 0.999), eps=1e-6)
    else:
        optimizer = torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.999), eps=1e-6, **({"fused": True} if fused else {}))
    optimizer = framework.distribute(model, optimizer)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: lr_factor(s, lr_warmup, steps))
    scaler = torch.amp.GradScaler("cuda", enabled=device.precision == "fp16" and device.use_cuda)
    return Optimizer(optimizer, scheduler, scaler, name)


def configure_ddp(net, compression: str, timer: "PhaseTimer | None" = None) -> None:
    """DDP's communication hook: fp16 or bf16 compression (gradients travel at half width and are
    averaged back into fp32; Horovod's and AIACC's fp16 compression), or plain allreduce; wrapped to
    time the all-reduce wait when `timer` is given. Nothing to do for a model DDP does not wrap."""
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from torch.nn.parallel import DistributedDataParallel

    if not isinstance(net, DistributedDataParallel):
        return
    hook = {"fp16": default_hooks.fp16_compress_hook, "bf16": default_hooks.bf16_compress_hook}.get(compression)
    if timer is None:
        if hook is not None:
            net.register_comm_hook(None, hook)
        return
    inner = hook or default_hooks.allreduce_hook

    def timed(state, bucket):
        timer.last_bucket = time.perf_counter()
        return inner(state, bucket)

    net.register_comm_hook(None, timed)


@dataclass
class PhaseTimer:
    """The per-step time split (--time-split): data, forward, backward compute, the all-reduce wait
    (from the last gradient bucket handed to the communication hook to the end of backward: the
    part of the all-reduce that backward did not hide), optimizer. On GPUs every phase ends with a
    device synchronisation, which the normal run does not make: the split is a measurement run."""

    use_cuda: bool
    totals: dict[str, float] = field(
        default_factory=lambda: dict.fromkeys(("data", "forward", "backward", "allreduce_wait", "optimizer"), 0.0)
    )
    last_bucket: float | None = None
    mark: float = 0.0

    def start(self) -> None:
        self.mark = self._now()

    def _now(self) -> float:
        if self.use_cuda:
            import torch

            torch.cuda.synchronize()
        return time.perf_counter()

    def lap(self, phase: str) -> None:
        now = self._now()
        if phase == "backward" and self.last_bucket is not None and self.last_bucket > self.mark:
            self.totals["allreduce_wait"] += now - self.last_bucket
            self.totals["backward"] += self.last_bucket - self.mark
        else:
            self.totals[phase] += now - self.mark
        self.last_bucket, self.mark = None, now

    def per_step(self, steps: int) -> dict[str, float]:
        return {phase: total / steps for phase, total in self.totals.items()}


class HostSyncCounter:
    """Counts the host syncs of the loop while installed (--count-syncs): the calls of this
    script's own modules that read a tensor's value on the host (item, float, int, bool, tolist,
    numpy), and on GPUs every synchronizing CUDA call torch makes (its sync debug mode's warnings:
    nonzero, boolean indexing, a non-fused GradScaler.step...). Calls inside torch on CPU tensors
    (AdamW's step counter) do not wait for a device and are not counted."""

    METHODS = ("item", "__float__", "__int__", "__bool__", "tolist", "numpy")
    OWN_FILES = ("pretrain_bert.py", "mpi_job_device.py", "mpi_job_framework.py", "bert_data.py", "bert_model.py")
    OWN_FILES += ("bert_train.py", "bert_results.py")

    def __init__(self, use_cuda: bool = False, files: tuple[str, ...] = OWN_FILES):
        self.count, self.files = 0, files
        self.use_cuda = use_cuda
        self._saved: dict[str, Any] = {}
        self._warnings: Any = None
        self._caught: list = []

    def __enter__(self):
        import sys
        import warnings

        import torch

        for name in self.METHODS:
            original = getattr(torch.Tensor, name)
            self._saved[name] = original

            def counted(tensor, *args, _original=original, **kwargs):
                if os.path.basename(sys._getframe(1).f_code.co_filename) in self.files:
                    self.count += 1
                return _original(tensor, *args, **kwargs)

            setattr(torch.Tensor, name, counted)
        if self.use_cuda:
            self._warnings = warnings.catch_warnings(record=True)
            self._caught = self._warnings.__enter__()
            warnings.simplefilter("always")
            torch.cuda.set_sync_debug_mode("warn")
        return self

    def __exit__(self, *exc):
        import torch

        for name, original in self._saved.items():
            setattr(torch.Tensor, name, original)
        if self.use_cuda:
            torch.cuda.set_sync_debug_mode("default")
            self.count += sum("synchroniz" in str(w.message) for w in self._caught)
            self._warnings.__exit__(*exc)
        return False


class LossMirror:
    """The rank's loss of each step, copied without waiting into pinned host memory; `newest()` is
    the latest one already there (CUDA events tell, query() does not wait; on CPUs, every one)."""

    def __init__(self, steps: int, device: Device):
        import torch

        self.device = device
        self.host = torch.zeros(steps, pin_memory=device.use_cuda)
        self.values = self.host.numpy()  # a view: reading it is no tensor call
        self.events: list[tuple[int, Any]] = []
        self.landed = -1

    def push(self, step: int, loss) -> None:
        import torch

        self.host[step : step + 1].copy_(loss.detach().float().reshape(1), non_blocking=True)
        if self.device.use_cuda:
            event = torch.cuda.Event()
            event.record()
            self.events.append((step, event))
        else:
            self.landed = step

    def newest(self) -> float | None:
        while self.events and self.events[0][1].query():
            self.landed = self.events.pop(0)[0]
        return float(self.values[self.landed]) if self.landed >= 0 else None


CHECKPOINT_FILE = "checkpoint.pt"
# The vocabulary the checkpointed model was trained with: a resumed run reads it (WordPiece
# training breaks ties differently from run to run).
CHECKPOINT_VOCAB = "vocab.txt"


def save_checkpoint(
    directory: str, step: int, model, opt: Optimizer, losses: list[list[float]], vocab_tokens: list[str]
) -> None:
    """Rank 0's state after `step` steps (model, optimizer, schedule, loss scaler, the averaged
    losses so far) and its vocabulary, each written to a temporary file and renamed: a crash never
    leaves half of one."""
    import torch

    os.makedirs(directory, exist_ok=True)
    vocab = os.path.join(directory, CHECKPOINT_VOCAB)
    with open(f"{vocab}.tmp.{os.getpid()}", "w", encoding="utf-8") as handle:
        handle.write("\n".join(vocab_tokens) + "\n")
    os.replace(f"{vocab}.tmp.{os.getpid()}", vocab)
    path = os.path.join(directory, CHECKPOINT_FILE)
    tmp = f"{path}.tmp.{os.getpid()}"
    state = {
        "step": step,
        "model": model.state_dict(),
        "optimizer_name": opt.name,
        "optimizer": opt.optimizer.state_dict(),
        "scheduler": opt.scheduler.state_dict(),
        "scaler": opt.scaler.state_dict(),
        "losses": losses,
    }
    torch.save(state, tmp)
    os.replace(tmp, path)


def load_checkpoint(directory: str, model, opt: Optimizer, device: Device) -> tuple[int, list[list[float]]]:
    """Restore a save_checkpoint state into `model` and `opt`: (steps done, their losses)."""
    import torch

    path = os.path.join(directory, CHECKPOINT_FILE)
    state = torch.load(path, map_location=device.device, weights_only=False)
    # A checkpoint of an earlier pretrain_bert.py (one parameter group, no name) or of the other optimizer
    # cannot continue this run: refused before any weight changes.
    if state.get("optimizer_name") != opt.name:
        raise UsageError(
            f"--resume: {path} was written with --optimizer {state.get('optimizer_name', 'adamw (an earlier version)')}, "
            f"this run uses {opt.name}: resume with the same optimizer or start in a new --checkpoint-dir"
        )
    model.load_state_dict(state["model"])
    opt.optimizer.load_state_dict(state["optimizer"])
    opt.scheduler.load_state_dict(state["scheduler"])
    opt.scaler.load_state_dict(state["scaler"])
    return state["step"], state["losses"]


@dataclass
class Outcome:
    """What the loop measured: `losses` has one [loss, mlm, nsp] row per completed step (from the
    first, resumed ones included); `counts` the measured steps' real tokens, their squared lengths,
    predicted positions and sequences, summed over the ranks; `split` the per-step time split or
    None; `host_syncs` the counted host syncs or None; `marks` (steps done, seconds since the timed steps
    began) at each logged step after the warm-up, taken after that step's losses reached the host (a sync),
    from which the results draw the throughput per logged interval."""

    status: str
    losses: list[list[float]]
    elapsed_s: float
    counts: dict[str, float] = field(default_factory=dict)
    split: dict[str, float] | None = None
    host_syncs: int | None = None
    resumed_from: int = 0
    marks: list[tuple[int, float]] = field(default_factory=list)


def train(
    args: Any,
    net,
    opt: Optimizer,
    framework: Any,
    device: Device,
    data: Any,
    model_vocab: int,
    hooks: Any = None,
    start: tuple[int, list[list[float]]] = (0, []),
    model=None,
) -> Outcome:
    """Run steps start[0]+1 .. --steps (`args`: steps, warmup_steps, batch_size, grad_accum,
    log_every, mlm_probability, seed, time_split, count_syncs, checkpoint_dir, checkpoint_every).

    `net` returns (mlm_loss, nsp_loss) (bert_model.pretraining_module, wrapped); `model` is what a
    checkpoint saves. `hooks` (optional): ``before_step(n)`` before step n (1-based) and
    ``after_step(n, loss)`` once step n is enqueued, with the newest of this rank's losses that
    reached the host (None before the first)."""
    import torch

    rank, world = framework.rank, framework.world_size
    first, prior = start
    accum = getattr(args, "grad_accum", 1)
    ids = data.special_ids
    autocast_dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(device.precision)
    mask_generator = torch.Generator(device=device.device)
    losses = torch.zeros((args.steps, 3), dtype=torch.float32, device=device.device)
    counts = torch.zeros(4, dtype=torch.float64, device=device.device)
    mirror = LossMirror(args.steps, device)
    reported = torch.tensor(prior, dtype=torch.float32).reshape(-1, 3)
    timer = PhaseTimer(device.use_cuda) if getattr(args, "time_split", False) else None
    configure_ddp(net, getattr(args, "ddp_compression", "none"), timer)
    counter = HostSyncCounter(device.use_cuda) if getattr(args, "count_syncs", False) else None
    no_sync = getattr(net, "no_sync", None)
    t_start = None
    measure_from = max(first, args.warmup_steps)
    marks: list[tuple[int, float]] = []

    def synchronize() -> None:
        if device.use_cuda:
            torch.cuda.synchronize(device.device)
        framework.barrier()

    def reduce_losses(upto: int):
        chunk = framework.allreduce_sum(losses[reported.shape[0] : upto].clone())
        return torch.cat([reported, (chunk / world).cpu()])

    micro_batches = batches(args, data, rank, world, first * accum, args.steps * accum, device.use_cuda)
    status = "ok"
    net.train()
    synchronize()
    if measure_from == first:
        t_start = time.perf_counter()
    with counter or contextlib.nullcontext():
        for step in range(first, args.steps):
            if hooks is not None:
                hooks.before_step(step + 1)
            step_loss = torch.zeros(3, device=device.device)
            for micro in range(accum):
                if timer:
                    timer.start()
                micro_step = step * accum + micro
                batch = {k: v.to(device.device, non_blocking=True) for k, v in next(micro_batches).items()}
                mask_generator.manual_seed(args.seed * 7919 + rank * 1_000_003 + micro_step)
                torch.manual_seed(args.seed * 104_729 + rank * 1_000_003 + micro_step)
                inputs, labels = mask_tokens(
                    batch["input_ids"],
                    batch["special_mask"],
                    mask_id=ids["[MASK]"],
                    vocab_size=len(data.vocab_tokens),
                    generator=mask_generator,
                    probability=args.mlm_probability,
                )
                if step >= measure_from:
                    lengths = batch["attention_mask"].sum(dim=1).double()
                    counts += torch.stack(
                        [
                            lengths.sum(),
                            (lengths * lengths).sum(),
                            (labels != IGNORE_INDEX).sum().double(),
                            torch.tensor(float(len(lengths)), dtype=torch.float64, device=device.device),
                        ]
                    )
                if timer:
                    timer.lap("data")
                last = micro == accum - 1
                with no_sync() if (no_sync is not None and not last) else contextlib.nullcontext():
                    with torch.autocast(
                        device.device.type, dtype=autocast_dtype or torch.float32, enabled=autocast_dtype is not None
                    ):
                        mlm_loss, nsp_loss = net(
                            inputs, batch["token_type_ids"], batch["attention_mask"], labels, batch["nsp_labels"]
                        )
                        loss = mlm_loss + nsp_loss
                    if timer:
                        timer.lap("forward")
                    opt.scaler.scale(loss / accum).backward()
                    if timer:
                        timer.lap("backward")
                step_loss += torch.stack([loss.detach(), mlm_loss.detach(), nsp_loss.detach()]).float() / accum
            framework.step(opt.optimizer, opt.scaler, net.parameters())
            opt.scaler.update()
            opt.optimizer.zero_grad(set_to_none=True)
            opt.scheduler.step()
            if timer:
                timer.lap("optimizer")
            losses[step] = step_loss
            mirror.push(step, step_loss[0])
            if hooks is not None:
                hooks.after_step(step + 1, mirror.newest())
            if step + 1 == measure_from:
                synchronize()
                t_start = time.perf_counter()
            checkpoint_now = args.checkpoint_every and (step + 1) % args.checkpoint_every == 0
            if (step + 1) % args.log_every == 0 or step + 1 == args.steps or checkpoint_now:
                reported = reduce_losses(step + 1)
                if t_start is not None and step + 1 > measure_from:
                    marks.append((step + 1, time.perf_counter() - t_start))
                last_row = reported[-1].tolist()
                log(
                    rank,
                    f"step {step + 1}/{args.steps} loss={last_row[0]:.4f} mlm={last_row[1]:.4f} nsp={last_row[2]:.4f}",
                )
                if not torch.isfinite(reported).all():
                    status = "non_finite_loss"
                    break
                if checkpoint_now and rank == 0:
                    save_checkpoint(args.checkpoint_dir, step + 1, model, opt, reported.tolist(), data.vocab_tokens)
    synchronize()
    elapsed = time.perf_counter() - t_start if t_start is not None else float("nan")
    if hooks is not None and reported.shape[0]:
        hooks.after_step(reported.shape[0], float(losses[reported.shape[0] - 1, 0]))
    total = framework.allreduce_sum(counts.float())
    return Outcome(
        status,
        reported.tolist(),
        elapsed,
        counts=dict(zip(("real_tokens", "squared_lengths", "predicted", "sequences"), total.tolist())),
        split=timer.per_step(max(1, reported.shape[0] - first)) if timer else None,
        host_syncs=counter.count if counter else None,
        resumed_from=first,
        marks=marks,
    )
