"""pretrain_bert.py's data parallelism, for real: a job of 2 ranks (two processes, as mpirun starts
them: Open MPI's rank variables, a rendezvous on 127.0.0.1) runs the script's own training loop,
--framework torch (DistributedDataParallel over gloo on the CPU), tiny model, a few steps.

Each test catches one way of training wrong. Both mutations of issue 14 were applied to
runtime/scc_training_runtime/pretrain_bert.py by hand (not committed) and each made this file fail:

- test_a: both ranks hold bit-identical weights after the last step. Catches the loss of DDP
  (`net = model` instead of `framework.wrap_model(...)`): each rank steps on the gradients of its
  own slice of the batch and all 46 parameters part (test_b and test_c still pass: each rank learns).
- test_b: the weights are no longer those the model was built with. Catches a learning rate of 0
  (`lr = 0.0`): 0 of 46 parameters move, while test_a still passes (nothing moves on either rank).
- test_c: the loss (rank 0's results.json, averaged over the ranks) falls 10% from the first 2
  steps to the last 2. Catches the learning rate of 0 too (the loss stays at ~7.6 and wanders
  with each step's batch), and any change that moves the weights without learning.
- test_d: rank 0's reported loss of the last step is the mean of the ranks' own (their progress files).
  Catches the loss summed over the ranks instead of averaged (issue 27), which test_c does not see.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import torch

from tests.unit.bert.small_run import small_run
from tests.unit.rank_scripts import run_ranks

RANK_SCRIPT = Path(__file__).with_name("ddp_rank.py")
WORLD = 2
STEPS = 8


# The levers that act on CPUs, all on: the same global batch (2 x 2 micro-batches x 2 ranks) through
# no_sync accumulation, DDP's fp16 compression hook and bucket views (static_graph refuses no_sync),
# the masked-row head, SDPA and the DataLoader over pre-tokenised shards.
LEVERS = (
    "--batch-size", "2", "--grad-accum", "2", "--ddp-compression", "fp16", "--ddp-grad-as-bucket-view",
    "--ddp-bucket-mb", "1", "--mlm-head", "masked", "--attention", "sdpa",
    "--vocab-multiple", "64", "--data", "shards", "--loader-workers", "1",
)  # fmt: skip


def run_job(tmp_path, levers=("--batch-size", "4")):
    """The 2-rank job: per rank {status, initial, final} (parameter name -> tensor), and rank 0's results."""
    # 5x the tiny size's learning rate: in 8 steps the loss then falls ~25%, far beyond the batches' noise.
    argv = small_run(tmp_path, STEPS, *levers, "--learning-rate", "5e-3", "--device", "cpu")
    if "shards" in levers:
        argv += ["--data-dir", str(tmp_path / "shards")]
    run_ranks(lambda rank: [sys.executable, str(RANK_SCRIPT), str(tmp_path / f"rank{rank}.pt"), "--", *argv], WORLD)
    ranks = [torch.load(tmp_path / f"rank{rank}.pt") for rank in range(WORLD)]
    progress = [json.loads((tmp_path / f"progress-rank{rank}.json").read_text()) for rank in range(WORLD)]
    return {"ranks": ranks, "results": json.loads((tmp_path / "results.json").read_text()), "progress": progress}


@pytest.fixture(scope="module", params=["plain", "levers"])
def job(request, tmp_path_factory):
    return run_job(tmp_path_factory.mktemp("ddp"), LEVERS if request.param == "levers" else ("--batch-size", "4"))


def test_the_job_ran_on_two_ranks_over_gloo(job):
    results = job["results"]
    assert results["status"] == "ok" and results["world_size"] == WORLD and results["backend"] == "gloo"
    assert [rank["status"] for rank in job["ranks"]] == [0] * WORLD
    assert all(rank["final"].keys() == rank["initial"].keys() for rank in job["ranks"])


def test_a_both_ranks_hold_identical_weights(job):
    rank0, rank1 = (rank["final"] for rank in job["ranks"])
    parted = [name for name in rank0 if not torch.equal(rank0[name], rank1[name])]
    assert not parted, f"{len(parted)} of {len(rank0)} parameters differ between the ranks, e.g. {parted[:3]}"


def test_b_the_weights_moved(job):
    initial, final = job["ranks"][0]["initial"], job["ranks"][0]["final"]
    moved = [name for name in final if not torch.equal(final[name], initial[name])]
    assert len(moved) > len(final) // 2, f"only {len(moved)} of {len(final)} parameters moved"


def test_d_the_reported_loss_is_the_ranks_mean(job):
    # Each rank's progress file ends with its own loss of the last step; results.json reports their mean.
    own = [p["loss"] for p in job["progress"] if p["step"] == STEPS]
    assert len(own) == WORLD and own[0] != own[1], job["progress"]
    assert job["results"]["loss"][-1] == pytest.approx(sum(own) / WORLD, rel=1e-4)


def test_c_the_loss_drops(job):
    loss = job["results"]["loss"]
    assert len(loss) == STEPS
    first, last = sum(loss[:2]) / 2, sum(loss[-2:]) / 2
    assert last < 0.9 * first, f"the loss did not fall 10% from the first 2 steps to the last 2: {loss}"
