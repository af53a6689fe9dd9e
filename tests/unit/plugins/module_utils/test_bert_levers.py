# -*- coding: utf-8 -*-
"""bert_launch's lever defaults per GPU generation (plugins/module_utils/bert_levers.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.scc.training.plugins.module_utils import bert_levers


@pytest.mark.parametrize(
    "cc, cpu_only, expected",
    [
        ("7.0", False, "volta"),
        ("sm_70", False, "volta"),
        ("8.0", False, "ampere"),
        ("86", False, "ampere"),
        ("9.0", False, "hopper"),
        ("10.0", False, "blackwell"),
        ("120", False, "blackwell"),
        ("7.0", True, "cpu"),
    ],
)
def test_generation(cc, cpu_only, expected):
    assert bert_levers.generation(cc, cpu_only) == expected


def test_unknown_generation_names_the_variable():
    with pytest.raises(ValueError, match="scc_gpu_compute_capability"):
        bert_levers.generation("6.0")


def test_every_generation_sets_every_lever():
    for defaults in bert_levers.DEFAULTS.values():
        assert set(defaults) == set(bert_levers.LEVERS)


def test_auto_takes_the_generation_default_and_values_win():
    volta = bert_levers.bert_levers({"compute_capability": "7.0", "cpu_only": False})
    assert volta["generation"] == "volta" and volta["ddp_compression"] == "fp16" and volta["vocab_multiple"] == 64
    hopper = bert_levers.bert_levers({"compute_capability": "9.0", "mlm_head": "full", "grad_accum": "4"})
    assert hopper["ddp_compression"] == "none" and hopper["mlm_head"] == "full" and hopper["grad_accum"] == 4
    cpu = bert_levers.bert_levers({"compute_capability": "7.0", "cpu_only": True, "compile": "true"})
    assert cpu["loader_workers"] == 0 and cpu["fused_adamw"] == "off" and cpu["compile"] is True


def test_static_graph_gives_way_to_accumulation_unless_asked():
    levers = bert_levers.bert_levers({"compute_capability": "8.0", "grad_accum": 2})
    assert levers["ddp_static_graph"] is False
    problems = bert_levers.lever_problems({"compute_capability": "8.0", "grad_accum": 2, "ddp_static_graph": True})
    assert problems and "bert_launch_ddp_static_graph" in problems[0]


@pytest.mark.parametrize(
    "name, value",
    [
        ("vocab_multiple", 0),
        ("grad_accum", "x"),
        ("loader_workers", -1),
        ("compile", "maybe"),
    ],
)
def test_bad_values_name_the_variable(name, value):
    settings = {"compute_capability": "8.0", name: value}
    assert any("bert_launch_" + name in p for p in bert_levers.lever_problems(settings))
    with pytest.raises(ValueError, match="bert_launch_" + name):
        bert_levers.bert_levers(settings)


def test_the_optimizer_is_left_to_the_script_unless_chosen():
    # auto stays auto: pretrain_bert.py alone knows the world size, hence the global batch.
    for cc in ("7.0", "9.0"):
        assert bert_levers.bert_levers({"compute_capability": cc})["optimizer"] == "auto"
    levers = bert_levers.bert_levers({"compute_capability": "8.0", "optimizer": "lamb"})
    assert bert_levers.lever_argv({"optimizer": levers["optimizer"]}) == ["--optimizer", "lamb"]


def test_lever_argv():
    argv = bert_levers.lever_argv({"vocab_multiple": 64, "ddp_static_graph": True, "compile": False, "data": "shards"})
    assert argv == ["--vocab-multiple", "64", "--ddp-static-graph", "--data", "shards"]
