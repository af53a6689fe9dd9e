# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""MPI filters for scc.training, thin wrappers over plugins/module_utils/mpi.py:
``mpi_hostfile`` and ``mpi_hostfile_nodes`` (the mpi_hostfile role), ``mpi_hostfile_ranks``,
``mpi_hostfile_node_count``, ``mpirun_argv``, ``mpi_framework_modules`` and ``mpirun_placement`` (over
plugins/module_utils/nvidia_topo.py) (bert_launch, resnet_launch),
``nccl_tests_mpirun`` (nccl_check).
Their documentation lives in the sidecar ``<filter name>.yml`` files."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
    require_text,
)

mpi = lazy_module_utils("mpi")
nvidia_topo = lazy_module_utils("nvidia_topo")


def mpi_hostfile(entries):
    """``[{host, slots}]`` -> Open MPI hostfile text, one ``host slots=N`` line per entry."""
    return filter_call("mpi_hostfile", mpi.render_hostfile, entries)


def mpi_hostfile_ranks(text, np=0):
    """Hostfile text -> the ranks to start: ``np`` when > 0, else the sum of its ``slots=``."""
    return filter_call(
        "mpi_hostfile_ranks", mpi.hostfile_ranks, require_text(text, "mpi_hostfile_ranks", "the hostfile's text"), np
    )


def mpi_hostfile_nodes(nodes, healthy=None, exclude_unhealthy=True):
    """The cluster's nodes -> those the hostfile lists: the healthy ones (or refused with unhealthy ones)."""
    return filter_call("mpi_hostfile_nodes", mpi.hostfile_nodes, nodes, healthy, exclude_unhealthy)


def mpi_hostfile_node_count(text, min_nodes=1, variable="bert_launch_min_nodes"):
    """Hostfile text -> its number of nodes; fails below ``min_nodes``, naming the launcher's ``variable``."""
    return filter_call(
        "mpi_hostfile_node_count",
        mpi.hostfile_node_count,
        require_text(text, "mpi_hostfile_node_count", "the hostfile's text"),
        min_nodes,
        variable,
    )


def mpirun_argv(job):
    """bert_launch's settings -> its whole command line (timeout, mpirun, -x pairs, pretrain_bert.py)."""
    return filter_call("mpirun_argv", mpi.mpirun_argv, job)


def mpi_framework_modules(framework):
    """A data-parallel framework (torch, horovod, aiacc, acspeed) -> the modules its ranks import."""
    return filter_call("mpi_framework_modules", mpi.framework_modules, framework)


def mpirun_placement(topo_text, np, nodes, bind_to="auto", map_by="auto"):
    """The first node's nvidia-smi topo -m, the ranks and nodes -> mpirun's {bind_to, map_by, reason}."""
    return filter_call("mpirun_placement", nvidia_topo.launch_placement, topo_text, np, nodes, bind_to, map_by)


def nccl_tests_mpirun(job):
    """nccl_check's settings -> mpirun and its options, up to the hostfile, -np and the binary."""
    return filter_call("nccl_tests_mpirun", mpi.nccl_tests_mpirun, job)


class FilterModule(object):
    """scc.training MPI filters."""

    def filters(self):
        by_role = {
            "mpi_hostfile": (mpi_hostfile, mpi_hostfile_nodes),
            "bert_launch": (
                mpi_hostfile_node_count,
                mpi_hostfile_ranks,
                mpirun_argv,
            ),
            "resnet_launch": (mpi_framework_modules, mpirun_placement),
            "nccl_check": (nccl_tests_mpirun,),
        }
        return {f.__name__: f for filters in by_role.values() for f in filters}
