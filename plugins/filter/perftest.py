# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Bandwidth filters for scc.training: thin wrappers over plugins/module_utils/perftest.py.

``bandwidth_rounds`` (rdma_bandwidth's: both
directions, every rail), ``bandwidth_round_count`` and ``bandwidth_round_side`` (one node's side of
one round, O(1)) and ``bandwidth_matrix``.
Their documentation lives in the sidecar ``<filter name>.yml`` files.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
    require_list,
)

perftest = lazy_module_utils("perftest")


def _nodes(nodes, filter_name):
    return [str(n) for n in require_list(nodes, filter_name, "input must be a list of node names")]


def bandwidth_rounds(nodes, rails=1):
    """List of node names -> list of rounds ``{rail, pairs: [[client, server], ...]}``, both directions, every rail."""
    return filter_call(
        "bandwidth_rounds",
        lambda: perftest.bandwidth_rounds(_nodes(nodes, "bandwidth_rounds"), int(rails)),
        errors=(TypeError, ValueError),
    )


def bandwidth_round_count(node_count, rails=1):
    """Number of nodes, rails -> how many rounds ``bandwidth_rounds`` has."""
    return filter_call(
        "bandwidth_round_count", perftest.bandwidth_round_count, node_count, rails, errors=(TypeError, ValueError)
    )


def bandwidth_round_side(node_index, node_count, round_index):
    """A node's index, the number of nodes, a round -> ``{rail, side: client|server|none, peer}`` in O(1)."""
    return filter_call(
        "bandwidth_round_side",
        perftest.bandwidth_round_side,
        node_index,
        node_count,
        round_index,
        errors=(TypeError, ValueError),
    )


def bandwidth_matrix(measurements, nodes, min_fraction, link_rate_gbps=None, rails=1):
    """List of {client, server, rail, gbps, ports and their rates} -> matrices, pairs, below_threshold, missing, ok."""
    return filter_call(
        "bandwidth_matrix",
        lambda: perftest.bandwidth_matrix(nodes, measurements, float(min_fraction), link_rate_gbps, int(rails)),
        errors=(KeyError, TypeError, ValueError),
    )


class FilterModule(object):
    """scc.training bandwidth filters."""

    def filters(self):
        return {
            "bandwidth_rounds": bandwidth_rounds,
            "bandwidth_round_count": bandwidth_round_count,
            "bandwidth_round_side": bandwidth_round_side,
            "bandwidth_matrix": bandwidth_matrix,
        }
