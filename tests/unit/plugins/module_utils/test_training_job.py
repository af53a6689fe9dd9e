"""plugins/module_utils/training_job.py: the scripts' tables, the variables the roles pass, the job both launchers
render (the full commands and manifests are pinned in tests/unit/roles/test_training_job_pinned.py)."""

import argparse
import ast
from pathlib import Path

import pytest
import yaml

from ansible_collections.scc.training.plugins.module_utils import training_job as tj

ROOT = Path(__file__).resolve().parents[4]
SCRIPTS = {
    "bert": ROOT / "runtime/scc_training_runtime/pretrain_bert.py",
    "resnet": ROOT / "runtime/scc_training_runtime/train_resnet.py",
}
# The options every rank program shares (the rendezvous, threads, output, run id): the runtime's rank framework.
SHARED = ROOT / "runtime/scc_training_runtime/mpi_job_rank.py"


def _defaults(role):
    return yaml.safe_load((ROOT / "roles" / role / "defaults/main.yml").read_text())


def settings(workload="bert", **changes):
    """The role's defaults with the templated ones as a GPU cluster over tcp resolves them."""
    role = tj.SCRIPTS[workload]["role"]
    values = {name: value for name, value in _defaults(role).items() if name in tj.role_variables(workload)}
    values.update(
        {
            role + "_transport": "tcp",
            role + "_cpu_only": False,
            role + "_mpirun_path": "/usr/bin/mpirun",
            # The lookup scc.training.hardware's nccl_env, as no instance type on tcp leaves it to nothing.
            role + "_nccl_env": {},
        }
    )
    if workload == "bert":
        values["bert_launch_gpu_compute_capability"] = "8.0"
    values.update(changes)
    return values


RESOLVED = {
    "np": 2,
    "bind_to": "none",
    "map_by": "slot",
    "rdma_devices": [],
    "master_getent": "127.0.3.11      STREAM node1\n",
    "run_id": "r1",
    "output_dir": "/opt/runs/r1",
    "shared_mount": "",
}


def program(workload="bert", resolved=None, **changes):
    return tj.build(workload, settings(workload, **changes), dict(RESOLVED, **(resolved or {})))["program"]


def option(argv, flag):
    return argv[argv.index(flag) + 1]


def _script_flags(path):
    """The flags the script's argparse defines (read from its source: the scripts import torch)."""
    flags = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument":
            flags.update(a.value for a in node.args if isinstance(a, ast.Constant) and str(a.value).startswith("--"))
    return flags


@pytest.mark.parametrize("workload", sorted(tj.SCRIPTS))
def test_every_flag_of_a_table_is_one_the_script_defines(workload):
    flags = {flag for flag, _source, how in tj.SCRIPTS[workload]["options"] if how != tj.LEVER_GROUP}
    assert flags and flags <= _script_flags(SCRIPTS[workload]) | _script_flags(SHARED)


def _options(role):
    spec = yaml.safe_load((ROOT / "roles" / role / "meta/argument_specs.yml").read_text())
    return spec["argument_specs"]["main"]["options"]


@pytest.mark.parametrize("workload", sorted(tj.SCRIPTS))
def test_every_role_variable_is_an_option_and_the_builders_own_have_defaults(workload):
    """A table's variable is an option of the role's spec (it may have no default: the script's then applies); those
    the builder cannot do without are role defaults."""
    role = tj.SCRIPTS[workload]["role"]
    names = tj.role_variables(workload)
    assert len(names) == len(set(names))
    assert set(names) <= set(_options(role))
    assert set(tj.launch_variables(workload)) <= set(_defaults(role)) & set(names)


@pytest.mark.parametrize("workload", sorted(tj.SCRIPTS))
def test_the_family_nccl_env_goes_into_the_job(workload):
    role = tj.SCRIPTS[workload]["role"]
    changes = {role + "_nccl_env": {"NCCL_IB_QPS_PER_CONNECTION": "8"}}
    if workload == "resnet":
        changes.update({"resnet_launch_python": "/venv/bin/python", "resnet_launch_python_path": []})
    assert tj.build(workload, settings(workload, **changes), RESOLVED)["nccl_env"] == {
        "NCCL_IB_QPS_PER_CONNECTION": "8"
    }
    # A launcher that predates the variable (not defined) gives none.
    values = settings(workload, **changes)
    values[role + "_nccl_env"] = tj.UNDEFINED
    assert tj.build(workload, values, RESOLVED)["nccl_env"] == {}


def test_a_value_renders_as_flag_and_value_and_null_leaves_it_out():
    assert option(program(bert_launch_learning_rate=1e-4), "--learning-rate") == "0.0001"
    assert "--learning-rate" not in program()
    assert option(program(bert_launch_checkpoint_every=0), "--checkpoint-every") == "0"


def test_an_undefined_table_variable_leaves_its_flag_out_for_the_scripts_default():
    assert "--seq-len" not in program(bert_launch_seq_len=tj.UNDEFINED)
    assert option(program(), "--seq-len") == "128"


def test_a_switch_renders_alone_when_true():
    assert "--resume" in program(bert_launch_resume=True) and "--resume" in program(bert_launch_resume="True")
    assert "--resume" not in program(bert_launch_resume=False)


def test_the_levers_are_resolved_for_the_gpu_generation():
    ampere = program()
    assert option(ampere, "--ddp-compression") == "none" and "--ddp-static-graph" in ampere
    volta = program(bert_launch_gpu_compute_capability="7.0", bert_launch_compile=True)
    assert option(volta, "--ddp-compression") == "fp16" and "--compile" in volta
    cpu = program(bert_launch_cpu_only="True")
    assert option(cpu, "--fused-adamw") == "off" and option(cpu, "--loader-workers") == "0"


def test_auto_directories_go_under_the_shared_mount_or_the_install_dir():
    local = program()
    assert option(local, "--data-dir") == "/opt/scc-training/bert/data"
    assert option(local, "--checkpoint-dir") == "/opt/scc-training/bert/checkpoints"
    shared = program(resolved={"shared_mount": "/mnt/cpfs"}, bert_launch_checkpoint_dir="/ckpt")
    assert option(shared, "--data-dir") == "/mnt/cpfs/scc-training/bert/data"
    assert option(shared, "--checkpoint-dir") == "/ckpt"
    assert tj.shared_directory("auto", "/m", "data") == tj.shared_directory("", "/m", "data") == "/m/data"


def test_the_rendezvous_address_is_the_given_one_else_getent():
    assert option(program(), "--master-addr") == "127.0.3.11"
    assert option(program(bert_launch_master_addr="10.0.0.5"), "--master-addr") == "10.0.0.5"
    assert option(program(resolved={"master_addr": "w0.job.ns.svc"}), "--master-addr") == "w0.job.ns.svc"


def test_resnet_gets_its_python_and_only_the_extra_site_directories():
    job = tj.build("resnet", settings("resnet", resnet_launch_python_path=["/site"]), RESOLVED)
    assert job["env"]["PYTHONPATH"] == "/site"
    assert job["python"] == "/opt/scc-training/venv/bin/python"
    assert job["path"].startswith("/opt/scc-training/venv/bin:")
    assert job["program"][:4] == ["-m", "scc_training_runtime.train_resnet", "--framework", "torch"]
    # The runtime is the venv's wheel: no PYTHONPATH at all without extra site directories.
    assert "PYTHONPATH" not in tj.build("resnet", settings("resnet", resnet_launch_python_path=[]), RESOLVED)["env"]


def test_the_programs_are_modules_of_the_runtime_package():
    for workload, path in SCRIPTS.items():
        job = tj.build(workload, settings(workload), RESOLVED)
        assert job["program"][:2] == ["-m", "scc_training_runtime." + path.stem] and path.is_file()
    # Without a corpus of the user's, BERT reads the corpus the package ships (pretrain_bert's default).
    assert "--corpus" not in program() and (SCRIPTS["bert"].parent / "corpus.txt").is_file()


def test_a_missing_launch_variable_or_resolved_value_is_named():
    with pytest.raises(ValueError, match="bert_launch's variables are not defined: bert_launch_venv_path"):
        tj.build("bert", settings(bert_launch_venv_path=tj.UNDEFINED), RESOLVED)
    with pytest.raises(ValueError, match="the resolved values lack np"):
        tj.build("bert", settings(), {k: v for k, v in RESOLVED.items() if k != "np"})
    with pytest.raises(ValueError, match="workload"):
        tj.role_variables("gpt")


def test_the_tables_flags_parse_back_with_a_parser_of_the_same_flags():
    """The rendered options are flag/value pairs and switches only: an argparse of the table's flags reads them."""
    parser = argparse.ArgumentParser()
    for flag, _source, how in tj.SCRIPTS["resnet"]["options"]:
        parser.add_argument(flag, action="store_true" if how == tj.SWITCH else "store")
    parsed = parser.parse_args(program("resnet", resnet_launch_learning_rate=0.2)[2:])
    assert (parsed.model, parsed.learning_rate, parsed.run_id) == ("resnet50", "0.2", "r1")


@pytest.mark.parametrize("off", [False, "false", "False", "no", "off", "0", 0, "", None, "n"])
def test_a_switch_given_false_in_any_spelling_ansible_reads_stays_off(off):
    assert "--resume" not in program(bert_launch_resume=off)
    # cpu_only "false" is a GPU run: its levers are the GPU's, not the CPU's.
    gpu = program(bert_launch_cpu_only=off)
    assert option(gpu, "--fused-adamw") != "off" and option(gpu, "--loader-workers") != "0"


@pytest.mark.parametrize("on", [True, "true", " TRUE ", "yes", "on", "1", 1, "y"])
def test_a_switch_given_true_in_any_spelling_ansible_reads_is_on(on):
    assert "--resume" in program(bert_launch_resume=on)
    cpu = program(bert_launch_cpu_only=on)
    assert option(cpu, "--fused-adamw") == "off" and option(cpu, "--loader-workers") == "0"


def test_a_corpus_is_read_prepared_and_needs_its_length_and_seed():
    plain = program()
    assert "--prepared" not in plain and "--corpus" not in plain  # the package's corpus
    corpus = program(bert_launch_corpus="/data/wiki", bert_launch_seq_len=128, bert_launch_seed=7)
    assert "--corpus" not in corpus and option(corpus, "--prepared").startswith("/")
    vocab = program(
        bert_launch_corpus="/data/wiki", bert_launch_seq_len=128, bert_launch_seed=7, bert_launch_vocab="/v"
    )
    assert option(vocab, "--prepared") != option(corpus, "--prepared")  # another vocabulary, another preparation
    for missing in ({"bert_launch_seq_len": None}, {"bert_launch_seed": None}):
        with pytest.raises(ValueError, match=r"^bert_launch_corpus needs bert_launch_seq_len and bert_launch_seed"):
            program(
                bert_launch_corpus="/data/wiki", **dict({"bert_launch_seq_len": 128, "bert_launch_seed": 7}, **missing)
            )


@pytest.mark.parametrize("workload", ["bert", "resnet"])
def test_the_env_and_extra_arguments_given_reach_the_job(workload):
    role = tj.SCRIPTS[workload]["role"]
    changes = {
        role + "_env": {"X": "1"},
        role + "_mpirun_extra_args": ["--tag-output"],
        role + "_script_extra_args": ["--a"],
    }
    job = tj.build(workload, settings(workload, **changes), RESOLVED)
    assert job["env"]["X"] == "1"
    assert (job["mpirun_extra_args"], job["script_extra_args"]) == (["--tag-output"], ["--a"])
