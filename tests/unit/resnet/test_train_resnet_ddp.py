"""train_resnet.py for real: a job of 2 ranks (two processes with Open MPI's rank variables, as mpirun
starts them; DistributedDataParallel over gloo on the CPU, 127.0.0.1), ResNet-18 at 32x32 on TFRecord
shards written by the tfrecord package, 8 steps: the loss falls, both ranks took part, images/s and top-1
on the val shards are in rank 0's results.json, and each rank's progress file says ok."""

from __future__ import annotations

import json
import sys

import pytest

from tests.unit.rank_scripts import run_ranks
from tests.unit.resnet.shards import RUNTIME, write_shards

WORLD = 2
STEPS = 8


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    data, out = tmp_path_factory.mktemp("shards"), tmp_path_factory.mktemp("run")
    write_shards(data, "train", 4, 8)
    write_shards(data, "val", 2, 4)
    argv = [
        "-m", "scc_training_runtime.train_resnet", "--data-dir", str(data), "--output-dir", str(out), "--run-id", "unit",
        "--model", "resnet18", "--num-classes", "4", "--image-size", "32", "--batch-size", "8",
        "--steps", str(STEPS), "--warmup-steps", "2", "--learning-rate", "0.05", "--lr-warmup-steps", "1",
        "--threads", "1", "--device", "cpu", "--log-every", "4",
    ]  # fmt: skip
    env = {"PYTHONPATH": str(RUNTIME)}
    outputs = run_ranks([sys.executable, *argv], WORLD, env=env)
    return {"results": json.loads((out / "results.json").read_text()), "out": out, "log": outputs[0]}


def test_two_ranks_trained_over_gloo_and_the_loss_fell(job):
    results = job["results"]
    assert (results["status"], results["world_size"], results["backend"]) == ("ok", 2, "gloo")
    assert results["steps_completed"] == STEPS and len(results["loss"]) == STEPS
    assert results["model"] == {"name": "resnet18", "num_classes": 4, "params": 11_178_564}
    # Mean of the last two steps at least 20% under the first two (one colour per class: easy to learn).
    assert sum(results["loss"][-2:]) < 0.8 * sum(results["loss"][:2]), results["loss"]
    assert "[train_resnet] step 8/8" in job["log"]


def test_images_per_second_and_top1_on_the_val_shards_are_reported(job):
    results = job["results"]
    assert results["throughput"]["measured_steps"] == STEPS - 2 and results["throughput"]["images_per_s"] > 0
    # The 8 val images (2 shards, one per rank), every one counted once over the ranks.
    assert results["top1"]["images"] == 8 and 0.0 <= results["top1"]["accuracy"] <= 1.0
    data_dir = results["data"]["data_dir"]
    assert results["data"] == {"source": "tfrecord", "data_dir": data_dir, "train_shards": 4, "val_shards": 2}


def test_every_rank_recorded_its_progress(job):
    for rank in range(WORLD):
        progress = json.loads((job["out"] / f"progress-rank{rank}.json").read_text())
        assert (progress["status"], progress["step"]) == ("ok", STEPS)
