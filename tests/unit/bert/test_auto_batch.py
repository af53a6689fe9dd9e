"""--batch-size auto: the per-rank batch from the device's memory and the model (bert_model.auto_batch_size), and
pretrain_bert.py taking it (on the CPU: AUTO_BATCH_CPU)."""

from __future__ import annotations

import json

import pytest
from scc_training_runtime import bert_model
from scc_training_runtime import pretrain_bert as pb

from tests.unit.bert.small_run import run_alone, small_run

BASE = bert_model.MODEL_SIZES["base"]
GIB = 1024**3


@pytest.mark.parametrize(
    "memory,expected",
    [
        (15.77 * GIB, 32),  # V100-SXM2-16GB as torch reports its total memory: 32, the role's old default
        (39.4 * GIB, 128),  # A100 40 GB
        (79.1 * GIB, 256),  # H100 80 GB
        (139.8 * GIB, 512),  # H200 141 GB ("about 139 GiB" on the lent machine)
    ],
)
def test_bert_base_at_seq_128_by_memory(memory, expected):
    assert bert_model.auto_batch_size(int(memory), BASE, 128, 30522) == expected


def test_the_rule_follows_memory_sequence_length_and_model_within_its_bounds():
    sizes = [bert_model.auto_batch_size(gib * GIB, BASE, 128, 30522) for gib in (8, 16, 24, 48, 96, 192, 10_000)]
    assert sizes == sorted(sizes) and all(s & (s - 1) == 0 for s in sizes)  # powers of two, growing with memory
    assert sizes[-1] == bert_model.AUTO_BATCH_MAX
    assert bert_model.auto_batch_size(80 * GIB, BASE, 512, 30522) < bert_model.auto_batch_size(
        80 * GIB, BASE, 128, 30522
    )
    large = bert_model.MODEL_SIZES["large"]
    assert bert_model.auto_batch_size(80 * GIB, large, 128, 30522) < bert_model.auto_batch_size(
        80 * GIB, BASE, 128, 30522
    )
    assert bert_model.auto_batch_size(1 * GIB, large, 512, 30522) == 1  # nothing fits: still one sequence
    assert bert_model.auto_batch_size(None, BASE, 128, 30522) == bert_model.AUTO_BATCH_CPU


def test_batch_size_auto_parses_and_a_bad_size_is_refused():
    assert pb.parse_args(["--output-dir", "x", "--batch-size", "auto"]).batch_size == "auto"
    with pytest.raises(SystemExit):
        pb.parse_args(["--output-dir", "x", "--batch-size", "0"])


def test_a_cpu_run_with_auto_takes_the_cpu_batch(tmp_path):
    assert run_alone([*small_run(tmp_path, 2), "--batch-size", "auto"]) == pb.EXIT_OK
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["per_rank_batch"] == bert_model.AUTO_BATCH_CPU
    # The progress file counts sequences with the resolved batch, not the word auto.
    progress = json.loads((tmp_path / "progress-rank0.json").read_text())
    assert progress["samples_per_step"] == bert_model.AUTO_BATCH_CPU, progress
