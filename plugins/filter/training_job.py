# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The training job's filters, thin wrappers over plugins/module_utils/training_job.py: ``training_job_variables``
(the role variables a workload's job is built from) and ``training_job`` (the job both launchers render:
scc.training.mpirun_argv on bare metal, the MPIJob and the Arena line on Kubernetes). Their documentation lives in
the sidecar ``<filter name>.yml`` files."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
    require_settings,
)

job_builder = lazy_module_utils("training_job")


def training_job_variables(workload):
    """bert or resnet -> the role variables (bert_launch_* or resnet_launch_*) its job is built from."""
    return filter_call("training_job_variables", job_builder.role_variables, workload)


def training_job(settings, workload, resolved):
    """The role's variables, the workload and what was resolved on the hosts -> the job (mpirun_argv's keys)."""
    settings = require_settings(settings, "training_job")
    return filter_call(
        "training_job", job_builder.build, workload, settings, require_settings(resolved, "training_job")
    )


class FilterModule(object):
    """scc.training training-job filters."""

    def filters(self):
        return {f.__name__: f for f in (training_job_variables, training_job)}
