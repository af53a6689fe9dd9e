# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
# The work is done by the action plugin plugins/action/plot.py, on the controller; this file documents it.

from __future__ import annotations

DOCUMENTATION = r"""
---
module: plot
short_description: Draw a results plot (PNG) on the controller
version_added: 0.2.0
description:
  - Draws one of the verify stage's plots from its results into a PNG file on the controller, with
    matplotlib in the controller's Python (C(requirements.txt)); nothing runs on the managed host.
  - V(bandwidth_heatmap) draws the node-pair bandwidth matrix of the plan C(bandwidth_matrix) of P(scc.training.role_plan#lookup) (as the
    C(rdma_bandwidth) role completes it with C(tool), C(link_rate_gbps) and C(min_fraction)) - Gb/s per pair,
    pairs below C(min_gbps) outlined in red.
  - V(traffic) draws the rates of the plan C(fabric_traffic) - tx+rx Gb/s over time per node and counter,
    counters that never passed 1 Mb/s left out.
  - V(nccl_busbw) draws the C(nccl_check) role's cluster results (C(nccl_check_cluster)) - the all_reduce bus
    bandwidth by message size across the nodes (log2 sizes), with the threshold as a dashed line.
options:
  kind:
    description: Which plot to draw.
    type: str
    required: true
    choices: [bandwidth_heatmap, nccl_busbw, traffic]
  data:
    description: The results the plot is drawn from, in the shape O(kind) names.
    type: dict
    required: true
  dest:
    description: Path of the PNG on the controller; its directory must exist. An existing file is replaced.
    type: path
    required: true
extends_documentation_fragment:
  - action_common_attributes
attributes:
  check_mode:
    support: full
    details: In check mode nothing is drawn; the result says a plot would be.
  diff_mode:
    support: none
  platform:
    support: full
    platforms: all
    details: Runs on the controller whatever the host.
author: scc.training developers (@scc-training)
"""

EXAMPLES = r"""
- name: Draw the bandwidth heatmap
  scc.training.plot:
    kind: bandwidth_heatmap
    data: "{{ rdma_bandwidth_results.tcp }}"
    dest: results/bandwidth-tcp.png
  run_once: true

- name: Plot the traffic sampled during a job
  scc.training.plot:
    kind: traffic
    data: "{{ fabric_monitor_results }}"
    dest: results/traffic.png
  run_once: true
"""

RETURN = r"""
dest:
  description: The PNG written (or that would be, in check mode).
  returned: always
  type: str
  sample: /home/user/results/bandwidth-tcp.png
"""
