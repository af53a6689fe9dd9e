# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The Kubernetes path's filters, thin wrappers over plugins/module_utils/k8s_jobs.py: ``scc_launcher_problems``
(playbooks/validate.yml), ``k8s_training_job``, ``mpijob_manifest`` and ``arena_submit_command``. Their documentation
lives in the sidecar ``<filter name>.yml`` files."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
    require_settings,
)

k8s_jobs = lazy_module_utils("k8s_jobs")


def scc_launcher_problems(launcher):
    """scc_launcher -> one sentence per problem (empty when it is mpirun or mpijob)."""
    return k8s_jobs.launcher_problems(launcher)


def k8s_training_job(settings):
    """k8s_training_job's and the launcher's variables -> the training job (mpirun_argv's keys and ``k8s``)."""
    return filter_call("k8s_training_job", k8s_jobs.training_job, require_settings(settings, "k8s_training_job"))


def mpijob_manifest(job):
    """The training job -> the MPIJob (kubeflow.org/v2beta1)."""
    return filter_call("mpijob_manifest", k8s_jobs.mpijob_manifest, require_settings(job, "mpijob_manifest"))


def arena_submit_command(job):
    """The training job -> the equivalent ``arena submit mpijob`` command line (one string)."""
    job = require_settings(job, "arena_submit_command")
    return filter_call("arena_submit_command", k8s_jobs.arena_command, job, errors=(ValueError, KeyError))


class FilterModule(object):
    """scc.training Kubernetes filters."""

    def filters(self):
        return {f.__name__: f for f in (scc_launcher_problems, k8s_training_job, mpijob_manifest, arena_submit_command)}
