import sys

import pytest

from tests.unit.bert.small_run import FILES, MPI_JOB_FILES

# pretrain_bert.py's modules import each other as they do next to it on a node.
sys.path.insert(0, str(FILES))
# mpi_job_rank.py, which the scc.training.mpi_job role installs next to pretrain_bert.py on the nodes.
sys.path.insert(0, str(MPI_JOB_FILES))

# These tests need the training stack; requirements-dev.txt pins it, so a venv without it is broken:
# fail here with one message rather than skip (a skipped test passes the build unseen).
_missing = []
for _name in ("torch", "transformers", "tokenizers"):
    try:
        __import__(_name)
    except ImportError as exc:
        _missing.append(f"{_name} ({exc})")
if _missing:
    raise pytest.UsageError(
        f"tests/unit/bert needs {', '.join(_missing)} in {sys.executable}: "
        "requirements-dev.txt pins them (make venv installs them)"
    )
