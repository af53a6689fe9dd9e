"""python_env's files/torch_gpu_probe.py on this machine's torch (the CPU build: no GPU here).

It only reports; the scc.training.torch_gpu_problems filter decides (tests/unit/plugins/module_utils/
test_torch_build.py). Here: the report's shape, and that a CPU build says CUDA is not available
and runs no matmul. The GPU half (arch list, one matmul per GPU) needs a GPU.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import torch

PROBE = Path(__file__).resolve().parents[3] / "roles" / "python_env" / "files" / "torch_gpu_probe.py"


def load_probe():
    spec = importlib.util.spec_from_file_location("torch_gpu_probe", PROBE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_probe_reports_the_build_and_every_gpu():
    report = json.loads(json.dumps(load_probe().probe(64)))
    assert report["torch"] == torch.__version__ and report["cuda"] == torch.version.cuda
    assert report["size"] == 64 and report["available"] is torch.cuda.is_available()
    if not report["available"]:
        assert report["arch_list"] == [] and report["devices"] == []
        return
    assert report["arch_list"] == torch.cuda.get_arch_list()
    assert [d["index"] for d in report["devices"]] == list(range(torch.cuda.device_count()))
    for device in report["devices"]:
        assert "error" not in device, device
        assert device["max_abs_error"] <= 1e-3 * max(1.0, device["max_abs_reference"])
