# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The Kubernetes path's filters, thin wrappers over plugins/module_utils/k8s_jobs.py: ``scc_launcher_problems``
(playbooks/validate.yml), ``k8s_cpfs_volume_manifests`` (k8s_cpfs_volume),
``k8s_launcher_variables``, ``k8s_training_job``, ``mpijob_manifest``, ``arena_submit_command``,
``mpijob_status``, ``mpijob_conflict`` and ``mpijob_results`` (k8s_training_job). Their documentation lives in the sidecar
``<filter name>.yml`` files."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
    require_mapping,
    require_settings,
)

k8s_jobs = lazy_module_utils("k8s_jobs")


def scc_launcher_problems(launcher):
    """scc_launcher -> one sentence per problem (empty when it is mpirun or mpijob)."""
    return k8s_jobs.launcher_problems(launcher)


def k8s_cpfs_volume_manifests(settings):
    """k8s_cpfs_volume's variables -> [PersistentVolume, PersistentVolumeClaim]."""
    settings = require_settings(settings, "k8s_cpfs_volume_manifests")
    return filter_call("k8s_cpfs_volume_manifests", k8s_jobs.cpfs_volume_manifests, settings)


def k8s_training_job(settings):
    """k8s_training_job's and the launcher's variables -> the training job (mpirun_argv's keys and ``k8s``)."""
    return filter_call("k8s_training_job", k8s_jobs.training_job, require_settings(settings, "k8s_training_job"))


def k8s_launcher_variables(workload):
    """bert or resnet -> the launcher variables (bert_launch_* or resnet_launch_*) its MPIJob is built from."""
    return filter_call("k8s_launcher_variables", k8s_jobs.launcher_variables, workload)


def mpijob_manifest(job):
    """The training job -> the MPIJob (kubeflow.org/v2beta1)."""
    return filter_call("mpijob_manifest", k8s_jobs.mpijob_manifest, require_settings(job, "mpijob_manifest"))


def arena_submit_command(job):
    """The training job -> the equivalent ``arena submit mpijob`` command line (one string)."""
    job = require_settings(job, "arena_submit_command")
    return filter_call("arena_submit_command", k8s_jobs.arena_command, job, errors=(ValueError, KeyError))


def mpijob_status(resource):
    """An MPIJob from the API (or None) -> {finished, succeeded, reason, message}."""
    return k8s_jobs.mpijob_status(resource)


def mpijob_conflict(existing, manifest):
    """The MPIJob of that name in the cluster (or None) and this run's -> why not to apply over it ("" when fine)."""
    if existing is not None:
        require_mapping(existing, "mpijob_conflict", "input must be a dict or none")
    manifest = require_mapping(manifest, "mpijob_conflict", "the manifest must be a dict")
    return filter_call("mpijob_conflict", k8s_jobs.mpijob_conflict, existing, manifest)


def mpijob_results(log_text, run_id, succeeded, transport=None, job_name=None):
    """The launcher's log -> the run's results (rank 0's results.json and NCCL's transport, partial when it failed);
    an error when the log printed another run's results."""
    return filter_call("mpijob_results", k8s_jobs.mpijob_results, log_text, run_id, succeeded, transport, job_name)


class FilterModule(object):
    """scc.training Kubernetes filters."""

    def filters(self):
        return {
            f.__name__: f
            for f in (
                scc_launcher_problems,
                k8s_cpfs_volume_manifests,
                k8s_training_job,
                k8s_launcher_variables,
                mpijob_manifest,
                arena_submit_command,
                mpijob_status,
                mpijob_conflict,
                mpijob_results,
            )
        }
