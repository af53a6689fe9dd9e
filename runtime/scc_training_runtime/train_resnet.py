"""ResNet training benchmark on ImageNet TFRecord shards, for an mpirun-launched cluster
(scc.training.resnet_launch). One process per rank, started by Open MPI's mpirun.

    resnet_model.py       ResNet-18/34/50/101/152 (v1.5) in plain torch, torchvision's parameter counts
    resnet_data.py        the shards imagenet_prep wrote, each rank's part, decoding (tfrecord + Pillow)
    resnet_results.py     the results dict (images/s, the loss curve, top-1), results.json
    mpi_job_device.py     (shared with pretrain_bert.py, installed by scc.training.mpi_job) the rank's
                          device and the autocast precision per GPU generation
    mpi_job_framework.py  (shared, idem) the data-parallel framework: torch DDP, acspeed, horovod, aiacc
    mpi_job_rank.py       (shared, idem) the pid record and the progress file of every rank

SGD with momentum 0.9 and weight decay 1e-4 (He et al. 2015), the learning rate 0.1 per 256 images of the
global batch with a linear warm-up (Goyal et al. 2017, "Accurate, Large Minibatch SGD", arXiv:1706.02677),
then cosine decay; cross-entropy on labels 1..num_classes (TF-slim's 0 is background). After the steps,
every rank evaluates its part of the val shards and top-1 is summed over the ranks. Exit status: 0 done,
1 a rank failed, 2 bad arguments, 3 non-finite loss (results.json is still written).

--data synthetic (bench/gpu_check.py's ResNet part; the role always reads shards): no shards, one batch of random
uint8 images and labels made once on the device and normalised as real images are, fed every step, so that images/s
is the model's step alone, not the input pipeline's (as Horovod's examples/pytorch/pytorch_synthetic_benchmark.py
does); no evaluation; results.json's data.source says "synthetic". It needs neither tfrecord nor Pillow (imported
only where shards are read).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import math
import os
import platform
import socket
import sys
import time
from dataclasses import dataclass
from typing import Sequence

from . import mpi_job_device, mpi_job_framework, mpi_job_rank, resnet_data, resnet_model, resnet_results

# The exit codes every mpi_job program uses (the tests read them from here).
EXIT_OK, EXIT_USAGE, EXIT_NON_FINITE = mpi_job_rank.EXIT_OK, mpi_job_rank.EXIT_USAGE, mpi_job_rank.EXIT_NON_FINITE
SPLITS = ("train", "val")
# results.json's data.note in --data synthetic: its images/s is no real-data throughput.
SYNTHETIC_NOTE = "random images made once on the device: the model's step alone, no input pipeline (not real data)"


def build_parser() -> argparse.ArgumentParser:
    env = os.environ
    p = argparse.ArgumentParser(description="ResNet training on ImageNet TFRecords (mpirun + DDP or Horovod)")
    p.add_argument("--framework", choices=sorted(mpi_job_framework.FRAMEWORK_MODULES), default="torch")
    p.add_argument("--model", choices=sorted(resnet_model.ARCHITECTURES), default="resnet50")
    p.add_argument("--num-classes", type=int, default=1000, help="labels 1..N in the shards (0 is background)")
    p.add_argument("--data", choices=("tfrecord", "synthetic"), default="tfrecord", help="synthetic: random images")
    p.add_argument("--data-dir", help="the TFRecord shards (imagenet_prep's tfrecord/); --data tfrecord only")
    p.add_argument("--image-size", type=int, default=224)
    p.add_argument("--batch-size", type=int, default=256, help="images per rank per step")
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--warmup-steps", type=int, default=10, help="first steps left out of the throughput")
    p.add_argument("--learning-rate", type=float, default=None, help="peak SGD rate (default 0.1 * global batch / 256)")
    p.add_argument("--lr-warmup-steps", type=int, default=None, help="linear warm-up (default: 10%% of --steps)")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--workers", type=int, default=0, help="DataLoader worker processes per rank")
    p.add_argument("--max-eval-images", type=int, default=0, help="val images per rank (0: all of its part)")
    mpi_job_rank.add_job_arguments(p, env)
    return p


def check_args(args: argparse.Namespace) -> list[str]:
    """Every problem with the arguments, each naming its option."""
    errors = [
        f"--{name.replace('_', '-')} must be >= {low} (got {getattr(args, name)})"
        for name, low in (("steps", 1), ("batch_size", 1), ("num_classes", 2), ("image_size", 32), ("log_every", 1))
        + (("workers", 0), ("threads", 0), ("max_eval_images", 0))
        if getattr(args, name) < low
    ]
    if args.warmup_steps < 0 or (args.steps >= 1 and args.warmup_steps >= args.steps):
        errors.append(f"--warmup-steps must be >= 0 and < --steps (got {args.warmup_steps} with --steps {args.steps})")
    if args.learning_rate is not None and not args.learning_rate > 0:
        errors.append(f"--learning-rate must be > 0 (got {args.learning_rate})")
    if args.framework != "torch" and args.backend != "auto":
        errors.append(f"--backend applies to --framework torch only (got {args.backend} with {args.framework})")
    if args.data == "synthetic":
        if args.data_dir is not None:
            errors.append(f"--data-dir applies to --data tfrecord only (got {args.data_dir} with --data synthetic)")
    elif args.data_dir is None:
        errors.append("--data-dir is required with --data tfrecord")
    elif not os.path.isdir(args.data_dir):
        errors.append(f"--data-dir {args.data_dir} is not a directory")
    elif not resnet_data.shard_files(args.data_dir, "train"):
        errors.append(f"--data-dir {args.data_dir} has no finished train-*-of-* shard (imagenet_prep writes them)")
    return errors


def lr_factor(step: int, warmup: int, total: int) -> float:
    """Linear warm-up to 1 over ``warmup`` steps, then cosine decay to 0 at ``total``."""
    if warmup > 0 and step < warmup:
        return (step + 1) / warmup
    return 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))


@dataclass
class Outcome:
    status: str
    losses: list[float]
    elapsed_s: float | None


def _checked(batches, num_classes: int):
    """The shards' batches, each label checked on the host before it goes to the device."""
    for images, labels in batches:
        if labels.min() < 0 or labels.max() >= num_classes:
            raise ValueError(f"a label outside 1..{num_classes} (--num-classes) in the train shards")
        yield images, labels


def _synthetic(args, device):
    """The same synthetic batch every step, already on the device in the train step's memory format."""
    import torch

    images, labels = resnet_data.synthetic_batch(
        args.batch_size, args.image_size, args.num_classes, args.seed, device.device
    )
    if device.use_cuda:
        images = images.contiguous(memory_format=torch.channels_last)
    while True:
        yield images, labels


def _loader(args, shards, stride, train: bool, use_cuda: bool):
    import torch.utils.data

    stream = resnet_data.ShardStream(
        shards, stride, args.image_size, train, args.seed, repeat=train, shuffle_queue=256 if train else 0
    )
    return torch.utils.data.DataLoader(
        stream, batch_size=args.batch_size, num_workers=args.workers, pin_memory=use_cuda, drop_last=train
    )


def train(args, net, optimizer, scheduler, scaler, framework, device, batches, progress) -> Outcome:
    """--steps steps; the loss averaged over the ranks every --log-every steps (all stop on a non-finite one)."""
    import torch
    import torch.nn.functional as F

    rank, world = framework.rank, framework.world_size
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(device.precision)
    memory_format = torch.channels_last if device.use_cuda else torch.contiguous_format
    losses = torch.zeros(args.steps, dtype=torch.float32, device=device.device)
    reported: list[float] = []
    status, t_start = "ok", None

    def synchronize() -> None:
        if device.use_cuda:
            torch.cuda.synchronize(device.device)
        framework.barrier()

    net.train()
    synchronize()
    if args.warmup_steps == 0:
        t_start = time.perf_counter()
    for step in range(args.steps):
        mpi_job_rank.test_only_fail(rank, step + 1)
        images, labels = next(batches)
        images = images.to(device.device, non_blocking=True, memory_format=memory_format)
        labels = labels.to(device.device, non_blocking=True)
        with torch.autocast(device.device.type, dtype=dtype or torch.float32, enabled=dtype is not None):
            loss = F.cross_entropy(net(images).float(), labels)
        scaler.scale(loss).backward()
        framework.step(optimizer, scaler, net.parameters())
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        scheduler.step()
        losses[step] = loss.detach()
        progress.update(step + 1, float(loss.detach()))
        if step + 1 == args.warmup_steps:
            synchronize()
            t_start = time.perf_counter()
        if (step + 1) % args.log_every == 0 or step + 1 == args.steps:
            chunk = framework.allreduce_sum(losses[len(reported) : step + 1].clone()) / world
            reported += chunk.cpu().tolist()
            mpi_job_device.log(rank, f"step {step + 1}/{args.steps} loss={reported[-1]:.4f}")
            if not all(math.isfinite(v) for v in reported):
                status = "non_finite_loss"
                break
    synchronize()
    return Outcome(status, reported, time.perf_counter() - t_start if t_start is not None else None)


def evaluate(args, model, framework, device, val_loader) -> dict:
    """This rank's part of the val shards through the model (not DDP's wrapper: no collective per batch);
    correct, images and the summed loss, added up over the ranks."""
    import torch
    import torch.nn.functional as F

    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(device.precision)
    sums = torch.zeros(3, dtype=torch.float64, device=device.device)
    model.eval()
    with torch.no_grad():
        for images, labels in val_loader:
            if args.max_eval_images and sums[1] >= args.max_eval_images:
                break
            images, labels = images.to(device.device), labels.to(device.device)
            with torch.autocast(device.device.type, dtype=dtype or torch.float32, enabled=dtype is not None):
                logits = model(images).float()
            sums += torch.stack(
                [
                    (logits.argmax(1) == labels).sum().double(),
                    torch.tensor(float(len(labels)), dtype=torch.float64, device=device.device),
                    F.cross_entropy(logits, labels, reduction="sum").double(),
                ]
            )
    correct, images, loss_sum = framework.allreduce_sum(sums).cpu().tolist()
    return {"correct": correct, "images": images, "loss_sum": loss_sum}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    errors = check_args(args)
    if errors:
        parser.error("; ".join(errors))
    started_at = _dt.datetime.now(_dt.timezone.utc)
    return mpi_job_framework.run_rank(
        "train_resnet",
        args,
        os.environ,
        "images",
        lambda framework, device: args.batch_size * framework.world_size,
        lambda framework, device, progress: _train_and_report(args, framework, device, started_at, progress),
    )


def _train_and_report(args, framework, device, started_at, progress) -> str:
    import torch

    rank, world = framework.rank, framework.world_size
    records = framework.all_gather_object({"rank": rank, "host": socket.gethostname(), "device": device.name})
    synthetic = args.data == "synthetic"
    train_shards, val_shards = ([], []) if synthetic else (resnet_data.shard_files(args.data_dir, s) for s in SPLITS)
    model = resnet_model.build_model(args.model, args.num_classes, args.seed, device.device)
    if device.use_cuda:
        model = model.to(memory_format=torch.channels_last)
    params = resnet_model.param_count(model)
    net = framework.wrap_model(model, device.device, device.use_cuda)
    if args.learning_rate is None:
        args.learning_rate = 0.1 * args.batch_size * world / 256
    lr_warmup = args.lr_warmup_steps if args.lr_warmup_steps is not None else max(1, args.steps // 10)
    optimizer = torch.optim.SGD(net.parameters(), lr=args.learning_rate, momentum=0.9, weight_decay=1e-4)
    optimizer = framework.distribute(model, optimizer)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: lr_factor(s, lr_warmup, args.steps))
    scaler = torch.amp.GradScaler("cuda", enabled=device.precision == "fp16" and device.use_cuda)
    mpi_job_device.log(
        rank,
        f"world_size={world} framework={args.framework} backend={framework.backend} device={device.kind} "
        f"({device.name}) precision={device.precision} model={args.model} params={params} "
        f"global_batch={args.batch_size * world} lr={args.learning_rate} data={args.data} "
        f"train_shards={len(train_shards)} val_shards={len(val_shards)}",
    )
    if synthetic:
        batches = _synthetic(args, device)
        data = {"source": "synthetic", "note": SYNTHETIC_NOTE}
    else:
        loader = _loader(args, *resnet_data.rank_part(train_shards, rank, world), True, device.use_cuda)
        batches = _checked(iter(loader), args.num_classes)
        data = {"source": "tfrecord", "data_dir": args.data_dir}
        data.update(train_shards=len(train_shards), val_shards=len(val_shards))
    outcome = train(args, net, optimizer, scheduler, scaler, framework, device, batches, progress)
    evaluation = None
    if outcome.status == "ok" and val_shards:
        val_loader = _loader(args, *resnet_data.rank_part(val_shards, rank, world), False, device.use_cuda)
        evaluation = evaluate(args, model, framework, device, val_loader)
    results = resnet_results.build_results(
        args,
        rank_records=records,
        framework=framework,
        device=device,
        model={"params": params},
        outcome=outcome,
        evaluation=evaluation,
        data=data,
        versions={"python": platform.python_version(), "torch": torch.__version__},
        times={
            "started_at": started_at.isoformat(timespec="seconds"),
            "finished_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        },
    )
    if rank == 0:
        resnet_results.write_results(args.output_dir, results)
        mpi_job_device.log(
            rank,
            f"status={outcome.status} data={args.data} loss {results['loss_first']} -> {results['loss_last']} "
            f"images/s={results['throughput']['images_per_s']} top1={(results['top1'] or {}).get('accuracy')}",
        )
    return outcome.status


if __name__ == "__main__":
    sys.exit(main())
