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
"""

EXAMPLES = r"""
- name: Show the compute capability the cluster's defaults use
  ansible.builtin.debug:
    msg: "{{ lookup('scc.training.hardware', 'compute_capability') }}"

- name: Show the launchers' NCCL environment for this family
  ansible.builtin.debug:
    msg: "{{ lookup('scc.training.hardware').nccl_env }}"
"""

RETURN = r"""
_raw:
  description:
    - Without a term, the whole fact (C(scc.training.hardware_defaults)'s keys plus C(declared), C(instance_type),
      C(jumbo_frames), C(compute_capability), C(rdma_stack), C(rdma_bandwidth)).
    - With terms, the value of each key; with C(lookup()) and one term, the value itself.
  type: list
  elements: raw
"""

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase

from ansible_collections.scc.training.plugins.module_utils import hardware_fact


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


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        if kwargs:
            raise AnsibleLookupError("hardware: unknown option(s) %s" % ", ".join(sorted(kwargs)))
        fact = fact_from(variables or {}, self._templar.template)
        if not terms:
            return [fact]
        try:
            return [hardware_fact.value(fact, term) for term in terms]
        except KeyError as exc:
            raise AnsibleLookupError("hardware: %s" % exc.args[0]) from exc
