"""The data of pretrain_bert.py: the WordPiece vocabulary, next-sentence instances from the
corpus, BERT's masking, and each rank's slice of every step.

- Vocabulary: rank 0 trains a WordPiece vocabulary with tokenizers' BertWordPieceTokenizer on the
  corpus (or reads --vocab) and broadcasts it to every rank: no shared file system is needed, and
  no network access to a model or dataset hub.
- Instances: every rank builds the same ones from one seed (create_instances), packed into
  tensors (pack_instances); batch_indices hands every rank a disjoint slice of a per-epoch
  permutation at each step.
- Prepared data (--prepared, read_prepared): a corpus scc.training.bert_prep tokenised once into fixed-width
  shards on CPFS; each rank reads only its part (rank_spans), memory-mapped (PreparedRows), in a per-epoch
  shuffled order (PreparedBatches).
- Masking (mask_tokens): dynamic, per step: 15% of the non-special tokens, of which 80% become
  [MASK], 10% a random token and 10% stay.

Only load, pack_instances and mask_tokens need torch or tokenizers, and import them when called.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import random
import shutil
import tempfile
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

    # Sync-free (every shape is fixed, no data-dependent branch or boolean indexing), so it runs
    # on the GPU without making the host wait: the fallback pick is drawn for every row and used
    # only by the rows that drew nothing.
    device = input_ids.device
    prob = torch.full(input_ids.shape, probability, device=device).masked_fill_(special_mask, 0.0)
    chosen = torch.bernoulli(prob, generator=generator).bool()
    maskable = ~special_mask
    empty_rows = (~chosen.any(dim=1)) & maskable.any(dim=1)
    scores = torch.rand(input_ids.shape, generator=generator, device=device).masked_fill_(special_mask, -1.0)
    fallback = torch.zeros_like(chosen).scatter_(1, scores.argmax(dim=1, keepdim=True), True)
    chosen |= fallback & empty_rows[:, None]
    labels = torch.where(chosen, input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    draw = torch.rand(input_ids.shape, generator=generator, device=device)
    random_tokens = torch.randint(random_low, vocab_size, input_ids.shape, generator=generator, device=device)
    inputs = torch.where(chosen & (draw < 0.8), torch.full_like(input_ids, mask_id), input_ids)
    inputs = torch.where(chosen & (draw >= 0.8) & (draw < 0.9), random_tokens, inputs)
    return inputs, labels


def max_predictions(seq_len: int, probability: float) -> int:
    """Predicted positions kept per row by the masked-row MLM head: the mean number of chosen
    tokens plus three standard deviations (binomial), so that almost no row loses one."""
    mean = seq_len * probability
    return min(seq_len, math.ceil(mean + 3 * math.sqrt(mean * (1 - probability))))


def masked_positions(labels, count: int):
    """(positions, labels) of shape [rows, count]: each row's predicted positions in order, then
    unpredicted ones (label IGNORE_INDEX) to fill; chosen tokens past `count` are not predicted.
    A fixed shape, so the gather needs no host sync (unlike labels.nonzero())."""
    import torch

    seq_len = labels.shape[1]
    order = torch.arange(seq_len, 0, -1, device=labels.device)
    key = (labels != IGNORE_INDEX).to(order.dtype) * (seq_len + 1) + order
    positions = key.topk(count, dim=1, sorted=True).indices
    return positions, labels.gather(1, positions)


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
    """With --prepared, the prepared directory's vocabulary and this rank's part of its shards (read_prepared).
    Else the vocabulary (rank 0 trains or reads it, `comm` broadcasts it), then the instances.

    `args` holds corpus, vocab, seq_len and seed (pretrain_bert.py's options), and data and
    data_dir: with data "shards" the tokenised, packed instances are read from shards under
    data_dir written by an earlier run (shard_dir), and written there when a rank lacks them.
    """
    if getattr(args, "prepared", ""):
        data = read_prepared(args.prepared, rank, comm.world_size)
        if data.seq_len != args.seq_len:
            raise ValueError(
                f"--prepared {args.prepared} holds rows of {data.seq_len} tokens, not --seq-len {args.seq_len}"
            )
        return data
    if getattr(args, "data", "inline") == "shards":
        directory = shard_dir(args, vocab_size)
        present = comm.all_gather_object(os.path.isfile(os.path.join(directory, "meta.json")))
        if all(present):
            return read_shards(directory)
        data = _tokenise(args, vocab_size, comm, rank)
        if not present[rank]:
            write_shards(directory, data)
        return data
    return _tokenise(args, vocab_size, comm, rank)


def _tokenise(args: Any, vocab_size: int, comm: Any, rank: int) -> Dataset:
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


# Rows per shard file.
SHARD_ROWS = 8192


def shard_dir(args: Any, vocab_size: int) -> str:
    """Where the shards of this corpus, vocabulary, sequence length and seed live under data_dir:
    a key of what they are built from, so that a change of any of them builds new ones."""
    parts = [
        "bert-shards-v1",
        sha256(args.corpus),
        sha256(args.vocab) if args.vocab else f"wordpiece-{vocab_size}",
        str(args.seq_len),
        str(args.seed),
    ]
    return os.path.join(args.data_dir, hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16])


def write_shards(directory: str, data: Dataset) -> None:
    """The packed instances as shard-NNNNN.pt files of SHARD_ROWS rows, with vocab.txt and meta.json,
    built in a temporary directory and renamed into place: a reader sees all of them or none. When
    another rank (a shared file system) renamed first, its copy, built from the same inputs, stays."""
    import torch

    parent = os.path.dirname(os.path.abspath(directory))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".tmp-shards-", dir=parent)
    for number, start in enumerate(range(0, data.instances, SHARD_ROWS)):
        rows = {name: tensor[start : start + SHARD_ROWS].clone() for name, tensor in data.tensors.items()}
        torch.save(rows, os.path.join(tmp, f"shard-{number:05d}.pt"))
    with open(os.path.join(tmp, "vocab.txt"), "w", encoding="utf-8") as handle:
        handle.write("\n".join(data.vocab_tokens) + "\n")
    meta = {"documents": data.documents, "instances": data.instances, "special_ids": data.special_ids}
    with open(os.path.join(tmp, "meta.json"), "w", encoding="utf-8") as handle:
        json.dump(meta, handle)
    try:
        os.rename(tmp, directory)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)


def read_shards(directory: str) -> Dataset:
    import torch

    with open(os.path.join(directory, "meta.json"), encoding="utf-8") as handle:
        meta = json.load(handle)
    names = sorted(n for n in os.listdir(directory) if n.startswith("shard-"))
    shards = [torch.load(os.path.join(directory, n)) for n in names]
    tensors = {name: torch.cat([shard[name] for shard in shards]) for name in shards[0]}
    vocab_tokens = read_vocab(os.path.join(directory, "vocab.txt"))
    return Dataset(vocab_tokens, meta["special_ids"], meta["documents"], meta["instances"], tensors)


class PackedRows:
    """The packed instances as a map-style dataset whose batches are fetched in one indexing
    (DataLoader calls __getitems__ with a batch's indices)."""

    def __init__(self, tensors: Mapping[str, Any]):
        self.tensors = tensors

    def __len__(self) -> int:
        return len(self.tensors["input_ids"])

    def __getitem__(self, index: int):
        return {name: tensor[index] for name, tensor in self.tensors.items()}

    def __getitems__(self, indices: Sequence[int]):
        import torch

        index = torch.as_tensor(indices)
        return {name: tensor[index] for name, tensor in self.tensors.items()}


def whole_batch(batch):
    """DataLoader's collate_fn: PackedRows.__getitems__ made the batch already."""
    return batch


class StepBatches:
    """One rank's batch indices for micro-steps first..last-1: the same slices as batch_indices,
    from a permutation built once per epoch (batch_indices rebuilds it for every batch)."""

    def __init__(self, first: int, last: int, rank: int, batch_size: int, world_size: int, instances: int, seed: int):
        self.first, self.last, self.rank = first, last, rank
        self.batch_size, self.world_size, self.instances, self.seed = batch_size, world_size, instances, seed

    def __len__(self) -> int:
        return self.last - self.first

    def __iter__(self):
        epoch, perm = None, []
        for step in range(self.first, self.last):
            start = step * self.batch_size * self.world_size + self.rank * self.batch_size
            out = []
            for position in range(start, start + self.batch_size):
                this_epoch, offset = divmod(position, self.instances)
                if this_epoch != epoch:
                    epoch, perm = this_epoch, list(range(self.instances))
                    random.Random(self.seed * 1_000_003 + epoch).shuffle(perm)
                out.append(perm[offset])
            yield out


def batches(args: Any, data: Dataset, rank: int, world_size: int, first: int, last: int, pin_memory: bool):
    """Micro-batches first..last-1 of this rank, unmasked, on the host: with --prepared or data "shards" from a
    DataLoader (loader_workers processes, pinned memory on GPUs), else indexed inline each step."""
    prepared = isinstance(data, PreparedData)
    if prepared or getattr(args, "data", "inline") == "shards":
        from torch.utils.data import DataLoader

        if prepared:
            rows, sampler = PreparedRows(data), PreparedBatches(data, first, last, args.batch_size, args.seed + rank)
        else:
            rows = PackedRows(data.tensors)
            sampler = StepBatches(first, last, rank, args.batch_size, world_size, data.instances, args.seed)
        workers = args.loader_workers
        return iter(
            DataLoader(
                rows,
                batch_sampler=sampler,
                collate_fn=whole_batch,
                num_workers=workers,
                pin_memory=pin_memory,
                prefetch_factor=4 if workers else None,
            )
        )
    return _inline_batches(args, data, rank, world_size, first, last)


def _inline_batches(args, data, rank, world_size, first, last):
    import torch

    for step in range(first, last):
        index = torch.tensor(batch_indices(step, rank, args.batch_size, world_size, data.instances, args.seed))
        yield {name: tensor[index] for name, tensor in data.tensors.items()}


def corpus_summary(corpus: str, data: Dataset) -> Mapping[str, Any]:
    """The results' `data`: the corpus, its sha256 (prepared: its manifest's), the documents and instances built
    from it, and the share of the rows' tokens that are padding."""
    if isinstance(data, PreparedData):
        manifest = data.manifest
        return {
            "corpus": manifest["corpus"],
            "prepared": data.directory,
            "manifest_sha256": data.manifest_sha256,
            "documents": manifest["documents"],
            "instances": manifest["instances"],
            "rank_instances": data.instances,
            "padding_fraction": manifest["padding_fraction"],
        }
    attention = data.tensors["attention_mask"]
    return {
        "corpus": os.path.abspath(corpus),
        "corpus_sha256": sha256(corpus),
        "documents": data.documents,
        "instances": data.instances,
        "padding_fraction": round(1 - float(attention.float().mean()), 6) if data.instances else 0.0,
    }


# --- prepared data (scc.training.bert_prep's bert_prep.py: the format is described there) ----------------------

PREPARED_FORMAT = "bert-prepared-v1"
META_COLUMNS = 3  # len(A), real length, next-sentence label, after seq_len tokens


@dataclass
class PreparedData(Dataset):
    """This rank's part of a prepared directory: shards memory-mapped on first use, never read whole."""

    directory: str = ""
    manifest: dict[str, Any] | None = None
    manifest_sha256: str = ""
    seq_len: int = 0
    # This rank's rows: (shard name, first row, stop, stride) spans.
    spans: list[tuple[str, int, int, int]] | None = None


def rank_spans(shards: Sequence[Mapping[str, Any]], rank: int, world_size: int) -> list[tuple[str, int, int, int]]:
    """This rank's part of the shards: every world_size-th shard when each rank gets one, else every
    world_size-th row of every shard (a small corpus). Disjoint across ranks; together, every row."""
    if len(shards) >= world_size:
        return [(s["name"], 0, s["rows"], 1) for s in shards[rank::world_size]]
    spans, offset = [], 0
    for shard in shards:
        first = (rank - offset) % world_size
        if first < shard["rows"]:
            spans.append((shard["name"], first, shard["rows"], world_size))
        offset += shard["rows"]
    return spans


def read_prepared(directory: str, rank: int, world_size: int) -> PreparedData:
    """The manifest and vocabulary of a prepared directory, and this rank's spans (no shard is opened here)."""
    path = os.path.join(directory, "manifest.json")
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"--prepared {directory}: no manifest.json (prepare the corpus first: playbooks/prepare_bert.yml)"
        )
    with open(path, "rb") as handle:
        raw = handle.read()
    manifest = json.loads(raw)
    if manifest.get("format") != PREPARED_FORMAT:
        raise ValueError(f"--prepared {directory}: format {manifest.get('format')!r}, not {PREPARED_FORMAT}")
    spans = rank_spans(manifest["shards"], rank, world_size)
    rows = sum(len(range(first, stop, stride)) for unused, first, stop, stride in spans)
    if not rows:
        raise ValueError(f"--prepared {directory}: {manifest['instances']} instances leave none for rank {rank}")
    return PreparedData(
        vocab_tokens=read_vocab(os.path.join(directory, "vocab.txt")),
        special_ids=dict(manifest["special_ids"]),
        documents=manifest["documents"],
        instances=rows,
        tensors={},
        directory=os.path.abspath(directory),
        manifest=manifest,
        manifest_sha256=hashlib.sha256(raw).hexdigest(),
        seq_len=manifest["seq_len"],
        spans=spans,
    )


class PreparedBatches:
    """Batches of (span, row) keys for micro-steps first..last-1: per epoch the spans in a shuffled order, each
    span's rows shuffled; batches run on across spans. Memory: one span's permutation (a shard's rows)."""

    def __init__(self, data: PreparedData, first: int, last: int, batch_size: int, seed: int):
        self.spans, self.first, self.last, self.batch_size, self.seed = data.spans, first, last, batch_size, seed

    def __len__(self) -> int:
        return self.last - self.first

    def _keys(self):
        epoch = 0
        while True:
            rng = random.Random(self.seed * 1_000_003 + epoch)
            order = list(range(len(self.spans)))
            rng.shuffle(order)
            for number in order:
                first, stop, stride = self.spans[number][1:]
                rows = list(range(first, stop, stride))
                rng.shuffle(rows)
                for row in rows:
                    yield number, row
            epoch += 1

    def __iter__(self):
        # The keys of the steps done before a resume are skipped (_keys never ends).
        keys = itertools.islice(self._keys(), self.first * self.batch_size, None)
        for _step in range(self.first, self.last):
            yield list(itertools.islice(keys, self.batch_size))


class PreparedRows:
    """The rows of a PreparedData as the five tensors pack_instances gives; each shard opened with numpy's
    memmap on first use, in the process that reads it (a DataLoader worker opens its own)."""

    def __init__(self, data: PreparedData):
        self.directory, self.spans, self.seq_len = data.directory, data.spans, data.seq_len
        self._open: dict[int, Any] = {}

    def __len__(self) -> int:
        return sum(len(range(first, stop, stride)) for unused, first, stop, stride in self.spans)

    def _shard(self, number: int):
        if number not in self._open:
            import numpy as np

            self._open[number] = np.load(os.path.join(self.directory, "shards", self.spans[number][0]), mmap_mode="r")
        return self._open[number]

    def __getitems__(self, keys: Sequence[tuple[int, int]]):
        import numpy as np

        rows = np.stack([self._shard(number)[row] for number, row in keys]).astype(np.int64)
        return rows_to_tensors(rows, self.seq_len)


def rows_to_tensors(rows, seq_len: int) -> dict[str, Any]:
    """Prepared rows ([n, seq_len + 3]: tokens, len(A), length, label) -> pack_instances's tensors."""
    import torch

    rows = torch.from_numpy(rows)
    a_len, length = rows[:, seq_len : seq_len + 1], rows[:, seq_len + 1 : seq_len + 2]
    position = torch.arange(seq_len)[None, :]
    in_row = position < length
    segment_a = (position >= 1) & (position < a_len + 1)
    segment_b = (position >= a_len + 2) & (position < length - 1)
    return {
        "input_ids": rows[:, :seq_len].contiguous(),
        "token_type_ids": ((position >= a_len + 2) & in_row).long(),
        "attention_mask": in_row.long(),
        "special_mask": ~(segment_a | segment_b),
        "nsp_labels": rows[:, seq_len + 2].contiguous(),
    }
