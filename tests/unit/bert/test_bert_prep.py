"""bert_prep.py (scc.training.bert_prep) and the reading of its shards by pretrain_bert.py (bert_data.py)."""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from scc_training_runtime import bert_corpus, bert_data, bert_prep

from tests.unit.bert.small_run import run_alone, small_run


def write_corpus(directory: Path, files: int, documents: int) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for number in range(files):
        (directory / f"part{number}.txt").write_text(bert_corpus.generate(documents, seed=number))
    return directory


def prepare(corpus: Path, out: Path, nodes: int = 1, **options) -> list[dict]:
    """Every command of a preparation on `nodes` nodes, run in turn -> the shards commands' results."""
    assert bert_prep.main(["vocab", "--corpus", str(corpus), "--out", str(out), "--vocab-size", "1500"]) == 0
    common = ["--corpus", str(corpus), "--out", str(out), "--seq-len", str(options.get("seq_len", 64))]
    results = []
    for node in range(nodes):
        results.append(bert_prep.prepare_node(bert_prep.build_parser().parse_args(
            ["shards", *common, "--node-index", str(node), "--nodes", str(nodes), "--rows-per-shard", "100"]
        )))  # fmt: skip
    bert_prep.build_manifest(bert_prep.build_parser().parse_args(["manifest", *common]))
    return results


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    root = tmp_path_factory.mktemp("prep")
    corpus = write_corpus(root / "corpus", files=3, documents=60)
    results = prepare(corpus, root / "out", nodes=2)
    return corpus, root / "out", results


# --- checks ------------------------------------------------------------------------------------------------------


def test_corpus_problems_name_the_variable(tmp_path):
    assert bert_prep.corpus_problems(str(tmp_path / "absent")) == [
        f"bert_launch_corpus: {tmp_path / 'absent'} does not exist"
    ]
    (tmp_path / "empty").mkdir()
    assert bert_prep.corpus_problems(str(tmp_path / "empty"), "v") == [f"v: {tmp_path / 'empty'} holds no file"]
    (tmp_path / "blank").mkdir()
    (tmp_path / "blank" / "a.txt").write_text("\n\n  \n")
    assert "v: %s is empty (no text in 1 file(s))" % (tmp_path / "blank") in bert_prep.corpus_problems(
        str(tmp_path / "blank"), "v"
    )
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "a.txt").write_bytes(b"good line\n\xff\xfe not text\n")
    (bad / "b.txt").symlink_to(tmp_path / "gone.txt")  # listed, and cannot be opened
    (bad / ".hidden").write_bytes(b"\xff")  # not part of the corpus
    problems = bert_prep.corpus_problems(str(bad), "v")
    assert problems == [
        f"v: {bad / 'a.txt'} is not UTF-8 text (byte 10)",
        f"v: {bad / 'b.txt'} cannot be read (No such file or directory)",
    ]
    assert bert_prep.corpus_problems("", "v") == ["v is empty: name a file or directory of text files"]


# Issue 36: a symlinked subdirectory was left out silently (os.walk does not follow links); bytes that are not UTF-8
# after the 64 KiB the check sampled surfaced later as a bare UnicodeDecodeError.
def test_a_symlinked_subdirectory_is_part_of_the_corpus(tmp_path):
    corpus = write_corpus(tmp_path / "corpus", files=1, documents=2)
    other = write_corpus(tmp_path / "elsewhere" / "more", files=2, documents=2)
    (corpus / "linked").symlink_to(other, target_is_directory=True)
    assert bert_prep.corpus_files(str(corpus)) == [
        str(corpus / "linked" / "part0.txt"),
        str(corpus / "linked" / "part1.txt"),
        str(corpus / "part0.txt"),
    ]
    assert bert_prep.corpus_problems(str(corpus), "v") == []


@pytest.mark.parametrize("target", [".", "..", "sub"])
def test_a_directory_reached_twice_is_refused_not_walked_forever(tmp_path, target):
    corpus = write_corpus(tmp_path / "corpus", files=1, documents=2)
    write_corpus(corpus / "sub", files=1, documents=2)
    (corpus / "sub" / "again").symlink_to(target if target != "sub" else corpus / "sub", target_is_directory=True)
    with pytest.raises(bert_prep.PrepError, match=r"again is .* again \(through a symbolic link"):
        bert_prep.corpus_files(str(corpus))
    (problem,) = bert_prep.corpus_problems(str(corpus), "v")
    assert (
        problem.startswith(f"v: {corpus / 'sub' / 'again'} is ") and "link each directory of the corpus once" in problem
    )
    assert bert_prep.main(["check", "--corpus", str(corpus), "--corpus-var", "v"]) == 0


def test_every_byte_is_checked_and_the_first_bad_one_named(tmp_path, monkeypatch):
    """Small blocks (7 bytes) put characters across block ends: the offset found is the one a whole-file decode finds,
    for many random files of valid multi-byte text with a bad byte anywhere (or none)."""
    monkeypatch.setattr(bert_prep, "READ_BLOCK", 7)
    rng = random.Random(36)
    path = tmp_path / "f.txt"
    for _case_number in range(300):
        data = bytearray("".join(rng.choice("ab é€𝄞\n") for _char_number in range(rng.randint(0, 40))).encode())
        if rng.random() < 0.7:
            data.insert(rng.randint(0, len(data)), rng.choice([0xFF, 0x80, 0xC3, 0xE2, 0xF0]))
        path.write_bytes(bytes(data))
        try:
            bytes(data).decode("utf-8")
            expected = None
        except UnicodeDecodeError as exc:
            expected = f"{path} is not UTF-8 text (byte {exc.start})"
        assert bert_prep.text_problem(str(path))[0] == expected, bytes(data)


def test_bad_bytes_far_past_the_start_are_refused_before_the_vocabulary(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "corpus", files=2, documents=2)
    good = (corpus / "part1.txt").read_bytes()
    (corpus / "part1.txt").write_bytes(good + b"x" * 100 + b"\n" * 70000 + b"caf\xe9\n")  # past 64 KiB
    offset = len(good) + 100 + 70000 + 3
    assert bert_prep.corpus_problems(str(corpus), "v") == [
        f"v: {corpus / 'part1.txt'} is not UTF-8 text (byte {offset})"
    ]
    # The vocabulary step, run anyway, names the file and the line instead of raising UnicodeDecodeError.
    out = tmp_path / "out"
    argv = ["vocab", "--corpus", str(corpus), "--out", str(out), "--vocab-size", "200", "--sample-bytes", str(1 << 30)]
    capsys.readouterr()
    assert bert_prep.main(argv) == 1
    failed = json.loads(capsys.readouterr().out)["failed"]
    assert failed.startswith(f"{corpus / 'part1.txt'}: line ") and failed.endswith(
        " is not UTF-8 (invalid continuation byte)"
    )


def test_a_line_longer_than_the_limit_is_refused_by_number(tmp_path, monkeypatch):
    monkeypatch.setattr(bert_prep, "MAX_LINE_BYTES", 16)
    monkeypatch.setattr(bert_prep, "READ_BLOCK", 5)
    path = tmp_path / "f.txt"
    for lines, bad in [
        (["a" * 16, "b" * 3, "c" * 16], None),
        (["a", "b" * 17], 2),
        (["a" * 40], 1),
        (["", "", "x" * 17, ""], 3),
    ]:
        path.write_text("\n".join(lines) + "\n")
        problem, _text = bert_prep.text_problem(str(path))
        assert problem == (
            None
            if bad is None
            else f"{path}: line {bad} is longer than 0 MiB (one sentence a line, a blank line between documents)"
        )
        if bad is None:
            assert [number for number, _raw in bert_prep.corpus_lines(str(path))] == [1, 2, 3]
        else:
            with pytest.raises(bert_prep.PrepError, match=f"line {bad} is longer"):
                list(bert_prep.corpus_lines(str(path)))


def test_a_corpus_file_is_streamed_never_read_whole(tmp_path, monkeypatch):
    """Every read of a corpus file by the check, the vocabulary sample and the shards asks for a bounded size."""
    corpus = write_corpus(tmp_path / "corpus", files=2, documents=20)
    asked = []

    class Bounded:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def __iter__(self):
            raise AssertionError("a corpus file iterated by line (unbounded)")

        def read(self, size=-1):
            assert size is not None and 0 < size <= max(bert_prep.READ_BLOCK, bert_prep.MAX_LINE_BYTES + 2)
            asked.append(size)
            return self.handle.read(size)

        def readline(self, size=-1):
            assert 0 < size <= bert_prep.MAX_LINE_BYTES + 2
            asked.append(size)
            return self.handle.readline(size)

    real_open = open

    def bounded_open(path, mode="r", *args, **kwargs):
        handle = real_open(path, mode, *args, **kwargs)
        return Bounded(handle) if str(path).startswith(str(corpus)) else handle

    monkeypatch.setattr(bert_prep, "open", bounded_open, raising=False)
    assert bert_prep.corpus_problems(str(corpus), "v") == []
    assert sum(1 for _line in bert_prep.vocab_sample(bert_prep.corpus_files(str(corpus)), 1 << 30)) > 40
    assert len(list(bert_prep.encoded_lines(str(corpus / "part0.txt"), FakeTokenizer(), hashlib.sha256()))) > 20
    assert asked


class FakeTokenizer:
    """STAND-IN for tokenizers' encode_batch: one id per character (the test is about reading, not tokenising)."""

    def encode_batch(self, texts, add_special_tokens=False):
        return [type("Encoding", (), {"ids": [ord(c) for c in text]})() for text in texts]


def test_vocab_problems_need_every_special_token(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("[PAD]\n[UNK]\n[CLS]\nthe\n")
    assert bert_prep.vocab_problems(str(vocab), "v") == [
        f"v: {vocab} lacks the special token(s) [SEP] [MASK] (a WordPiece vocab.txt has all of "
        "[PAD] [UNK] [CLS] [SEP] [MASK])"
    ]
    vocab.write_text("\n".join(bert_prep.SPECIAL_TOKENS) + "\nthe\n")
    assert bert_prep.vocab_problems(str(vocab)) == []
    assert bert_prep.vocab_problems(str(tmp_path / "no.txt")) == [
        f"bert_launch_vocab: {tmp_path / 'no.txt'} does not exist"
    ]
    assert bert_prep.vocab_problems("") == []


# --- instances ---------------------------------------------------------------------------------------------------


def long_documents(count: int, rng: random.Random):
    """Documents of 20-60 sentences of 5-25 distinct tokens: (sentence -> document, its index) known for each."""
    documents, next_token = [], 10
    for _document in range(count):
        document = []
        for _sentence in range(rng.randint(20, 60)):
            length = rng.randint(5, 25)
            document.append(list(range(next_token, next_token + length)))
            next_token += length
        documents.append(document)
    return documents


def test_instances_fit_follow_their_document_and_pad_little():
    rng = random.Random(7)
    documents = long_documents(300, rng)
    builder = bert_prep.InstanceBuilder(128, random.Random(1))
    instances = []
    for document in documents:
        for sentence in document:
            instances.extend(builder.sentence(sentence))
        instances.extend(builder.end_document())
    assert all(a and b and len(a) + len(b) <= 125 for a, b, unused in instances)
    random_next = [label for unused, unused, label in instances]
    assert 0.45 < sum(random_next) / len(random_next) < 0.55
    # Tokens count up through the corpus: "B follows A" is B after A in A's document, "random next" another one.
    document_of = {t: number for number, document in enumerate(documents) for sentence in document for t in sentence}
    for a, b, label in instances:
        assert len({document_of[t] for t in a}) == 1 and len({document_of[t] for t in b}) == 1
        if label == 0:
            assert document_of[b[0]] == document_of[a[0]] and b[0] > a[-1]
        else:
            assert document_of[b[0]] != document_of[a[0]]
    padding = 1 - sum(len(a) + len(b) + 3 for a, b, unused in instances) / (128 * len(instances))
    assert padding < 0.05, padding  # short targets (10%) are most of it
    short = sum(len(a) + len(b) < 100 for a, b, unused in instances) / len(instances)
    assert 0.05 < short < 0.15, short


# --- shards --------------------------------------------------------------------------------------------------------


def test_two_nodes_split_the_files_and_the_manifest_reads_back(prepared):
    corpus, out, results = prepared
    assert [r["files_done"] for r in results] == [["part0.txt", "part2.txt"], ["part1.txt"]]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["files"] == 3 and manifest["documents"] == 180 and manifest["seq_len"] == 64
    assert manifest["dtype"] == "uint16" and manifest["row_width"] == 67
    rows = tokens = 0
    for shard in manifest["shards"]:
        path = out / "shards" / shard["name"]
        assert hashlib.sha256(path.read_bytes()).hexdigest() == shard["sha256"]
        array = np.load(path)
        assert array.shape == (shard["rows"], 67) and shard["rows"] <= 100
        assert int(array[:, 65].sum()) == shard["tokens"]
        rows, tokens = rows + shard["rows"], tokens + shard["tokens"]
    assert rows == manifest["instances"] and tokens == manifest["tokens"]
    assert manifest["padding_fraction"] == pytest.approx(1 - tokens / (rows * 64), abs=1e-6)
    assert [s["source"] for s in manifest["sources"]] == ["part0.txt", "part1.txt", "part2.txt"]
    assert manifest["sources"][1]["sha256"] == hashlib.sha256((corpus / "part1.txt").read_bytes()).hexdigest()


def test_a_killed_node_redoes_only_its_missing_files_with_the_same_bytes(prepared, tmp_path):
    corpus, out, _results = prepared
    before = {p.name: p.read_bytes() for p in (out / "shards").iterdir()}
    manifest_before = (out / "manifest.json").read_bytes()
    # Killed in file 2: its part never written, one of its shards and a temporary file left.
    (out / "parts" / "f00002.json").unlink()
    (out / "shards" / "f00002-0001.npy").unlink()
    (out / "shards" / ".tmp-f00002-0001.npy-x").write_bytes(b"half")
    args = ["shards", "--corpus", str(corpus), "--out", str(out), "--seq-len", "64", "--rows-per-shard", "100"]
    again = bert_prep.prepare_node(bert_prep.build_parser().parse_args([*args, "--node-index", "0", "--nodes", "2"]))
    assert again["files_done"] == ["part2.txt"] and again["files_kept"] == ["part0.txt"]
    assert {p.name: p.read_bytes() for p in (out / "shards").iterdir()} == before
    node1 = bert_prep.prepare_node(bert_prep.build_parser().parse_args([*args, "--node-index", "1", "--nodes", "2"]))
    assert node1["changed"] is False and node1["files_kept"] == ["part1.txt"]
    result = bert_prep.build_manifest(bert_prep.build_parser().parse_args(["manifest", *args[1:7]]))
    assert result["changed"] is False and (out / "manifest.json").read_bytes() == manifest_before
    # A changed source is redone.
    os.utime(corpus / "part1.txt", ns=(1, 1))
    node1 = bert_prep.prepare_node(bert_prep.build_parser().parse_args([*args, "--node-index", "1", "--nodes", "2"]))
    assert node1["files_done"] == ["part1.txt"]


def test_manifest_refuses_missing_files(tmp_path):
    corpus = write_corpus(tmp_path / "corpus", files=2, documents=5)
    out = tmp_path / "out"
    assert bert_prep.main(["vocab", "--corpus", str(corpus), "--out", str(out), "--vocab-size", "300"]) == 0
    assert bert_prep.main(["shards", "--corpus", str(corpus), "--out", str(out), "--nodes", "2"]) == 0
    with pytest.raises(bert_prep.PrepError, match=r"1 of 2 corpus file\(s\) have no shards yet: .*part1.txt"):
        bert_prep.build_manifest(
            bert_prep.build_parser().parse_args(["manifest", "--corpus", str(corpus), "--out", str(out)])
        )


def test_a_given_vocab_is_copied_and_kept(tmp_path):
    corpus = write_corpus(tmp_path / "corpus", files=1, documents=5)
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join([*bert_prep.SPECIAL_TOKENS, "the", "a"]) + "\n")
    first = bert_prep.ensure_vocab(str(corpus), str(tmp_path / "out"), str(vocab), 100, 1000)
    second = bert_prep.ensure_vocab(str(corpus), str(tmp_path / "out"), str(vocab), 100, 1000)
    assert (first["changed"], second["changed"]) == (True, False)
    assert (tmp_path / "out" / "vocab.txt").read_text() == vocab.read_text()


# --- reading: each rank its part, memory-mapped ------------------------------------------------------------------


@pytest.mark.parametrize("shard_rows,world", [([100, 100, 37], 2), ([100, 100, 37], 3), ([40], 4), ([5, 3], 3)])
def test_rank_spans_are_disjoint_and_cover_every_row(shard_rows, world):
    shards = [{"name": f"s{i}", "rows": rows} for i, rows in enumerate(shard_rows)]
    seen = []
    for rank in range(world):
        for name, first, stop, stride in bert_data.rank_spans(shards, rank, world):
            seen.extend((name, row) for row in range(first, stop, stride))
    assert sorted(seen) == sorted((s["name"], r) for s in shards for r in range(s["rows"]))


@pytest.mark.parametrize(
    "shard_rows,world",
    [([40], 4), ([3], 3), ([5, 3], 3), ([2, 2, 1], 4), ([2, 1], 3), ([100, 100, 37], 3), ([10, 20, 30, 40, 50], 2)],
)
def test_every_rank_gets_its_even_share_when_ranks_share_shards(shard_rows, world):
    """One shard shared by several ranks gives each of them rows, within one row of each other (issue 36: a rank
    left with nothing refuses to start, the others wait for it forever)."""
    shards = [{"name": f"s{i}", "rows": rows} for i, rows in enumerate(shard_rows)]
    counts = [
        sum(len(range(first, stop, stride)) for _name, first, stop, stride in bert_data.rank_spans(shards, rank, world))
        for rank in range(world)
    ]
    assert min(counts) >= 1 and sum(counts) == sum(shard_rows), counts
    # A span is never empty: a rank opens (memory-maps) only the shards it reads rows of.
    spans = [span for rank in range(world) for span in bert_data.rank_spans(shards, rank, world)]
    assert all(first < stop for _name, first, stop, _stride in spans), spans
    if len(shard_rows) < world:  # row-strided: even to one row
        assert max(counts) - min(counts) <= 1, counts
    else:  # shard-strided: each rank its own shards
        assert counts == [sum(shard_rows[rank::world]) for rank in range(world)]


def test_prepared_rows_are_the_packed_instances():
    instances = [([5, 6, 7], [8, 9], 0), ([10], [11, 12, 13, 14], 1)]
    packed = bert_data.pack_instances(instances, 12, cls_id=2, sep_id=3, pad_id=0)
    rows = np.zeros((2, 15), dtype=np.int64)
    for row, (a, b, label) in enumerate(instances):
        ids = [2, *a, 3, *b, 3]
        rows[row, : len(ids)] = ids
        rows[row, 12:] = (len(a), len(ids), label)
    tensors = bert_data.rows_to_tensors(rows, 12)
    for name, tensor in packed.items():
        assert torch.equal(tensors[name], tensor), name


def test_batches_of_a_rank_stay_in_its_part_and_resume_where_they_were(prepared):
    _corpus, out, _results = prepared
    data = bert_data.read_prepared(str(out), 1, 2)
    steps = data.instances // 4 + 10  # more than an epoch
    sampler = bert_data.PreparedBatches(data, 0, steps, 4, seed=3)
    keys = [key for batch in sampler for key in batch]
    assert {number for number, unused in keys} == set(range(len(data.spans)))
    assert len(set(keys[: data.instances])) == data.instances  # an epoch visits every row of the part once
    resumed = [key for batch in bert_data.PreparedBatches(data, 25, steps, 4, seed=3) for key in batch]
    assert resumed == keys[25 * 4 :]
    names = {data.spans[number][0] for number, unused in keys}
    other = bert_data.read_prepared(str(out), 0, 2)
    assert names.isdisjoint(span[0] for span in other.spans)


def test_training_on_a_prepared_directory_reports_its_manifest_and_padding(prepared, tmp_path):
    _corpus, out, _results = prepared
    rc = run_alone(small_run(tmp_path, 3, "--prepared", str(out), "--seq-len", "64", "--loader-workers", "0"))
    assert rc == 0
    results = json.loads((tmp_path / "results.json").read_text())
    manifest = json.loads((out / "manifest.json").read_text())
    assert results["status"] == "ok" and len(results["loss"]) == 3
    assert results["data"]["manifest_sha256"] == hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest()
    assert results["data"]["padding_fraction"] == manifest["padding_fraction"]
    assert (
        results["data"]["corpus"] == manifest["corpus"] and results["data"]["rank_instances"] == manifest["instances"]
    )


def test_a_prepared_directory_of_another_sequence_length_is_refused(prepared, tmp_path):
    _corpus, out, _results = prepared
    with pytest.raises(ValueError, match="holds rows of 64 tokens, not --seq-len 32"):
        run_alone(small_run(tmp_path, 2, "--prepared", str(out)))


def test_two_ranks_train_on_their_parts_with_loader_workers(prepared, tmp_path):
    """A DDP job of 2 ranks (DataLoader workers opening the shards memory-mapped in their own processes): both end
    with the same weights, each read only its own shards."""
    from tests.unit.rank_scripts import run_ranks

    _corpus, out, _results = prepared
    argv = small_run(tmp_path, 4, "--prepared", str(out), "--seq-len", "64", "--loader-workers", "1", "--device", "cpu")
    script = Path(__file__).with_name("ddp_rank.py")
    run_ranks(lambda rank: [sys.executable, str(script), str(tmp_path / f"rank{rank}.pt"), "--", *argv], 2)
    ranks = [torch.load(tmp_path / f"rank{rank}.pt") for rank in range(2)]
    assert [r["status"] for r in ranks] == [0, 0]
    for name, tensor in ranks[0]["final"].items():
        assert torch.equal(tensor, ranks[1]["final"][name]), name
    results = json.loads((tmp_path / "results.json").read_text())
    parts = [bert_data.read_prepared(str(out), rank, 2).instances for rank in range(2)]
    assert results["data"]["rank_instances"] == parts[0] and sum(parts) == results["data"]["instances"]


def test_the_preparer_and_the_reader_share_one_copy_of_berts_helpers(tmp_path):
    """bert_prep (the writer) and bert_data (the reader) used to carry their own copies of BERT's truncate_seq_pair,
    the vocab.txt reader and the file digest (two roles' files, shipped apart); in the runtime package bert_prep
    imports bert_data's, so what the one writes the other reads with the very same code."""
    assert bert_prep.truncate_pair is bert_data.truncate_pair and bert_prep.read_vocab is bert_data.read_vocab
    assert bert_prep.sha256_file is bert_data.sha256 and bert_prep.SPECIAL_TOKENS is bert_data.SPECIAL_TOKENS
    for seed in range(20):
        rng = random.Random(seed)
        a, b = list(range(rng.randint(1, 40))), list(range(100, 100 + rng.randint(1, 40)))
        bert_prep.truncate_pair(a, b, 25, random.Random(seed))
        assert len(a) + len(b) <= 25
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("[PAD]\n[UNK]\n\n[CLS]\nhello\n", encoding="utf-8")
    assert bert_prep.read_vocab(str(vocab)) == ["[PAD]", "[UNK]", "[CLS]", "hello"]
    assert bert_prep.sha256_file(str(vocab)) == hashlib.sha256(vocab.read_bytes()).hexdigest()
