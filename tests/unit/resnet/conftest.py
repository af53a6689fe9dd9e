"""train_resnet.py's modules import each other (and mpi_job's shared rank modules) as they do next to it on a
node. Run in its own process, as tests/unit/bert (torch refuses ansible's sys.intern patch)."""

import sys

import pytest

from tests.unit.resnet.shards import FILES, MPI_JOB_FILES

sys.path.insert(0, str(FILES))
sys.path.insert(0, str(MPI_JOB_FILES))

# The trainer needs torch, Pillow and tfrecord; requirements-dev.txt pins them: fail rather than skip.
_missing = []
for _name in ("torch", "PIL", "tfrecord"):
    try:
        __import__(_name)
    except ImportError as exc:
        _missing.append(f"{_name} ({exc})")
if _missing:
    raise pytest.UsageError(f"tests/unit/resnet needs {', '.join(_missing)} in {sys.executable} (requirements-dev.txt)")
