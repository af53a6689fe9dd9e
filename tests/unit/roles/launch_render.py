"""Renders a launcher role's mpirun command as launch.yml does, in the test's process: the role's defaults and vars,
the case's variables and what launch.yml registers on the first node, with Ansible's templar; the role's
``_<role>_settings`` (its variables passed by name through the vars lookup) and ``_<role>_job_resolved`` then go
through scc.training.training_job and scc.training.mpirun_argv's functions. Used by bert_launch's command tests and
the pinned commands of test_training_job_pinned.py."""

from pathlib import Path

from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar

from ansible_collections.scc.training.plugins.filter.mpi import mpirun_argv, mpirun_placement
from ansible_collections.scc.training.plugins.filter.training_job import training_job, training_job_variables

ROOT = Path(__file__).resolve().parents[3]
WORKLOADS = {"bert_launch": "bert", "resnet_launch": "resnet"}


def role_vars(role):
    """The role's defaults and vars, as Ansible loads them (templates kept)."""
    loader = DataLoader()
    variables = {}
    for path in (ROOT / "roles" / role / "defaults" / "main.yml", ROOT / "roles" / role / "vars" / "main.yml"):
        variables.update(loader.load_from_file(str(path), trusted_as_template=True))
    return loader, variables


def render_argv(role, case_vars, resolved, cpfs_rc=0, run_id="unit-run"):
    """The mpirun argv launch.yml builds for ``role`` with ``case_vars``, ``resolved`` (mpi_job's resolve result)
    and ``cpfs_rc`` (bert_launch's ``mountpoint -q`` of CPFS)."""
    loader, variables = role_vars(role)
    workload = WORKLOADS[role]
    merged = {**variables, "openmpi_mpirun_path": "/usr/bin/mpirun", **case_vars}
    placement = mpirun_placement(
        resolved["topology"], resolved["np"], resolved["nodes"], merged[role + "_bind_to"], merged[role + "_map_by"]
    )
    merged.update(
        {
            # The templar here has no collection filters: the names come from the same function the filter wraps.
            "_%s_job_variables" % role: training_job_variables(workload),
            "__%s_run_id" % role: run_id,
            "__%s_resolved" % role: resolved,
            "__%s_placement" % role: placement,
            "__%s_cpfs" % role: {"rc": cpfs_rc},
        }
    )
    templar = Templar(loader=loader, variables=merged)
    settings = templar.template(variables["_%s_settings" % role])
    job = training_job(settings, workload, templar.template(variables["_%s_job_resolved" % role]))
    return mpirun_argv(job)
