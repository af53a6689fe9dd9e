"""pretrain_bert.py's modules import each other, and mpi_job's rank modules (the scc.training.mpi_job role installs
them next to it on the nodes), as they do there."""

from tests.unit.bert.small_run import RUNTIME
from tests.unit.rank_scripts import importable_like_on_a_node

importable_like_on_a_node("tests/unit/bert", RUNTIME, needs=("torch", "transformers", "tokenizers"))
