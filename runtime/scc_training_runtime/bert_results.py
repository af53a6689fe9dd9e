"""The results of a pretrain_bert.py run (rank 0 writes them as results.json), from the numbers
the run measured: pure Python, no torch, so that it is unit-tested without a training run.

Throughput is timed from the end of the warm-up steps to the end of the last step. tokens_per_s
counts padded tokens (global_batch * seq_len per step), what the model computes on;
real_tokens_per_s the non-padding ones. MFU is model FLOPs per step * steps/s / (world size * peak
FLOP/s of one device); useful MFU counts only the useful FLOPs (bert_model.useful_flops: non-padding
tokens, predicted positions). Both null where the peak is unknown (a CPU, a device not in
bert_model.PEAK_FLOPS, no --peak-tflops).
"""

from __future__ import annotations

import math
import os
from typing import Any, Mapping, Sequence

from . import mpi_job_device
from .bert_model import model_flops, peak_flops, useful_flops

SCHEMA_VERSION = 2


def finite_or_none(values: Sequence[float]) -> list[float | None]:
    return [v if math.isfinite(v) else None for v in values]


def hosts_summary(rank_records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Distinct hosts, in order of their lowest rank, with the ranks each one runs."""
    hosts: dict[str, list[int]] = {}
    for rec in sorted(rank_records, key=lambda r: r["rank"]):
        hosts.setdefault(rec["host"], []).append(rec["rank"])
    return [{"host": host, "ranks": ranks, "num_ranks": len(ranks)} for host, ranks in hosts.items()]


def interval_throughput(marks, start_step: int, global_batch: int) -> list[dict[str, Any]]:
    """The throughput of each logged interval: ``marks`` (steps done, seconds since step ``start_step`` ended)
    -> ``[{step, sequences_per_s}]``, ``step`` the interval's last; intervals that took no time are left out."""
    out, previous = [], (start_step, 0.0)
    for step, seconds in marks or []:
        steps, elapsed = step - previous[0], seconds - previous[1]
        if steps > 0 and elapsed > 0:
            out.append({"step": step, "sequences_per_s": global_batch * steps / elapsed})
        previous = (step, seconds)
    return out


def build_results(args, *, rank_records, framework, device, model, outcome, started_at, finished_at, data, versions):
    """The results dict, from the run's arguments and what it measured.

    - `args`: pretrain_bert.py's options (run_id, framework, model_size, seq_len, batch_size,
      steps, warmup_steps, peak_tflops);
    - `rank_records`: one {rank, host} per rank; `framework`: its backend and master;
    - `device`: its kind (cuda or cpu), name and precision;
    - `model`: config (the size table's entry), vocab, tokenizer_vocab, params, learning_rate,
      lr_warmup_steps and optimizer (the one the run used: adamw or lamb);
    - `outcome`: status, losses (one [loss, mlm_loss, nsp_loss] row, averaged over the ranks,
      per completed step), elapsed_s (the steps after the warm-up; None or NaN when none was timed) and
      marks (steps done, seconds since the warm-up ended, at each logged step; optional);
    - `data` and `versions`: reported as they are.

    The peak table applies to CUDA devices only; --peak-tflops overrides it on any device.
    """
    world = len(rank_records)
    hosts = hosts_summary(rank_records)
    accum = getattr(args, "grad_accum", 1)
    global_batch = args.batch_size * accum * world
    cfg, model_vocab = model["config"], model["vocab"]
    masked_head = getattr(args, "mlm_head", "full") == "masked"
    shape = (cfg["num_layers"], cfg["hidden_size"], cfg["intermediate_size"], model_vocab)
    flops = model_flops(
        *shape,
        args.seq_len,
        global_batch,
        global_batch * model.get("predictions", args.seq_len) if masked_head else None,
    )
    losses = outcome.losses
    resumed_from = getattr(outcome, "resumed_from", 0)
    split, host_syncs = getattr(outcome, "split", None), getattr(outcome, "host_syncs", None)
    steps_done = len(losses)
    measured = steps_done - max(args.warmup_steps, resumed_from)
    elapsed = float("nan") if outcome.elapsed_s is None else outcome.elapsed_s
    ok = outcome.status == "ok" and measured > 0 and elapsed > 0
    steps_per_s = measured / elapsed if ok else None
    if args.peak_tflops:
        peak = args.peak_tflops * 1e12
    else:
        peak = peak_flops(device.name, device.precision) if device.kind == "cuda" else None
    achieved = flops["per_step"] * steps_per_s if steps_per_s else None
    counts = getattr(outcome, "counts", None)
    useful = useful_flops(*shape, **counts) / elapsed if ok and counts else None
    per_step = {name: value / measured for name, value in counts.items()} if ok and counts else {}
    loss, mlm, nsp = ([row[i] for row in losses] for i in range(3))
    return {
        "schema_version": SCHEMA_VERSION,
        "run_id": args.run_id,
        "status": outcome.status,
        "started_at": started_at.isoformat(timespec="seconds"),
        "finished_at": finished_at.isoformat(timespec="seconds"),
        "world_size": world,
        "num_hosts": len(hosts),
        "hosts": hosts,
        "ranks_per_host": {h["host"]: h["num_ranks"] for h in hosts},
        "framework": args.framework,
        "backend": framework.backend,
        "device": device.kind,
        "device_name": device.name,
        "precision": device.precision,
        "master": framework.master,
        "model": {
            "size": args.model_size,
            "num_layers": cfg["num_layers"],
            "hidden_size": cfg["hidden_size"],
            "num_heads": cfg["num_heads"],
            "intermediate_size": cfg["intermediate_size"],
            "vocab_size": model_vocab,
            "tokenizer_vocab_size": model["tokenizer_vocab"],
            "params": model["params"],
        },
        "seq_len": args.seq_len,
        "per_rank_batch": args.batch_size,
        "grad_accum": accum,
        "global_batch": global_batch,
        "steps": args.steps,
        "steps_completed": steps_done,
        "warmup_steps": args.warmup_steps,
        "optimizer": model.get("optimizer", "adamw"),
        "learning_rate": model["learning_rate"],
        "lr_warmup_steps": model["lr_warmup_steps"],
        "loss": finite_or_none(loss),
        "mlm_loss": finite_or_none(mlm),
        "nsp_loss": finite_or_none(nsp),
        "loss_first": finite_or_none(loss[:1])[0] if loss else None,
        "loss_last": finite_or_none(loss[-1:])[0] if loss else None,
        "throughput": {
            "measured_steps": measured if ok else 0,
            "elapsed_s": elapsed if ok else None,
            "step_time_s": 1 / steps_per_s if steps_per_s else None,
            "sequences_per_s": global_batch * steps_per_s if steps_per_s else None,
            "tokens_per_s": global_batch * args.seq_len * steps_per_s if steps_per_s else None,
            "tokens_note": "padded tokens (global_batch * seq_len per step)",
            "real_tokens_per_s": per_step["real_tokens"] * steps_per_s if per_step else None,
            "padding_fraction": 1 - per_step["real_tokens"] / (global_batch * args.seq_len) if per_step else None,
            "predicted_per_step": per_step.get("predicted"),
            "step_time_split_s": split,
            "host_syncs": host_syncs,
            "host_syncs_per_step": host_syncs / steps_done if host_syncs is not None and steps_done else None,
            # Per logged interval (--log-every steps) after the warm-up: how the speed moved during the run.
            "intervals": interval_throughput(
                getattr(outcome, "marks", None), max(args.warmup_steps, resumed_from), global_batch
            ),
        },
        "flops": {
            "model_flops_per_step": flops["per_step"],
            "model_flops_per_token": flops["per_token"],
            "formula": "tokens*(6*L*(4H^2+2HI) + 12*L*S*H) + head_rows*6*(H^2+HV) + batch*6*(H^2+2H)",
            "useful_formula": "real_tokens*6*L*(4H^2+2HI) + 12*L*H*sum(len^2) + predicted*6*(H^2+HV) + batch*6*(H^2+2H)",
            "source": "6*N*D plus attention: Kaplan et al. 2020 (2.1), PaLM appendix B, Megatron-LM (Narayanan et al. 2021)",
            "head_rows_per_step": flops["head_rows_per_step"],
            "achieved_flops_per_s": achieved,
            "useful_flops_per_s": useful,
            "peak_flops_per_device": peak,
            "mfu": achieved / (peak * world) if achieved and peak else None,
            "useful_mfu": useful / (peak * world) if useful and peak else None,
        },
        "levers": {
            name: getattr(args, name, None)
            for name in (
                "vocab_multiple",
                "mlm_head",
                "attention",
                "grad_accum",
                "optimizer",
                "fused_adamw",
                "ddp_bucket_mb",
                "ddp_static_graph",
                "ddp_grad_as_bucket_view",
                "ddp_compression",
                "compile",
                "data",
                "loader_workers",
            )
        },
        "resumed_from_step": resumed_from,
        "data": dict(data),
        "versions": dict(versions),
    }


def write_outputs(output_dir: str, results: Mapping[str, Any], vocab_tokens: Sequence[str]) -> None:
    """results.json (written atomically: a temporary file, then a rename) and the vocab.txt the run used."""
    os.makedirs(output_dir, exist_ok=True)
    with open(os.path.join(output_dir, "vocab.txt"), "w", encoding="utf-8") as handle:
        handle.write("\n".join(vocab_tokens) + "\n")
    mpi_job_device.write_results(output_dir, results)
