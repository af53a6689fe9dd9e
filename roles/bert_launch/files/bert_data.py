"""The data of pretrain_bert.py: the WordPiece vocabulary, next-sentence instances from the
corpus, BERT's masking, and each rank's slice of every step.

- Vocabulary: rank 0 trains a WordPiece vocabulary with tokenizers' BertWordPieceTokenizer on the
  corpus (or reads --vocab) and broadcasts it to every rank: no shared file system is needed, and
  no network access to a model or dataset hub.
- Instances: every rank builds the same ones from one seed (create_instances), packed into
  tensors (pack_instances); batch_indices hands every rank a disjoint slice of a per-epoch
  permutation at each step.
- Masking (mask_tokens): dynamic, per step: 15% of the non-special tokens, of which 80% become
  [MASK], 10% a random token and 10% stay.

Only load, pack_instances and mask_tokens need torch or tokenizers, and import them when called.
"""

from __future__ import annotations

import hashlib
import os
import random
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
IGNORE_INDEX = -100


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


def train_vocab(corpus: str, vocab_size: int) -> list[str]:
    """A WordPiece vocabulary of `vocab_size` pieces (special tokens first) trained on `corpus`."""
    from tokenizers import BertWordPieceTokenizer

    tokenizer = BertWordPieceTokenizer(lowercase=True)
    tokenizer.train(
        [corpus], vocab_size=vocab_size, min_frequency=2, special_tokens=list(SPECIAL_TOKENS), show_progress=False
    )
    vocab = tokenizer.get_vocab()
    return [token for token, unused in sorted(vocab.items(), key=lambda kv: kv[1])]


def read_vocab(path: str) -> list[str]:
    with open(path, encoding="utf-8") as handle:
        return [line.rstrip("\n") for line in handle if line.rstrip("\n")]


def sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass
class Dataset:
    """What every rank trains on: the same vocabulary and instances on every rank."""

    vocab_tokens: list[str]
    special_ids: dict[str, int]
    documents: int
    instances: int
    tensors: dict[str, Any]


def load(args: Any, vocab_size: int, comm: Any, rank: int) -> Dataset:
    """The vocabulary (rank 0 trains or reads it, `comm` broadcasts it), then the instances.

    `args` holds corpus, vocab, seq_len and seed (pretrain_bert.py's options).
    """
    from tokenizers import BertWordPieceTokenizer

    vocab_tokens: list[str] = comm.broadcast_object(
        (read_vocab(args.vocab) if args.vocab else train_vocab(args.corpus, vocab_size)) if rank == 0 else None
    )
    vocab = {token: index for index, token in enumerate(vocab_tokens)}
    tokenizer = BertWordPieceTokenizer(vocab=vocab, lowercase=True)
    ids = {token: vocab[token] for token in SPECIAL_TOKENS}
    tokenised = []
    for document in read_documents(args.corpus):
        encodings = tokenizer.encode_batch(document, add_special_tokens=False)
        tokenised.append([e.ids for e in encodings if e.ids])
    tokenised = [d for d in tokenised if d]
    instances = create_instances(tokenised, args.seq_len, random.Random(args.seed))
    tensors = pack_instances(instances, args.seq_len, ids["[CLS]"], ids["[SEP]"], ids["[PAD]"])
    return Dataset(vocab_tokens, ids, len(tokenised), len(instances), tensors)


def corpus_summary(corpus: str, data: Dataset) -> Mapping[str, Any]:
    """The results' `data`: the corpus, its sha256, and the documents and instances built from it."""
    return {
        "corpus": os.path.abspath(corpus),
        "corpus_sha256": sha256(corpus),
        "documents": data.documents,
        "instances": data.instances,
    }
