"""scc.training's training runtime: what runs on the nodes (and in an MPIJob's image), one package.

Built as a wheel by ``runtime/build_wheel.py`` (``make runtime-wheel``), its version the collection's (galaxy.yml);
the python_env role installs it into the training venv from the wheelhouse, hash-checked like every other wheel.
Each program is a module run with ``python -m scc_training_runtime.<module>``:

    pretrain_bert   BERT pretraining (bert_data, bert_model, bert_train, bert_lamb, bert_results, bert_corpus)
    train_resnet    ResNet on ImageNet TFRecords (resnet_data, resnet_model, resnet_results)
    bert_prep       a text corpus to token shards, once (scc.training.bert_prep); shares bert_data's helpers
    render_report   the cluster report's HTML page (scc.training.cluster_report, on the controller)

and the mpi_job rank framework every training program uses: mpi_job_rank (pid record, progress file, secrets),
mpi_job_device (the rank's device) and mpi_job_framework (torch DDP or Horovod's API).
"""

from __future__ import annotations


def _version() -> str:
    # A built wheel carries _version.py (written by build_wheel.py from galaxy.yml); the collection's tree (a checkout,
    # or an installed collection running the report renderer from runtime/) reads galaxy.yml, else MANIFEST.json.
    try:
        from ._version import VERSION

        return VERSION
    except ImportError:
        import json
        import os
        import re

        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir)
        try:
            with open(os.path.join(root, "galaxy.yml"), encoding="utf-8") as handle:
                match = re.search(r"^version:\s*['\"]?([^'\"\s#]+)", handle.read(), re.M)
            if match:
                return match.group(1)
        except OSError:
            pass
        try:
            with open(os.path.join(root, "MANIFEST.json"), encoding="utf-8") as handle:
                return str(json.load(handle)["collection_info"]["version"])
        except (OSError, ValueError, KeyError):
            return "0+unknown"


__version__ = _version()
