"""train_resnet.py's modules import each other (and mpi_job's shared rank modules) as they do next to it on a
node. Run in its own process, as tests/unit/bert (torch refuses ansible's sys.intern patch)."""

from tests.unit.rank_scripts import importable_like_on_a_node
from tests.unit.resnet.shards import RUNTIME

importable_like_on_a_node("tests/unit/resnet", RUNTIME, needs=("torch", "PIL", "tfrecord"))
