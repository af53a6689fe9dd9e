"""One rank of test_pretrain_bert_ddp.py's job: `python ddp_rank.py WEIGHTS -- <pretrain_bert.py arguments>`.

It runs pretrain_bert.main unchanged (its rank from Open MPI's variables, which the test sets as
mpirun would) and saves to WEIGHTS the model's parameters as built and as trained, which main does
not return: bert_model.build_model is wrapped to keep the model it builds (DDP trains that very
module: its parameters are shared with the wrapper).
"""

from __future__ import annotations

import sys
from pathlib import Path

FILES = Path(__file__).resolve().parents[3] / "runtime" / "scc_training_runtime"


def main(argv: list[str]) -> int:
    weights, separator, *pretrain_argv = argv
    if separator != "--":
        raise SystemExit("usage: ddp_rank.py WEIGHTS -- <pretrain_bert.py arguments>")
    # The checkout's package, as an installed wheel would be importable.
    sys.path.insert(0, str(FILES.parent))
    import torch
    from scc_training_runtime import bert_model, pretrain_bert

    built = []
    build_model = bert_model.build_model

    def recording_build_model(*args, **kwargs):
        model = build_model(*args, **kwargs)
        built.append((model, {name: p.detach().clone() for name, p in model.named_parameters()}))
        return model

    bert_model.build_model = recording_build_model
    status = pretrain_bert.main(pretrain_argv)
    model, initial = built[0]
    final = {name: p.detach().clone() for name, p in model.named_parameters()}
    torch.save({"status": status, "initial": initial, "final": final}, weights)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
