"""bert_results.build_results (runtime/scc_training_runtime): the results dict from the run's arguments
and measured numbers, without torch and without a training run."""

from __future__ import annotations

import datetime as dt
import json
import math
from types import SimpleNamespace

import pytest
from scc_training_runtime import bert_model, bert_results
from scc_training_runtime import pretrain_bert as pb

LOSSES = ((8.0, 7.3, 0.7), (7.5, 6.8, 0.7), (7.0, 6.4, 0.6), (6.5, 5.9, 0.6))
START = dt.datetime(2026, 1, 2, 3, 4, 5, 678, tzinfo=dt.timezone.utc)


def build(args=(), device=("cpu", "x86_64", "fp32"), status="ok", losses=LOSSES, elapsed_s=1.5):
    """Four ranks on two hosts, 4 steps of which 1 warm-up, timed 1.5 s; tiny on a CPU. `args` are
    pretrain_bert.py options on top of those; `device` its kind, name and precision."""
    kind, name, precision = device
    return bert_results.build_results(
        pb.build_parser().parse_args(
            ["--output-dir", "x", "--run-id", "unit", "--seq-len", "128", "--batch-size", "8"]
            + ["--steps", "4", "--warmup-steps", "1", *args]
        ),
        rank_records=[{"rank": r, "host": "node2" if r % 2 else "node1"} for r in (3, 0, 2, 1)],
        framework=SimpleNamespace(backend="gloo", master="127.0.3.11:29500"),
        device=SimpleNamespace(kind=kind, name=name, precision=precision),
        model={
            "config": bert_model.model_config("tiny"),
            "vocab": 1024,
            "tokenizer_vocab": 900,
            "params": 123,
            "learning_rate": 1e-3,
            "lr_warmup_steps": 1,
        },
        outcome=SimpleNamespace(status=status, losses=losses, elapsed_s=elapsed_s),
        started_at=START,
        finished_at=START + dt.timedelta(seconds=30),
        data={"corpus": "/opt/bert/corpus.txt", "corpus_sha256": "ab", "documents": 800, "instances": 900},
        versions={"python": "3.11.2", "torch": "2.5.1"},
    )


def test_ranks_hosts_and_batch():
    r = build()
    assert (r["world_size"], r["num_hosts"], r["global_batch"]) == (4, 2, 32)
    assert r["hosts"] == [
        {"host": "node1", "ranks": [0, 2], "num_ranks": 2},
        {"host": "node2", "ranks": [1, 3], "num_ranks": 2},
    ]
    assert r["ranks_per_host"] == {"node1": 2, "node2": 2}
    assert (r["started_at"], r["finished_at"]) == ("2026-01-02T03:04:05+00:00", "2026-01-02T03:04:35+00:00")
    assert r["model"] == {
        "size": "tiny",
        "num_layers": 2,
        "hidden_size": 128,
        "num_heads": 2,
        "intermediate_size": 512,
        "vocab_size": 1024,
        "tokenizer_vocab_size": 900,
        "params": 123,
    }


def test_losses_and_throughput_after_the_warm_up():
    r = build()
    assert r["loss"] == [8.0, 7.5, 7.0, 6.5] and r["mlm_loss"][0] == 7.3 and r["nsp_loss"][-1] == 0.6
    assert (r["loss_first"], r["loss_last"], r["steps_completed"]) == (8.0, 6.5, 4)
    # 3 measured steps in 1.5 s: 2 steps/s of 32 sequences of 128 tokens.
    t = r["throughput"]
    assert (t["measured_steps"], t["elapsed_s"], t["step_time_s"]) == (3, 1.5, 0.5)
    assert (t["sequences_per_s"], t["tokens_per_s"]) == (64.0, 64.0 * 128)


def test_throughput_per_logged_interval():
    # Warm-up 1 step; logged at steps 2 (0.4 s after the warm-up), 3 (0.4 s again: no time, left out), 4 (1.5 s).
    assert bert_results.interval_throughput([(2, 0.4), (3, 0.4), (4, 1.5)], 1, 32) == [
        {"step": 2, "sequences_per_s": 80.0},
        {"step": 4, "sequences_per_s": 32 / 1.1},
    ]
    assert bert_results.interval_throughput(None, 1, 32) == []
    # An outcome without marks (an older loop, a stand-in) has no intervals rather than an error.
    assert build()["throughput"]["intervals"] == []


def test_flops_and_mfu():
    per_step = bert_model.model_flops(2, 128, 512, 1024, 128, 32)["per_step"]
    cpu = build()["flops"]
    assert (cpu["model_flops_per_step"], cpu["achieved_flops_per_s"]) == (per_step, 2 * per_step)
    assert cpu["peak_flops_per_device"] is None and cpu["mfu"] is None  # no peak for a CPU
    v100 = build(device=("cuda", "Tesla V100-SXM2-32GB", "fp16"))["flops"]
    assert v100["peak_flops_per_device"] == 125e12
    assert v100["mfu"] == pytest.approx(2 * per_step / (4 * 125e12))
    # --peak-tflops overrides the table, on any device.
    assert build(["--peak-tflops", "10"])["flops"]["mfu"] == pytest.approx(2 * per_step / (4 * 10e12))


def test_non_finite_loss_reports_no_throughput():
    r = build(status="non_finite_loss", losses=[[8.0, 7.3, 0.7], [math.nan, math.nan, 0.7]])
    assert (r["status"], r["steps_completed"], r["loss"], r["loss_last"]) == ("non_finite_loss", 2, [8.0, None], None)
    assert r["throughput"]["measured_steps"] == 0 and r["throughput"]["sequences_per_s"] is None
    assert r["flops"]["achieved_flops_per_s"] is None and r["flops"]["mfu"] is None
    # What results.json needs: JSON without NaN.
    json.dumps(r, allow_nan=False)


@pytest.mark.parametrize("elapsed", [None, math.nan, 0.0])
def test_no_timed_step_no_throughput(elapsed):
    t = build(elapsed_s=elapsed)["throughput"]
    assert (t["measured_steps"], t["elapsed_s"], t["tokens_per_s"]) == (0, None, None)
    assert build(losses=[[8.0, 7.3, 0.7]])["throughput"]["sequences_per_s"] is None  # only the warm-up ran


def test_write_outputs(tmp_path):
    r = build()
    bert_results.write_outputs(str(tmp_path / "run"), r, ["[PAD]", "[UNK]"])
    assert json.loads((tmp_path / "run" / "results.json").read_text()) == r
    assert (tmp_path / "run" / "vocab.txt").read_text() == "[PAD]\n[UNK]\n"
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["results.json", "vocab.txt"]
