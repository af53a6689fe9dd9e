#!/usr/bin/env bash
# pretrain_bert.py on one GPU, BERT-base at seq 128: the script's defaults (every lever off) against
# the tuned levers of this GPU's generation (plugins/module_utils/bert_levers.py, as bert_launch
# resolves them; then the same with torch.compile), printing MFU, useful MFU and host syncs per step of each.
# Under 8 minutes on one H100/H200-class GPU (the compile of the tuned run is most of it).
#
#   bench/gpu_bert.sh [python] [steps] [batch]     e.g. bench/gpu_bert.sh /opt/scc-training/venv/bin/python
#
# Issue 13's goal on one H200: MFU >= 0.45 tuned. Not run by `make test` (no GPU there).
set -euo pipefail

PYTHON=${1:-python3}
STEPS=${2:-120}
BATCH=${3:-128}
WARMUP=40
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FILES="$ROOT/roles/bert_launch/files"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu-bert.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

CC=$("$PYTHON" -c 'import torch; print("%d.%d" % torch.cuda.get_device_capability())')
# The tuned levers: what bert_launch passes for this generation (the module has no Ansible import).
mapfile -t TUNED < <("$PYTHON" - "$ROOT/plugins/module_utils/bert_levers.py" "$CC" <<'EOF'
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("bert_levers", sys.argv[1])
levers = importlib.util.module_from_spec(spec)
spec.loader.exec_module(levers)
print("\n".join(levers.lever_argv(levers.bert_levers({"compute_capability": sys.argv[2]}))))
EOF
)
echo "gpu: $("$PYTHON" -c 'import torch; print(torch.cuda.get_device_name())') (compute capability $CC)"
echo "tuned levers: ${TUNED[*]}"

run() {
  local name=$1
  shift
  local out="$WORK/$name"
  MASTER_ADDR=127.0.0.1 MASTER_PORT=$((29600 + RANDOM % 1000)) TOKENIZERS_PARALLELISM=false \
    timeout 300 "$PYTHON" "$FILES/pretrain_bert.py" --output-dir "$out" --model-size base --seq-len 128 \
    --batch-size "$BATCH" --steps "$STEPS" --warmup-steps "$WARMUP" --device cuda \
    --log-every 1000 "$@" >"$WORK/$name.log" 2>&1 || {
    tail -20 "$WORK/$name.log"
    return 1
  }
  "$PYTHON" - "$out/results.json" "$name" <<'EOF'
import json
import sys

r = json.load(open(sys.argv[1]))
t, f = r["throughput"], r["flops"]
fmt = lambda v, spec: "n/a" if v is None else format(v, spec)
print(
    f"{sys.argv[2]:8s} step {fmt(t['step_time_s'] and t['step_time_s'] * 1000, '.1f')} ms  "
    f"tokens/s {fmt(t['tokens_per_s'], '.0f')}  real tokens/s {fmt(t['real_tokens_per_s'], '.0f')}  "
    f"MFU {fmt(f['mfu'], '.3f')}  useful MFU {fmt(f['useful_mfu'], '.3f')}  "
    f"syncs/step {fmt(t['host_syncs_per_step'], '.2f')}  precision {r['precision']}"
)
EOF
}

# The sync counter patches torch.Tensor's methods: kept out of the compiled run, whose tracing it would disturb.
run defaults --data-dir "$WORK/shards" --count-syncs
run tuned --data-dir "$WORK/shards" --count-syncs "${TUNED[@]}"
run compiled --data-dir "$WORK/shards" "${TUNED[@]}" --compile
