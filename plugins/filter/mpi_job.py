# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The mpi_job role's filters, thin wrappers over plugins/module_utils/mpi_job.py: ``mpi_job_argv``
(the launcher's command) and ``mpi_job_results`` (the job's results, partial when it failed).
Their documentation lives in the sidecar ``<filter name>.yml`` files."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import filter_call, lazy_module_utils

mpi_job = lazy_module_utils("mpi_job")


def mpi_job_argv(job):
    """The caller's mpirun command -> the launcher's (records its pid, tags the ranks' output)."""
    return filter_call("mpi_job_argv", mpi_job.launcher_argv, job)


def mpi_job_results(job):
    """The exit status, output and progress files of a run -> its results (partial when it failed)."""
    return filter_call("mpi_job_results", mpi_job.job_results, job)


class FilterModule(object):
    def filters(self):
        return {"mpi_job_argv": mpi_job_argv, "mpi_job_results": mpi_job_results}
