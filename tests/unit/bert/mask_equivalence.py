"""Run as a script under one transformers (test_transformers_versions.py): BertModel's output for a padded batch
with bert_model.encoder_attention_mask's form of the mask equals its output with transformers' own 2-D mask, at the
real positions, for eager and SDPA attention. Prints the version and the largest difference; exit 1 on a mismatch."""

import sys

import torch
import transformers
from scc_training_runtime import bert_model

major = bert_model.transformers_major(transformers.__version__)
worst = 0.0
for attention in ("eager", "sdpa"):
    cfg = dict(bert_model.MODEL_SIZES["tiny"])
    model = bert_model.build_model(cfg, 1024, 1234, "cpu", attention).eval()
    ids = torch.randint(5, 1024, (3, 24), generator=torch.Generator().manual_seed(0))
    mask = torch.ones_like(ids)
    mask[0, 10:] = 0
    mask[2, 17:] = 0
    ids = ids * mask  # padding is token 0
    with torch.no_grad():
        ours = model.bert(input_ids=ids, attention_mask=bert_model.encoder_attention_mask(mask, major, attention))[0]
        theirs = model.bert(input_ids=ids, attention_mask=mask)[0]
    real = mask.bool()
    worst = max(worst, (ours[real] - theirs[real]).abs().max().item())
print(f"transformers {transformers.__version__}: largest difference {worst:.3g}")
sys.exit(0 if worst < 1e-5 else 1)
