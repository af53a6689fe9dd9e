"""Unit tests of the pure parts of runtime/scc_training_runtime/pretrain_bert.py (and its corpus).

They need torch, transformers and tokenizers, which requirements-dev.txt pins: without them
conftest.py fails the run (it never skips).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import transformers
from scc_training_runtime import bert_corpus as corpus
from scc_training_runtime import bert_data, bert_model, bert_results, bert_train, mpi_job_framework, mpi_job_rank
from scc_training_runtime import pretrain_bert as pb

from tests.unit.bert.small_run import FILES, RUNTIME, run_alone, small_run
from tests.unit.rank_scripts import RANK_VARIABLES, free_port

BASE_ARGS = ["--output-dir", "/tmp/unused"]


def _args(*extra):
    return pb.build_parser().parse_args(BASE_ARGS + list(extra))


# ---- model-size table and BertConfig ---------------------------------------------------------


@pytest.mark.parametrize(
    "size, layers, hidden, heads, inter",
    [
        ("tiny", 2, 128, 2, 512),
        ("base", 12, 768, 12, 3072),
        ("large", 24, 1024, 16, 4096),
    ],
)
def test_size_table(size, layers, hidden, heads, inter):
    cfg = bert_model.model_config(size)
    assert (cfg["num_layers"], cfg["hidden_size"], cfg["num_heads"], cfg["intermediate_size"]) == (
        layers,
        hidden,
        heads,
        inter,
    )
    bc = bert_model.bert_config(cfg, 1000)
    assert (bc.num_hidden_layers, bc.hidden_size, bc.num_attention_heads, bc.intermediate_size, bc.vocab_size) == (
        layers,
        hidden,
        heads,
        inter,
        1000,
    )


def test_overrides_apply_and_none_keeps_table():
    cfg = bert_model.model_config(
        "base", _args("--num-layers", "3", "--hidden-size", "96", "--num-heads", "4", "--learning-rate", "0.01")
    )
    assert (cfg["num_layers"], cfg["hidden_size"], cfg["num_heads"]) == (3, 96, 4)
    assert cfg["intermediate_size"] == 3072 and cfg["learning_rate"] == 0.01
    assert bert_model.model_config("base", _args()) == bert_model.MODEL_SIZES["base"]


def test_unknown_size_and_bad_heads():
    with pytest.raises(ValueError, match="--model-size"):
        bert_model.model_config("huge")
    with pytest.raises(ValueError, match="multiple of --num-heads"):
        bert_model.model_config("tiny", _args("--hidden-size", "130", "--num-heads", "4"))


# ---- parameter and FLOP counts -----------------------------------------------------------------


@pytest.mark.parametrize(
    "layers, hidden, heads, inter, vocab",
    [
        (2, 128, 2, 512, 1024),
        (3, 96, 4, 200, 777),
    ],
)
def test_parameter_count_matches_the_model(layers, hidden, heads, inter, vocab):
    cfg = {"num_layers": layers, "hidden_size": hidden, "num_heads": heads, "intermediate_size": inter}
    model = transformers.BertForPreTraining(bert_model.bert_config(cfg, vocab))
    actual = sum(p.numel() for p in model.parameters())
    assert bert_model.parameter_count(layers, hidden, inter, vocab) == actual


def test_parameter_count_bert_base():
    # BertForPreTraining, bert-base-uncased shape: 110,106,428 parameters.
    assert bert_model.parameter_count(12, 768, 3072, 30522) == 110_106_428


def test_model_flops_formula():
    f = bert_model.model_flops(layers=2, hidden=4, intermediate=8, vocab=10, seq_len=16, global_batch=3)
    matmul = 2 * (4 * 16 + 2 * 32) + 16 + 40
    assert f["matmul_params"] == matmul
    assert f["per_token"] == 6 * matmul + 12 * 2 * 16 * 4
    assert f["per_step"] == 3 * 16 * f["per_token"] + 3 * 6 * (16 + 8)
    assert f["tokens_per_step"] == 48


def test_model_flops_scaling_and_6nd_approximation():
    one = bert_model.model_flops(12, 768, 3072, 30522, 128, 1)["per_step"]
    assert bert_model.model_flops(12, 768, 3072, 30522, 128, 32)["per_step"] == pytest.approx(32 * one)
    # BERT-base at seq 128: within 10% of 6 * all parameters * tokens (the usual estimate).
    approx = 6 * bert_model.parameter_count(12, 768, 3072, 30522) * 128
    assert abs(one - approx) / approx < 0.10
    # The attention term grows with the square of the sequence length.
    att = [bert_model.model_flops(12, 768, 3072, 30522, s, 1)["attention_per_token"] * s for s in (128, 256)]
    assert att[1] == 4 * att[0]


@pytest.mark.parametrize(
    "name, precision, expected",
    [
        ("Tesla V100-SXM2-32GB", "fp16", 125e12),
        ("Tesla V100-SXM2-16GB", "bf16", None),
        ("NVIDIA A100-SXM4-80GB", "bf16", 312e12),
        ("NVIDIA H100 80GB HBM3", "bf16", 989e12),
        ("NVIDIA H200", "bf16", 989e12),
        ("NVIDIA A800-SXM4-80GB", "bf16", 312e12),
        ("NVIDIA H800", "fp16", 989e12),
        ("NVIDIA H20", "bf16", 148e12),
        ("NVIDIA B200", "bf16", 2250e12),
        ("NVIDIA GeForce RTX 3090", "bf16", None),
        ("x86_64", "fp32", None),
    ],
)
def test_peak_flops(name, precision, expected):
    assert bert_model.peak_flops(name, precision) == expected


# ---- argument validation --------------------------------------------------------------------


@pytest.mark.parametrize(
    "extra, option",
    [
        (["--steps", "0"], "--steps"),
        (["--batch-size", "0"], "--batch-size"),
        (["--seq-len", "8"], "--seq-len"),
        (["--seq-len", "1024"], "--seq-len"),
        (["--steps", "5", "--warmup-steps", "5"], "--warmup-steps"),
        (["--warmup-steps", "-1"], "--warmup-steps"),
        (["--learning-rate", "0"], "--learning-rate"),
        (["--mlm-probability", "1.0"], "--mlm-probability"),
        (["--master-port", "70000"], "--master-port"),
        (["--num-layers", "0"], "--num-layers"),
        (["--hidden-size", "100", "--num-heads", "3"], "--num-heads"),
        (["--vocab-multiple", "0"], "--vocab-multiple"),
        (["--grad-accum", "0"], "--grad-accum"),
        (["--loader-workers", "-1"], "--loader-workers"),
        (["--data", "shards"], "--data-dir"),
        (["--resume"], "--checkpoint-dir"),
        (["--ddp-static-graph", "--grad-accum", "2"], "--ddp-static-graph"),
        (["--framework", "horovod", "--grad-accum", "2"], "--grad-accum"),
    ],
)
def test_bad_arguments_name_the_option(extra, option, capsys):
    errors = pb.check_args(_args(*extra))
    assert errors and any(option in e for e in errors)
    with pytest.raises(SystemExit) as exc:
        pb.parse_args(BASE_ARGS + extra)
    assert exc.value.code == pb.EXIT_USAGE
    assert option in capsys.readouterr().err


def test_good_arguments_and_bad_choice():
    assert pb.check_args(_args()) == []
    assert pb.check_args(_args("--seq-len", "16", "--steps", "1", "--warmup-steps", "0")) == []
    with pytest.raises(SystemExit):
        pb.parse_args(BASE_ARGS + ["--model-size", "huge"])
    with pytest.raises(SystemExit):
        pb.parse_args([])  # --output-dir is required


# ---- ranks and hosts -------------------------------------------------------------------------


def test_rank_info_openmpi():
    env = {
        "OMPI_COMM_WORLD_RANK": "5",
        "OMPI_COMM_WORLD_SIZE": "16",
        "OMPI_COMM_WORLD_LOCAL_RANK": "5",
        "OMPI_COMM_WORLD_LOCAL_SIZE": "8",
        "RANK": "0",
        "WORLD_SIZE": "1",
    }
    assert mpi_job_framework.rank_info(env) == {"rank": 5, "world_size": 16, "local_rank": 5, "local_size": 8}


def test_rank_info_torchrun_and_single():
    env = {"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "2"}
    assert mpi_job_framework.rank_info(env) == {"rank": 1, "world_size": 2, "local_rank": 1, "local_size": 2}
    assert mpi_job_framework.rank_info({}) == {"rank": 0, "world_size": 1, "local_rank": 0, "local_size": 1}


def test_rank_info_inconsistent():
    with pytest.raises(ValueError, match="inconsistent"):
        mpi_job_framework.rank_info({"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "2"})


# A rank connected and closed as pretrain_bert.py and train_resnet.py do, with the import transformers makes once
# connected; it prints how many gloo threads are left after close() (0: the process group was freed).
_CLOSE_A_RANK = """
import argparse, os, sys
from scc_training_runtime import mpi_job_framework
if sys.argv[1] == "without":
    mpi_job_framework.import_group_defaults = lambda: None
args = argparse.Namespace(framework="torch", run_id="unit", device="cpu", precision="auto", threads=1,
                          backend="gloo", master_addr="127.0.0.1", master_port=int(sys.argv[2]), init_timeout=60)
framework, _device = mpi_job_framework.start_rank(args, {})
import torch.distributed.fsdp  # what transformers' modeling_utils imports, after the rendezvous
framework.close()
tasks = [open(f"/proc/self/task/{t}/comm", encoding="utf-8").read() for t in os.listdir("/proc/self/task")]
print(sum("gloo" in name for name in tasks))
"""


@pytest.mark.parametrize("imported_first", [True, False])
def test_close_frees_the_process_group_despite_late_imports(imported_first):
    # Without import_group_defaults, torch.distributed.nn.functional (imported late) holds the group in its
    # default arguments, and the gloo threads outlive close() into the interpreter's exit (a rank's abort there).
    env = {k: v for k, v in os.environ.items() if k not in RANK_VARIABLES and k != mpi_job_rank.PID_DIR_ENV}
    env["PYTHONPATH"] = str(RUNTIME)
    done = subprocess.run(
        [sys.executable, "-c", _CLOSE_A_RANK, "with" if imported_first else "without", str(free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    left = int(done.stdout.split()[-1])
    assert (left == 0) if imported_first else (left > 0)


def test_hosts_summary():
    records = [
        {"rank": 2, "host": "node2"},
        {"rank": 0, "host": "node1"},
        {"rank": 3, "host": "node2"},
        {"rank": 1, "host": "node1"},
    ]
    assert bert_results.hosts_summary(records) == [
        {"host": "node1", "ranks": [0, 1], "num_ranks": 2},
        {"host": "node2", "ranks": [2, 3], "num_ranks": 2},
    ]


# ---- masking ---------------------------------------------------------------------------------


def _batch(rows=64, cols=128, vocab=1000):
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(5, vocab, (rows, cols), generator=g)
    special = torch.zeros((rows, cols), dtype=torch.bool)
    special[:, 0] = True
    special[:, -10:] = True
    ids[:, 0] = 2
    ids[:, -10:] = 0
    return ids, special


def test_mask_tokens_rates_and_specials():
    ids, special = _batch(rows=256)
    inputs, labels = bert_data.mask_tokens(
        ids, special, mask_id=4, vocab_size=1000, generator=torch.Generator().manual_seed(1)
    )
    chosen = labels != bert_data.IGNORE_INDEX
    assert not (chosen & special).any()
    assert torch.equal(inputs[special], ids[special])
    assert torch.equal(labels[chosen], ids[chosen])
    assert torch.equal(inputs[~chosen], ids[~chosen])
    rate = chosen.sum().item() / (~special).sum().item()
    assert 0.14 < rate < 0.16
    n = chosen.sum().item()
    masked = (inputs == 4) & chosen
    kept = (inputs == ids) & chosen
    replaced = chosen & ~masked & ~kept
    assert 0.77 < masked.sum().item() / n < 0.83
    # random tokens can draw the original token: "kept" is 10% plus ~0.1% of that.
    assert 0.08 < kept.sum().item() / n < 0.12
    assert 0.08 < replaced.sum().item() / n < 0.12
    assert inputs[replaced].min() >= len(bert_data.SPECIAL_TOKENS)


def test_mask_tokens_every_row_predicts_something_and_is_deterministic():
    ids, special = _batch(rows=200, cols=16)
    special[:, 2:] = True  # one maskable token per row: most rows would draw nothing
    a = bert_data.mask_tokens(
        ids, special, mask_id=4, vocab_size=1000, generator=torch.Generator().manual_seed(3), probability=0.01
    )
    b = bert_data.mask_tokens(
        ids, special, mask_id=4, vocab_size=1000, generator=torch.Generator().manual_seed(3), probability=0.01
    )
    assert ((a[1] != bert_data.IGNORE_INDEX).sum(dim=1) == 1).all()
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])


# ---- instances, packing, sampling ------------------------------------------------------------


def _documents(n_docs=20, seed=0):
    rng = random.Random(seed)
    return [
        [[rng.randint(5, 99) for unused in range(rng.randint(3, 12))] for unused in range(rng.randint(2, 10))]
        for unused in range(n_docs)
    ]


def test_create_and_pack_instances():
    seq_len = 32
    docs = _documents()
    instances = bert_data.create_instances(docs, seq_len, random.Random(1))
    assert instances
    assert {label for unused, unused, label in instances} == {0, 1}
    assert all(a and b and len(a) + len(b) <= seq_len - 3 for a, b, unused in instances)
    assert instances == bert_data.create_instances(docs, seq_len, random.Random(1))
    packed = bert_data.pack_instances(instances, seq_len, cls_id=2, sep_id=3, pad_id=0)
    for row, (a, b, label) in enumerate(instances):
        ids = packed["input_ids"][row]
        length = len(a) + len(b) + 3
        assert ids[0] == 2 and ids[len(a) + 1] == 3 and ids[length - 1] == 3
        assert ids[1 : len(a) + 1].tolist() == a
        assert (ids[length:] == 0).all()
        assert packed["attention_mask"][row].sum() == length
        assert packed["token_type_ids"][row].tolist() == (
            [0] * (len(a) + 2) + [1] * (len(b) + 1) + [0] * (seq_len - length)
        )
        assert (~packed["special_mask"][row]).sum() == len(a) + len(b)
        assert packed["nsp_labels"][row] == label


def test_continuation_instances_follow_the_document():
    docs = _documents()
    flat = [[t for sent in d for t in sent] for d in docs]
    for a, b, label in bert_data.create_instances(docs, 512, random.Random(2)):
        if label == 0:  # A then B is a contiguous piece of one document
            joined = a + b
            assert any(_contains(doc, joined) for doc in flat)


def _contains(seq, sub):
    return any(seq[i : i + len(sub)] == sub for i in range(len(seq) - len(sub) + 1))


def test_batch_indices_disjoint_and_cover_an_epoch():
    n, batch, world = 40, 5, 4
    seen = []
    for step in range(2):  # 2 steps * 20 = one epoch of 40
        per_rank = [bert_data.batch_indices(step, r, batch, world, n, seed=7) for r in range(world)]
        flat = [i for b in per_rank for i in b]
        assert len(set(flat)) == len(flat) == batch * world
        seen.extend(flat)
    assert sorted(seen) == list(range(n))
    assert bert_data.batch_indices(0, 0, 3, 1, 2, seed=1)  # wraps around a tiny data set


def test_batch_indices_order_each_seed_and_epoch_apart():
    """Every (seed, epoch) pair orders the data its own way: a second epoch is not another seed's first, and no
    seed's first epoch is another's (a run with another seed sees the data in another order)."""
    n = 50
    orders = {
        (seed, epoch): tuple(bert_data.batch_indices(epoch, 0, n, 1, n, seed=seed))
        for seed in range(4)
        for epoch in range(4)
    }
    assert all(sorted(order) == list(range(n)) for order in orders.values())
    assert len(set(orders.values())) == len(orders)
    # The same seed and step give the same batch: a resumed run reads what the first would have.
    assert bert_data.batch_indices(3, 1, 4, 2, n, seed=7) == bert_data.batch_indices(3, 1, 4, 2, n, seed=7)


def test_lr_factor():
    assert bert_train.lr_factor(0, 3, 10) == pytest.approx(1 / 3)
    assert bert_train.lr_factor(2, 3, 10) == 1.0
    assert bert_train.lr_factor(3, 3, 10) == 1.0
    assert bert_train.lr_factor(9, 3, 10) == pytest.approx(1 / 7)
    assert bert_train.lr_factor(5, 0, 10) == 0.5


# ---- the corpus ------------------------------------------------------------------------------


def test_shipped_corpus_is_the_generated_one_and_small():
    shipped = (FILES / "corpus.txt").read_text(encoding="utf-8")
    assert shipped == corpus.generate()
    assert len(shipped.encode()) < 1_000_000
    docs = bert_data.read_documents(str(FILES / "corpus.txt"))
    assert len(docs) == corpus.DEFAULT_DOCUMENTS
    assert all(len(d) >= 6 for d in docs)


# ---- one real run, one process -----------------------------------------------------------------


def test_single_process_run_writes_results(tmp_path):
    rc = run_alone(small_run(tmp_path, 3, "--run-id", "unit"))
    assert rc == pb.EXIT_OK
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["status"] == "ok" and results["run_id"] == "unit"
    assert results["world_size"] == 1 and results["backend"] == "gloo"
    assert results["hosts"][0]["ranks"] == [0]
    assert len(results["loss"]) == 3 and all(v > 0 for v in results["loss"])
    assert results["throughput"]["measured_steps"] == 2
    assert results["throughput"]["sequences_per_s"] > 0
    assert results["flops"]["mfu"] is None  # no known peak on a CPU
    model = results["model"]
    assert model["params"] == bert_model.parameter_count(2, 128, 512, model["vocab_size"])
    assert (tmp_path / "vocab.txt").read_text().splitlines()[:5] == list(bert_data.SPECIAL_TOKENS)


def test_non_finite_loss_exits_3_and_still_reports(tmp_path, monkeypatch):
    real = torch.nn.functional.cross_entropy
    monkeypatch.setattr(torch.nn.functional, "cross_entropy", lambda *a, **k: real(*a, **k) * float("nan"))
    rc = run_alone(small_run(tmp_path, 4, "--log-every", "2"))
    assert rc == pb.EXIT_NON_FINITE
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["status"] == "non_finite_loss"
    assert results["steps_completed"] == 2 and results["loss"] == [None, None]
    assert results["throughput"]["sequences_per_s"] is None
    assert json.loads((tmp_path / "progress-rank0.json").read_text())["status"] == "non_finite_loss"


# ---- the progress file and the pid record (what scc.training.mpi_job reads back) ---------------


def test_every_rank_records_its_pid_and_its_progress(tmp_path, monkeypatch):
    pids = tmp_path / "pids"
    pids.mkdir()
    monkeypatch.setenv(mpi_job_rank.PID_DIR_ENV, str(pids))
    rc = run_alone(small_run(tmp_path / "run", 3, "--run-id", "unit"))
    assert rc == pb.EXIT_OK
    record = json.loads((pids / f"{os.getpid()}.json").read_text())
    stat = Path("/proc/self/stat").read_text()
    assert record["starttime"] == int(stat.rsplit(")", 1)[1].split()[19])
    assert (record["rank"], record["run_id"], record["role"]) == (0, "unit", "rank")
    progress = json.loads((tmp_path / "run" / "progress-rank0.json").read_text())
    assert (progress["rank"], progress["step"], progress["steps"], progress["status"]) == (0, 3, 3, "ok")
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    # The rank's own loss at its last step: with one rank, the loss the results report.
    assert progress["loss"] == pytest.approx(results["loss_last"], rel=1e-5)
    assert not list((tmp_path / "run").glob("*.tmp.*"))


def test_a_test_only_injected_failure_leaves_the_steps_done_and_the_error(tmp_path, monkeypatch):
    monkeypatch.setenv(mpi_job_rank.TEST_ONLY_FAIL_ENV, "0:3")
    try:
        with pytest.raises(mpi_job_rank.TestOnlyInjectedFailure):
            run_alone(small_run(tmp_path, 5))
    finally:
        # A failed rank exits without tearing its process group down; this process goes on testing.
        if torch.distributed.is_initialized():
            torch.distributed.destroy_process_group()
    progress = json.loads((tmp_path / "progress-rank0.json").read_text())
    assert (progress["step"], progress["status"]) == (2, "failed")
    assert progress["loss"] > 0
    assert "TestOnlyInjectedFailure" in progress["error"] and "rank 0, step 3" in progress["error"]
    assert not (tmp_path / "results.json").exists()


def test_the_fault_injection_names_one_rank_and_step_only():
    mpi_job_rank.test_only_fail(1, 3, {})
    mpi_job_rank.test_only_fail(0, 3, {mpi_job_rank.TEST_ONLY_FAIL_ENV: "1:3"})
    with pytest.raises(mpi_job_rank.TestOnlyInjectedFailure):
        mpi_job_rank.test_only_fail(1, 3, {mpi_job_rank.TEST_ONLY_FAIL_ENV: "1:3"})


def test_no_pid_record_without_the_launchers_directory(tmp_path):
    assert mpi_job_rank.record_pid(0, "unit", {}) is None


def test_progress_is_replaced_atomically_and_drops_a_non_finite_loss(tmp_path):
    progress = mpi_job_rank.Progress(str(tmp_path), 2, 10)
    first = json.loads((tmp_path / "progress-rank2.json").read_text())
    assert (first["step"], first["loss"], first["status"]) == (0, None, "running")
    progress.update(4, float("nan"))
    assert json.loads((tmp_path / "progress-rank2.json").read_text())["loss"] is None
    progress.update(5, 1.5)
    progress.finish("non_finite_loss")
    last = json.loads((tmp_path / "progress-rank2.json").read_text())
    assert (last["step"], last["loss"], last["status"]) == (5, 1.5, "non_finite_loss")
    assert [p.name for p in tmp_path.iterdir()] == ["progress-rank2.json"]
