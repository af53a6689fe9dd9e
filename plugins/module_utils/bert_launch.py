# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""bert_launch's rules across its variables (its validate.yml): ``bert_launch_input_problems``.

Pure Python, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.scc.training.plugins.module_utils.bert_levers import LEVERS, lever_problems
from ansible_collections.scc.training.plugins.module_utils.cluster import (
    address_or_name_problems,
    consumed_host_problems,
)
from ansible_collections.scc.training.plugins.module_utils.input_checks import (
    ABSOLUTE,
    ENV_NAME,
    absolute_path_problems,
    at_least,
    env_value_problems,
    is_port,
    matches,
    number,
    positive,
    secret_env_problems,
    text,
    whole_number,
)
from ansible_collections.scc.training.plugins.module_utils.mpi import framework_problems

# A value >= 1, or >= 0, and what it means where that needs saying.
_AT_LEAST = {
    "bert_launch_steps": 1,
    "bert_launch_omp_num_threads": 1,
    "bert_launch_timeout": 1,
    "bert_launch_np": 0,
    "bert_launch_seed": 0,
    "bert_launch_checkpoint_every": 0,
}
_MEANING = {"bert_launch_np": " (0: the hostfile's slots)"}
# Names, addresses and paths: (variable, pattern, what it must be).
_PATTERNS = (
    ("bert_launch_tcp_interface", r"^[A-Za-z0-9_.:-]{1,15}$", "an interface name such as eth0, bond0 or lo"),
    ("bert_launch_map_by", r"^[a-z]+(:[A-Za-z0-9=,:]+)?$", "an mpirun --map-by value such as slot, node or ppr:8:node"),
    ("bert_launch_run_id", r"^[A-Za-z0-9._-]*$", "empty or letters, digits, '.', '_' and '-'"),
    ("bert_launch_aiacc_env_file", ABSOLUTE.pattern, "an absolute path"),
    ("bert_launch_data_dir", "^(auto$|%s)" % ABSOLUTE.pattern[1:], "auto or an absolute path"),
    ("bert_launch_checkpoint_dir", "^(auto$|%s)" % ABSOLUTE.pattern[1:], "auto or an absolute path"),
)


def _group_problems(settings):
    group, hosts = settings["bert_launch_group"], list(settings["group_hosts"])
    size = len(hosts)
    if size < 1:
        return ["bert_launch_group: the inventory group '%s' has no hosts; its first host launches mpirun." % group]
    # The names reach the hostfile, getent's and mpirun's command lines: judged here too, whatever --tags skipped.
    problems = consumed_host_problems("bert_launch_group", group, hosts)
    min_nodes = number(settings["bert_launch_min_nodes"])
    if min_nodes is None or not 1 <= min_nodes <= size:
        problems.append(
            "bert_launch_min_nodes (%s) must be between 1 and the %d node(s) of group '%s'."
            % (settings["bert_launch_min_nodes"], size, group)
        )
    return problems


def _training_problems(settings):
    problems = [
        "%s (%s) must be >= %d%s." % (name, settings[name], minimum, _MEANING.get(name, ""))
        for name, minimum in _AT_LEAST.items()
        if not at_least(settings[name], minimum)
    ]
    batch = settings["bert_launch_batch_size"]
    if str(batch) != "auto" and (whole_number(batch) is None or whole_number(batch) < 1):
        # A float (2.5, 8.0) reached pretrain_bert.py's --batch-size (an int) after prepare, cluster and verify.
        problems.append(
            "bert_launch_batch_size (%s) must be auto (from the GPU's memory and the model) or a whole number >= 1."
            % (batch,)
        )
    warmup, steps = number(settings["bert_launch_warmup_steps"]), number(settings["bert_launch_steps"])
    if warmup is None or warmup < 0 or steps is None or warmup >= steps:
        problems.append(
            "bert_launch_warmup_steps (%s) must be >= 0 and < bert_launch_steps (%s) so that a step is measured."
            % (settings["bert_launch_warmup_steps"], settings["bert_launch_steps"])
        )
    seq_len, (low, high) = number(settings["bert_launch_seq_len"]), settings["seq_len_range"]
    if seq_len is None or not low <= seq_len <= high:
        problems.append(
            "bert_launch_seq_len (%s) must be within [%s, %s] (BERT's position embeddings)."
            % (settings["bert_launch_seq_len"], low, high)
        )
    rate = settings["bert_launch_learning_rate"]
    if rate is not None and not positive(rate):
        problems.append("bert_launch_learning_rate (%s) must be null (the model size's default) or > 0." % rate)
    return problems


def _name_problems(settings):
    problems = [
        "%s must be %s (got %s)." % (name, what, settings[name])
        for name, pattern, what in _PATTERNS
        if not matches(pattern, text(settings[name]))
    ]
    problems += address_or_name_problems("bert_launch_master_addr", settings["bert_launch_master_addr"])
    if not is_port(settings["bert_launch_master_port"]):
        problems.append(
            "bert_launch_master_port must be a port within [1, 65535] (got %s)." % settings["bert_launch_master_port"]
        )
    keys = list(settings["bert_launch_env"]) if isinstance(settings["bert_launch_env"], dict) else []
    if any(not re.match(ENV_NAME, str(key)) for key in keys):
        problems.append("bert_launch_env's keys must be environment variable names (got %s)." % keys)
    problems += env_value_problems("bert_launch_env", settings["bert_launch_env"])
    problems += secret_env_problems(
        "bert_launch_secret_env", settings["bert_launch_secret_env"], "bert_launch_env", keys
    )
    if not text(settings["bert_launch_results_dir"]):
        problems.append("bert_launch_results_dir must be a directory on the controller.")
    return problems


def _lever_problems(settings):
    levers = {name: settings.get("bert_launch_" + name, "auto") for name in LEVERS}
    levers.update(
        compute_capability=settings.get("bert_launch_gpu_compute_capability", "7.0"),
        cpu_only=settings["bert_launch_cpu_only"],
    )
    return lever_problems(levers)


def _corpus_problems(settings):
    """The corpus and vocabulary variables (their files are checked on the nodes by bert_prep; absent in callers that
    predate them: the shipped corpus)."""
    corpus, vocab = text(settings.get("bert_launch_corpus")), text(settings.get("bert_launch_vocab"))
    problems = []
    if corpus and not corpus.startswith("/"):
        problems.append(
            "bert_launch_corpus must be empty (the shipped corpus) or an absolute path on the nodes (got %s)." % corpus
        )
    if vocab and not vocab.startswith("/"):
        problems.append(
            "bert_launch_vocab must be empty or an absolute path of a vocab.txt on the nodes (got %s)." % vocab
        )
    elif vocab and not corpus:
        problems.append(
            "bert_launch_vocab (%s) needs bert_launch_corpus: a vocabulary goes with a prepared corpus "
            "(playbooks/prepare_bert.yml); the shipped corpus trains its own." % vocab
        )
    prepared = text(settings.get("bert_launch_prepared_dir"))
    if prepared:
        problems += absolute_path_problems("bert_launch_prepared_dir", prepared)
    return problems


def bert_launch_input_problems(settings):
    """bert_launch's variables -> one sentence per problem, naming the variable and its value ([] when all is well).

    ``settings``: the ``bert_launch_*`` variables (``bert_launch_cpu_only`` a bool; the levers, see bert_levers.py), ``group_hosts`` (the
    hosts of bert_launch_group) and ``seq_len_range`` ([min, max], the role's BERT position embeddings).
    """
    return (
        _group_problems(settings)
        + _training_problems(settings)
        + framework_problems(settings, "bert_launch")
        + _name_problems(settings)
        + _corpus_problems(settings)
        + _lever_problems(settings)
    )
