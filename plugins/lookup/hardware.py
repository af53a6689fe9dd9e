# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
name: hardware
short_description: The cluster's resolved hardware fact (scc_hardware), or one of its keys
version_added: 0.3.0
author: scc.training developers (@scc-training)
description:
  - The one route by which the roles' hardware defaults read the hardware (GPU compute capability, the launchers'
    NCCL environment, rdma_stack's source and MTU, rdma_bandwidth's link rate, gpu_health's, ib_check's and
    nccl_check's counts and thresholds).
  - Returns the fact C(scc_hardware) when it is set (C(playbooks/validate.yml) resolves it once per run, for the
    whole cluster; nccl_check refines it from the nodes' reports when no type is declared). A role run without
    validate.yml gets the same value, resolved from C(scc_instance_type), C(scc_jumbo_frames) and
    C(scc_gpu_compute_capability) (the cluster-wide hand-set compute capability, which wins).
  - Without C(scc_instance_type) and without a node report the fact is the collection's default family, sccgn6
    (C(source) says V(default)).
  - The keys and how they are resolved, with their sources, are documented in
    C(plugins/module_utils/hardware_fact.py) and C(plugins/module_utils/hardware_defaults.py).
options:
  _terms:
    description: Dotted keys of the fact (V(compute_capability), V(rdma_stack.source)); none returns the whole fact.
    required: false
    type: list
    elements: str
  contradictions:
    description:
      - V(true) returns, instead of the fact, the list of the declared settings that contradict the declared
        C(scc_instance_type) (one sentence each, naming both variables; empty when none does), read by name from the
        variables in scope (C(plugins/module_utils/hardware_fact.py)'s C(CONTRADICTION_SETTINGS), the way
        P(scc.training.role_inputs#lookup) reads a role's options) - the compute capabilities, C(rdma_stack_source),
        C(rdma_stack_netdev_mtu), the GPU counts, C(ib_check_expected_links), and the removed per-role instance types.
      - Inside a role its defaults are variables too, so a value equal to the role's own default (the fact's) is not
        judged. C(playbooks/validate.yml) and the validate step of each role that owns one of these settings call it.
      - Takes no term.
    type: bool
    default: false
    version_added: 0.4.0
"""

EXAMPLES = r"""
- name: Show the compute capability the cluster's defaults use
  ansible.builtin.debug:
    msg: "{{ lookup('scc.training.hardware', 'compute_capability') }}"

- name: Show the launchers' NCCL environment for this family
  ansible.builtin.debug:
    msg: "{{ lookup('scc.training.hardware').nccl_env }}"

- name: Refuse a declared setting that contradicts scc_instance_type
  ansible.builtin.assert:
    that: __problems | length == 0
    fail_msg: "{{ __problems | join(' ') }}"
  vars:
    __problems: "{{ lookup('scc.training.hardware', contradictions=true) }}"
"""

RETURN = r"""
_raw:
  description:
    - Without a term, the whole fact (C(scc.training.hardware_defaults)'s keys plus C(declared), C(instance_type),
      C(jumbo_frames), C(compute_capability), C(rdma_stack), C(rdma_bandwidth)).
    - With terms, the value of each key; with C(lookup()) and one term, the value itself.
    - With O(contradictions=true), the list of sentences (with C(lookup()), the list itself).
  type: list
  elements: raw
"""

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase

from ansible_collections.scc.training.plugins.module_utils import hardware_fact
from ansible_collections.scc.training.plugins.module_utils.input_checks import boolean


def fact_from(variables, template=lambda value: value):
    """``scc_hardware`` when set, else the fact resolved from the declaration in ``variables``."""
    fact = variables.get("scc_hardware")
    if isinstance(fact, dict) and fact:
        return template(fact)
    instance_type = template(variables.get("scc_instance_type"))
    jumbo = template(variables.get("scc_jumbo_frames", False))
    cc = template(variables.get("scc_gpu_compute_capability"))
    try:
        return hardware_fact.cluster_fact(instance_type, jumbo, None, cc)
    except ValueError as exc:
        raise AnsibleLookupError("hardware: %s" % exc) from exc


def contradictions_from(variables, fact, template=lambda value: value):
    """hardware_fact.contradictions over the CONTRADICTION_SETTINGS found in ``variables`` (templated)."""
    settings = {name: template(variables[name]) for name in hardware_fact.CONTRADICTION_SETTINGS if name in variables}
    return hardware_fact.contradictions(fact, settings)


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        check = kwargs.pop("contradictions", False)
        if kwargs:
            raise AnsibleLookupError("hardware: unknown option(s) %s" % ", ".join(sorted(kwargs)))
        if boolean(check) is None:
            raise AnsibleLookupError("hardware: contradictions (%r) must be true or false" % (check,))
        variables = variables or {}
        fact = fact_from(variables, self._templar.template)
        if boolean(check):
            if terms:
                raise AnsibleLookupError("hardware: contradictions=true takes no key (got %s)" % ", ".join(terms))
            return [contradictions_from(variables, fact, self._templar.template)]
        if not terms:
            return [fact]
        try:
            return [hardware_fact.value(fact, term) for term in terms]
        except KeyError as exc:
            raise AnsibleLookupError("hardware: %s" % exc.args[0]) from exc
