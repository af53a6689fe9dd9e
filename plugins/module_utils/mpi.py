# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Open MPI hostfiles and the mpirun commands of the launchers and nccl_check, as pure functions.

- ``render_hostfile``: ``[{host, slots}]`` -> hostfile text (the mpi_hostfile role writes it).
- ``parse_hostfile``: hostfile text -> ``[{host, slots}]`` (``slots`` None where a line has none).
- ``hostfile_ranks``: the number of ranks to start: ``np``, else the sum of the hostfile's slots.
- ``hostfile_nodes``: the cluster's nodes that go into the hostfile (the healthy ones).
- ``hostfile_node_count``: hostfile text -> the number of its nodes, at least ``min_nodes``.
- ``parse_env_file``: ``NAME=value`` lines (the aiacc role's file) -> dict.
- ``master_addr``: the rendezvous address: the job's ``master_addr``, else the first of ``master_getent``.
- ``rank_env``: the environment every rank gets (``mpirun -x``).
- ``program_argv``: the rank program and its arguments (the job's ``program``, training_job.py's build).
- ``mpirun_argv``: the whole command: ``timeout`` around ``mpirun`` around the rank program.
- ``framework_modules``: a data-parallel framework -> the modules its ranks import.
- ``framework_problems``: the rules across a launcher's framework, backend, CPU-only and transport
  variables (bert_launch, resnet_launch), each naming the role's variable.
- ``mpirun_options``: the options between ``-np`` and the program (placement, interfaces, ``-x``).
- ``nccl_tests_mpirun``: nccl_check's mpirun with the same MPI and NCCL transport settings, up to
  its hosts and program.

Pure Python, no Ansible imports: the filters in plugins/filter/mpi.py wrap these functions and
turn their ValueError into the filter's error.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.scc.training.plugins.module_utils.input_checks import show
from ansible_collections.scc.training.plugins.module_utils.rdma import nccl_ib_env

_WHITESPACE = re.compile(r"\s")
# Open MPI's hostfile: "host [slots=N] [max_slots=M] ..."; max_slots is not slots.
_SLOTS = re.compile(r"(?<![\w])slots\s*=\s*([0-9]+)")
_ENV_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
# Seconds between timeout's TERM and its KILL.
_KILL_AFTER = 60


def _hostfile_entry(index, entry, seen):
    """Check one ``{host, slots}`` entry; return ``(host, slots)`` or raise ValueError."""
    where = "entry %d" % index
    if not isinstance(entry, dict):
        raise ValueError("%s must be a dict with keys 'host' and 'slots', got %s" % (where, type(entry).__name__))
    unknown = sorted(str(k) for k in set(entry) - {"host", "slots"})
    if unknown:
        raise ValueError("%s has unknown key(s) %s; allowed: host, slots" % (where, ", ".join(unknown)))
    if "host" not in entry:
        raise ValueError("%s has no 'host'" % where)
    if "slots" not in entry:
        raise ValueError("%s (host %r) has no 'slots'" % (where, entry["host"]))
    host, slots = entry["host"], entry["slots"]
    if not isinstance(host, str) or not host:
        raise ValueError("%s: host must be a non-empty string, got %r" % (where, host))
    if _WHITESPACE.search(host):
        raise ValueError("%s: host %r must not contain whitespace" % (where, host))
    if host in seen:
        raise ValueError(
            "%s: duplicate host %r (already entry %d); each host must appear once" % (where, host, seen[host])
        )
    # bool is a subclass of int: True would silently become "slots=1".
    if isinstance(slots, bool) or not isinstance(slots, int):
        raise ValueError(
            "%s (host %s): slots must be an integer >= 1, got %r (%s)" % (where, host, slots, type(slots).__name__)
        )
    if slots < 1:
        raise ValueError("%s (host %s): slots must be an integer >= 1, got %d" % (where, host, slots))
    seen[host] = index
    return host, slots


def render_hostfile(entries):
    """``entries`` (list of ``{host, slots}``) -> Open MPI hostfile text.

    Lines keep the input order (the first host is rank 0's host); the text ends with a newline.
    Raises ValueError naming the entry and the problem.
    """
    if isinstance(entries, (str, bytes, dict)) or not hasattr(entries, "__iter__"):
        raise ValueError("input must be a list of {host, slots} dicts, got %s" % type(entries).__name__)
    entries = list(entries)
    if not entries:
        raise ValueError("input is empty; a hostfile needs at least one host")
    seen = {}
    lines = ["%s slots=%d" % _hostfile_entry(index, entry, seen) for index, entry in enumerate(entries)]
    return "\n".join(lines) + "\n"


def parse_hostfile(text):
    """Hostfile text -> ``[{host, slots}]`` in file order; comments and blank lines left out.

    ``slots`` is the line's ``slots=N`` as an int, or None when the line gives none.
    """
    hosts = []
    for raw in (text or "").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split(None, 1)
        match = _SLOTS.search(fields[1]) if len(fields) > 1 else None
        hosts.append({"host": fields[0], "slots": int(match.group(1)) if match else None})
    return hosts


def hostfile_ranks(text, np=0):
    """Ranks to start: ``np`` when it is > 0, else the sum of the hostfile's ``slots=``.

    Raises ValueError when the hostfile lists no host, or (np 0) a host line has no ``slots=N``
    or the slots add up to 0.
    """
    np = int(np)
    if np < 0:
        raise ValueError("np must be >= 0 (0: the sum of the hostfile's slots), got %d" % np)
    hosts = parse_hostfile(text)
    if not hosts:
        raise ValueError("the hostfile lists no host ('host slots=N' lines; the mpi_hostfile role writes them)")
    if np > 0:
        return np
    missing = [h["host"] for h in hosts if h["slots"] is None]
    if missing:
        raise ValueError(
            "with np 0 (the sum of the slots) every host line needs slots=N; %d of %d have none: %s"
            % (len(missing), len(hosts), ", ".join(missing))
        )
    total = sum(h["slots"] for h in hosts)
    if total < 1:
        raise ValueError("the hostfile's %d host line(s) give 0 slots" % len(hosts))
    return total


def hostfile_nodes(nodes, healthy=None, exclude_unhealthy=True):
    """The nodes the hostfile lists, in ``nodes``' (inventory) order.

    ``healthy``: the cluster's healthy nodes (scc_healthy_nodes, from the cluster_health role), or
    None when no gate judged the cluster in this run: then every node. With ``exclude_unhealthy``
    the unhealthy nodes are left out; without it, an unhealthy node is refused (a job that would
    start ranks on a node known bad), naming the nodes. Raises ValueError.
    """
    nodes = list(nodes)
    if not nodes:
        raise ValueError("the cluster group has no node")
    if healthy is None:
        return nodes
    if isinstance(healthy, (str, dict)) or not hasattr(healthy, "__iter__"):
        raise ValueError("scc_healthy_nodes must be a list of host names, got %s" % type(healthy).__name__)
    healthy = set(healthy)
    unhealthy = [node for node in nodes if node not in healthy]
    if unhealthy and not exclude_unhealthy:
        raise ValueError(
            "unhealthy node(s) %s (not in scc_healthy_nodes) and mpi_hostfile_exclude_unhealthy is false: "
            "repair them, or set mpi_hostfile_exclude_unhealthy: true to leave them out of the hostfile"
            % ", ".join(unhealthy)
        )
    kept = [node for node in nodes if node in healthy]
    if not kept:
        raise ValueError("no healthy node left for the hostfile (unhealthy: %s)" % ", ".join(unhealthy))
    return kept


def hostfile_node_count(text, min_nodes=1, variable="bert_launch_min_nodes"):
    """Hostfile text -> its number of nodes; ValueError when fewer than ``min_nodes`` (the launcher's ``variable``)."""
    hosts = [entry["host"] for entry in parse_hostfile(text)]
    if len(hosts) < min_nodes:
        raise ValueError(
            "the hostfile lists %d node(s) (%s), fewer than %s (%d): the other nodes were "
            "judged unhealthy by verify.yml (see its cluster_health message) or are not in the cluster group"
            % (len(hosts), ", ".join(hosts) or "none", variable, min_nodes)
        )
    return len(hosts)


def parse_env_file(text):
    """``NAME=value`` lines -> ``{NAME: value}`` in file order; other lines (comments) left out.

    Values are taken as written after the first ``=`` (no quote removal, as mpirun -x passes them).
    """
    env = {}
    for raw in (text or "").splitlines():
        match = _ENV_LINE.match(raw.strip())
        if match:
            env[match.group(1)] = match.group(2)
    return env


def master_addr(job):
    """bert_launch_master_addr, else the first address of ``getent ahostsv4 <first node>``."""
    if job.get("master_addr"):
        return str(job["master_addr"])
    for line in (job.get("master_getent") or "").splitlines():
        if line.split():
            return line.split()[0]
    raise ValueError("master_addr is empty and master_getent (getent ahostsv4 of the first node) has no address")


def _nccl_env(job):
    """tcp: NCCL on sockets, nothing RDMA set; rdma: NCCL's IB transport on the active ports."""
    if job["transport"] == "rdma":
        return nccl_ib_env(job.get("rdma_devices") or [], job["tcp_interface"])
    if job["transport"] == "tcp":
        return {"NCCL_SOCKET_IFNAME": job["tcp_interface"], "NCCL_IB_DISABLE": "1"}
    raise ValueError("transport must be tcp or rdma, got %r" % (job["transport"],))


def rank_env(job):
    """The environment of every rank, in ``mpirun -x`` order: the rendezvous, threads and PATH,
    the sockets' interface, NCCL's transport, with the rdma transport the family's ``nccl_env`` (scc_hardware's: on
    eRDMA PAI's preset values) where the discovered ports set nothing, then the framework's file (aiacc) and ``env``
    on top, each overriding what came before: a hand-set NCCL variable wins. Values are strings."""
    env = {
        "MASTER_ADDR": master_addr(job),
        "MASTER_PORT": job["master_port"],
        "OMP_NUM_THREADS": job["omp_num_threads"],
        "PATH": job["path"],
        "GLOO_SOCKET_IFNAME": job["tcp_interface"],
    }
    nccl = _nccl_env(job)
    env.update(nccl)
    if job["transport"] == "rdma":
        env.update({name: value for name, value in (job.get("nccl_env") or {}).items() if name not in nccl})
    env.update({"TOKENIZERS_PARALLELISM": "false", "SCC_TRAINING_RUN_ID": job["run_id"]})
    if job["framework"] == "aiacc":
        env.update(parse_env_file(job.get("aiacc_env_file_content")))
    env.update(job.get("env") or {})
    return {str(name): str(value) for name, value in env.items()}


def program_argv(job):
    """The rank program and its arguments (``program``: the script, then its options, training_job.py's
    build), then ``script_extra_args``."""
    extra = [str(arg) for arg in job.get("script_extra_args") or []]
    return [str(arg) for arg in job["program"]] + extra


# Framework -> the modules its ranks import besides torch, in order (torch: none; ACSpeed after torch):
# mpi_job_framework.py's FRAMEWORK_MODULES, as the launchers check them on the first node before the run.
_FRAMEWORK_MODULES = {
    "torch": [],
    "horovod": ["horovod.torch"],
    "aiacc": ["perseus.torch.horovod"],
    "acspeed": ["torch", "acspeed"],
}


def framework_modules(framework):
    """The modules the ranks of ``framework`` (torch, horovod, aiacc, acspeed) import; ValueError otherwise."""
    if framework not in _FRAMEWORK_MODULES:
        raise ValueError("framework must be one of %s, got %r" % (", ".join(_FRAMEWORK_MODULES), framework))
    return list(_FRAMEWORK_MODULES[framework])


def framework_problems(settings, role):
    """The rules across ``<role>_framework``, ``_backend``, ``_cpu_only`` (a bool) and ``_transport`` of a
    launcher (bert_launch, resnet_launch) -> one sentence per problem, naming the role's variables."""
    framework, backend = settings[role + "_framework"], settings[role + "_backend"]
    cpu_only = settings[role + "_cpu_only"]
    names = {"role": role, "framework": framework, "backend": backend, "cpu_only": str(cpu_only).lower()}
    problems = []
    if framework != "torch" and backend != "auto":
        problems.append(
            "%(role)s_backend must be auto unless %(role)s_framework is torch (got %(backend)s with %(framework)s: "
            "Horovod and AIACC choose their own, ACSpeed runs over NCCL)." % names
        )
    # AIACC-Training allreduces over NCCL, and ACSpeed plugs into DDP over NCCL, on GPUs: no CPU path.
    if framework in ("aiacc", "acspeed") and cpu_only:
        problems.append(
            "%(role)s_framework %(framework)s needs GPUs (AIACC-Training and ACSpeed communicate over NCCL), but the "
            "cluster is declared CPU-only (%(role)s_cpu_only, from scc_cpu_only, is %(cpu_only)s). Use "
            "%(role)s_framework torch or horovod on CPUs." % names
        )
    # On CPUs every framework allreduces over gloo or MPI/TCP: NCCL (the only RDMA path) needs GPUs. The lab's STAND-IN
    # switch <role>_standin_rdma_on_cpu lets the rdma launch path run on CPUs; the NET/IB check after the run stays.
    standin = settings.get(role + "_standin_rdma_on_cpu") is True
    if settings[role + "_transport"] == "rdma" and (backend == "gloo" or cpu_only) and not standin:
        problems.append(
            "%(role)s_transport rdma needs NCCL on GPUs: %(role)s_backend nccl, or auto on GPUs (got %(backend)s, "
            "%(role)s_cpu_only %(cpu_only)s, from scc_cpu_only); gloo has no RDMA transport. On a CPU-only cluster "
            "set scc_transport (or %(role)s_transport) to tcp." % names
        )
    return problems


def _mpirun_options(job, env):
    """mpirun's placement, MPI's TCP and out-of-band traffic on ``tcp_interface``, the environment
    as ``-x NAME=value``, then ``mpirun_extra_args``."""
    argv = ["--bind-to", str(job["bind_to"]), "--map-by", str(job["map_by"])]
    argv += ["--mca", "pml", "ob1", "--mca", "btl", "tcp,self"]
    argv += ["--mca", "btl_tcp_if_include", str(job["tcp_interface"])]
    argv += ["--mca", "oob_tcp_if_include", str(job["tcp_interface"])]
    for name, value in env.items():
        argv += ["-x", "%s=%s" % (name, value)]
    return argv + [str(arg) for arg in job.get("mpirun_extra_args") or []]


def mpirun_options(job, env):
    """mpirun's options between ``-np`` and the program, as every launcher of the collection gives them:
    the placement, MPI's TCP and out-of-band traffic on ``tcp_interface``, ``env`` as ``-x NAME=value``,
    then ``mpirun_extra_args`` (k8s_jobs.py's MPIJob launcher uses it too)."""
    return _mpirun_options(job, env)


def nccl_tests_mpirun(job):
    """nccl_check's mpirun, up to the hosts and the program: ``mpirun_path``, the placement, MPI
    on ``tcp_interface``, NCCL's transport (``transport`` tcp or rdma, ``rdma_devices``) with
    ``env`` on top as ``-x`` pairs, ``mpirun_extra_args``. The caller adds ``--hostfile``, ``-np``
    and the nccl-tests binary. Raises ValueError on a missing key, a bad transport, or an rdma job
    without an active port."""
    if not isinstance(job, dict):
        raise ValueError("input must be a dict of nccl_check's settings, got %s" % type(job).__name__)
    try:
        env = _nccl_env(job)
        env.update(job.get("env") or {})
        env = {str(name): str(value) for name, value in env.items()}
        return [str(job["mpirun_path"]), "--allow-run-as-root"] + _mpirun_options(job, env)
    except KeyError as exc:
        raise ValueError("missing key %s" % exc) from None


def mpirun_argv(job):
    """A launcher's whole command line, from its variables (``job``, see the mpirun_argv filter's
    documentation for the keys): ``timeout`` around ``mpirun`` (MPI's TCP and out-of-band traffic
    on ``tcp_interface``, the environment as ``-x NAME=value``) around the rank program (program_argv).

    Raises ValueError on a missing key, a bad transport or np, or an rdma job without an active port.
    """
    if not isinstance(job, dict):
        raise ValueError("input must be a dict of the launcher's settings, got %s" % type(job).__name__)
    try:
        np = int(job["np"])
        if np < 1:
            raise ValueError("np must be >= 1 (the ranks to start), got %d" % np)
        argv = ["/usr/bin/timeout", "--kill-after=%d" % _KILL_AFTER, str(job["timeout"]), str(job["mpirun_path"])]
        argv += ["--allow-run-as-root", "--hostfile", str(job["hostfile"]), "-np", str(np)]
        argv += _mpirun_options(job, rank_env(job))
        return argv + [str(job["python"])] + program_argv(job)
    except KeyError as exc:
        raise ValueError("missing key %s" % exc) from None


# A package name apt or dnf takes as one argument: no whitespace (two names in one item), not an option ('-...').
_PACKAGE_NAME = re.compile(r"^[^\s-]\S*$")


def openmpi_input_problems(settings):
    """openmpi's variables: a minimum version such as 4.1, and package lists of one package name per item."""
    problems = []
    if not re.match(r"^[0-9]+(\.[0-9]+){0,2}$", str(settings["openmpi_version_min"])):
        problems.append(
            'openmpi_version_min (%s) must be a version such as "4.1".' % show(settings["openmpi_version_min"])
        )
    for variable in ("openmpi_packages", "openmpi_extra_packages"):
        wrong = [item for item in settings[variable] or [] if not _PACKAGE_NAME.match(str(item))]
        if wrong:
            problems.append(
                "%s (%s) must list one package name per item, without spaces and not starting with '-'."
                % (variable, show(wrong))
            )
    return problems
