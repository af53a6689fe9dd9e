"""train_resnet.py --data synthetic (bench/gpu_check.py's ResNet part on a machine without shards): a few steps of
ResNet-18 on the CPU in a process where tfrecord and Pillow cannot be imported (sys.modules entries of None, as on a
GPU machine that has neither), its results.json saying the data was synthetic; the synthetic batch is normalised as
decode() normalises a real image; the arguments of each mode checked."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import torch
from scc_training_runtime import resnet_data, train_resnet

from tests.unit.rank_scripts import RANK_VARIABLES, free_port
from tests.unit.resnet.shards import RUNTIME

STEPS = 4
# Runs train_resnet as its __main__ (`-c CODE -m MODULE args`, as `python -m` would) with the input packages of the
# shards made unimportable.
HIDDEN_INPUT_PACKAGES = (
    "import runpy, sys\n"
    "for name in ('tfrecord', 'PIL'):\n"
    "    sys.modules[name] = None  # import raises ImportError\n"
    "module = sys.argv[2]\n"
    "sys.argv = [module] + sys.argv[3:]\n"
    "runpy.run_module(module, run_name='__main__', alter_sys=True)\n"
)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("synthetic")
    argv = [
        "-m", "scc_training_runtime.train_resnet", "--data", "synthetic", "--output-dir", str(out), "--run-id", "synthetic",
        "--model", "resnet18", "--num-classes", "10", "--image-size", "32", "--batch-size", "4",
        "--steps", str(STEPS), "--warmup-steps", "1", "--threads", "1", "--device", "cpu", "--log-every", "2",
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k not in RANK_VARIABLES}
    env.update(
        PYTHONPATH=str(RUNTIME),
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(free_port()),
    )
    done = subprocess.run(
        [sys.executable, "-c", HIDDEN_INPUT_PACKAGES, *argv], capture_output=True, text=True, env=env, timeout=300,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return {"results": json.loads((out / "results.json").read_text()), "log": done.stdout + done.stderr}


def test_synthetic_steps_run_without_tfrecord_or_pillow_and_say_so(run):
    results = run["results"]
    assert (results["status"], results["steps_completed"], results["world_size"]) == ("ok", STEPS, 1)
    assert results["data"]["source"] == "synthetic" and "not real data" in results["data"]["note"]
    assert "data_dir" not in results["data"] and results["top1"] is None  # no shards, so no evaluation
    throughput = results["throughput"]
    assert throughput["measured_steps"] == STEPS - 1 and throughput["images_per_s"] > 0
    assert all(isinstance(loss, float) for loss in results["loss"])
    assert "data=synthetic" in run["log"]


def test_the_synthetic_batch_is_normalised_as_decode_normalises_a_real_image():
    images, labels = resnet_data.synthetic_batch(3, 8, 5, seed=7, device=torch.device("cpu"))
    assert images.shape == (3, 3, 8, 8) and images.dtype == torch.float32
    assert labels.dtype == torch.int64 and 0 <= int(labels.min()) and int(labels.max()) < 5
    # Undo ImageNet's mean and std: the pixels are whole multiples of 1/255 in [0, 1], as decode's are.
    mean, std = torch.tensor(resnet_data.MEAN).view(3, 1, 1), torch.tensor(resnet_data.STD).view(3, 1, 1)
    pixels = (images * std + mean) * 255
    assert torch.allclose(pixels, pixels.round(), atol=1e-3) and pixels.min() > -0.01 and pixels.max() < 255.01
    assert pixels.std() > 50  # random over 0..255, not a constant
    again, _labels = resnet_data.synthetic_batch(3, 8, 5, seed=7, device=torch.device("cpu"))
    assert torch.equal(images, again)  # the seed decides it


@pytest.mark.parametrize(
    "options,error",
    [
        ([], "--data-dir is required with --data tfrecord"),
        (["--data", "synthetic", "--data-dir", "/x"], "--data-dir applies to --data tfrecord only"),
    ],
)
def test_each_data_mode_checks_its_arguments(options, error, tmp_path):
    args = train_resnet.build_parser().parse_args(["--output-dir", str(tmp_path), *options])
    assert any(error in problem for problem in train_resnet.check_args(args)), train_resnet.check_args(args)


def test_synthetic_mode_needs_no_data_dir(tmp_path):
    args = train_resnet.build_parser().parse_args(["--output-dir", str(tmp_path), "--data", "synthetic"])
    assert train_resnet.check_args(args) == []
