# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""MPI filters for scc.training, thin wrappers over plugins/module_utils/mpi.py: ``mpi_hostfile`` (the mpi_hostfile
role), ``mpirun_argv`` and ``mpirun_placement`` (over plugins/module_utils/nvidia_topo.py) (bert_launch,
resnet_launch). Their documentation lives in the sidecar ``<filter name>.yml`` files."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
)

mpi = lazy_module_utils("mpi")
nvidia_topo = lazy_module_utils("nvidia_topo")


def mpi_hostfile(entries):
    """``[{host, slots}]`` -> Open MPI hostfile text, one ``host slots=N`` line per entry."""
    return filter_call("mpi_hostfile", mpi.render_hostfile, entries)


def mpirun_argv(job):
    """bert_launch's settings -> its whole command line (timeout, mpirun, -x pairs, pretrain_bert.py)."""
    return filter_call("mpirun_argv", mpi.mpirun_argv, job)


def mpirun_placement(topo_text, np, nodes, bind_to="auto", map_by="auto"):
    """The first node's nvidia-smi topo -m, the ranks and nodes -> mpirun's {bind_to, map_by, reason}."""
    return filter_call("mpirun_placement", nvidia_topo.launch_placement, topo_text, np, nodes, bind_to, map_by)


class FilterModule(object):
    """scc.training MPI filters."""

    def filters(self):
        return {f.__name__: f for f in (mpi_hostfile, mpirun_argv, mpirun_placement)}
