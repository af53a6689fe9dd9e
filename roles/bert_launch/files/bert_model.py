"""The model of pretrain_bert.py: BERT's size table, transformers' BertForPreTraining, and the
counts the results report (parameters, model FLOPs per step, the peak FLOP/s of a device).

Model FLOPs per step (the count of `model_flops`, for one optimizer step over the global batch):

    tokens   = global_batch * seq_len                 (padded tokens: the model computes on them)
    N_matmul = L * (4*H*H + 2*H*I)                    (attention projections + feed-forward)
             + H*H + H*V                              (MLM head transform + decoder, all tokens)
    per token, forward+backward = 6 * N_matmul        (2 FLOPs per multiply-add, backward = 2x)
             + 12 * L * S * H                         (QK^T and attention*V: 2*2*S*H fwd, x3)
    per sequence = 6 * (H*H + 2*H)                    (pooler + NSP classifier on [CLS])
    model_flops = tokens * per_token + global_batch * per_sequence

This is the "6 * parameters * tokens plus attention" estimate of Kaplan et al. (2020) and PaLM
(Chowdhery et al. 2022, appendix B), counting only the parameters that take part in a matrix
multiply (embedding lookups, biases and LayerNorms excluded). It counts model FLOPs, not
hardware FLOPs: no recomputation, no optimizer step. MFU = model_flops * steps/s divided by
(world_size * peak FLOPs of one device at the precision used).

Only bert_config and build_model need transformers and torch, and import them when called.
"""

from __future__ import annotations

from typing import Any, Mapping

# Model sizes. tiny is the lab's (CPU) size; base and large are BERT's (Devlin et al. 2019).
# learning_rate is the default used when --learning-rate is not given.
MODEL_SIZES: dict[str, dict[str, Any]] = {
    "tiny": {
        "num_layers": 2,
        "hidden_size": 128,
        "num_heads": 2,
        "intermediate_size": 512,
        "vocab_size": 1024,
        "learning_rate": 1e-3,
    },
    "base": {
        "num_layers": 12,
        "hidden_size": 768,
        "num_heads": 12,
        "intermediate_size": 3072,
        "vocab_size": 30522,
        "learning_rate": 1e-4,
    },
    "large": {
        "num_layers": 24,
        "hidden_size": 1024,
        "num_heads": 16,
        "intermediate_size": 4096,
        "vocab_size": 30522,
        "learning_rate": 1e-4,
    },
}
MAX_POSITION_EMBEDDINGS = 512

# Dense peak FLOP/s of one device (vendor data sheets, SXM parts, no sparsity), by a substring
# of torch.cuda.get_device_name() and the autocast precision. Anything else: MFU is null.
PEAK_FLOPS: dict[str, dict[str, float]] = {
    "V100": {"fp16": 125e12},
    "A100": {"bf16": 312e12, "fp16": 312e12},
    "H100": {"bf16": 989e12, "fp16": 989e12},
    "H200": {"bf16": 989e12, "fp16": 989e12},
}


def model_config(size: str, overrides: Any = None) -> dict[str, Any]:
    """The size table's entry for `size`, with non-None attributes of `overrides` applied."""
    if size not in MODEL_SIZES:
        raise ValueError(f"--model-size must be one of {sorted(MODEL_SIZES)} (got {size!r})")
    cfg = dict(MODEL_SIZES[size])
    for key in ("num_layers", "hidden_size", "num_heads", "intermediate_size", "vocab_size", "learning_rate"):
        value = getattr(overrides, key, None) if overrides is not None else None
        if value is not None:
            cfg[key] = value
    if cfg["hidden_size"] % cfg["num_heads"]:
        raise ValueError(f"--hidden-size ({cfg['hidden_size']}) must be a multiple of --num-heads ({cfg['num_heads']})")
    return cfg


def bert_config(cfg: Mapping[str, Any], vocab_size: int):
    """transformers.BertConfig for a model_config() entry and the model's vocabulary size."""
    from transformers import BertConfig

    return BertConfig(
        vocab_size=vocab_size,
        hidden_size=cfg["hidden_size"],
        num_hidden_layers=cfg["num_layers"],
        num_attention_heads=cfg["num_heads"],
        intermediate_size=cfg["intermediate_size"],
        max_position_embeddings=MAX_POSITION_EMBEDDINGS,
        type_vocab_size=2,
        pad_token_id=0,
    )


def build_model(cfg: Mapping[str, Any], vocab_size: int, seed: int, device):
    """BertForPreTraining on `device`, initialised from `seed` (the same weights on every rank)."""
    import torch
    import transformers

    torch.manual_seed(seed)
    return transformers.BertForPreTraining(bert_config(cfg, vocab_size)).to(device)


def parameter_count(
    layers: int,
    hidden: int,
    intermediate: int,
    vocab: int,
    positions: int = MAX_POSITION_EMBEDDINGS,
    type_vocab: int = 2,
) -> int:
    """Trainable parameters of BertForPreTraining (decoder weight tied to word embeddings)."""
    h, i = hidden, intermediate
    embeddings = (vocab + positions + type_vocab) * h + 2 * h
    layer = (4 * h * h + 4 * h) + 2 * h + (h * i + i) + (i * h + h) + 2 * h
    pooler = h * h + h
    mlm_head = (h * h + h) + 2 * h + vocab  # transform dense + LayerNorm + decoder bias
    nsp_head = 2 * h + 2
    return embeddings + layers * layer + pooler + mlm_head + nsp_head


def model_flops(
    layers: int, hidden: int, intermediate: int, vocab: int, seq_len: int, global_batch: int
) -> dict[str, float]:
    """Model FLOPs of one training step over the global batch (formula: module docstring)."""
    h, i, s = hidden, intermediate, seq_len
    matmul_params = layers * (4 * h * h + 2 * h * i) + h * h + h * vocab
    per_token = 6 * matmul_params + 12 * layers * s * h
    per_sequence = 6 * (h * h + 2 * h)
    tokens = global_batch * s
    total = tokens * per_token + global_batch * per_sequence
    return {
        "per_step": float(total),
        "per_token": float(per_token),
        "matmul_params": float(matmul_params),
        "attention_per_token": float(12 * layers * s * h),
        "tokens_per_step": float(tokens),
    }


def peak_flops(device_name: str, precision: str) -> float | None:
    """Peak dense FLOP/s of one device, or None when the table does not know it."""
    for key, by_precision in PEAK_FLOPS.items():
        if key in device_name.upper():
            return by_precision.get(precision)
    return None
