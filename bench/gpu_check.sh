#!/usr/bin/env bash
# One GPU check of a node before a job (bench/gpu_check.py says what each part runs and how it is judged): one
# summary line per part, one JSON report. Needs only a Python with torch (no Ansible, no venv of ours); under
# 8 minutes on one H100/H200-class GPU.
#
#   bench/gpu_check.sh [python] [gpu_check.py options]   e.g. bench/gpu_check.sh /opt/scc-training/venv/bin/python
#
# The trainers run from the runtime wheel, installed, with no PYTHONPATH: the wheel is built from this checkout
# (runtime/build_wheel.py, the same bytes from the same tree) and installed with no index and no dependencies into a
# venv of its own, .cache/gpu-check/venv-<hash of the python's path>, that sees the given Python's packages (torch,
# transformers: --system-site-packages, and a .pth naming that Python's site directories when it is itself a venv).
# Nothing is downloaded and the given Python is left as it is; a wheel of new bytes is installed again.
#
# nccl-tests is built from .cache/nccl-tests/ (make nccl-tests-source fetches nccl_check's pinned tarball on a
# machine that reaches GitHub; carry that folder to a machine that does not). Exit status: 0 no part failed, 1 one did.
set -euo pipefail
PYTHON=${1:-python3}
shift || true
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BASE=$(command -v "$PYTHON") || { echo "gpu_check.sh: no Python at $PYTHON" >&2; exit 2; }
BASE="$(cd "$(dirname "$BASE")" && pwd)/$(basename "$BASE")"  # absolute, links kept (a venv's python is one)
CACHE="$ROOT/.cache/gpu-check"
mkdir -p "$CACHE"
VENV="$CACHE/venv-$(printf '%s' "$BASE" | sha256sum | cut -c1-12)"

# One setup at a time (parallel checks of one checkout share the venv).
exec 9>"$VENV.lock"
flock 9
wheel_json=$("$BASE" "$ROOT/runtime/build_wheel.py" --out "$CACHE/wheel")
wheel=$("$BASE" -c 'import json, sys; print(json.loads(sys.argv[1])["path"])' "$wheel_json")
sha256=$("$BASE" -c 'import json, sys; print(json.loads(sys.argv[1])["sha256"])' "$wheel_json")
if [[ ! -x "$VENV/bin/python" ]]; then
  "$BASE" -m venv --system-site-packages --without-pip "$VENV"
  # The given Python's own site directories (a venv's are not its base's system site): on the new venv's path too.
  purelib=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  "$BASE" -c 'import site, sys; print("\n".join(p for p in sys.path if p.endswith(("site-packages", "dist-packages"))))' \
    >"$purelib/scc-gpu-check-base.pth"
fi
if [[ "$(cat "$VENV/runtime.sha256" 2>/dev/null || true)" != "$sha256" ]]; then
  rm -f "$VENV/runtime.sha256"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-index --no-deps --force-reinstall \
    "$wheel"
  echo "$sha256" >"$VENV/runtime.sha256"
fi
flock -u 9
exec "$VENV/bin/python" "$ROOT/bench/gpu_check.py" --python "$VENV/bin/python" "$@"
