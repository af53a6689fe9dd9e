#!/usr/bin/env bash
# One GPU check of a node before a job (bench/gpu_check.py says what each part runs and how it is judged): one
# summary line per part, one JSON report. Needs only a Python with torch (no Ansible, no venv of ours); under
# 8 minutes on one H100/H200-class GPU.
#
#   bench/gpu_check.sh [python] [gpu_check.py options]   e.g. bench/gpu_check.sh /opt/scc-training/venv/bin/python
#
# nccl-tests is built from .cache/nccl-tests/ (make nccl-tests-source fetches nccl_check's pinned tarball on a
# machine that reaches GitHub; carry that folder to a machine that does not). Exit status: 0 no part failed, 1 one did.
set -euo pipefail
PYTHON=${1:-python3}
shift || true
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
exec "$PYTHON" "$ROOT/bench/gpu_check.py" --python "$PYTHON" "$@"
