# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The training job, built once for both launchers: bare-metal mpirun (bert_launch, resnet_launch through mpi_job)
and the Kubernetes MPIJob and Arena line (k8s_training_job, k8s_jobs.py).

- ``SCRIPTS``: one table per training program, a module of the runtime wheel (runtime/scc_training_runtime:
  ``python -m scc_training_runtime.pretrain_bert``, ``...train_resnet``): each row maps a role variable
  (or a value this module derives, ``job.<key>``) to the script's flag, and says how it renders.
- ``role_variables``: a workload -> the role variables the job is built from (the table's and the launcher's),
  which the roles pass by name (``query('ansible.builtin.vars', ...)``).
- ``launcher_role``: a workload -> its launcher role, the prefix of its variables.
- ``launch_variables``: the subset the builder cannot do without (a table's variable may be left undefined: its
  flag is then left out and the script's own default applies).
- ``build``: the workload, its role variables and what was resolved (on the first node, or by k8s_jobs.py) -> the
  job, the keys of mpi.py's ``mpirun_argv`` (its ``program`` ``-m <module>`` and its options from the table).

Adding a training option: its role's meta/argument_specs.yml (and defaults/main.yml when it has a role default),
one row here, the script's argparse, and a test (docs/DEVELOPING.md, "How to add a training option").

Pure Python, no Ansible imports: plugins/filter/training_job.py wraps these and turns their ValueError into the
filter's error.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import posixpath

from ansible_collections.scc.training.plugins.module_utils import input_checks as checks
from ansible_collections.scc.training.plugins.module_utils.bert_levers import LEVERS, bert_levers, lever_argv
from ansible_collections.scc.training.plugins.module_utils.bert_prep import bert_prepared_dir, bert_prepared_root
from ansible_collections.scc.training.plugins.module_utils.mpi import master_addr

# How a row renders: VALUE ``--flag value`` (left out when the value is None or undefined: the script's default),
# SWITCH ``--flag`` when true, LEVERS the resolved levers (bert_levers.LEVERS' flags, lever_argv).
VALUE, SWITCH, LEVER_GROUP = "value", "switch", "levers"
# A row's source: a role variable without its ``<role>_`` prefix, or ``job.<key>``: a value build() derives.
# Rows both scripts take, in the order both tables use them (the argv order the pinned commands hold): the training
# schedule, and two groups of the options every mpi_job program takes (mpi_job_rank.add_job_arguments).
_SCHEDULE = (
    ("--batch-size", "batch_size", VALUE),
    ("--steps", "steps", VALUE),
    ("--warmup-steps", "warmup_steps", VALUE),
)
_JOB_DEVICE = (
    ("--backend", "backend", VALUE),
    ("--precision", "precision", VALUE),
    ("--threads", "omp_num_threads", VALUE),
)
_JOB_OUTPUT = (
    ("--output-dir", "job.output_dir", VALUE),
    ("--run-id", "job.run_id", VALUE),
)
SCRIPTS = {
    "bert": {
        "role": "bert_launch",
        "module": "scc_training_runtime.pretrain_bert",
        "options": (
            ("--framework", "framework", VALUE),
            ("--model-size", "model_size", VALUE),
            ("--seq-len", "seq_len", VALUE),
            *_SCHEDULE,
            *_JOB_DEVICE,
            ("--seed", "seed", VALUE),
            ("--master-addr", "job.master_addr", VALUE),
            ("--master-port", "master_port", VALUE),
            # A corpus of the user's, prepared by bert_prep (its directory), else the shipped one.
            ("--prepared", "job.prepared", VALUE),
            ("--corpus", "job.corpus", VALUE),
            *_JOB_OUTPUT,
            # null: the model size's own.
            ("--learning-rate", "learning_rate", VALUE),
            ("--data-dir", "job.data_dir", VALUE),
            ("--checkpoint-dir", "job.checkpoint_dir", VALUE),
            ("--checkpoint-every", "checkpoint_every", VALUE),
            (None, "job.levers", LEVER_GROUP),
            ("--resume", "resume", SWITCH),
        ),
    },
    "resnet": {
        "role": "resnet_launch",
        "module": "scc_training_runtime.train_resnet",
        # The rendezvous comes from MASTER_ADDR/MASTER_PORT, which mpirun -x exports.
        "options": (
            ("--framework", "framework", VALUE),
            ("--model", "model", VALUE),
            ("--num-classes", "num_classes", VALUE),
            ("--data-dir", "data_dir", VALUE),
            ("--image-size", "image_size", VALUE),
            *_SCHEDULE,
            ("--seed", "seed", VALUE),
            ("--workers", "workers", VALUE),
            *_JOB_DEVICE,
            *_JOB_OUTPUT,
            # null: 0.1 per 256 images of the global batch (the script's).
            ("--learning-rate", "learning_rate", VALUE),
        ),
    },
}
# The variables build() reads besides the table's (without the role's prefix): mpirun, the ranks' environment, the
# Python that runs the script, where the data and checkpoints go.
_LAUNCH = {
    "bert": ["install_dir", "venv_path", "data_dir", "checkpoint_dir", "cpfs_path", "gpu_compute_capability",
             "cpu_only"] + list(LEVERS),
    "resnet": ["install_dir", "python", "python_path"],
}  # fmt: skip
# Variables build() reads when they are defined (a launcher that predates them, or k8s without them, leaves them out).
# nccl_env: the family's NCCL settings (scc_hardware's nccl_env, through the role's default).
_OPTIONAL = {"bert": ["corpus", "vocab", "prepared_dir", "nccl_env"], "resnet": ["nccl_env"]}
_COMMON = ["framework", "transport", "tcp_interface", "master_addr", "master_port", "bind_to", "map_by",
           "omp_num_threads", "env", "mpirun_path", "hostfile", "mpirun_extra_args", "script_extra_args", "timeout"]  # fmt: skip
# What the roles' vars lookup returns for a variable that is not defined (query('ansible.builtin.vars', default=...)).
UNDEFINED = "__scc_training_undefined__"
_SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# What build() needs resolved: the ranks and their placement, the RDMA devices, the run's name and directory, the
# shared file system's mount ("" when none: the install directory holds data and checkpoints), and the rendezvous
# (master_addr, else getent ahostsv4 of the first node in master_getent).
RESOLVED = ("np", "bind_to", "map_by", "rdma_devices", "run_id", "output_dir", "shared_mount")


def _table(workload):
    if workload not in SCRIPTS:
        raise ValueError("the workload (%r) must be one of %s" % (workload, ", ".join(SCRIPTS)))
    return SCRIPTS[workload]


def launcher_role(workload):
    """The role that launches ``workload`` on bare metal (bert_launch, resnet_launch): its variables' prefix."""
    return _table(workload)["role"]


def launch_variables(workload):
    """The role variables build() cannot do without, prefixed (bert_launch_* or resnet_launch_*)."""
    table = _table(workload)
    return ["%s_%s" % (table["role"], name) for name in _COMMON + _LAUNCH[workload]]


def role_variables(workload):
    """Every role variable the job of ``workload`` is built from, prefixed, each once: the launcher's, then the table's."""
    table = _table(workload)
    names = launch_variables(workload) + ["%s_%s" % (table["role"], name) for name in _OPTIONAL[workload]]
    for _flag, source, _how in table["options"]:
        name = "%s_%s" % (table["role"], source)
        if not source.startswith("job.") and name not in names:
            names.append(name)
    return names


def shared_directory(configured, root, default_relative):
    """A data or checkpoint directory: the configured one, else (``auto``) ``default_relative`` under ``root``."""
    return configured if configured not in (None, "", "auto") else posixpath.join(root, default_relative)


def _as_bool(value):
    """A boolean as Ansible's ``bool`` filter reads it (a templated default may be the string "False")."""
    return checks.boolean(value) is True


def _defined(value):
    return None if value == UNDEFINED else value


def script_argv(workload, settings, derived):
    """The script's options from its table: ``settings`` the role variables, ``derived`` the ``job.<key>`` values."""
    table = _table(workload)
    argv = []
    for flag, source, how in table["options"]:
        if source.startswith("job."):
            value = derived[source[len("job.") :]]
        else:
            value = _defined(settings.get("%s_%s" % (table["role"], source), UNDEFINED))
        if how == LEVER_GROUP:
            argv += lever_argv(value or {})
        elif how == SWITCH:
            argv += [flag] if _as_bool(value) else []
        elif value is not None:
            argv += [flag, str(value)]
    return argv


def build(workload, settings, resolved):
    """The job both launchers render (mpi.py's mpirun_argv keys), from ``settings`` (the role variables of
    role_variables, prefixed) and ``resolved`` (RESOLVED's keys, and master_addr or master_getent, and
    aiacc_env_file_content on bare metal). Raises ValueError naming a missing variable or resolved key."""
    table = _table(workload)
    missing = [name for name in launch_variables(workload) if settings.get(name, UNDEFINED) == UNDEFINED]
    if missing:
        raise ValueError("%s's variables are not defined: %s" % (table["role"], ", ".join(missing)))
    absent = [key for key in RESOLVED if key not in resolved]
    if absent:
        raise ValueError("the resolved values lack %s" % ", ".join(absent))

    def v(name):
        return _defined(settings["%s_%s" % (table["role"], name)])

    run_id = str(resolved["run_id"])
    job = {
        "timeout": v("timeout"),
        "mpirun_path": v("mpirun_path"),
        "hostfile": v("hostfile"),
        "np": resolved["np"],
        "bind_to": resolved["bind_to"],
        "map_by": resolved["map_by"],
        "tcp_interface": v("tcp_interface"),
        "transport": v("transport"),
        "rdma_devices": resolved["rdma_devices"],
        "master_addr": resolved.get("master_addr") or v("master_addr"),
        "master_getent": resolved.get("master_getent"),
        "master_port": v("master_port"),
        "omp_num_threads": v("omp_num_threads"),
        "run_id": run_id,
        "framework": v("framework"),
        "aiacc_env_file_content": resolved.get("aiacc_env_file_content"),
        "nccl_env": dict(_defined(settings.get("%s_nccl_env" % table["role"], UNDEFINED)) or {}),
        "mpirun_extra_args": list(v("mpirun_extra_args") or []),
        "script_extra_args": list(v("script_extra_args") or []),
    }
    derived = {"run_id": run_id, "output_dir": resolved["output_dir"]}
    if workload == "bert":
        # Shards and checkpoints (auto): on the shared file system when mounted, else the install directory.
        root = resolved["shared_mount"]
        root = posixpath.join(root, "scc-training", "bert") if root else v("install_dir")
        levers = {"compute_capability": v("gpu_compute_capability"), "cpu_only": _as_bool(v("cpu_only"))}
        levers.update({lever: v(lever) for lever in LEVERS})
        job.update(
            {
                "path": "%s/bin:%s" % (v("venv_path"), _SYSTEM_PATH),
                "python": "%s/bin/python" % v("venv_path"),
                "env": dict(v("env") or {}),
            }
        )
        corpus = _defined(settings.get("bert_launch_corpus", UNDEFINED))
        prepared = None
        if corpus:
            if v("seq_len") is None or v("seed") is None:
                raise ValueError(
                    "bert_launch_corpus needs bert_launch_seq_len and bert_launch_seed (its prepared directory)"
                )
            prepared = bert_prepared_dir(
                {
                    "data_dir": bert_prepared_root(
                        _defined(settings.get("bert_launch_prepared_dir", UNDEFINED)), v("cpfs_path")
                    ),
                    "corpus": corpus,
                    "vocab": _defined(settings.get("bert_launch_vocab", UNDEFINED)) or "",
                    "seq_len": v("seq_len"),
                    "seed": v("seed"),
                }
            )
        derived.update(
            {
                "master_addr": master_addr(job),
                "prepared": prepared,
                # Neither: the corpus the runtime package ships (pretrain_bert's default).
                "corpus": None,
                "data_dir": shared_directory(v("data_dir"), root, "data"),
                "checkpoint_dir": shared_directory(v("checkpoint_dir"), root, "checkpoints"),
                "levers": bert_levers(levers),
            }
        )
    else:
        # The runtime is the venv's (python_env installs its wheel): PYTHONPATH only for extra site directories.
        python_path = list(v("python_path") or [])
        env = {"PYTHONPATH": ":".join(python_path)} if python_path else {}
        env.update(v("env") or {})
        job.update(
            {"path": "%s:%s" % (posixpath.dirname(v("python")), _SYSTEM_PATH), "python": v("python"), "env": env}
        )
    # The program is a module of the runtime wheel in the venv: python -m scc_training_runtime.<module> <options>.
    job["program"] = ["-m", table["module"]] + script_argv(workload, settings, derived)
    return job
