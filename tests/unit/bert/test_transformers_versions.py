"""pretrain_bert.py under both transformers majors: the pinned 4.57 (requirements-dev.txt, this venv) and 5.x
(transformers5-requirements.txt, installed once per checkout into the ignored .cache/ and put first on PYTHONPATH of a
subprocess). transformers 5 failed in its mask code on the [batch, 1, seq] mask 4.x takes (IndexError in
masking_utils' padding_mask_function); bert_model.encoder_attention_mask gives each major its own form."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.bert.small_run import RUNTIME, small_run
from tests.unit.rank_scripts import RANK_VARIABLES, free_port

ROOT = RUNTIME.parent
REQUIREMENTS = Path(__file__).with_name("transformers5-requirements.txt")
VERSION = next(
    line.split("==")[1].split()[0]
    for line in REQUIREMENTS.read_text().splitlines()
    if line.startswith("transformers==")
)


def _transformers5() -> Path:
    """The folder holding transformers 5 and its newer dependencies (installed on first use, hash-checked)."""
    target = ROOT / ".cache" / f"transformers5-{VERSION}"
    target.parent.mkdir(exist_ok=True)
    with open(target.parent / "transformers5.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (target / "transformers" / "__init__.py").is_file():
            staging = target.with_name(target.name + ".partial")
            subprocess.run(["rm", "-rf", str(staging)], check=True)
            pip = [
                sys.executable,
                "-m",
                "pip",
                "install",
                "-q",
                "--no-deps",
                "--require-hashes",
                "--target",
                str(staging),
            ]
            done = subprocess.run([*pip, "-r", str(REQUIREMENTS)], capture_output=True, text=True, check=False)
            assert done.returncode == 0, (
                f"installing {REQUIREMENTS.name} (PyPI must be reachable):\n{done.stderr[-2000:]}"
            )
            staging.rename(target)
    return target


def _env(pythonpath):
    env = {k: v for k, v in os.environ.items() if k not in RANK_VARIABLES}
    env.update(
        PYTHONPATH=os.pathsep.join(str(p) for p in pythonpath), MASTER_ADDR="127.0.0.1", TOKENIZERS_PARALLELISM="false"
    )
    return env


@pytest.mark.parametrize("major", [4, 5])
def test_pretrain_bert_trains_under_transformers(major, tmp_path):
    extra = [_transformers5()] if major == 5 else []
    env = _env([*extra, RUNTIME])
    check = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("mask_equivalence.py"))],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert check.returncode == 0, check.stdout + check.stderr[-3000:]
    assert check.stdout.startswith(f"transformers {major}."), check.stdout
    run = subprocess.run(
        [sys.executable, "-m", "scc_training_runtime.pretrain_bert", *small_run(tmp_path, 3), "--attention", "sdpa", "--master-port", str(free_port())],
        env=env, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["versions"]["transformers"].startswith(f"{major}.") and results["status"] == "ok"
    assert len(results["loss"]) == 3
