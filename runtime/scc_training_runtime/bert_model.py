"""The model of pretrain_bert.py: BERT's size table, transformers' BertForPreTraining, and the
counts the results report (parameters, model FLOPs per step, the peak FLOP/s of a device).

Model FLOPs per step (the count of `model_flops`, for one optimizer step over the global batch):

    tokens   = global_batch * seq_len                 (padded tokens: the model computes on them)
    rows     = tokens, or global_batch * P with the masked-row head (P predicted slots per sequence)
    N_enc    = L * (4*H*H + 2*H*I)                    (attention projections + feed-forward)
    N_head   = H*H + H*V                              (MLM head transform + decoder)
    forward+backward = 6 * multiply-add parameters    (2 FLOPs per multiply-add, backward = 2x)
    per token         6 * N_enc + 12 * L * S * H      (QK^T and attention*V: 2*2*S*H fwd, x3)
    per head row      6 * N_head
    per sequence      6 * (H*H + 2*H)                 (pooler + NSP classifier on [CLS])
    model_flops = tokens * per_token + rows * per_head_row + global_batch * per_sequence

This is the "6 * parameters * tokens plus attention" estimate of Kaplan et al. (2020, section 2.1)
and PaLM (Chowdhery et al. 2022, appendix B), the count Megatron-LM reports (Narayanan et al.
2021, section 5.1), taking only the parameters that take part in a matrix multiply (embedding
lookups, biases and LayerNorms excluded). It counts model FLOPs, not hardware FLOPs: no
recomputation, no optimizer step. MFU = model_flops * steps/s / (world_size * peak FLOP/s of one
device at the precision used).

"Useful" FLOPs (`useful_flops`) count the work a perfect implementation could not skip: the
non-padding tokens only (a sequence of n real tokens: n * 6 * N_enc + 12 * L * H * n^2 for its
attention), the head on the positions actually predicted only, the pooler and NSP per sequence.
Useful MFU is that over the same peak: what the padding and the unmasked rows cost shows as the
gap between the two.

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

# Dense peak FLOP/s of one device (tensor cores, no 2:4 sparsity), by a substring of
# torch.cuda.get_device_name() and the autocast precision. Anything else: MFU is null. Checked in
# order, so that H200 is tried before H20. Sources, SXM parts:
# - V100: NVIDIA Tesla V100 datasheet, 125 TFLOPS tensor (fp16; Volta has no bf16).
# - A100, A800: NVIDIA A100 datasheet and NVIDIA A800 40/80 GB datasheet, BF16/FP16 tensor 312 TFLOPS
#   (624 with sparsity).
# - H100, H800, H200: NVIDIA H100 datasheet (H100 SXM), NVIDIA H800 datasheet and NVIDIA H200 datasheet:
#   BF16/FP16 tensor 1,979 TFLOPS "with sparsity", dense half: 989.
# - H20: 148 TFLOPS FP16/BF16 dense. UNCONFIRMED: NVIDIA publishes no public H20 datasheet; the figure
#   is the one reported from NVIDIA's partner specification (e.g. willitrunai.com/gpus/h20-96gb).
# - B200: NVIDIA HGX B200 specifications, FP16/BF16 tensor 4.5 PFLOPS per GPU with sparsity, dense half:
#   2.25 PFLOPS (HGX B200, 1000 W).
PEAK_FLOPS: dict[str, dict[str, float]] = {
    "V100": {"fp16": 125e12},
    "A100": {"bf16": 312e12, "fp16": 312e12},
    "A800": {"bf16": 312e12, "fp16": 312e12},
    "H100": {"bf16": 989e12, "fp16": 989e12},
    "H800": {"bf16": 989e12, "fp16": 989e12},
    "H200": {"bf16": 989e12, "fp16": 989e12},
    "H20": {"bf16": 148e12, "fp16": 148e12},
    "B200": {"bf16": 2250e12, "fp16": 2250e12},
}


# --batch-size auto (auto_batch_size): the share of the device's memory the activations may take, the rest left to
# the model states, the allocator's fragmentation, the optimizer's temporaries and eager attention's fp32 softmax; and
# the largest batch taken. The share is a chosen margin, not a measurement: the issue-22 run on one H200 ran batch
# 1024 of BERT-base at seq 128 (bf16), so 512 fits there; that it fits everywhere the rule allows is UNCONFIRMED.
AUTO_BATCH_MEMORY_SHARE = 0.25
AUTO_BATCH_MAX = 1024
AUTO_BATCH_CPU = 8


def activation_bytes_per_sequence(cfg: Mapping[str, Any], seq_len: int) -> float:
    """Activation memory of one sequence through the encoder in training with 16-bit activations, no recomputation:
    per layer s*h*(34 + 5*a*s/h) bytes (Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
    Transformer Models", section 4.1, for sequence s, hidden h, heads a; the 5*a*s/h term is the attention scores,
    which flash attention does not keep: counted anyway, so the rule holds for eager attention and V100)."""
    h, a, s = cfg["hidden_size"], cfg["num_heads"], seq_len
    return float(cfg["num_layers"] * s * h * (34 + 5 * a * s / h))


def auto_batch_size(memory_bytes: int | None, cfg: Mapping[str, Any], seq_len: int, vocab: int) -> int:
    """The per-rank batch of --batch-size auto: the largest power of two whose activations
    (activation_bytes_per_sequence) fit in AUTO_BATCH_MEMORY_SHARE of the device's memory after the model states
    (16 bytes per parameter: fp32 weights and gradients, AdamW's two moments), at most AUTO_BATCH_MAX; at least 1.
    ``memory_bytes`` None (the CPU): AUTO_BATCH_CPU. BERT-base at seq 128: 32 on a 16 GB V100, 128 on a 40 GB A100,
    256 on an 80 GB H100, 512 on a 141 GB H200."""
    if memory_bytes is None:
        return AUTO_BATCH_CPU
    states = 16 * parameter_count(cfg["num_layers"], cfg["hidden_size"], cfg["intermediate_size"], vocab)
    room = AUTO_BATCH_MEMORY_SHARE * memory_bytes - states
    fits = int(room // activation_bytes_per_sequence(cfg, seq_len)) if room > 0 else 0
    batch = 1
    while batch * 2 <= min(fits, AUTO_BATCH_MAX):
        batch *= 2
    return batch


def padded_vocab(size: int, multiple: int) -> int:
    """`size` rounded up to a multiple of `multiple`: a decoder whose width is a multiple of 64
    keeps its matrix multiplies on tensor-core tile boundaries (NVIDIA's "Matrix Multiplication
    Background User's Guide": dimensions multiples of 8 for fp16, 64 or more is better)."""
    return -(-size // multiple) * multiple


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


def build_model(cfg: Mapping[str, Any], vocab_size: int, seed: int, device, attention: str = "eager"):
    """BertForPreTraining on `device`, initialised from `seed` (the same weights on every rank).

    `attention`: transformers' eager attention, or "sdpa" (torch's scaled_dot_product_attention:
    flash or memory-efficient kernels on GPUs)."""
    import torch
    import transformers

    torch.manual_seed(seed)
    config = bert_config(cfg, vocab_size)
    config._attn_implementation = attention  # pylint: disable=protected-access
    return transformers.BertForPreTraining(config).to(device)


def pretraining_module(model, mlm_head: str, predictions: int):
    """The module the framework wraps: BertForPreTraining's encoder and heads, returning the
    masked-LM and next-sentence losses (fp32).

    mlm_head "full" runs the decoder on every position (BertForPreTraining's own head); "masked"
    gathers `predictions` slots per row first (bert_data.masked_positions), as NVIDIA's
    DeepLearningExamples BERT does, so the [rows x H] x [H x V] decoder runs on ~20% of the rows.
    The attention mask goes in as [batch, 1, seq]: transformers then broadcasts it as it is, where
    a 2-D mask would make its SDPA path test it on the host (torch.all) every step. transformers 5 takes
    no 3-D mask (its mask code indexes it as [batch, seq] and fails): there it goes in as the 4-D mask that
    transformers 5 passes through unchanged (encoder_attention_mask)."""
    import torch
    import torch.nn.functional as F
    import transformers

    from .bert_data import IGNORE_INDEX, masked_positions

    major = transformers_major(transformers.__version__)
    attention = getattr(model.config, "_attn_implementation", "eager")

    class Pretraining(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, input_ids, token_type_ids, attention_mask, labels, nsp_labels):
            out = self.model.bert(
                input_ids=input_ids,
                token_type_ids=token_type_ids,
                attention_mask=encoder_attention_mask(attention_mask, major, attention),
            )
            sequence, pooled = out[0], out[1]
            if mlm_head == "masked":
                positions, labels = masked_positions(labels, predictions)
                sequence = sequence.gather(1, positions[:, :, None].expand(-1, -1, sequence.shape[-1]))
            logits = self.model.cls.predictions(sequence)
            mlm = F.cross_entropy(
                logits.reshape(-1, logits.shape[-1]).float(), labels.reshape(-1), ignore_index=IGNORE_INDEX
            )
            nsp = F.cross_entropy(self.model.cls.seq_relationship(pooled).float(), nsp_labels)
            return mlm, nsp

    return Pretraining()


def transformers_major(version: str) -> int:
    """transformers' major version from its __version__ ("4.57.6" -> 4, "5.17.0.dev0" -> 5)."""
    return int(version.split(".", 1)[0])


def encoder_attention_mask(mask, major: int, attention: str):
    """The padding mask ([batch, seq], 1 = a real token) as BertModel of transformers `major` takes it without
    inspecting it on the host:

    - 4.x: [batch, 1, seq]; 4.x's get_extended_attention_mask turns it into its additive [batch, 1, 1, seq] form.
    - 5.x: [batch, 1, 1, seq], which 5.x's masking_utils._preprocess_mask_arguments returns as it is ("already
      prepared"): boolean (True = attend) for SDPA, which takes it so; additive (0 or the dtype's minimum, float32 as
      5.x's eager_mask builds it) for eager attention, which adds it to the scores. 5.x's own path from a 2-D mask
      would call padding_mask.all() on the host every step to decide whether SDPA may skip the mask.
    """
    import torch

    if major < 5:
        return mask[:, None, :]
    keep = mask[:, None, None, :].bool()
    if attention == "sdpa":
        return keep
    return torch.zeros(keep.shape, dtype=torch.float32, device=keep.device).masked_fill(
        ~keep, torch.finfo(torch.float32).min
    )


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
    layers: int,
    hidden: int,
    intermediate: int,
    vocab: int,
    seq_len: int,
    global_batch: int,
    head_rows: int | None = None,
) -> dict[str, float]:
    """Model FLOPs of one training step over the global batch (formula: module docstring).

    `head_rows`: rows the MLM head computes per step (None: every token, the full head)."""
    h, i, s = hidden, intermediate, seq_len
    encoder, head = layers * (4 * h * h + 2 * h * i), h * h + h * vocab
    per_token = 6 * encoder + 12 * layers * s * h
    per_sequence = 6 * (h * h + 2 * h)
    tokens = global_batch * s
    rows = tokens if head_rows is None else head_rows
    total = tokens * per_token + rows * 6 * head + global_batch * per_sequence
    return {
        "per_step": float(total),
        "per_token": float(per_token + 6 * head),
        "matmul_params": float(encoder + head),
        "attention_per_token": float(12 * layers * s * h),
        "tokens_per_step": float(tokens),
        "head_rows_per_step": float(rows),
    }


def useful_flops(
    layers: int,
    hidden: int,
    intermediate: int,
    vocab: int,
    *,
    real_tokens: float,
    squared_lengths: float,
    predicted: float,
    sequences: float,
) -> float:
    """FLOPs of the useful work (module docstring): `real_tokens` non-padding tokens, the sum of the
    sequences' squared real lengths (attention), `predicted` masked-LM positions, `sequences`."""
    h, i = hidden, intermediate
    encoder, head = layers * (4 * h * h + 2 * h * i), h * h + h * vocab
    return float(
        real_tokens * 6 * encoder
        + 12 * layers * h * squared_lengths
        + predicted * 6 * head
        + sequences * 6 * (h * h + 2 * h)
    )


def peak_flops(device_name: str, precision: str) -> float | None:
    """Peak dense FLOP/s of one device, or None when the table does not know it."""
    for key, by_precision in PEAK_FLOPS.items():
        if key in device_name.upper():
            return by_precision.get(precision)
    return None
