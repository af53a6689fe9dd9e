"""results.json from the measured numbers (pure Python): images/s, the loss curve, top-1."""

import json
from argparse import Namespace
from types import SimpleNamespace

from scc_training_runtime import resnet_results

ARGS = Namespace(
    run_id="r1", framework="torch", model="resnet18", num_classes=4, image_size=32, batch_size=8, steps=4,
    warmup_steps=1, learning_rate=0.05,
)  # fmt: skip
RANKS = [{"rank": 1, "host": "node2"}, {"rank": 0, "host": "node1"}]


def results(status="ok", losses=(2.0, 1.5, 1.0, 0.5), elapsed=1.5, evaluation=None):
    return resnet_results.build_results(
        ARGS,
        rank_records=RANKS,
        framework=SimpleNamespace(backend="gloo", master="127.0.0.1:29500"),
        device=SimpleNamespace(kind="cpu", name="x86_64", precision="fp32"),
        model={"params": 11_178_564},
        outcome=SimpleNamespace(status=status, losses=list(losses), elapsed_s=elapsed),
        evaluation=evaluation,
        data={"train_shards": 4, "val_shards": 2},
        versions={"torch": "2.13.0"},
        times={"started_at": "a", "finished_at": "b"},
    )


def test_images_per_second_count_the_global_batch_over_the_measured_steps():
    got = results()
    # 2 ranks x 8 images, 3 steps after the warm-up in 1.5 s.
    assert got["global_batch"] == 16 and got["world_size"] == 2
    assert got["throughput"] == {
        "measured_steps": 3,
        "elapsed_s": 1.5,
        "step_time_s": 0.5,
        "images_per_s": 32.0,
        "images_per_s_per_rank": 16.0,
    }
    assert [h["host"] for h in got["hosts"]] == ["node1", "node2"]


def test_the_loss_curve_and_its_ends():
    got = results(losses=(2.0, float("nan")))
    assert got["loss"] == [2.0, None] and got["loss_first"] == 2.0 and got["loss_last"] is None


def test_top1_is_the_summed_correct_over_the_summed_images():
    got = results(evaluation={"correct": 6.0, "images": 8.0, "loss_sum": 4.0})
    assert got["top1"] == {"correct": 6, "images": 8, "accuracy": 0.75, "loss": 0.5}
    assert results()["top1"] is None
    assert resnet_results.top1(0, 0, 0.0) == {"correct": 0, "images": 0, "accuracy": None, "loss": None}


def test_a_failed_or_untimed_run_reports_no_throughput():
    for got in (results(status="non_finite_loss"), results(elapsed=None), results(losses=(2.0,))):
        assert got["throughput"]["images_per_s"] is None and got["throughput"]["measured_steps"] == 0


def test_the_results_file_is_strict_json(tmp_path):
    path = resnet_results.write_results(str(tmp_path / "out"), results())
    assert json.loads(open(path).read())["model"] == {"name": "resnet18", "num_classes": 4, "params": 11_178_564}
