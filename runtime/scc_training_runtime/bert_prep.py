"""BERT pretraining data, prepared once: a text corpus to fixed-width token shards (scc.training.bert_prep).

The corpus is the format google-research/bert's create_pretraining_data.py reads: plain-text files, one
sentence a line, a blank line between documents; a file or a directory of them (every regular, non-hidden
file under it, sorted by relative path). Every node runs this on its own files (file j of the sorted list
goes to node j mod N), all at once, onto one output directory on CPFS:

    vocab.txt                the WordPiece vocabulary (copied from --vocab, or trained once on a sample)
    shards/fNNNNN-KKKK.npy   fixed-width rows of file NNNNN: numpy .npy of [rows, seq_len + 3] (uint16 when the
                             vocabulary fits, else int32): the tokens [CLS] A [SEP] B [SEP] then [PAD]s, then
                             three columns: len(A), the row's real length, the next-sentence label (1: random)
    parts/fNNNNN.json        written last for a file: its source (size, mtime, sha256) and its shards (sha256
                             read back from disk, rows, real tokens): a file with a part is never redone
    manifest.json            (the "manifest" command, once every file has its part) every shard in order

Nothing is written in place: a shard goes to a temporary file in the same directory, then os.replace, so a
killed node leaves whole shards or none, and its re-run redoes only the files without a part.

Instances are built as create_pretraining_data.py builds them (Devlin et al. 2019, google-research/bert):
sentences of a document fill a chunk up to the target length (seq_len - 3; with probability 0.1 a short target
drawn from [2, seq_len - 3]), split at a random sentence into A and B; half the time B is replaced by a span of
another document (label 1). Masking is not done here: the trainer masks at every step (dynamic masking).
Two differences, both to stream and to pad less (the trainer's padding is the rows' empty tail):
- "another document" is one of a bounded pool of earlier documents (POOL_DOCUMENTS, their first
  POOL_SENTENCES sentences), not any document of the corpus (which would hold the corpus in memory);
- a document's last chunk, when short of the target, is all A and gets a random-next B filled up to the target
  (BERT emits it short, as padding), and a random span starts where enough of its document follows.
- the short target is drawn per chunk (BERT: per document), so that 10% of the rows, not of the documents, are short.

Streaming: lines are read one at a time and tokenised in batches of ENCODE_BATCH, rows go into one fixed
buffer of --rows-per-shard rows: memory does not grow with the corpus or its files.

    bert_prep.py check --corpus C [--vocab V]          problems of the corpus and vocabulary (JSON)
    bert_prep.py vocab --corpus C --out D [--vocab V]  D/vocab.txt, copied or trained once on a sample
    bert_prep.py shards --corpus C --out D --node-index I --nodes N --seq-len L --seed S
    bert_prep.py manifest --corpus C --out D           D/manifest.json from every file's part

Each command prints one JSON object (with "changed") on stdout; exit status 0, or 1 with {"failed": ...}.
It needs numpy and tokenizers (the training venv's).
"""

from __future__ import annotations

import argparse
import array
import codecs
import hashlib
import itertools
import json
import os
import random
import resource
import sys
import tempfile
import time
from typing import Any, Iterable, Iterator

# What bert_launch's reader (bert_data) and this writer must agree on, written once: BERT's special tokens, its
# truncate_seq_pair, the vocab.txt reader and the file digest.
from .bert_data import SPECIAL_TOKENS, read_vocab, truncate_pair
from .bert_data import sha256 as sha256_file

FORMAT = "bert-prepared-v1"
META_COLUMNS = 3  # len(A), real length, next-sentence label
ENCODE_BATCH = 1024
POOL_DOCUMENTS = 128
POOL_SENTENCES = 32
SHORT_SEQ_PROB = 0.1  # create_pretraining_data.py's --short_seq_prob default
ROWS_PER_SHARD = 8192
VOCAB_SAMPLE_BYTES = 100 << 20


class PrepError(Exception):
    """A problem the user must fix, worded for them."""


# --- the corpus and the vocabulary -----------------------------------------------------------------------------


def corpus_files(corpus: str) -> list[str]:
    """The corpus's files: itself, or every regular non-hidden file under the directory, sorted by relative path.

    A subdirectory that is a symbolic link is followed like any other (os.walk alone would leave it out silently);
    a directory reached twice, through a loop or a second link to it, is refused (PrepError): its files would be
    read forever, or twice."""
    if os.path.isfile(corpus):
        return [corpus]
    found = []
    seen: dict[tuple[int, int], str] = {}
    for root, dirs, files in os.walk(corpus, followlinks=True, onerror=_walk_error):
        status = os.stat(root)
        key = (status.st_dev, status.st_ino)
        if key in seen:
            raise PrepError(
                f"{root} is {seen[key]} again (through a symbolic link: a loop, or a second path to the same "
                "files); link each directory of the corpus once"
            )
        seen[key] = root
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found.extend(os.path.join(root, f) for f in files if not f.startswith("."))
    return sorted(found, key=lambda path: os.path.relpath(path, corpus))


def _walk_error(exc: OSError) -> None:
    """os.walk's onerror: a directory that cannot be listed is refused, never left out."""
    raise PrepError(f"{exc.filename} cannot be listed ({exc.strerror})")


# A sentence a line: a longer line is no sentence (a file without line ends, or binary data); the readers take a
# line at most this long, so that no corpus file is ever read whole into memory.
MAX_LINE_BYTES = 1 << 20
READ_BLOCK = 1 << 20


def text_problem(path: str) -> tuple[str | None, bool]:
    """(what is wrong with the file as corpus text, or None; whether it holds any text), every byte read once, a
    block at a time (never the whole file): not UTF-8 (the offset of the first bad byte), or a line longer than
    MAX_LINE_BYTES (its number). Linear in the file's size, the per-line work in C (bytes.split, len)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = carry = 0  # bytes read before this block; bytes of the current line so far
    line = 1
    text = False
    too_long = (
        f"line %d is longer than {MAX_LINE_BYTES >> 20} MiB (one sentence a line, a blank line between documents)"
    )
    with open(path, "rb") as handle:
        while True:
            block = handle.read(READ_BLOCK)
            pending = len(decoder.getstate()[0])
            try:
                chunk = decoder.decode(block, final=not block)
            except UnicodeDecodeError as exc:
                return f"{path} is not UTF-8 text (byte {offset - pending + exc.start})", text
            if not block:
                return None, text
            text = text or bool(chunk.strip())
            parts = block.split(b"\n")
            if carry + len(parts[0]) > MAX_LINE_BYTES:
                return f"{path}: {too_long % line}", text
            if len(parts) > 1:
                middle = parts[1:-1]
                if middle and max(map(len, middle)) > MAX_LINE_BYTES:
                    first = next(i for i, piece in enumerate(middle) if len(piece) > MAX_LINE_BYTES)
                    return f"{path}: {too_long % (line + 1 + first)}", text
                line += len(parts) - 1
                carry = len(parts[-1])
                if carry > MAX_LINE_BYTES:
                    return f"{path}: {too_long % line}", text
            else:
                carry += len(block)
            offset += len(block)


def corpus_problems(corpus: str, corpus_var: str = "bert_launch_corpus") -> list[str]:
    """What is wrong with the corpus: missing, no file, a directory reached twice, unreadable, not UTF-8 (every byte
    of every file, streamed), a line too long, empty."""
    if not corpus:
        return [f"{corpus_var} is empty: name a file or directory of text files"]
    if not os.path.exists(corpus):
        return [f"{corpus_var}: {corpus} does not exist"]
    try:
        files = corpus_files(corpus)
    except PrepError as exc:
        return [f"{corpus_var}: {exc}"]
    if not files:
        return [f"{corpus_var}: {corpus} holds no file"]
    problems, text = [], False
    for path in files:
        try:
            problem, has_text = text_problem(path)
        except OSError as exc:
            problems.append(f"{corpus_var}: {path} cannot be read ({exc.strerror})")
            continue
        if problem:
            problems.append(f"{corpus_var}: {problem}")
        text = text or has_text
    if not problems and not text:
        problems.append(f"{corpus_var}: {corpus} is empty (no text in {len(files)} file(s))")
    return problems


def corpus_lines(path: str) -> Iterator[tuple[int, bytes]]:
    """(line number, the line's bytes with its end) of a corpus file, one line at a time, each at most
    MAX_LINE_BYTES: a longer one is refused (PrepError), never read whole."""
    with open(path, "rb") as handle:
        for number in itertools.count(1):
            raw = handle.readline(MAX_LINE_BYTES + 2)
            if not raw:
                return
            if len(raw) - raw.endswith(b"\n") > MAX_LINE_BYTES:
                raise PrepError(
                    f"{path}: line {number} is longer than {MAX_LINE_BYTES >> 20} MiB (one sentence a line)"
                )
            yield number, raw


def decoded(path: str, number: int, raw: bytes) -> str:
    """A corpus line as text; PrepError naming the file and the line when it is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PrepError(f"{path}: line {number} is not UTF-8 ({exc.reason})") from exc


def vocab_problems(vocab: str, vocab_var: str = "bert_launch_vocab") -> list[str]:
    """What is wrong with a vocab.txt: missing, unreadable, or without one of BERT's special tokens."""
    if not vocab:
        return []
    try:
        tokens = set(read_vocab(vocab))
    except FileNotFoundError:
        return [f"{vocab_var}: {vocab} does not exist"]
    except (OSError, UnicodeDecodeError) as exc:
        return [f"{vocab_var}: {vocab} cannot be read ({exc})"]
    missing = [t for t in SPECIAL_TOKENS if t not in tokens]
    if missing:
        return [
            f"{vocab_var}: {vocab} lacks the special token(s) {' '.join(missing)} (a WordPiece vocab.txt has all of {' '.join(SPECIAL_TOKENS)})"
        ]
    return []


def _write_atomic(path: str, data: bytes) -> None:
    """data to path through a temporary file in its directory and os.replace: never a half-written file."""
    fd, tmp = tempfile.mkstemp(prefix=f".tmp-{os.path.basename(path)}-", dir=os.path.dirname(path))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def vocab_sample(files: list[str], budget: int) -> Iterator[str]:
    """Whole lines from the start of every file, budget/len(files) bytes of each: a sample of every part."""
    share = max(1, budget // len(files))
    for path in files:
        taken = 0
        for number, raw in corpus_lines(path):
            taken += len(raw)
            yield decoded(path, number, raw)
            if taken >= share:
                break


def ensure_vocab(corpus: str, out: str, vocab: str, vocab_size: int, sample_bytes: int) -> dict[str, Any]:
    """out/vocab.txt: a copy of vocab, or (when there is none yet) one trained on a sample of the corpus."""
    os.makedirs(out, exist_ok=True)
    target = os.path.join(out, "vocab.txt")
    if vocab:
        with open(vocab, "rb") as handle:
            data = handle.read()
        if os.path.isfile(target) and sha256_file(target) == hashlib.sha256(data).hexdigest():
            return {"changed": False, "vocab": target, "source": vocab}
        _write_atomic(target, data)
        return {"changed": True, "vocab": target, "source": vocab}
    if os.path.isfile(target):
        return {"changed": False, "vocab": target, "source": "trained"}
    from tokenizers import BertWordPieceTokenizer

    tokenizer = BertWordPieceTokenizer(lowercase=True)
    tokenizer.train_from_iterator(
        vocab_sample(corpus_files(corpus), sample_bytes),
        vocab_size=vocab_size,
        min_frequency=2,
        special_tokens=list(SPECIAL_TOKENS),
        show_progress=False,
    )
    tokens = [token for token, unused in sorted(tokenizer.get_vocab().items(), key=lambda kv: kv[1])]
    _write_atomic(target, ("\n".join(tokens) + "\n").encode())
    return {"changed": True, "vocab": target, "source": "trained", "pieces": len(tokens)}


# --- instances ------------------------------------------------------------------------------------------------


class InstanceBuilder:
    """Next-sentence instances from a stream of sentences (token id lists) and document ends; see the module."""

    def __init__(self, seq_len: int, rng: random.Random, short_seq_prob: float = SHORT_SEQ_PROB):
        self.max_tokens = seq_len - 3  # [CLS] A [SEP] B [SEP]
        self.rng, self.short_seq_prob = rng, short_seq_prob
        self.pool: list[list[array.array]] = []
        self.chunk: list[array.array] = []
        self.length = 0
        self.head: list[array.array] = []  # the current document's first sentences, for the pool
        self.emitted = self.tails = 0
        self.target = self._draw_target()

    def _draw_target(self) -> int:
        if self.rng.random() < self.short_seq_prob:
            return self.rng.randint(2, self.max_tokens)
        return self.max_tokens

    def sentence(self, ids: Iterable[int]) -> Iterator[tuple[list[int], list[int], int]]:
        sentence = array.array("i", ids)[: self.max_tokens]
        if len(self.head) < POOL_SENTENCES:
            self.head.append(sentence)
        self.chunk.append(sentence)
        self.length += len(sentence)
        if self.length >= self.target:
            yield from self._emit(document_end=False)

    def end_document(self) -> Iterator[tuple[list[int], list[int], int]]:
        while self.chunk:
            yield from self._emit(document_end=True)
        if self.head:
            if len(self.pool) < POOL_DOCUMENTS:
                self.pool.append(self.head)
            else:
                self.pool[self.rng.randrange(POOL_DOCUMENTS)] = self.head
        self.head = []

    def _random_span(self, want: int) -> list[int]:
        """A span of a pool document from a random sentence, want tokens when the document has them after it."""
        document = self.rng.choice(self.pool)
        remaining, starts = 0, []
        for index in range(len(document) - 1, -1, -1):
            remaining += len(document[index])
            if remaining >= want:
                starts.append(index)
        start = self.rng.choice(starts) if starts else 0
        span: list[int] = []
        for sentence in document[start:]:
            span.extend(sentence)
            if len(span) >= want:
                break
        return span

    def _emit(self, document_end: bool) -> Iterator[tuple[list[int], list[int], int]]:
        chunk, rng = self.chunk, self.rng
        short_tail = document_end and self.length < self.target
        if short_tail and self.pool:
            split = len(chunk)
        else:
            split = rng.randint(1, len(chunk) - 1) if len(chunk) >= 2 else 1
        a = [t for sentence in chunk[:split] for t in sentence]
        leftover: list[array.array] = []
        # Short tails always take a random next: the other chunks take one with the probability that brings the
        # share of random nexts to 0.5 (BERT's), as far as the documents allow (tails under half the instances).
        tails = min(0.5, self.tails / self.emitted) if self.emitted else 0.0
        random_next_prob = (0.5 - tails) / (1 - tails)
        self.emitted += 1
        self.tails += short_tail
        if self.pool and (len(chunk) == 1 or short_tail or rng.random() < random_next_prob):
            label, b = 1, self._random_span(max(1, self.target - len(a)))
            leftover = chunk[split:]  # put the unused sentences back (as BERT does)
        else:
            label, b = 0, [t for sentence in chunk[split:] for t in sentence]
        self.chunk, self.length = leftover, sum(len(s) for s in leftover)
        self.target = self._draw_target()
        if a and b:
            truncate_pair(a, b, self.max_tokens, rng)
            yield a, b, label


# --- the shards of one file ----------------------------------------------------------------------------------


def encoded_lines(path: str, tokenizer, digest) -> Iterator[list[int] | None]:
    """Token ids of each sentence, None at each document end (and at the file's end), in order; the file's bytes
    go into digest on the way."""
    batch: list[str | None] = []

    def flush():
        texts = [t for t in batch if t is not None]
        encoded = tokenizer.encode_batch(texts, add_special_tokens=False) if texts else []
        position = 0
        for item in batch:
            if item is None:
                yield None
            else:
                yield encoded[position].ids
                position += 1

    for number, raw in corpus_lines(path):
        digest.update(raw)
        line = decoded(path, number, raw).strip()
        batch.append(line or None)
        if len(batch) >= ENCODE_BATCH:
            yield from flush()
            batch = []
    batch.append(None)
    yield from flush()


class ShardWriter:
    """Rows into one fixed buffer; a full buffer becomes a shard (temporary file, fsync, rename, read back)."""

    def __init__(self, directory: str, stem: str, seq_len: int, rows: int, dtype, ids: dict[str, int]):
        import numpy as np

        self.directory, self.stem, self.seq_len = directory, stem, seq_len
        self.buffer = np.zeros((rows, seq_len + META_COLUMNS), dtype=dtype)
        self.ids, self.count, self.tokens, self.random_next = ids, 0, 0, 0
        self.shards: list[dict[str, Any]] = []

    def add(self, a: list[int], b: list[int], label: int) -> None:
        row = self.buffer[self.count]
        ids = [self.ids["[CLS]"], *a, self.ids["[SEP]"], *b, self.ids["[SEP]"]]
        row[: len(ids)] = ids
        row[len(ids) : self.seq_len] = self.ids["[PAD]"]
        row[self.seq_len :] = (len(a), len(ids), label)
        self.count += 1
        self.tokens += len(ids)
        self.random_next += label
        if self.count == len(self.buffer):
            self.flush()

    def flush(self) -> None:
        import io

        import numpy as np

        if not self.count:
            return
        name = f"{self.stem}-{len(self.shards):04d}.npy"
        out = io.BytesIO()
        np.save(out, self.buffer[: self.count])
        path = os.path.join(self.directory, name)
        _write_atomic(path, out.getvalue())
        digest = sha256_file(path)  # read back from disk, not the buffer
        if digest != hashlib.sha256(out.getvalue()).hexdigest():
            raise PrepError(f"{path}: read back differs from what was written")
        rows = self.buffer[: self.count]
        tokens = int(rows[:, self.seq_len + 1].sum())
        self.shards.append({"name": name, "sha256": digest, "rows": self.count, "tokens": tokens, "bytes": out.tell()})
        self.count = 0


def _dtype(vocab_size: int):
    import numpy as np

    return np.uint16 if vocab_size <= np.iinfo(np.uint16).max else np.int32


def _part_is_current(part_path: str, source: str, shards_dir: str) -> bool:
    try:
        with open(part_path, encoding="utf-8") as handle:
            part = json.load(handle)
    except (OSError, ValueError):
        return False
    stat = os.stat(source)
    if (part.get("size"), part.get("mtime_ns")) != (stat.st_size, stat.st_mtime_ns):
        return False
    for shard in part.get("shards", []):
        path = os.path.join(shards_dir, shard["name"])
        if not os.path.isfile(path) or os.path.getsize(path) != shard["bytes"]:
            return False
    return True


def prepare_file(index: int, source: str, relpath: str, out: str, tokenizer, ids, args) -> dict[str, Any]:
    """Every shard of one corpus file, then its part (the file's record, written last)."""
    shards_dir = os.path.join(out, "shards")
    stem = f"f{index:05d}"
    for name in os.listdir(shards_dir):  # a killed run's shards and temporary files of this file
        if name.startswith((f"{stem}-", f".tmp-{stem}-")):
            os.unlink(os.path.join(shards_dir, name))
    stat = os.stat(source)
    digest = hashlib.sha256()
    rng = random.Random(f"{args.seed}:{relpath}")  # str seeds hash with SHA-512: the same on every host
    builder = InstanceBuilder(args.seq_len, rng, args.short_seq_prob)
    writer = ShardWriter(shards_dir, stem, args.seq_len, args.rows_per_shard, _dtype(len(tokenizer.get_vocab())), ids)
    documents, in_document = 0, False
    for ids_or_end in encoded_lines(source, tokenizer, digest):
        if ids_or_end is None:
            documents += in_document
            in_document = False
            instances = builder.end_document()
        elif ids_or_end:
            in_document = True
            instances = builder.sentence(ids_or_end)
        else:
            continue
        for a, b, label in instances:
            writer.add(a, b, label)
    writer.flush()
    part = {
        "source": relpath,
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
        "sha256": digest.hexdigest(),
        "documents": documents,
        "instances": sum(s["rows"] for s in writer.shards),
        "tokens": sum(s["tokens"] for s in writer.shards),
        "random_next": writer.random_next,
        "shards": writer.shards,
    }
    _write_atomic(os.path.join(out, "parts", f"{stem}.json"), json.dumps(part, indent=1).encode())
    return part


def prepare_node(args) -> dict[str, Any]:
    """This node's files (j mod nodes == node_index) that have no current part."""
    from tokenizers import BertWordPieceTokenizer

    started = time.monotonic()
    files = corpus_files(args.corpus)
    vocab_path = os.path.join(args.out, "vocab.txt")
    vocab_tokens = read_vocab(vocab_path)
    vocab = {token: index for index, token in enumerate(vocab_tokens)}
    missing = [t for t in SPECIAL_TOKENS if t not in vocab]
    if missing:
        raise PrepError(f"{vocab_path} lacks {' '.join(missing)}")
    tokenizer = BertWordPieceTokenizer(vocab=vocab, lowercase=True)
    ids = {token: vocab[token] for token in SPECIAL_TOKENS}
    for sub in ("shards", "parts"):
        os.makedirs(os.path.join(args.out, sub), exist_ok=True)
    done, kept = [], []
    rows = tokens = 0
    for index, source in enumerate(files):
        if index % args.nodes != args.node_index:
            continue
        relpath = os.path.relpath(source, args.corpus) if os.path.isdir(args.corpus) else os.path.basename(source)
        if _part_is_current(
            os.path.join(args.out, "parts", f"f{index:05d}.json"), source, os.path.join(args.out, "shards")
        ):
            kept.append(relpath)
            continue
        part = prepare_file(index, source, relpath, args.out, tokenizer, ids, args)
        done.append(relpath)
        rows += part["instances"]
        tokens += part["tokens"]
    seconds = time.monotonic() - started
    return {
        "changed": bool(done),
        "files_done": done,
        "files_kept": kept,
        "instances": rows,
        "tokens": tokens,
        "seconds": round(seconds, 3),
        "tokens_per_second": round(tokens / seconds, 1) if done and seconds > 0 else 0,
        "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,  # Linux: KiB
    }


# --- the manifest ---------------------------------------------------------------------------------------------


def build_manifest(args) -> dict[str, Any]:
    """manifest.json from every file's part, in the files' order (rewritten only when it changes)."""
    files = corpus_files(args.corpus)
    parts, missing = [], []
    for index, source in enumerate(files):
        path = os.path.join(args.out, "parts", f"f{index:05d}.json")
        if not os.path.isfile(path):
            missing.append(source)
            continue
        with open(path, encoding="utf-8") as handle:
            parts.append(json.load(handle))
    if missing:
        raise PrepError(f"{len(missing)} of {len(files)} corpus file(s) have no shards yet: {', '.join(missing[:5])}")
    vocab_path = os.path.join(args.out, "vocab.txt")
    vocab_tokens = read_vocab(vocab_path)
    instances = sum(p["instances"] for p in parts)
    tokens = sum(p["tokens"] for p in parts)
    import numpy as np

    manifest = {
        "format": FORMAT,
        "corpus": os.path.abspath(args.corpus),
        "seq_len": args.seq_len,
        "seed": args.seed,
        "short_seq_prob": args.short_seq_prob,
        "dtype": np.dtype(_dtype(len(vocab_tokens))).name,
        "row_width": args.seq_len + META_COLUMNS,
        "vocab_sha256": sha256_file(vocab_path),
        "vocab_pieces": len(vocab_tokens),
        "special_ids": {t: vocab_tokens.index(t) for t in SPECIAL_TOKENS},
        "files": len(parts),
        "documents": sum(p["documents"] for p in parts),
        "instances": instances,
        "tokens": tokens,
        "padding_fraction": round(1 - tokens / (instances * args.seq_len), 6) if instances else 0.0,
        "random_next_fraction": round(sum(p["random_next"] for p in parts) / instances, 6) if instances else 0.0,
        "sources": [{key: p[key] for key in ("source", "size", "sha256", "documents", "instances")} for p in parts],
        "shards": [{key: s[key] for key in ("name", "sha256", "rows", "tokens")} for p in parts for s in p["shards"]],
    }
    if not instances:
        raise PrepError(f"{args.corpus}: no instance (every document shorter than two sentences?)")
    data = (json.dumps(manifest, indent=1) + "\n").encode()
    path = os.path.join(args.out, "manifest.json")
    changed = not (os.path.isfile(path) and sha256_file(path) == hashlib.sha256(data).hexdigest())
    if changed:
        _write_atomic(path, data)
    summary = {k: manifest[k] for k in ("files", "documents", "instances", "tokens", "padding_fraction")}
    return dict(
        summary,
        changed=changed,
        manifest=path,
        manifest_sha256=hashlib.sha256(data).hexdigest(),
        shards=len(manifest["shards"]),
    )


# --- command line --------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    commands = {name: sub.add_parser(name) for name in ("check", "vocab", "shards", "manifest")}
    for name, command in commands.items():
        command.add_argument("--corpus", required=True)
        if name != "check":
            command.add_argument("--out", required=True, help="the prepared directory (CPFS)")
    for name in ("check", "vocab"):
        commands[name].add_argument("--vocab", default="")
    commands["check"].add_argument("--corpus-var", default="bert_launch_corpus", help="the variable named in problems")
    commands["check"].add_argument("--vocab-var", default="bert_launch_vocab")
    commands["vocab"].add_argument("--vocab-size", type=int, default=30522)
    commands["vocab"].add_argument("--sample-bytes", type=int, default=VOCAB_SAMPLE_BYTES)
    for name in ("shards", "manifest"):
        commands[name].add_argument("--seq-len", type=int, default=128)
        commands[name].add_argument("--seed", type=int, default=1234)
        commands[name].add_argument("--short-seq-prob", type=float, default=SHORT_SEQ_PROB)
    commands["shards"].add_argument("--node-index", type=int, default=0)
    commands["shards"].add_argument("--nodes", type=int, default=1)
    commands["shards"].add_argument("--rows-per-shard", type=int, default=ROWS_PER_SHARD)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        if args.command == "check":
            problems = corpus_problems(args.corpus, args.corpus_var) + vocab_problems(args.vocab, args.vocab_var)
            files = corpus_files(args.corpus) if not problems else []
            result = {"changed": False, "problems": problems, "files": len(files)}
            result["bytes"] = sum(os.path.getsize(f) for f in files)
        elif args.command == "vocab":
            result = ensure_vocab(args.corpus, args.out, args.vocab, args.vocab_size, args.sample_bytes)
        elif args.command == "shards":
            if not 0 <= args.node_index < args.nodes:
                raise PrepError(f"--node-index {args.node_index} is not within [0, {args.nodes})")
            result = prepare_node(args)
        else:
            result = build_manifest(args)
    except (PrepError, OSError) as exc:
        print(json.dumps({"changed": False, "failed": str(exc)}))
        return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
