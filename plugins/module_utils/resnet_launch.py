# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""resnet_launch's rules across its variables (its validate.yml): ``resnet_launch_input_problems``.
The framework, backend, CPU-only and transport rules are the launchers' shared ones (mpi.framework_problems).

Pure Python, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.module_utils import input_checks as checks
from ansible_collections.scc.training.plugins.module_utils.cluster import (
    address_or_name_problems,
    consumed_host_problems,
)
from ansible_collections.scc.training.plugins.module_utils.mpi import framework_problems

_RULES = (
    ("resnet_launch_steps", checks.minimum(1), ">= 1"),
    ("resnet_launch_batch_size", checks.minimum(1), ">= 1 (images per rank per step)"),
    ("resnet_launch_image_size", checks.minimum(32), ">= 32 (five stride-2 stages)"),
    ("resnet_launch_num_classes", checks.minimum(2), ">= 2 (the labels 1..N of the shards)"),
    ("resnet_launch_np", checks.minimum(0), ">= 0 (0: the hostfile's slots)"),
    ("resnet_launch_min_nodes", checks.minimum(1), ">= 1"),
    ("resnet_launch_workers", checks.minimum(0), ">= 0"),
    ("resnet_launch_omp_num_threads", checks.minimum(1), ">= 1"),
    ("resnet_launch_timeout", checks.minimum(1), ">= 1"),
    ("resnet_launch_seed", checks.minimum(0), ">= 0"),
    ("resnet_launch_master_port", checks.is_port, "a port within [1, 65535]"),
    (
        "resnet_launch_data_dir",
        checks.pattern(checks.ABSOLUTE.pattern),
        "an absolute path on the nodes (imagenet_prep's tfrecord/)",
    ),
    (
        "resnet_launch_tcp_interface",
        checks.pattern(checks.INTERFACE.pattern),
        "an interface name such as eth0, bond0 or lo",
    ),
    ("resnet_launch_run_id", checks.pattern(r"^[A-Za-z0-9._-]*$"), "empty or letters, digits, '.', '_' and '-'"),
)


def _step_problems(settings):
    warmup, steps = (
        checks.number(settings["resnet_launch_warmup_steps"]),
        checks.number(settings["resnet_launch_steps"]),
    )
    problems = []
    if warmup is None or warmup < 0 or steps is None or warmup >= steps:
        problems.append(
            "resnet_launch_warmup_steps (%s) must be >= 0 and < resnet_launch_steps (%s) so that a step is measured."
            % (settings["resnet_launch_warmup_steps"], settings["resnet_launch_steps"])
        )
    rate = settings["resnet_launch_learning_rate"]
    if rate is not None and not checks.positive(rate):
        problems.append("resnet_launch_learning_rate (%s) must be null (0.1 per 256 images) or > 0." % rate)
    return problems


def _node_problems(settings):
    hosts, group = list(settings["group_hosts"]), settings["resnet_launch_group"]
    # The names reach the hostfile, getent's and mpirun's command lines: judged here too, whatever --tags skipped.
    problems = consumed_host_problems("resnet_launch_group", group, hosts)
    problems += address_or_name_problems("resnet_launch_master_addr", settings["resnet_launch_master_addr"])
    size, least = len(hosts), checks.number(settings["resnet_launch_min_nodes"])
    if size and least is not None and least > size:
        problems.append(
            "resnet_launch_min_nodes (%s) must be at most the %d node(s) of group '%s'." % (least, size, group)
        )
    return problems


def _env_problems(settings):
    env = settings["resnet_launch_env"]
    bad = [name for name in env or {} if not checks.ENV_NAME.match(str(name))]
    problems = ["resnet_launch_env's keys must be environment variable names (got %s)." % bad] if bad else []
    problems += checks.env_value_problems("resnet_launch_env", env)
    return problems + checks.secret_env_problems(
        "resnet_launch_secret_env", settings["resnet_launch_secret_env"], "resnet_launch_env", env or {}
    )


def resnet_launch_input_problems(settings):
    """resnet_launch's variables -> one sentence per problem, naming the variable ([] when all is well).

    ``settings``: the ``resnet_launch_*`` variables (``resnet_launch_cpu_only`` a bool) and ``group_hosts``
    (the hosts of resnet_launch_group).
    """
    return (
        checks.group_problems(settings, "resnet_launch_group")
        + _node_problems(settings)
        + checks.rule_problems(settings, _RULES)
        + _step_problems(settings)
        + framework_problems(settings, "resnet_launch")
        + _env_problems(settings)
    )
