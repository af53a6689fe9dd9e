"""Probe torch's CUDA build on a GPU host (python_env's verify runs it with the venv's python).

Prints one JSON object and decides nothing: the plan torch_gpu_problems (lookup scc.training.role_plan) judges it
(unit-tested; this script needs a GPU, so it cannot run in the lab).

- torch, cuda: torch.__version__ and torch.version.cuda (the CUDA of the build, None on CPU builds);
- available: torch.cuda.is_available(); error: why not, when torch says;
- arch_list: torch.cuda.get_arch_list(), the sm_XY / compute_XY the build has kernels for;
- devices: per GPU its index, name and compute capability ("7.0"), and one size x size fp32
  matmul on it (TF32 off, so it is real fp32) against the CPU's float64 product of the same
  inputs: max_abs_error and max_abs_reference, or the error the GPU raised (for instance
  "no kernel image is available for execution on the device").
"""

from __future__ import annotations

import json
import sys


def probe(size: int = 512) -> dict:
    import torch

    report = {"torch": torch.__version__, "cuda": torch.version.cuda, "size": size, "arch_list": [], "devices": []}
    try:
        report["available"] = bool(torch.cuda.is_available())
    except Exception as exc:  # a broken driver raises instead of answering
        report["available"], report["error"] = False, str(exc)
    if not report["available"]:
        return report
    report["arch_list"] = list(torch.cuda.get_arch_list())
    torch.backends.cuda.matmul.allow_tf32 = False
    generator = torch.Generator().manual_seed(0)
    a = torch.randn(size, size, generator=generator)
    b = torch.randn(size, size, generator=generator)
    reference = a.double() @ b.double()
    for index in range(torch.cuda.device_count()):
        major, minor = torch.cuda.get_device_capability(index)
        device = {"index": index, "name": torch.cuda.get_device_name(index), "capability": "%d.%d" % (major, minor)}
        try:
            product = (a.to("cuda:%d" % index) @ b.to("cuda:%d" % index)).cpu().double()
            torch.cuda.synchronize(index)
            device["max_abs_error"] = float((product - reference).abs().max())
            device["max_abs_reference"] = float(reference.abs().max())
        except Exception as exc:  # a missing kernel image surfaces here
            device["error"] = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        report["devices"].append(device)
    return report


if __name__ == "__main__":
    print(json.dumps(probe(int(sys.argv[1]) if len(sys.argv) > 1 else 512)))
