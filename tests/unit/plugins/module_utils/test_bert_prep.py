"""plugins/module_utils/bert_prep.py: bert_prep's rules across its variables, and the prepared directory's name
(bert_prep writes there, bert_launch reads there)."""

import pytest

from ansible_collections.scc.training.plugins.module_utils.bert_prep import bert_prep_input_problems, bert_prepared_dir

GOOD = {
    "bert_prep_group": "scc_cluster", "group_hosts": ["node1", "node2"], "corpus_variable": "bert_launch_corpus",
    "bert_prep_corpus": "/mnt/cpfs/wiki", "bert_prep_vocab": "", "bert_prep_vocab_size": 30522,
    "bert_prep_vocab_sample_mb": 100, "bert_prep_seq_len": 128, "bert_prep_seed": 1234,
    "bert_prep_data_dir": "/mnt/cpfs/scc-training/bert/prepared", "bert_prep_rows_per_shard": 8192,
    "bert_prep_install_dir": "/opt/scc-training/bert-prep", "bert_prep_timeout": 86400,
}  # fmt: skip


def test_good_settings_have_no_problem():
    assert bert_prep_input_problems(GOOD) == []
    assert bert_prep_input_problems(dict(GOOD, bert_prep_vocab="/mnt/cpfs/vocab.txt", bert_prep_seq_len="512")) == []


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"group_hosts": []}, "bert_prep_group (scc_cluster) must name a non-empty inventory group."),
        ({"bert_prep_corpus": ""}, "bert_launch_corpus is empty: name the corpus"),
        ({"bert_prep_corpus": "wiki"}, "bert_prep_corpus (wiki) must be an absolute path on the nodes"),
        ({"bert_prep_vocab": "vocab.txt"}, "bert_prep_vocab (vocab.txt) must be empty (train one) or an absolute path"),
        ({"bert_prep_seq_len": 8}, "bert_prep_seq_len (8) must be within [16, 512]."),
        ({"bert_prep_seq_len": "many"}, "bert_prep_seq_len (many) must be within [16, 512]."),
        ({"bert_prep_vocab_size": 5}, "bert_prep_vocab_size (5) must be >= 6"),
        ({"bert_prep_rows_per_shard": 0}, "bert_prep_rows_per_shard (0) must be >= 1."),
        ({"bert_prep_data_dir": "data"}, "bert_prep_data_dir (data) must be an absolute path"),
    ],
)
def test_each_problem_names_its_variable(changes, expected):
    problems = bert_prep_input_problems(dict(GOOD, **changes))
    assert len(problems) == 1 and problems[0].startswith(expected), problems


# Each rule's boundary: the least value accepted, the one below it refused (make mutation's survivors of bert_prep).
@pytest.mark.parametrize(
    ("variable", "least"),
    [
        ("bert_prep_seed", 0),
        ("bert_prep_vocab_size", 6),
        ("bert_prep_vocab_sample_mb", 1),
        ("bert_prep_rows_per_shard", 1),
        ("bert_prep_timeout", 1),
        ("bert_prep_seq_len", 16),
    ],
)
def test_each_number_rule_accepts_its_least_value_and_refuses_the_one_below(variable, least):
    assert bert_prep_input_problems(dict(GOOD, **{variable: least})) == []
    problems = bert_prep_input_problems(dict(GOOD, **{variable: least - 1}))
    assert len(problems) == 1 and problems[0].startswith("%s (%d)" % (variable, least - 1)), problems


def test_an_empty_corpus_still_has_its_other_variables_judged():
    problems = bert_prep_input_problems(dict(GOOD, bert_prep_corpus="", bert_prep_vocab="vocab.txt"))
    assert [p.split(" ", 1)[0] for p in problems] == ["bert_launch_corpus", "bert_prep_vocab"], problems


def test_a_corpus_at_the_root_is_named_corpus():
    settings = {"data_dir": "/p", "corpus": "/", "vocab": "", "seq_len": 128, "seed": 1}
    assert bert_prepared_dir(settings).startswith("/p/corpus-")


def test_the_prepared_directory_changes_with_what_the_shards_are_built_from():
    base = {"data_dir": "/mnt/cpfs/p/", "corpus": "/mnt/cpfs/wiki/", "vocab": "", "seq_len": 128, "seed": 1234}
    name = bert_prepared_dir(base)
    assert name.startswith("/mnt/cpfs/p/wiki-") and len(name.rsplit("-", 1)[1]) == 12
    assert bert_prepared_dir(dict(base, corpus="/mnt/cpfs/wiki", seq_len="128")) == name  # the same inputs
    others = [
        dict(base, corpus="/mnt/cpfs/books"),
        dict(base, vocab="/v.txt"),
        dict(base, seq_len=512),
        dict(base, seed=1),
    ]
    assert len({bert_prepared_dir(o) for o in others} | {name}) == 5


# --- bert_launch's side: its corpus variables and the --prepared option -------------------------------------------


def test_bert_launch_corpus_and_vocab_rules():
    from ansible_collections.scc.training.plugins.module_utils.bert_launch import _corpus_problems

    assert _corpus_problems({}) == []  # the shipped corpus
    assert _corpus_problems({"bert_launch_corpus": "/mnt/cpfs/wiki", "bert_launch_vocab": "/mnt/cpfs/vocab.txt"}) == []
    assert _corpus_problems({"bert_launch_corpus": "wiki", "bert_launch_vocab": ""}) == [
        "bert_launch_corpus must be empty (the shipped corpus) or an absolute path on the nodes (got wiki)."
    ]
    assert _corpus_problems({"bert_launch_corpus": "", "bert_launch_vocab": "/v.txt"})[0].startswith(
        "bert_launch_vocab (/v.txt) needs bert_launch_corpus"
    )


def test_a_prepared_corpus_replaces_the_shipped_one_on_the_command_line():
    from tests.unit.plugins.module_utils.test_training_job import option, program

    shipped = program()
    # The shipped corpus is the runtime package's default (pretrain_bert reads it without --corpus).
    assert "--prepared" not in shipped and "--corpus" not in shipped
    argv = program(bert_launch_corpus="/mnt/cpfs/wiki", bert_launch_seq_len=512)
    assert "--corpus" not in argv
    expected = bert_prepared_dir(
        {"data_dir": "/mnt/cpfs/scc-training/bert/prepared", "corpus": "/mnt/cpfs/wiki", "vocab": "", "seq_len": 512,
         "seed": 1234}
    )  # fmt: skip
    assert option(argv, "--prepared") == expected  # the directory bert_prep writes
    assert program(bert_launch_corpus="") == shipped


def test_bert_launch_prepared_dir_moves_where_the_launcher_looks():
    from ansible_collections.scc.training.plugins.module_utils.bert_launch import _corpus_problems
    from tests.unit.plugins.module_utils.test_training_job import option, program

    argv = program(bert_launch_corpus="/mnt/cpfs/wiki", bert_launch_seq_len=512, bert_launch_prepared_dir="/data/bert")
    settings = {"corpus": "/mnt/cpfs/wiki", "vocab": "", "seq_len": 512, "seed": 1234}
    assert option(argv, "--prepared") == bert_prepared_dir(dict(settings, data_dir="/data/bert"))
    # Empty is the default: under bert_launch_cpfs_path.
    argv = program(bert_launch_corpus="/mnt/cpfs/wiki", bert_launch_seq_len=512, bert_launch_prepared_dir="")
    assert option(argv, "--prepared") == bert_prepared_dir(
        dict(settings, data_dir="/mnt/cpfs/scc-training/bert/prepared")
    )
    assert _corpus_problems({"bert_launch_prepared_dir": "/data/../etc"}) == [
        "bert_launch_prepared_dir (\"/data/../etc\") must be an absolute path without '.' or '..' segments (it names \"/etc\")."
    ]
    assert _corpus_problems({"bert_launch_prepared_dir": "data"})[0].startswith(
        "bert_launch_prepared_dir (\"data\") must be"
    )


@pytest.mark.parametrize(
    ("variables", "expected"),
    [
        ({}, "/mnt/cpfs/scc-training/bert/prepared"),
        ({"bert_launch_cpfs_path": "/cpfs"}, "/cpfs/scc-training/bert/prepared"),
        ({"bert_launch_cpfs_path": "/cpfs", "bert_launch_prepared_dir": ""}, "/cpfs/scc-training/bert/prepared"),
        ({"bert_launch_cpfs_path": "/cpfs", "bert_launch_prepared_dir": "/data/bert"}, "/data/bert"),
    ],
)
def test_bert_prep_data_dir_follows_the_launchers_variables(variables, expected):
    """bert_prep's default, templated as Ansible does: setting bert_launch_prepared_dir moves both roles."""
    from pathlib import Path

    import yaml
    from ansible.template import Templar, trust_as_template

    defaults = Path(__file__).resolve().parents[4] / "roles" / "bert_prep" / "defaults" / "main.yml"
    default = yaml.safe_load(defaults.read_text())["bert_prep_data_dir"]
    assert Templar(loader=None, variables=variables).template(trust_as_template(default)) == expected


def test_the_prepared_root_is_one_rule_for_the_three_readers(monkeypatch):
    """bert_launch's --prepared (training_job.py), its manifest check (vars/main.yml) and bert_prep's default all take
    the directory from bert_prepared_root: moving its default moves the three."""
    from pathlib import Path

    from ansible.parsing.dataloader import DataLoader
    from ansible.template import Templar

    from ansible_collections.scc.training.plugins.module_utils import bert_prep
    from tests.unit.plugins.module_utils.test_training_job import option, program

    assert bert_prep.bert_prepared_root("", "/cpfs/") == "/cpfs/scc-training/bert/prepared"
    assert bert_prep.bert_prepared_root(None, "/cpfs") == "/cpfs/scc-training/bert/prepared"
    assert bert_prep.bert_prepared_root("/data/bert", "/cpfs") == "/data/bert"
    monkeypatch.setattr(bert_prep, "PREPARED_UNDER_CPFS", "elsewhere")
    roles = Path(__file__).resolve().parents[4] / "roles"
    loader = DataLoader()
    variables = {"bert_launch_cpfs_path": "/cpfs", "bert_launch_prepared_dir": ""}
    for path in ("bert_launch/defaults/main.yml", "bert_launch/vars/main.yml", "bert_prep/defaults/main.yml"):
        variables = {**loader.load_from_file(str(roles / path), trusted_as_template=True), **variables}
    variables["bert_launch_corpus"] = "/cpfs/wiki"
    templar = Templar(loader=loader, variables=variables)
    assert templar.template(variables["bert_prep_data_dir"]) == "/cpfs/elsewhere"
    settings = {"data_dir": "/cpfs/elsewhere", "corpus": "/cpfs/wiki", "vocab": "", "seq_len": 128, "seed": 1234}
    assert templar.template(variables["_bert_launch_prepared_dir"]) == bert_prepared_dir(settings)
    argv = program(bert_launch_corpus="/cpfs/wiki", bert_launch_cpfs_path="/cpfs", bert_launch_seq_len=128)
    assert option(argv, "--prepared") == bert_prepared_dir(settings)
