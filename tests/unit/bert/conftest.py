import sys

from tests.unit.bert.small_run import FILES

# pretrain_bert.py's modules import each other as they do next to it on a node.
sys.path.insert(0, str(FILES))
