"""The levers of pretrain_bert.py that act on CPUs, each on and off, in one run (make bench-train).

Every case is a job of 2 ranks on this machine's CPUs (the lab's: its hosts are namespaces here),
started as mpirun starts them (Open MPI's rank variables, a rendezvous on 127.0.0.1), DDP over
gloo, one thread per rank, the tiny model at seq 128, the same vocabulary for every case. It prints
each case's step time, then the ratio on/off of each lever:

- masked_head: --mlm-head masked vs full (the decoder on the predicted rows only);
- shards:      --data shards (pre-tokenised, a DataLoader) vs inline (indexed in the loop); the
               start-up time, where tokenising happens, is printed beside it;
- grad_accum:  2 micro-batches of 8 with DDP's no_sync vs 2 steps of 8, per sequence (one
               all-reduce instead of two for the same sequences).

A ratio below 1 means the lever makes the step faster. The last line sums them up. The machine's
cores are shared: repeat a run before reading much into a few percent.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The runtime package from this checkout (its directory on PYTHONPATH: a node has the wheel in its venv instead).
RUNTIME = ROOT / "runtime"
WORLD = 2


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def run_job(out: Path, steps: int, warmup: int, *options: str) -> dict:
    """A 2-rank run of pretrain_bert.py; its results plus the wall seconds of the whole job."""
    argv = [
        sys.executable, "-m", "scc_training_runtime.pretrain_bert", "--output-dir", str(out), "--model-size", "tiny",
        "--seq-len", "128", "--steps", str(steps), "--warmup-steps", str(warmup), "--threads", "1",
        "--device", "cpu", "--log-every", "1000", *options,
    ]  # fmt: skip
    port = str(free_port())
    env_base = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "RANK", "WORLD_SIZE", "MASTER_"))}
    env_base["PYTHONPATH"] = str(RUNTIME)
    started = time.perf_counter()
    processes = []
    for rank in range(WORLD):
        env = dict(
            env_base,
            OMPI_COMM_WORLD_RANK=str(rank),
            OMPI_COMM_WORLD_SIZE=str(WORLD),
            OMPI_COMM_WORLD_LOCAL_RANK=str(rank),
            OMPI_COMM_WORLD_LOCAL_SIZE=str(WORLD),
            MASTER_ADDR="127.0.0.1",
            MASTER_PORT=port,
            OMP_NUM_THREADS="1",
        )
        processes.append(subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
    outputs = [p.communicate(timeout=900)[0].decode(errors="replace") for p in processes]
    for rank, process in enumerate(processes):
        if process.returncode != 0:
            raise SystemExit(f"rank {rank} exited {process.returncode}:\n{outputs[rank][-3000:]}")
    results = json.loads((out / "results.json").read_text())
    results["wall_s"] = time.perf_counter() - started
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--steps", type=int, default=25)
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-train-") as tmp:
        work = Path(tmp)
        # One vocabulary for every case (WordPiece training breaks ties differently from run to run).
        run_job(work / "vocab", 2, 1, "--batch-size", "2")
        common = ["--vocab", str(work / "vocab" / "vocab.txt"), "--batch-size", "8"]
        shards = ["--data", "shards", "--data-dir", str(work / "shards"), "--loader-workers", "0"]
        run_job(work / "build-shards", 2, 1, *common, *shards)  # the shards, built once before the timed cases
        # plain is every lever off: full head, inline data, no accumulation.
        cases = {
            "plain": [],
            "masked_head": ["--mlm-head", "masked"],
            "shards": shards,
            "grad_accum": ["--grad-accum", "2"],
        }
        step = {}
        for name, options in cases.items():
            results = run_job(work / name, args.steps, args.warmup, *common, *options)
            step[name] = results["throughput"]["step_time_s"]
            print(
                f"{name:12s} step {step[name] * 1000:8.1f} ms  global batch {results['global_batch']:3d}  "
                f"job wall {results['wall_s']:6.1f} s  real tokens/s {results['throughput']['real_tokens_per_s']:.0f}",
                flush=True,
            )
    ratios = {
        "masked_head": step["masked_head"] / step["plain"],
        "shards": step["shards"] / step["plain"],
        # Per sequence: one accumulated step holds the sequences of two plain ones.
        "grad_accum": step["grad_accum"] / (2 * step["plain"]),
    }
    print("bench-train: step-time ratio on/off: " + "; ".join(f"{k} {v:.2f}" for k, v in ratios.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
