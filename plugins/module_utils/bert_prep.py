# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""bert_prep's rules across its variables (its validate.yml), ``bert_prep_input_problems``, and where a corpus's
prepared shards live: ``bert_prepared_root`` (the directory of them all, bert_launch_prepared_dir or its default
under CPFS) and ``bert_prepared_dir`` (one corpus's); bert_prep writes there, bert_launch reads there: one rule for
both.
The corpus and vocabulary themselves are checked on the first node by the role's files/bert_prep.py ``check``.

Pure Python, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json

from ansible_collections.scc.training.plugins.module_utils import input_checks as checks

# files/bert_prep.py's FORMAT: a new format is a new directory.
PREPARED_FORMAT = "bert-prepared-v1"
# Where the prepared directories go under the shared file system when bert_launch_prepared_dir is empty.
PREPARED_UNDER_CPFS = "scc-training/bert/prepared"
# BERT's position embeddings (bert_launch's _bert_launch_seq_len_min/max).
SEQ_LEN_RANGE = (16, 512)

_RULES = (
    (
        "bert_prep_corpus",
        checks.pattern(checks.ABSOLUTE.pattern),
        "an absolute path on the nodes (a file or a directory of text files)",
    ),
    (
        "bert_prep_vocab",
        checks.pattern(r"^(/.*)?$"),
        "empty (train one) or an absolute path of a vocab.txt on the nodes",
    ),
    ("bert_prep_data_dir", checks.pattern(checks.ABSOLUTE.pattern), "an absolute path on the nodes (CPFS)"),
    ("bert_prep_install_dir", checks.pattern(checks.ABSOLUTE.pattern), "an absolute path on the nodes"),
    ("bert_prep_seed", checks.minimum(0), ">= 0"),
    (
        "bert_prep_vocab_size",
        checks.minimum(len(("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")) + 1),
        ">= 6 (the 5 special tokens and a piece)",
    ),
    ("bert_prep_vocab_sample_mb", checks.minimum(1), ">= 1"),
    ("bert_prep_rows_per_shard", checks.minimum(1), ">= 1"),
    ("bert_prep_timeout", checks.minimum(1), ">= 1"),
)


def bert_prep_input_problems(settings):
    """bert_prep's variables -> one sentence per problem, naming the variable ([] when all is well).

    ``settings``: the ``bert_prep_*`` variables, ``group_hosts`` (the hosts of bert_prep_group) and
    ``corpus_variable`` (the variable the corpus came from: bert_launch_corpus when bert_prep_corpus follows it).
    """
    problems = checks.group_problems(settings, "bert_prep_group")
    corpus = checks.text(settings["bert_prep_corpus"])
    if not corpus:
        problems.append(
            "%s is empty: name the corpus (a file or directory of text files on the nodes; the shipped corpus "
            "trains without preparation)." % settings.get("corpus_variable", "bert_prep_corpus")
        )
    problems += checks.rule_problems(settings, _RULES[1:] if not corpus else _RULES)
    low, high = SEQ_LEN_RANGE
    seq_len = checks.number(settings["bert_prep_seq_len"])
    if seq_len is None or not low <= seq_len <= high:
        problems.append("bert_prep_seq_len (%s) must be within [%d, %d]." % (settings["bert_prep_seq_len"], low, high))
    return problems


def bert_prepared_root(prepared_dir, cpfs_path):
    """The directory of the prepared directories: ``prepared_dir`` (bert_launch_prepared_dir), else (empty or None)
    ``<cpfs_path>/scc-training/bert/prepared``. bert_launch's --prepared (training_job.py), its manifest check
    (vars/main.yml) and bert_prep's default of bert_prep_data_dir all take it from here."""
    prepared_dir = checks.text(prepared_dir)
    if prepared_dir:
        return prepared_dir
    return "%s/%s" % (checks.text(cpfs_path).rstrip("/"), PREPARED_UNDER_CPFS)


def bert_prepared_dir(settings):
    """The prepared directory of a corpus: ``data_dir``/<corpus's base name>-<key>, the key a digest of what the
    shards are built from (corpus path, vocabulary path or none, seq_len, seed, format): a change of any of them
    prepares anew, beside the old one.

    ``settings``: ``data_dir``, ``corpus``, ``vocab`` (empty: trained), ``seq_len``, ``seed``.
    """
    corpus = checks.text(settings["corpus"]).rstrip("/")
    key = json.dumps(
        [PREPARED_FORMAT, corpus, checks.text(settings.get("vocab")), int(settings["seq_len"]), int(settings["seed"])]
    )
    name = corpus.rsplit("/", 1)[-1] or "corpus"
    return "%s/%s-%s" % (
        checks.text(settings["data_dir"]).rstrip("/"),
        name,
        hashlib.sha256(key.encode()).hexdigest()[:12],
    )
