"""The results of a pretrain_bert.py run (rank 0 writes them as results.json), from the numbers
the run measured: pure Python, no torch, so that it is unit-tested without a training run.

Throughput counts padded tokens (global_batch * seq_len per step), which is what the model
computes on; it is timed from the end of the warm-up steps to the end of the last step. MFU is
model FLOPs per step * steps/s / (world size * peak FLOP/s of one device); null where the peak
is unknown (a CPU, a device not in bert_model.PEAK_FLOPS, no --peak-tflops).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
from typing import Any, Mapping, Sequence

from bert_model import model_flops, peak_flops

SCHEMA_VERSION = 1


def finite_or_none(values: Sequence[float]) -> list[float | None]:
    return [v if math.isfinite(v) else None for v in values]


def hosts_summary(rank_records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Distinct hosts, in order of their lowest rank, with the ranks each one runs."""
    hosts: dict[str, list[int]] = {}
    for rec in sorted(rank_records, key=lambda r: r["rank"]):
        hosts.setdefault(rec["host"], []).append(rec["rank"])
    return [{"host": host, "ranks": ranks, "num_ranks": len(ranks)} for host, ranks in hosts.items()]


def build_results(
    *,
    run_id: str,
    status: str,
    started_at: _dt.datetime,
    finished_at: _dt.datetime,
    rank_records: Sequence[Mapping[str, Any]],
    framework: str,
    backend: str,
    device: str,
    device_name: str,
    precision: str,
    master: str | None,
    model_size: str,
    model_config: Mapping[str, Any],
    model_vocab: int,
    tokenizer_vocab: int,
    params: int,
    seq_len: int,
    per_rank_batch: int,
    steps: int,
    warmup_steps: int,
    learning_rate: float,
    lr_warmup_steps: int,
    losses: Sequence[Sequence[float]],
    elapsed_s: float | None,
    peak_tflops: float | None,
    data: Mapping[str, Any],
    versions: Mapping[str, str],
) -> dict[str, Any]:
    """The results dict. `losses` has one [loss, mlm_loss, nsp_loss] row (averaged over the ranks)
    per completed step; `elapsed_s` is the time of the steps after the warm-up (None or NaN when
    no step was timed); `rank_records` one {rank, host} per rank; `peak_tflops` overrides the
    peak table (which applies to CUDA devices only)."""
    world = len(rank_records)
    hosts = hosts_summary(rank_records)
    global_batch = per_rank_batch * world
    cfg = model_config
    flops = model_flops(
        cfg["num_layers"], cfg["hidden_size"], cfg["intermediate_size"], model_vocab, seq_len, global_batch
    )
    steps_done = len(losses)
    measured = steps_done - warmup_steps
    elapsed = float("nan") if elapsed_s is None else elapsed_s
    ok = status == "ok" and measured > 0 and elapsed > 0
    steps_per_s = measured / elapsed if ok else None
    peak = peak_tflops * 1e12 if peak_tflops else peak_flops(device_name, precision) if device == "cuda" else None
    achieved = flops["per_step"] * steps_per_s if steps_per_s else None
    loss, mlm, nsp = ([row[i] for row in losses] for i in range(3))
    return {
        "schema_version": SCHEMA_VERSION,
        "run_id": run_id,
        "status": status,
        "started_at": started_at.isoformat(timespec="seconds"),
        "finished_at": finished_at.isoformat(timespec="seconds"),
        "world_size": world,
        "num_hosts": len(hosts),
        "hosts": hosts,
        "ranks_per_host": {h["host"]: h["num_ranks"] for h in hosts},
        "framework": framework,
        "backend": backend,
        "device": device,
        "device_name": device_name,
        "precision": precision,
        "master": master,
        "model": {
            "size": model_size,
            "num_layers": cfg["num_layers"],
            "hidden_size": cfg["hidden_size"],
            "num_heads": cfg["num_heads"],
            "intermediate_size": cfg["intermediate_size"],
            "vocab_size": model_vocab,
            "tokenizer_vocab_size": tokenizer_vocab,
            "params": params,
        },
        "seq_len": seq_len,
        "per_rank_batch": per_rank_batch,
        "global_batch": global_batch,
        "steps": steps,
        "steps_completed": steps_done,
        "warmup_steps": warmup_steps,
        "learning_rate": learning_rate,
        "lr_warmup_steps": lr_warmup_steps,
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
            "tokens_per_s": global_batch * seq_len * steps_per_s if steps_per_s else None,
            "tokens_note": "padded tokens (global_batch * seq_len per step)",
        },
        "flops": {
            "model_flops_per_step": flops["per_step"],
            "model_flops_per_token": flops["per_token"],
            "formula": "tokens*(6*(L*(4H^2+2HI)+H^2+HV) + 12*L*S*H) + batch*6*(H^2+2H)",
            "achieved_flops_per_s": achieved,
            "peak_flops_per_device": peak,
            "mfu": achieved / (peak * world) if achieved and peak else None,
        },
        "data": dict(data),
        "versions": dict(versions),
    }


def write_outputs(output_dir: str, results: Mapping[str, Any], vocab_tokens: Sequence[str]) -> None:
    """results.json (written atomically: a temporary file, then a rename) and the vocab.txt the run used."""
    os.makedirs(output_dir, exist_ok=True)
    with open(os.path.join(output_dir, "vocab.txt"), "w", encoding="utf-8") as handle:
        handle.write("\n".join(vocab_tokens) + "\n")
    path = os.path.join(output_dir, "results.json")
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(results, handle, indent=2, sort_keys=True, allow_nan=False)
        handle.write("\n")
    os.replace(tmp, path)
