"""The training loop of pretrain_bert.py: AdamW with a linear warm-up and decay, the masked-LM
and next-sentence losses under autocast, the framework's step, and the timing of the steps after
the warm-up (a device synchronisation and a barrier at both ends).

The loss, averaged over the ranks, is checked every --log-every steps (so as not to synchronise
every step): every rank sees the same value, so on a non-finite loss they all stop together.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from bert_data import IGNORE_INDEX, batch_indices, mask_tokens
from mpi_job_device import Device, log


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


def build_optimizer(model, net, framework: Any, device: Device, lr: float, lr_warmup: int, steps: int) -> Optimizer:
    """AdamW (BERT's betas, eps and weight decay; fused on GPUs), distributed by the framework, with
    the learning-rate schedule of lr_factor and a GradScaler for fp16 on GPUs."""
    import torch

    optimizer = torch.optim.AdamW(
        net.parameters(),
        lr=lr,
        betas=(0.9, 0.999),
        eps=1e-6,
        weight_decay=0.01,
        **({"fused": True} if device.use_cuda else {}),
    )
    optimizer = framework.distribute(model, optimizer)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: lr_factor(s, lr_warmup, steps))
    scaler = torch.amp.GradScaler("cuda", enabled=device.precision == "fp16" and device.use_cuda)
    return Optimizer(optimizer, scheduler, scaler)


@dataclass
class Outcome:
    """What the loop measured: `losses` has one [loss, mlm, nsp] row per completed step."""

    status: str
    losses: list[list[float]]
    elapsed_s: float


def train(
    args: Any, net, opt: Optimizer, framework: Any, device: Device, data: Any, model_vocab: int, hooks: Any = None
) -> Outcome:
    """Run --steps steps (`args`: steps, warmup_steps, batch_size, log_every, mlm_probability, seed).

    `hooks` (optional): ``before_step(n)`` before step n (1-based) and ``after_step(n, loss)`` with this
    rank's own loss once step n is done (the progress file; reading the loss waits for the step)."""
    import torch
    import torch.nn.functional as F

    rank, world = framework.rank, framework.world_size
    tensors, ids = data.tensors, data.special_ids
    autocast_dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(device.precision)
    mask_generator = torch.Generator().manual_seed(args.seed * 7919 + rank)
    losses = torch.zeros((args.steps, 3), dtype=torch.float32, device=device.device)
    reported = torch.zeros((0, 3))
    t_start = None

    def synchronize() -> None:
        if device.use_cuda:
            torch.cuda.synchronize(device.device)
        framework.barrier()

    def reduce_losses(upto: int):
        chunk = framework.allreduce_sum(losses[reported.shape[0] : upto].clone())
        return torch.cat([reported, (chunk / world).cpu()])

    status = "ok"
    net.train()
    synchronize()
    if args.warmup_steps == 0:
        t_start = time.perf_counter()
    for step in range(args.steps):
        if hooks is not None:
            hooks.before_step(step + 1)
        index = torch.tensor(batch_indices(step, rank, args.batch_size, world, data.instances, args.seed))
        inputs, labels = mask_tokens(
            tensors["input_ids"][index],
            tensors["special_mask"][index],
            mask_id=ids["[MASK]"],
            vocab_size=len(data.vocab_tokens),
            generator=mask_generator,
            probability=args.mlm_probability,
        )
        inputs = inputs.to(device.device, non_blocking=True)
        labels = labels.to(device.device, non_blocking=True)
        token_type = tensors["token_type_ids"][index].to(device.device, non_blocking=True)
        attention = tensors["attention_mask"][index].to(device.device, non_blocking=True)
        nsp_labels = tensors["nsp_labels"][index].to(device.device, non_blocking=True)
        with torch.autocast(
            device.device.type, dtype=autocast_dtype or torch.float32, enabled=autocast_dtype is not None
        ):
            out = net(input_ids=inputs, token_type_ids=token_type, attention_mask=attention)
            mlm_loss = F.cross_entropy(
                out.prediction_logits.reshape(-1, model_vocab).float(), labels.reshape(-1), ignore_index=IGNORE_INDEX
            )
            nsp_loss = F.cross_entropy(out.seq_relationship_logits.float(), nsp_labels)
            loss = mlm_loss + nsp_loss
        opt.scaler.scale(loss).backward()
        framework.step(opt.optimizer, opt.scaler, net.parameters())
        opt.scaler.update()
        opt.optimizer.zero_grad(set_to_none=True)
        opt.scheduler.step()
        losses[step] = torch.stack([loss.detach(), mlm_loss.detach(), nsp_loss.detach()]).float()
        if hooks is not None:
            hooks.after_step(step + 1, float(loss.detach()))
        if step + 1 == args.warmup_steps:
            synchronize()
            t_start = time.perf_counter()
        if (step + 1) % args.log_every == 0 or step + 1 == args.steps:
            reported = reduce_losses(step + 1)
            last = reported[-1].tolist()
            log(rank, f"step {step + 1}/{args.steps} loss={last[0]:.4f} mlm={last[1]:.4f} nsp={last[2]:.4f}")
            if not torch.isfinite(reported).all():
                status = "non_finite_loss"
                break
    synchronize()
    elapsed = time.perf_counter() - t_start if t_start is not None else float("nan")
    return Outcome(status, reported.tolist(), elapsed)
