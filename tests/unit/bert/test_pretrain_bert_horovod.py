"""pretrain_bert.py's Horovod-API path (--framework horovod and aiacc), on CPUs, 2 processes.

Horovod and AIACC cannot be installed here (Horovod builds against torch and MPI/NCCL; AIACC
has no public wheel), so the ranks import the STAND-IN under tests/unit/bert/horovod_standin:
horovod.torch's API subset over torch.distributed gloo, and perseus.torch.horovod re-exporting
it. This proves the script's use of the API (init, DistributedOptimizer with
named_parameters, the broadcasts from rank 0, synchronize/skip_synchronize, allreduce of the
metrics, identical ranks after every step, the results schema), not Horovod or AIACC.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest
import torch.distributed

HERE = Path(__file__).resolve().parent
STANDIN = HERE / "horovod_standin"
STEPS = 4

from scc_training_runtime import bert_data, bert_model
from scc_training_runtime import pretrain_bert as pb

from tests.unit.bert.small_run import FILES, RUNTIME, run_alone, small_run
from tests.unit.rank_scripts import run_ranks


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory):
    """The first 60 documents of the shipped corpus: enough to train, cheaper to tokenise."""
    docs = bert_data.read_documents(str(FILES / "corpus.txt"))[:60]
    path = tmp_path_factory.mktemp("corpus") / "corpus.txt"
    path.write_text("\n\n".join("\n".join(d) for d in docs) + "\n", encoding="utf-8")
    return path


def _run_two_ranks(framework, out_dir, corpus, vocab):
    log = out_dir / "standin.log"
    # The ranks' rendezvous, served here until both have exited (see the stand-in's docstring).
    store = torch.distributed.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False)
    env = {
        "PYTHONPATH": os.pathsep.join([str(STANDIN), str(RUNTIME)]),
        "SCC_HVD_STANDIN_STORE_PORT": str(store.port),
        "SCC_HVD_STANDIN_LOG": str(log),
        "OMP_NUM_THREADS": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    command = [sys.executable, "-m", "scc_training_runtime.pretrain_bert", "--framework", framework]
    command += small_run(out_dir, STEPS, "--log-every", "2", "--run-id", framework)
    run_ranks(command + ["--corpus", str(corpus), "--vocab", str(vocab)], 2, env=env, timeout=240, rendezvous=False)
    events = [[json.loads(line) for line in Path(f"{log}.{rank}").read_text().splitlines()] for rank in range(2)]
    return json.loads((out_dir / "results.json").read_text()), events


@pytest.fixture(scope="module")
def torch_run(tmp_path_factory, small_corpus):
    """The results schema of a one-process torch (DDP) run, and the vocabulary it trained."""
    tmp = tmp_path_factory.mktemp("torch")
    rc = run_alone(small_run(tmp, 2, "--corpus", str(small_corpus)))
    assert rc == pb.EXIT_OK
    results = json.loads((tmp / "results.json").read_text())
    assert results["framework"] == "torch" and results["backend"] == "gloo"
    keys = set(results), set(results["throughput"]), set(results["flops"])
    return keys, tmp / "vocab.txt"


@pytest.mark.parametrize(
    "framework, module",
    [
        ("horovod", "horovod.torch"),
        ("aiacc", "perseus.torch.horovod"),
    ],
)
def test_horovod_api_path_two_ranks(framework, module, tmp_path, torch_run, small_corpus):
    torch_keys, vocab = torch_run
    results, events = _run_two_ranks(framework, tmp_path, small_corpus, vocab)

    # The same results schema as the torch path, with this framework's names.
    assert (set(results), set(results["throughput"]), set(results["flops"])) == torch_keys
    assert results["status"] == "ok" and results["run_id"] == framework
    assert (results["framework"], results["backend"]) == (framework, framework)
    assert results["world_size"] == 2 and results["global_batch"] == 4
    assert results["hosts"][0]["ranks"] == [0, 1]
    assert results["steps_completed"] == STEPS
    assert all(v is not None and v > 0 for v in results["loss"])
    assert results["master"] is None  # Horovod does its own rendezvous

    params = results["model"]["params"]
    n_tensors = len(
        list(
            __import__("transformers")
            .BertForPreTraining(bert_model.bert_config(bert_model.model_config("tiny"), results["model"]["vocab_size"]))
            .parameters()
        )
    )
    for rank, log in enumerate(events):
        kinds = [e["event"] for e in log]
        # The module asked for, initialised once, before any collective.
        assert kinds[0] == "init" and log[0]["module"] == module and log[0]["size"] == 2
        assert kinds.count("init") == 1 and kinds[-1] == "shutdown"
        # The process group freed by shutdown(): no gloo thread left to race the interpreter's exit.
        assert log[-1]["gloo_threads"] == 0
        # The optimizer wrapped with every parameter named, then rank 0's state broadcast,
        # both before the first step.
        wrap = next(e for e in log if e["event"] == "DistributedOptimizer")
        assert wrap["optimizer"] == "AdamW"
        assert wrap["named_parameters"] == wrap["params"] == n_tensors
        first_step = kinds.index("step")
        for needed in ("DistributedOptimizer", "broadcast_parameters", "broadcast_optimizer_state"):
            assert needed in kinds[:first_step], f"rank {rank}: no {needed} before the first step"
        assert next(e for e in log if e["event"] == "broadcast_parameters")["root_rank"] == 0
        assert next(e for e in log if e["event"] == "broadcast_optimizer_state")["tensors"] > 0
        # One gradient allreduce per step, never a second one inside step().
        assert kinds.count("step") == kinds.count("synchronize") == STEPS
        assert "step_after_synchronize_without_skip" not in kinds
        # The loss metrics are summed across ranks with hvd.allreduce.
        assert any(e["event"] == "allreduce" and e["name"] == "metrics" and e["op"] == "Sum" for e in log)
    assert params > 0
    # Averaged gradients from rank 0's start: both ranks hold the same weights after every step.
    checksums = [[e["checksum"] for e in log if e["event"] == "step"] for log in events]
    assert checksums[0] == pytest.approx(checksums[1], rel=1e-12, abs=1e-9)
    assert len(set(checksums[0])) == STEPS  # and the weights did change every step


@pytest.mark.parametrize("framework, module", [("horovod", "horovod.torch"), ("acspeed", "acspeed")])
def test_missing_framework_module_exits_2_naming_it(framework, module, tmp_path, capsys, monkeypatch):
    if importlib.util.find_spec(module.split(".")[0]) is not None:
        pytest.skip(f"a {module} module is importable here")
    monkeypatch.delenv("OMPI_COMM_WORLD_RANK", raising=False)
    rc = pb.main(["--framework", framework, "--output-dir", str(tmp_path)])
    assert rc == pb.EXIT_USAGE
    assert f"--framework {framework} needs the module {module}" in capsys.readouterr().err


def test_backend_applies_to_torch_only():
    args = pb.build_parser().parse_args(["--output-dir", "x", "--framework", "aiacc", "--backend", "nccl"])
    assert any("--backend applies to --framework torch only" in e for e in pb.check_args(args))
    args = pb.build_parser().parse_args(["--output-dir", "x", "--framework", "aiacc"])
    assert pb.check_args(args) == []
