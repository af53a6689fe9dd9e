# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Shared options of the lookups that read one role's argument spec (role_inputs, role_input_problems)."""

from __future__ import annotations


class ModuleDocFragment:
    DOCUMENTATION = r"""
options:
  _terms:
    description: The role's name, short (V(bert_launch)) or fully qualified (V(scc.training.bert_launch)).
    required: true
    type: list
    elements: str
  entry_point:
    description: The entry point of C(meta/argument_specs.yml) whose options are read.
    type: str
    default: main
"""
