"""The results of a train_resnet.py run (rank 0 writes them as results.json), from what the run measured:
pure Python, no torch, so that they are unit-tested without a training run.

Throughput is images per second over the steps after the warm-up (global batch * measured steps /
their time), the whole job's and per rank. Top-1 is the fraction of the val shards' images whose
highest logit is their label, counted on every rank over its part of the val shards and summed.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from . import mpi_job_device

SCHEMA_VERSION = 1


def finite_or_none(values: Sequence[float]) -> list[float | None]:
    return [v if v is not None and math.isfinite(v) else None for v in values]


def hosts_summary(rank_records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Distinct hosts, in order of their lowest rank, with the ranks each one runs."""
    hosts: dict[str, list[int]] = {}
    for rec in sorted(rank_records, key=lambda r: r["rank"]):
        hosts.setdefault(rec["host"], []).append(rec["rank"])
    return [{"host": host, "ranks": ranks, "num_ranks": len(ranks)} for host, ranks in hosts.items()]


def top1(correct: float, total: float, loss_sum: float) -> dict[str, Any]:
    """Summed over the ranks: images right, images seen, the sum of their losses -> top-1 and mean loss."""
    total = int(total)
    return {
        "correct": int(correct),
        "images": total,
        "accuracy": correct / total if total else None,
        "loss": loss_sum / total if total and math.isfinite(loss_sum) else None,
    }


def throughput(global_batch: int, world: int, measured_steps: int, elapsed_s: float | None) -> dict[str, Any]:
    """Images/s of the job and of one rank over the measured steps; nulls when nothing was timed."""
    ok = measured_steps > 0 and elapsed_s is not None and math.isfinite(elapsed_s) and elapsed_s > 0
    per_s = global_batch * measured_steps / elapsed_s if ok else None
    return {
        "measured_steps": measured_steps if ok else 0,
        "elapsed_s": elapsed_s if ok else None,
        "step_time_s": elapsed_s / measured_steps if ok else None,
        "images_per_s": per_s,
        "images_per_s_per_rank": per_s / world if per_s is not None else None,
    }


def build_results(args, *, rank_records, framework, device, model, outcome, evaluation, data, versions, times):
    """The results dict.

    - ``args``: train_resnet.py's options (run_id, framework, model, image_size, batch_size, steps,
      warmup_steps, learning_rate, num_classes);
    - ``rank_records``: one {rank, host} per rank; ``framework``: its backend and master; ``device``:
      kind, name, precision; ``model``: {params};
    - ``outcome``: status, losses (one loss per completed step, averaged over the ranks), elapsed_s (the
      steps after the warm-up);
    - ``evaluation``: {correct, images, loss_sum} summed over the ranks, or None when not run;
    - ``data``, ``versions``: reported as they are; ``times``: {started_at, finished_at} (ISO 8601).
    """
    world = len(rank_records)
    hosts = hosts_summary(rank_records)
    global_batch = args.batch_size * world
    losses = finite_or_none(outcome.losses)
    steps_done = len(outcome.losses)
    measured = steps_done - args.warmup_steps if outcome.status == "ok" else 0
    return {
        "schema_version": SCHEMA_VERSION,
        "run_id": args.run_id,
        "status": outcome.status,
        "started_at": times["started_at"],
        "finished_at": times["finished_at"],
        "world_size": world,
        "num_hosts": len(hosts),
        "hosts": hosts,
        "model": {"name": args.model, "num_classes": args.num_classes, "params": model["params"]},
        "framework": args.framework,
        "backend": framework.backend,
        "master": framework.master,
        "device": device.kind,
        "device_name": device.name,
        "precision": device.precision,
        "image_size": args.image_size,
        "per_rank_batch": args.batch_size,
        "global_batch": global_batch,
        "steps": args.steps,
        "steps_completed": steps_done,
        "warmup_steps": args.warmup_steps,
        "learning_rate": args.learning_rate,
        "loss": losses,
        "loss_first": losses[0] if losses else None,
        "loss_last": losses[-1] if losses else None,
        "throughput": throughput(global_batch, world, measured, outcome.elapsed_s),
        "top1": None
        if evaluation is None
        else top1(evaluation["correct"], evaluation["images"], evaluation["loss_sum"]),
        "data": dict(data),
        "versions": dict(versions),
    }


def write_results(output_dir: str, results: Mapping[str, Any]) -> str:
    """results.json, written atomically (mpi_job's shared writer); its path."""
    return mpi_job_device.write_results(output_dir, results)
