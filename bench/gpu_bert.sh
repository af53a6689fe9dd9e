#!/usr/bin/env bash
# pretrain_bert.py on one GPU, BERT-base at seq 128: the script's defaults (every lever off) against the tuned levers
# of this GPU's generation (plugins/module_utils/bert_levers.py, as bert_launch resolves them; then the same with
# torch.compile), printing MFU and useful MFU of each: gpu_check's bert part alone (through bench/gpu_check.sh: the
# trainer runs from the runtime wheel, installed, no PYTHONPATH).
#
#   bench/gpu_bert.sh [python] [steps] [batch]     e.g. bench/gpu_bert.sh /opt/scc-training/venv/bin/python 90 auto
#
# The report (per run: step time, MFU, useful MFU, host syncs per step) is gpu-bert.json. Not run by `make test`.
set -euo pipefail
PYTHON=${1:-python3}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
exec bash "$ROOT/bench/gpu_check.sh" "$PYTHON" --parts bert --bert-steps "${2:-90}" \
  --bert-batch "${3:-auto}" --report gpu-bert.json
