"""BERT pretraining benchmark for an mpirun-launched cluster (scc.training.bert_launch).

One process per rank, started by OpenMPI's mpirun. It trains transformers' BertForPreTraining
on the masked-LM (15% of tokens; 80% [MASK], 10% random, 10% kept) and next-sentence
objectives, with one of three data-parallel frameworks (--framework):

- torch (default): each process reads its place in the job from OpenMPI's environment
  (OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE), joins a torch.distributed process
  group over TCP (MASTER_ADDR:MASTER_PORT; --backend: NCCL on GPUs, gloo on CPUs) and wraps the
  model in DistributedDataParallel.
- horovod (horovod.torch) or aiacc (perseus.torch.horovod, Alibaba's AIACC-Training, which has
  Horovod's API): hvd.init() gives rank, size and local rank; the optimizer is wrapped in
  hvd.DistributedOptimizer, rank 0's parameters and optimizer state are broadcast, and the
  metrics are reduced with hvd.allreduce. Only the core Horovod API is used (no
  broadcast_object/allgather_object/barrier), so older Horovod-based releases work too.

Data needs no network: a WordPiece vocabulary is trained on the shipped corpus by rank 0 and
broadcast to every rank, so no shared file system is needed and every node uses one vocabulary.

Rank 0 writes a results JSON (see `results` in main()): world size, hosts and ranks per host,
loss per step, throughput after the warm-up steps, model FLOPs per step and, where the peak of
the device is known, the model FLOP utilisation. Exit status: 0 done, 2 bad arguments,
3 non-finite loss (the results JSON is still written, with status "non_finite_loss").

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
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
import math
import os
import platform
import socket
import sys
import time
from typing import Any, Mapping, Sequence

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
SEQ_LEN_MIN = 16
SEQ_LEN_MAX = MAX_POSITION_EMBEDDINGS
SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
IGNORE_INDEX = -100

# Dense peak FLOP/s of one device (vendor data sheets, SXM parts, no sparsity), by a substring
# of torch.cuda.get_device_name() and the autocast precision. Anything else: MFU is null.
PEAK_FLOPS: dict[str, dict[str, float]] = {
    "V100": {"fp16": 125e12},
    "A100": {"bf16": 312e12, "fp16": 312e12},
    "H100": {"bf16": 989e12, "fp16": 989e12},
    "H200": {"bf16": 989e12, "fp16": 989e12},
}

# --framework -> the module with Horovod's API (None: torch.distributed + DDP).
FRAMEWORK_MODULES: dict[str, str | None] = {
    "torch": None,
    "horovod": "horovod.torch",
    "aiacc": "perseus.torch.horovod",
}

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_NON_FINITE = 3


# --------------------------------------------------------------------------------------------
# Pure parts (unit-tested in tests/unit/bert/): arguments, model table, FLOPs, ranks, masking,
# instances, sampling. Only mask_tokens and pack_instances need torch, and import it lazily.
# --------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    env = os.environ
    p = argparse.ArgumentParser(description="BERT pretraining benchmark (mpirun + DDP or Horovod)")
    p.add_argument(
        "--framework",
        choices=sorted(FRAMEWORK_MODULES),
        default="torch",
        help="torch: torch.distributed + DistributedDataParallel; horovod: "
        "horovod.torch; aiacc: perseus.torch.horovod (AIACC-Training)",
    )
    p.add_argument("--model-size", choices=sorted(MODEL_SIZES), default="tiny")
    p.add_argument("--num-layers", type=int, help="override the size table")
    p.add_argument("--hidden-size", type=int, help="override the size table")
    p.add_argument("--num-heads", type=int, help="override the size table")
    p.add_argument("--intermediate-size", type=int, help="override the size table")
    p.add_argument(
        "--vocab-size",
        type=int,
        help="WordPiece vocabulary to train; the model's embedding is padded to it "
        "when the corpus yields fewer pieces (default: from the size table)",
    )
    p.add_argument("--seq-len", type=int, default=128)
    p.add_argument("--batch-size", type=int, default=8, help="sequences per rank per step")
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--warmup-steps", type=int, default=5, help="first steps left out of the throughput measurement")
    p.add_argument(
        "--lr-warmup-steps", type=int, default=None, help="linear learning-rate warm-up (default: 10%% of --steps)"
    )
    p.add_argument(
        "--learning-rate", type=float, default=None, help="peak AdamW learning rate (default: from the size table)"
    )
    p.add_argument("--mlm-probability", type=float, default=0.15)
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument(
        "--corpus",
        default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus.txt"),
        help="text file: one sentence per line, a blank line between documents",
    )
    p.add_argument("--vocab", default=None, help="use this vocab.txt instead of training one on the corpus")
    p.add_argument("--output-dir", required=True, help="rank 0 writes results.json here")
    p.add_argument("--run-id", default=env.get("SCC_TRAINING_RUN_ID", ""))
    p.add_argument(
        "--backend",
        choices=["auto", "nccl", "gloo"],
        default="auto",
        help="torch.distributed backend (--framework torch only): auto is nccl on CUDA devices, gloo on CPUs",
    )
    p.add_argument("--device", choices=["auto", "cuda", "cpu"], default="auto")
    p.add_argument(
        "--precision",
        choices=["auto", "fp32", "fp16", "bf16"],
        default="auto",
        help="auto: bf16 on GPUs with compute capability >= 8.0, fp16 (with loss "
        "scaling) on older GPUs such as V100, fp32 on CPUs",
    )
    p.add_argument(
        "--threads", type=int, default=0, help="torch intra-op threads per rank on CPU (0: cores / ranks on the node)"
    )
    p.add_argument("--master-addr", default=env.get("MASTER_ADDR", ""))
    p.add_argument("--master-port", type=int, default=int(env.get("MASTER_PORT", "29500")))
    p.add_argument(
        "--init-timeout", type=int, default=300, help="seconds to wait for every rank to join the process group"
    )
    p.add_argument("--log-every", type=int, default=10)
    p.add_argument(
        "--peak-tflops", type=float, default=None, help="peak TFLOP/s of one device, overriding the built-in table"
    )
    return p


def check_args(args: argparse.Namespace) -> list[str]:
    """Every problem with the arguments, as messages naming the option."""
    errors = []
    if args.steps < 1:
        errors.append(f"--steps must be >= 1 (got {args.steps})")
    if args.batch_size < 1:
        errors.append(f"--batch-size must be >= 1 (got {args.batch_size})")
    if not SEQ_LEN_MIN <= args.seq_len <= SEQ_LEN_MAX:
        errors.append(f"--seq-len must be within [{SEQ_LEN_MIN}, {SEQ_LEN_MAX}] (got {args.seq_len})")
    if args.warmup_steps < 0 or (args.steps >= 1 and args.warmup_steps >= args.steps):
        errors.append(
            f"--warmup-steps must be >= 0 and < --steps, leaving a step to measure "
            f"(got {args.warmup_steps} with --steps {args.steps})"
        )
    if args.lr_warmup_steps is not None and args.lr_warmup_steps < 0:
        errors.append(f"--lr-warmup-steps must be >= 0 (got {args.lr_warmup_steps})")
    if args.learning_rate is not None and not args.learning_rate > 0:
        errors.append(f"--learning-rate must be > 0 (got {args.learning_rate})")
    if not 0.0 < args.mlm_probability < 1.0:
        errors.append(f"--mlm-probability must be within (0, 1) (got {args.mlm_probability})")
    if args.threads < 0:
        errors.append(f"--threads must be >= 0 (got {args.threads})")
    if not 0 < args.master_port < 65536:
        errors.append(f"--master-port must be within [1, 65535] (got {args.master_port})")
    if args.log_every < 1:
        errors.append(f"--log-every must be >= 1 (got {args.log_every})")
    if args.framework != "torch" and args.backend != "auto":
        errors.append(
            f"--backend applies to --framework torch only (got --backend "
            f"{args.backend} with --framework {args.framework})"
        )
    for name in ("num_layers", "hidden_size", "num_heads", "intermediate_size", "vocab_size"):
        value = getattr(args, name)
        if value is not None and value < 1:
            errors.append(f"--{name.replace('_', '-')} must be >= 1 (got {value})")
    if not errors:
        try:
            model_config(args.model_size, args)
        except ValueError as exc:
            errors.append(str(exc))
    return errors


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = build_parser()
    args = parser.parse_args(argv)
    errors = check_args(args)
    if errors:
        parser.error("; ".join(errors))  # exits with status 2
    return args


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


def rank_info(environ: Mapping[str, str]) -> dict[str, int]:
    """rank, world_size, local_rank, local_size from OpenMPI's (or torchrun's) environment."""
    for prefix, names in (
        ("OMPI_COMM_WORLD_", ("RANK", "SIZE", "LOCAL_RANK", "LOCAL_SIZE")),
        ("", ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE")),
    ):
        if prefix + names[0] in environ and prefix + names[1] in environ:
            rank = int(environ[prefix + names[0]])
            world = int(environ[prefix + names[1]])
            local_rank = int(environ.get(prefix + names[2], rank))
            local_size = int(environ.get(prefix + names[3], world))
            break
    else:
        rank, world, local_rank, local_size = 0, 1, 0, 1
    if not (world >= 1 and 0 <= rank < world and 0 <= local_rank < local_size):
        raise ValueError(
            f"inconsistent rank environment: rank={rank} world_size={world} "
            f"local_rank={local_rank} local_size={local_size}"
        )
    return {"rank": rank, "world_size": world, "local_rank": local_rank, "local_size": local_size}


def hosts_summary(rank_records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Distinct hosts, in order of their lowest rank, with the ranks each one runs."""
    hosts: dict[str, list[int]] = {}
    for rec in sorted(rank_records, key=lambda r: r["rank"]):
        hosts.setdefault(rec["host"], []).append(rec["rank"])
    return [{"host": host, "ranks": ranks, "num_ranks": len(ranks)} for host, ranks in hosts.items()]


def read_documents(path: str) -> list[list[str]]:
    """Documents (lists of sentences) from a one-sentence-per-line, blank-line-separated file."""
    documents: list[list[str]] = [[]]
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if line:
                documents[-1].append(line)
            elif documents[-1]:
                documents.append([])
    return [d for d in documents if d]


def truncate_pair(a: list[int], b: list[int], max_tokens: int, rng) -> None:
    """Trim the longer of two segments, from a random end, until both fit (as BERT does)."""
    while len(a) + len(b) > max_tokens:
        longer = a if len(a) > len(b) else b
        if rng.random() < 0.5:
            del longer[0]
        else:
            longer.pop()


def create_instances(
    documents: Sequence[Sequence[Sequence[int]]], seq_len: int, rng, short_seq_prob: float = 0.1
) -> list[tuple[list[int], list[int], int]]:
    """Next-sentence instances (tokens_a, tokens_b, label) from tokenised documents.

    BERT's create_pretraining_data algorithm: fill a chunk of sentences up to the target
    length, split it at a random sentence boundary into A and B; half of the time B is replaced
    by sentences from another document (label 1, "random next"); label 0 is "B follows A".
    `rng` is a random.Random, so that every rank builds the same instances.
    """
    max_tokens = seq_len - 3  # [CLS] A [SEP] B [SEP]
    instances = []
    for doc_index, document in enumerate(documents):
        target = max_tokens
        if rng.random() < short_seq_prob:
            target = rng.randint(2, max_tokens)
        chunk: list[Sequence[int]] = []
        length = 0
        i = 0
        while i < len(document):
            chunk.append(document[i])
            length += len(document[i])
            if i == len(document) - 1 or length >= target:
                if chunk:
                    split = rng.randint(1, len(chunk) - 1) if len(chunk) >= 2 else 1
                    a = [t for sent in chunk[:split] for t in sent]
                    b: list[int] = []
                    if len(chunk) == 1 or (len(documents) > 1 and rng.random() < 0.5):
                        label = 1
                        other = doc_index
                        while other == doc_index and len(documents) > 1:
                            other = rng.randrange(len(documents))
                        start = rng.randrange(len(documents[other]))
                        for sent in documents[other][start:]:
                            b.extend(sent)
                            if len(b) >= target - len(a):
                                break
                        i -= len(chunk) - split  # put the unused sentences back
                    else:
                        label = 0
                        b = [t for sent in chunk[split:] for t in sent]
                    if a and b:
                        truncate_pair(a, b, max_tokens, rng)
                        instances.append((a, b, label))
                chunk, length = [], 0
            i += 1
    return instances


def pack_instances(instances, seq_len: int, cls_id: int, sep_id: int, pad_id: int = 0):
    """Tensors input_ids, token_type_ids, attention_mask, special_mask, nsp_labels."""
    import torch

    n = len(instances)
    input_ids = torch.full((n, seq_len), pad_id, dtype=torch.long)
    token_type = torch.zeros((n, seq_len), dtype=torch.long)
    attention = torch.zeros((n, seq_len), dtype=torch.long)
    special = torch.ones((n, seq_len), dtype=torch.bool)
    labels = torch.empty(n, dtype=torch.long)
    for row, (a, b, label) in enumerate(instances):
        ids = [cls_id] + list(a) + [sep_id] + list(b) + [sep_id]
        length = len(ids)
        input_ids[row, :length] = torch.tensor(ids)
        token_type[row, len(a) + 2 : length] = 1
        attention[row, :length] = 1
        special[row, 1 : len(a) + 1] = False
        special[row, len(a) + 2 : length - 1] = False
        labels[row] = label
    return {
        "input_ids": input_ids,
        "token_type_ids": token_type,
        "attention_mask": attention,
        "special_mask": special,
        "nsp_labels": labels,
    }


def mask_tokens(
    input_ids,
    special_mask,
    *,
    mask_id: int,
    vocab_size: int,
    generator,
    probability: float = 0.15,
    random_low: int = len(SPECIAL_TOKENS),
):
    """BERT's masked-LM corruption: (inputs, labels), labels IGNORE_INDEX where not predicted.

    Each non-special token is chosen with `probability`; of the chosen, 80% become [MASK], 10%
    a random token from [random_low, vocab_size) and 10% stay. Every row with a maskable token
    gets at least one chosen token, so the loss is never a mean over nothing.
    """
    import torch

    prob = torch.full(input_ids.shape, probability)
    prob.masked_fill_(special_mask, 0.0)
    chosen = torch.bernoulli(prob, generator=generator).bool()
    maskable = ~special_mask
    empty_rows = (~chosen.any(dim=1)) & maskable.any(dim=1)
    if empty_rows.any():
        scores = torch.rand(input_ids.shape, generator=generator).masked_fill_(special_mask, -1.0)
        pick = scores.argmax(dim=1)
        rows = empty_rows.nonzero(as_tuple=True)[0]
        chosen[rows, pick[rows]] = True
    labels = torch.where(chosen, input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    inputs = input_ids.clone()
    draw = torch.rand(input_ids.shape, generator=generator)
    to_mask = chosen & (draw < 0.8)
    to_random = chosen & (draw >= 0.8) & (draw < 0.9)
    inputs[to_mask] = mask_id
    random_tokens = torch.randint(random_low, vocab_size, input_ids.shape, generator=generator)
    inputs[to_random] = random_tokens[to_random]
    return inputs, labels


def batch_indices(step: int, rank: int, batch_size: int, world_size: int, num_instances: int, seed: int) -> list[int]:
    """Instance indices of one rank's batch: consecutive slices of per-epoch permutations.

    Within a step the ranks' batches are disjoint whenever the global batch fits in the data.
    """
    import random

    global_batch = batch_size * world_size
    first = step * global_batch + rank * batch_size
    out = []
    cache: dict[int, list[int]] = {}
    for position in range(first, first + batch_size):
        epoch, offset = divmod(position, num_instances)
        if epoch not in cache:
            perm = list(range(num_instances))
            random.Random(seed * 1_000_003 + epoch).shuffle(perm)
            cache[epoch] = perm
        out.append(cache[epoch][offset])
    return out


def lr_factor(step: int, warmup: int, total: int) -> float:
    """Linear warm-up to 1 over `warmup` steps, then linear decay to 0 at `total`."""
    if warmup > 0 and step < warmup:
        return (step + 1) / warmup
    return max(0.0, (total - step) / max(1, total - warmup))


def finite_or_none(values: Sequence[float]) -> list[float | None]:
    return [v if math.isfinite(v) else None for v in values]


# --------------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------------


def _log(rank: int, message: str) -> None:
    if rank == 0:
        print(f"[pretrain_bert] {message}", flush=True)


def _train_vocab(corpus: str, vocab_size: int) -> list[str]:
    from tokenizers import BertWordPieceTokenizer

    tokenizer = BertWordPieceTokenizer(lowercase=True)
    tokenizer.train(
        [corpus], vocab_size=vocab_size, min_frequency=2, special_tokens=list(SPECIAL_TOKENS), show_progress=False
    )
    vocab = tokenizer.get_vocab()
    return [token for token, unused in sorted(vocab.items(), key=lambda kv: kv[1])]


def _read_vocab(path: str) -> list[str]:
    with open(path, encoding="utf-8") as handle:
        return [line.rstrip("\n") for line in handle if line.rstrip("\n")]


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _write_json(path: str, data: Mapping[str, Any]) -> None:
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2, sort_keys=True, allow_nan=False)
        handle.write("\n")
    os.replace(tmp, path)


class TorchComm:
    """Collectives of the run over a torch.distributed process group (--framework torch)."""

    name = "torch"

    def __init__(self, dist, world: int):
        self.dist, self.world = dist, world

    def all_gather_object(self, obj: Any) -> list[Any]:
        out: list[Any] = [None] * self.world
        self.dist.all_gather_object(out, obj)
        return out

    def broadcast_object(self, obj: Any) -> Any:
        payload = [obj]
        self.dist.broadcast_object_list(payload, src=0)
        return payload[0]

    def allreduce_sum(self, tensor):
        self.dist.all_reduce(tensor, op=self.dist.ReduceOp.SUM)
        return tensor

    def barrier(self) -> None:
        self.dist.barrier()

    def close(self) -> None:
        self.dist.barrier()
        self.dist.destroy_process_group()


class HorovodComm:
    """The same collectives over Horovod's API (horovod.torch or perseus.torch.horovod).

    Objects travel as pickled bytes in uint8 tensors through hvd.broadcast and hvd.allgather
    (which takes a different first dimension per rank): only the core API, which every
    Horovod-based release has, so the script does not depend on broadcast_object and friends.
    """

    def __init__(self, hvd, name: str):
        self.hvd, self.name = hvd, name

    def _to_tensor(self, obj: Any):
        import pickle

        import torch

        return torch.frombuffer(bytearray(pickle.dumps(obj)), dtype=torch.uint8)

    def all_gather_object(self, obj: Any) -> list[Any]:
        import pickle

        import torch

        data = self._to_tensor(obj)
        sizes = self.hvd.allgather(torch.tensor([data.numel()], dtype=torch.int64), name="object_sizes").tolist()
        gathered = self.hvd.allgather(data, name="objects")
        out, offset = [], 0
        for size in sizes:
            out.append(pickle.loads(gathered[offset : offset + size].numpy().tobytes()))
            offset += size
        return out

    def broadcast_object(self, obj: Any) -> Any:
        import pickle

        import torch

        data = self._to_tensor(obj) if self.hvd.rank() == 0 else None
        size = torch.tensor([data.numel() if data is not None else 0], dtype=torch.int64)
        size = int(self.hvd.broadcast(size, root_rank=0, name="object_size").item())
        if data is None:
            data = torch.zeros(size, dtype=torch.uint8)
        data = self.hvd.broadcast(data, root_rank=0, name="object")
        return pickle.loads(data.numpy().tobytes())

    def allreduce_sum(self, tensor):
        return self.hvd.allreduce(tensor, op=self.hvd.Sum, name="metrics")

    def barrier(self) -> None:
        import torch

        self.hvd.allreduce(torch.zeros(1), op=self.hvd.Sum, name="barrier")

    def close(self) -> None:
        self.barrier()
        self.hvd.shutdown()


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

    import importlib

    import tokenizers
    import torch
    import torch.distributed as dist
    import torch.nn.functional as F
    import transformers
    from tokenizers import BertWordPieceTokenizer
    from torch.nn.parallel import DistributedDataParallel

    transformers.logging.set_verbosity_error()
    started_at = _dt.datetime.now(_dt.timezone.utc)

    # Rank, world size and local rank: Horovod's after hvd.init(), else OpenMPI's environment.
    hvd = None
    if FRAMEWORK_MODULES[args.framework]:
        try:
            hvd = importlib.import_module(FRAMEWORK_MODULES[args.framework])
        except ImportError as exc:
            print(
                f"pretrain_bert: --framework {args.framework} needs the module "
                f"{FRAMEWORK_MODULES[args.framework]} in this python ({exc})",
                file=sys.stderr,
            )
            return EXIT_USAGE
        hvd.init()
        rank, world = hvd.rank(), hvd.size()
        local_rank, local_size = hvd.local_rank(), hvd.local_size()
    else:
        ranks = rank_info(os.environ)
        rank, world = ranks["rank"], ranks["world_size"]
        local_rank, local_size = ranks["local_rank"], ranks["local_size"]

    # Device, precision, backend.
    use_cuda = args.device == "cuda" or (args.device == "auto" and torch.cuda.is_available())
    if use_cuda:
        if not torch.cuda.is_available():
            print("pretrain_bert: --device cuda, but torch sees no CUDA device", file=sys.stderr)
            return EXIT_USAGE
        # Horovod's examples pin local rank N to GPU N; mpirun's --map-by keeps it in range.
        torch.cuda.set_device(local_rank if hvd is not None else local_rank % torch.cuda.device_count())
        device = torch.device("cuda", torch.cuda.current_device())
        device_name = torch.cuda.get_device_name(device)
        capability = torch.cuda.get_device_capability(device)
        precision = args.precision if args.precision != "auto" else ("bf16" if capability >= (8, 0) else "fp16")
    else:
        device = torch.device("cpu")
        device_name = platform.processor() or platform.machine() or "cpu"
        precision = "fp32" if args.precision == "auto" else args.precision
        threads = args.threads or max(1, (os.cpu_count() or 1) // local_size)
        torch.set_num_threads(threads)
    master = None
    if hvd is not None:
        # Horovod does its own rendezvous (MPI under mpirun); the backend it reports is its name.
        backend = args.framework
        comm: TorchComm | HorovodComm = HorovodComm(hvd, args.framework)
    else:
        backend = args.backend if args.backend != "auto" else ("nccl" if use_cuda else "gloo")
        if backend == "nccl" and not use_cuda:
            print("pretrain_bert: backend nccl needs CUDA devices", file=sys.stderr)
            return EXIT_USAGE
        master_addr = args.master_addr or ("127.0.0.1" if world == 1 else "")
        if not master_addr:
            print("pretrain_bert: --master-addr (or MASTER_ADDR) is required with more than one rank", file=sys.stderr)
            return EXIT_USAGE
        host_part = f"[{master_addr}]" if ":" in master_addr else master_addr
        master = f"{master_addr}:{args.master_port}"
        dist.init_process_group(
            backend=backend,
            init_method=f"tcp://{host_part}:{args.master_port}",
            rank=rank,
            world_size=world,
            timeout=_dt.timedelta(seconds=args.init_timeout),
        )
        comm = TorchComm(dist, world)
    _log(
        rank,
        f"world_size={world} framework={args.framework} backend={backend} "
        f"device={device.type} ({device_name}) precision={precision}",
    )

    records = comm.all_gather_object(
        {"rank": rank, "local_rank": local_rank, "host": socket.gethostname(), "device": device_name}
    )
    hosts = hosts_summary(records)

    # Vocabulary: rank 0 trains (or reads) it, every rank receives the same list.
    cfg = model_config(args.model_size, args)
    vocab_tokens: list[str] = comm.broadcast_object(
        (_read_vocab(args.vocab) if args.vocab else _train_vocab(args.corpus, cfg["vocab_size"])) if rank == 0 else None
    )
    vocab = {token: index for index, token in enumerate(vocab_tokens)}
    tokenizer = BertWordPieceTokenizer(vocab=vocab, lowercase=True)
    ids = {token: vocab[token] for token in SPECIAL_TOKENS}
    model_vocab = max(len(vocab_tokens), cfg["vocab_size"])

    # Data: every rank builds the same instances; batch_indices shards them per step.
    import random

    documents = read_documents(args.corpus)
    tokenised = []
    for document in documents:
        encodings = tokenizer.encode_batch(document, add_special_tokens=False)
        tokenised.append([e.ids for e in encodings if e.ids])
    tokenised = [d for d in tokenised if d]
    instances = create_instances(tokenised, args.seq_len, random.Random(args.seed))
    data = pack_instances(instances, args.seq_len, ids["[CLS]"], ids["[SEP]"], ids["[PAD]"])
    mask_generator = torch.Generator().manual_seed(args.seed * 7919 + rank)

    # Model and optimiser.
    torch.manual_seed(args.seed)
    config = bert_config(cfg, model_vocab)
    model = transformers.BertForPreTraining(config).to(device)
    params = sum(p.numel() for p in model.parameters())
    # torch: DDP averages the gradients in backward. Horovod: its DistributedOptimizer does,
    # and every rank starts from rank 0's parameters and optimizer state.
    net = model if hvd is not None else DistributedDataParallel(model, device_ids=[device.index] if use_cuda else None)
    lr = cfg["learning_rate"]
    lr_warmup = args.lr_warmup_steps if args.lr_warmup_steps is not None else max(1, args.steps // 10)
    optimizer = torch.optim.AdamW(
        net.parameters(),
        lr=lr,
        betas=(0.9, 0.999),
        eps=1e-6,
        weight_decay=0.01,
        **({"fused": True} if use_cuda else {}),
    )
    if hvd is not None:
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: lr_factor(s, lr_warmup, args.steps))
    autocast_dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(precision)
    scaler = torch.amp.GradScaler("cuda", enabled=precision == "fp16" and use_cuda)
    _log(
        rank,
        f"model={args.model_size} layers={cfg['num_layers']} hidden={cfg['hidden_size']} "
        f"heads={cfg['num_heads']} params={params} vocab={model_vocab} "
        f"instances={len(instances)} seq_len={args.seq_len} "
        f"global_batch={args.batch_size * world} lr={lr}",
    )

    losses = torch.zeros((args.steps, 3), dtype=torch.float32, device=device)
    reported = torch.zeros((0, 3))
    t_start = None

    def synchronize() -> None:
        if use_cuda:
            torch.cuda.synchronize(device)
        comm.barrier()

    def reduce_losses(upto: int) -> torch.Tensor:
        chunk = comm.allreduce_sum(losses[reported.shape[0] : upto].clone())
        return torch.cat([reported, (chunk / world).cpu()])

    status = "ok"
    net.train()
    synchronize()
    if args.warmup_steps == 0:
        t_start = time.perf_counter()
    for step in range(args.steps):
        index = torch.tensor(batch_indices(step, rank, args.batch_size, world, len(instances), args.seed))
        inputs, labels = mask_tokens(
            data["input_ids"][index],
            data["special_mask"][index],
            mask_id=ids["[MASK]"],
            vocab_size=len(vocab_tokens),
            generator=mask_generator,
            probability=args.mlm_probability,
        )
        inputs = inputs.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)
        token_type = data["token_type_ids"][index].to(device, non_blocking=True)
        attention = data["attention_mask"][index].to(device, non_blocking=True)
        nsp_labels = data["nsp_labels"][index].to(device, non_blocking=True)
        with torch.autocast(device.type, dtype=autocast_dtype or torch.float32, enabled=autocast_dtype is not None):
            out = net(input_ids=inputs, token_type_ids=token_type, attention_mask=attention)
            mlm_loss = F.cross_entropy(
                out.prediction_logits.reshape(-1, model_vocab).float(), labels.reshape(-1), ignore_index=IGNORE_INDEX
            )
            nsp_loss = F.cross_entropy(out.seq_relationship_logits.float(), nsp_labels)
            loss = mlm_loss + nsp_loss
        scaler.scale(loss).backward()
        if hvd is not None:
            # Horovod's order with AMP and clipping: finish the allreduce, then unscale and
            # clip the averaged gradients, and step without allreducing again.
            optimizer.synchronize()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        if hvd is not None:
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
        else:
            scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        scheduler.step()
        losses[step] = torch.stack([loss.detach(), mlm_loss.detach(), nsp_loss.detach()]).float()
        if step + 1 == args.warmup_steps:
            synchronize()
            t_start = time.perf_counter()
        if (step + 1) % args.log_every == 0 or step + 1 == args.steps:
            reported = reduce_losses(step + 1)
            last = reported[-1].tolist()
            _log(rank, f"step {step + 1}/{args.steps} loss={last[0]:.4f} mlm={last[1]:.4f} nsp={last[2]:.4f}")
            if not torch.isfinite(reported).all():
                status = "non_finite_loss"
                break
    synchronize()
    elapsed = time.perf_counter() - t_start if t_start is not None else float("nan")
    steps_done = reported.shape[0]
    measured = steps_done - args.warmup_steps

    global_batch = args.batch_size * world
    flops = model_flops(
        cfg["num_layers"], cfg["hidden_size"], cfg["intermediate_size"], model_vocab, args.seq_len, global_batch
    )
    ok = status == "ok" and measured > 0 and elapsed > 0
    steps_per_s = measured / elapsed if ok else None
    peak = args.peak_tflops * 1e12 if args.peak_tflops else peak_flops(device_name, precision) if use_cuda else None
    achieved = flops["per_step"] * steps_per_s if steps_per_s else None
    loss_list = reported[:, 0].tolist()
    results = {
        "schema_version": 1,
        "run_id": args.run_id,
        "status": status,
        "started_at": started_at.isoformat(timespec="seconds"),
        "finished_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "world_size": world,
        "num_hosts": len(hosts),
        "hosts": hosts,
        "ranks_per_host": {h["host"]: h["num_ranks"] for h in hosts},
        "framework": args.framework,
        "backend": backend,
        "device": device.type,
        "device_name": device_name,
        "precision": precision,
        "master": master,
        "model": {
            "size": args.model_size,
            "num_layers": cfg["num_layers"],
            "hidden_size": cfg["hidden_size"],
            "num_heads": cfg["num_heads"],
            "intermediate_size": cfg["intermediate_size"],
            "vocab_size": model_vocab,
            "tokenizer_vocab_size": len(vocab_tokens),
            "params": params,
        },
        "seq_len": args.seq_len,
        "per_rank_batch": args.batch_size,
        "global_batch": global_batch,
        "steps": args.steps,
        "steps_completed": steps_done,
        "warmup_steps": args.warmup_steps,
        "learning_rate": lr,
        "lr_warmup_steps": lr_warmup,
        "loss": finite_or_none(loss_list),
        "mlm_loss": finite_or_none(reported[:, 1].tolist()),
        "nsp_loss": finite_or_none(reported[:, 2].tolist()),
        "loss_first": finite_or_none(loss_list[:1])[0] if loss_list else None,
        "loss_last": finite_or_none(loss_list[-1:])[0] if loss_list else None,
        "throughput": {
            "measured_steps": measured if ok else 0,
            "elapsed_s": elapsed if ok else None,
            "step_time_s": 1 / steps_per_s if steps_per_s else None,
            "sequences_per_s": global_batch * steps_per_s if steps_per_s else None,
            "tokens_per_s": global_batch * args.seq_len * steps_per_s if steps_per_s else None,
            "tokens_note": "padded tokens (global_batch * seq_len per step)",
        },
        "flops": {
            "model_flops_per_step": flops["per_step"],
            "model_flops_per_token": flops["per_token"],
            "formula": "tokens*(6*(L*(4H^2+2HI)+H^2+HV) + 12*L*S*H) + batch*6*(H^2+2H)",
            "achieved_flops_per_s": achieved,
            "peak_flops_per_device": peak,
            "mfu": achieved / (peak * world) if achieved and peak else None,
        },
        "data": {
            "corpus": os.path.abspath(args.corpus),
            "corpus_sha256": _sha256(args.corpus),
            "documents": len(tokenised),
            "instances": len(instances),
        },
        "versions": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "tokenizers": tokenizers.__version__,
        },
    }
    if rank == 0:
        os.makedirs(args.output_dir, exist_ok=True)
        with open(os.path.join(args.output_dir, "vocab.txt"), "w", encoding="utf-8") as handle:
            handle.write("\n".join(vocab_tokens) + "\n")
        _write_json(os.path.join(args.output_dir, "results.json"), results)
        tput = results["throughput"]
        _log(
            rank,
            f"status={status} loss {results['loss_first']} -> {results['loss_last']} "
            f"sequences/s={tput['sequences_per_s']} tokens/s={tput['tokens_per_s']} "
            f"mfu={results['flops']['mfu']}",
        )
    comm.close()
    return EXIT_OK if status == "ok" else EXIT_NON_FINITE


if __name__ == "__main__":
    sys.exit(main())
