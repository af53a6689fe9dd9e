"""pretrain_bert.py's levers, figures and checkpoints on the CPU (runtime/scc_training_runtime): the
sync-free masking and masked-row gather, the shards path giving the very batches of the inline one,
host syncs that do not grow with the steps, useful MFU, and a resumed run continuing the loss curve."""

from __future__ import annotations

import json

import pytest
import torch
from scc_training_runtime import bert_data, bert_model, bert_train, mpi_job_rank
from scc_training_runtime import pretrain_bert as pb

from tests.unit.bert.small_run import run_alone, small_run


def _batch(rows=64, cols=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(5, 1000, (rows, cols), generator=g)
    special = torch.zeros((rows, cols), dtype=torch.bool)
    special[:, 0] = special[:, -1] = True
    return ids, special


def test_masking_and_the_masked_row_gather_make_no_host_sync():
    ids, special = _batch()
    with bert_train.HostSyncCounter() as counter:
        _inputs, labels = bert_data.mask_tokens(
            ids, special, mask_id=4, vocab_size=1000, generator=torch.Generator().manual_seed(1)
        )
        bert_data.masked_positions(labels, 12)
    assert counter.count == 0
    # The counter counts what it should (here: the calls of this file).
    with bert_train.HostSyncCounter(files=("test_pretrain_bert_levers.py",)) as counter:
        labels.sum().item()
        float(labels.float().mean())
    assert counter.count == 2


def test_masked_positions_keep_the_predicted_tokens_in_order():
    labels = torch.full((2, 8), bert_data.IGNORE_INDEX)
    labels[0, [1, 4, 6]] = torch.tensor([11, 14, 16])
    labels[1, [0, 1, 2, 3, 7]] = torch.tensor([20, 21, 22, 23, 27])
    positions, picked = bert_data.masked_positions(labels, 4)
    assert positions[0, :3].tolist() == [1, 4, 6] and picked[0].tolist() == [11, 14, 16, bert_data.IGNORE_INDEX]
    # More chosen than slots: the first ones are predicted, the rest dropped.
    assert positions[1].tolist() == [0, 1, 2, 3] and picked[1].tolist() == [20, 21, 22, 23]


def test_max_predictions_covers_bert_at_seq_128_and_512():
    # NVIDIA's DeepLearningExamples BERT uses 20 at seq 128 and 80 at 512: the mean (19.2, 76.8) fits.
    assert bert_data.max_predictions(128, 0.15) >= 20
    assert bert_data.max_predictions(512, 0.15) >= 80
    assert bert_data.max_predictions(16, 0.5) <= 16


def test_padded_vocab():
    assert bert_model.padded_vocab(30522, 64) == 30528
    assert bert_model.padded_vocab(1024, 64) == 1024
    assert bert_model.padded_vocab(1000, 1) == 1000


def test_masked_head_flops_and_useful_flops():
    full = bert_model.model_flops(12, 768, 3072, 30528, 128, 32)
    masked = bert_model.model_flops(12, 768, 3072, 30528, 128, 32, head_rows=32 * 20)
    head = 6 * (768 * 768 + 768 * 30528)
    assert full["per_step"] - masked["per_step"] == pytest.approx((32 * 128 - 32 * 20) * head)
    # No padding and every row predicted: the useful work is the full model's.
    useful = bert_model.useful_flops(
        12, 768, 3072, 30528, real_tokens=32 * 128, squared_lengths=32 * 128**2, predicted=32 * 128, sequences=32
    )
    assert useful == pytest.approx(full["per_step"])


def _results(path):
    return json.loads((path / "results.json").read_text())


def test_host_syncs_do_not_grow_with_the_steps(tmp_path):
    counts = []
    for steps in (3, 6):
        out = tmp_path / str(steps)
        argv = small_run(
            out, steps, "--count-syncs", "--log-every", "100", "--mlm-head", "masked", "--attention", "sdpa"
        )
        assert run_alone(argv) == pb.EXIT_OK
        counts.append(_results(out)["throughput"]["host_syncs"])
    assert counts[0] == counts[1], f"host syncs grew with the steps: {counts}"


def test_shards_give_the_batches_of_the_inline_path(tmp_path):
    # WordPiece training breaks ties differently from run to run: every run takes one vocabulary.
    assert run_alone(small_run(tmp_path / "vocab", 2)) == pb.EXIT_OK
    vocab = ["--vocab", str(tmp_path / "vocab" / "vocab.txt")]
    assert run_alone(small_run(tmp_path / "inline", 3, *vocab)) == pb.EXIT_OK
    shards = [*vocab, "--data", "shards", "--data-dir", str(tmp_path / "cache"), "--loader-workers", "0"]
    for name in ("built", "read"):
        assert run_alone(small_run(tmp_path / name, 3, *shards)) == pb.EXIT_OK
    (key,) = [p for p in (tmp_path / "cache").iterdir() if not p.name.startswith(".")]
    assert (key / "meta.json").is_file() and list(key.glob("shard-*.pt"))
    expected = _results(tmp_path / "inline")["loss"]
    assert _results(tmp_path / "built")["loss"] == pytest.approx(expected, rel=1e-6)
    assert _results(tmp_path / "read")["loss"] == pytest.approx(expected, rel=1e-6)


def test_figures_real_tokens_useful_mfu_and_the_time_split(tmp_path):
    argv = small_run(
        tmp_path, 3, "--mlm-head", "masked", "--grad-accum", "2", "--time-split", "--peak-tflops", "1",
        "--vocab-multiple", "64",
    )  # fmt: skip
    assert run_alone(argv) == pb.EXIT_OK
    results = _results(tmp_path)
    tput, flops = results["throughput"], results["flops"]
    assert results["global_batch"] == 4 and results["grad_accum"] == 2
    assert results["model"]["vocab_size"] % 64 == 0
    assert 0 < tput["real_tokens_per_s"] < tput["tokens_per_s"] and 0 < tput["padding_fraction"] < 1
    assert flops["head_rows_per_step"] == 4 * bert_data.max_predictions(32, 0.15)
    assert 0 < flops["useful_mfu"] < flops["mfu"]
    assert set(tput["step_time_split_s"]) == {"data", "forward", "backward", "allreduce_wait", "optimizer"}
    assert all(v >= 0 for v in tput["step_time_split_s"].values())
    assert results["levers"]["mlm_head"] == "masked"


@pytest.mark.parametrize("optimizer", ["adamw", "lamb"])
def test_a_resumed_run_continues_the_loss_curve(tmp_path, monkeypatch, optimizer):
    steps, every = 6, 3
    # WordPiece training breaks ties differently from run to run: both runs take one vocabulary,
    # and the resumed run (no --vocab) must find it in the checkpoint.
    assert run_alone(small_run(tmp_path / "vocab", 2)) == pb.EXIT_OK
    vocab = [
        "--vocab",
        str(tmp_path / "vocab" / "vocab.txt"),
        "--checkpoint-every",
        str(every),
        "--optimizer",
        optimizer,
    ]
    whole = small_run(tmp_path / "whole", steps, "--checkpoint-dir", str(tmp_path / "ck-whole"), *vocab)
    assert run_alone(whole) == pb.EXIT_OK

    resumed_dir = tmp_path / "ck-resumed"
    first = small_run(tmp_path / "first", steps, "--checkpoint-dir", str(resumed_dir), *vocab)
    monkeypatch.setenv(mpi_job_rank.TEST_ONLY_FAIL_ENV, f"0:{every + 2}")  # the run dies in step 5
    try:
        with pytest.raises(mpi_job_rank.TestOnlyInjectedFailure):
            run_alone(first)
    finally:
        if torch.distributed.is_initialized():
            torch.distributed.destroy_process_group()
    monkeypatch.delenv(mpi_job_rank.TEST_ONLY_FAIL_ENV)
    assert torch.load(resumed_dir / bert_train.CHECKPOINT_FILE, weights_only=False)["step"] == every

    again = small_run(tmp_path / "again", steps, "--checkpoint-dir", str(resumed_dir), "--checkpoint-every", str(every))
    # The other optimizer cannot continue the checkpoint: refused, and the checkpoint stays as it was.
    other = "adamw" if optimizer == "lamb" else "lamb"
    assert run_alone([*again, "--resume", "--optimizer", other]) == pb.EXIT_USAGE
    assert torch.load(resumed_dir / bert_train.CHECKPOINT_FILE, weights_only=False)["step"] == every
    assert run_alone([*again, "--resume", "--optimizer", optimizer]) == pb.EXIT_OK
    results = _results(tmp_path / "again")
    assert results["resumed_from_step"] == every and len(results["loss"]) == steps
    assert results["optimizer"] == optimizer and results["levers"]["optimizer"] == optimizer
    # LAMB's own default learning rate (the size table's is AdamW's).
    assert results["learning_rate"] == (bert_train.LAMB_LEARNING_RATE if optimizer == "lamb" else 1e-3)
    assert results["loss"] == pytest.approx(_results(tmp_path / "whole")["loss"], rel=1e-5)
    ends = [
        torch.load(d / bert_train.CHECKPOINT_FILE, weights_only=False) for d in (tmp_path / "ck-whole", resumed_dir)
    ]
    assert ends[0]["step"] == ends[1]["step"] == steps
    for name, tensor in ends[0]["model"].items():
        assert torch.allclose(tensor, ends[1]["model"][name], atol=1e-6), name
