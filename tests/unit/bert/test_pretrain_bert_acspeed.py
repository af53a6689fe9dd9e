"""pretrain_bert.py's --framework acspeed: torch's DistributedDataParallel with Alibaba's ACSpeed
plug-in, imported right after torch (`import torch; import acspeed`, Alibaba's install guide).

ACSpeed is not installable here (an sdist from Alibaba's bucket, for CUDA), so a STAND-IN module
written by the test records what the script did with it. This proves the adapter (the import, its
order, DDP underneath, the refusal without CUDA; without the module: test_pretrain_bert_horovod.py), not ACSpeed.
"""

from __future__ import annotations

import sys

import pytest
from scc_training_runtime import mpi_job_device, mpi_job_framework
from scc_training_runtime import pretrain_bert as pb

STANDIN = '''"""STAND-IN for ACSpeed, written by tests/unit/bert/test_pretrain_bert_acspeed.py: not ACSpeed."""
import sys
TORCH_IMPORTED_FIRST = "torch" in sys.modules
'''


@pytest.fixture
def acspeed_standin(tmp_path, monkeypatch):
    (tmp_path / "acspeed.py").write_text(STANDIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("acspeed", None)
    yield
    sys.modules.pop("acspeed", None)


def test_acspeed_is_torch_ddp_with_the_plugin_imported_after_torch(acspeed_standin):
    framework = mpi_job_framework.open_framework("acspeed", {"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2"})
    assert isinstance(framework, mpi_job_framework.TorchDDP) and framework.name == "acspeed"
    assert framework.plugin.TORCH_IMPORTED_FIRST is True
    assert (framework.rank, framework.world_size, framework.pin_local_rank) == (1, 2, False)
    # DDP underneath: the optimizer is left to DDP, the model is wrapped by connect's process group
    assert framework.distribute(object(), "optimizer") == "optimizer"


def test_acspeed_needs_cuda(acspeed_standin):
    framework = mpi_job_framework.open_framework("acspeed", {})
    with pytest.raises(mpi_job_device.UsageError, match="--framework acspeed needs CUDA devices"):
        framework.connect(pb.build_parser().parse_args(["--output-dir", "x"]), use_cuda=False)


def test_acspeed_on_cpus_exits_2(acspeed_standin, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OMPI_COMM_WORLD_RANK", raising=False)
    rc = pb.main(["--framework", "acspeed", "--device", "cpu", "--output-dir", str(tmp_path)])
    assert rc == pb.EXIT_USAGE
    assert "needs CUDA devices" in capsys.readouterr().err


def test_acspeed_takes_no_backend():
    args = pb.build_parser().parse_args(["--output-dir", "x", "--framework", "acspeed", "--backend", "gloo"])
    assert any("--backend applies to --framework torch only" in e for e in pb.check_args(args))
    assert pb.check_args(pb.build_parser().parse_args(["--output-dir", "x", "--framework", "acspeed"])) == []
