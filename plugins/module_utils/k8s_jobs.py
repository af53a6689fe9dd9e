# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The Kubernetes path (issue 16), as pure functions: the CPFS volume, the training job as a Kubeflow
MPIJob, the equivalent Arena command line, and the problems of their inputs.

- ``launcher_variables``: a workload -> the launcher variables its MPIJob is built from.
- ``launcher_problems``: ``scc_launcher`` (``mpirun`` | ``mpijob``) -> one sentence per problem.
- ``cpfs_volume_problems`` / ``cpfs_volume_manifests``: the role k8s_cpfs_volume's variables -> its problems /
  ``[PersistentVolume, PersistentVolumeClaim]`` for CPFS over NFS through Alibaba's NAS CSI plugin.
- ``training_job_problems``: the role k8s_training_job's variables (and the launcher's, bert_launch_* or
  resnet_launch_*) -> one sentence per problem, each naming its variable (choices: the role's argument spec).
- ``training_job``: the same -> the launcher job (the keys of the mpirun_argv filter) the MPIJob runs, from the
  same variables the bare-metal launcher reads.
- ``mpijob_manifest``: the training job -> the MPIJob (kubeflow.org/v2beta1).
- ``arena_argv``: the training job -> ``arena submit mpijob ...``, the same job for users of Arena.
- ``mpijob_status``: an MPIJob as the API returns it -> whether it finished and how.
- ``mpijob_conflict``: an MPIJob of the same name already in the cluster and this run's -> why applying this one
  would report another run's results (kubernetes.core.k8s patches it; mpi-operator never runs an MPIJob again).
- ``mpijob_results``: the launcher's log -> the run's results (the results JSON rank 0 wrote), as the results
  file of the bare-metal launcher holds them; refused when they are another run's.

Sources of the facts used here (checked 2026-12-03):
- CSI: kubernetes-sigs/alibaba-cloud-csi-driver (master, commit 8aacf9009bf9), driver name
  ``nasplugin.csi.alibabacloud.com`` (examples/nas/pv.yaml, docs/nas.md); the volume attributes it reads
  (pkg/nas/nodeserver.go, parseVolumeContext: ``server``, ``path``, ``vers``, ``mountProtocol``; constant
  MountProtocolCPFSNFS = ``cpfs-nfs``); a cpfs-nfs path is under ``/share`` (pkg/nas/utils.go,
  getMountRootAndRelPath: rootPath ``/share`` when the protocol is cpfs-nfs); ``volumeHandle`` the PV's name
  (examples/nas/pv.yaml: "volumeHandle set same value as pvname"); CPFS's NFS protocol service is NFSv3 only
  (Alibaba NAS API, CreateProtocolService: ProtocolType NFS, "NFSv3 only"; /work/shared/research/aliyun_facts.md).
- MPIJob: kubeflow/mpi-operator v0.8.0 (commit 101db144e019), manifests/base/kubeflow.org_mpijobs.yaml (the
  CRD, pinned in tests/fixtures/k8s/); pkg/controller/mpi_job_controller.go: workers are ``<job>-worker-<i>``
  with subdomain ``<job>`` (the job's Service), the hostfile lists ``<job>-worker-<i>.<job>.<ns>.svc slots=N``
  in worker order (so rank 0 runs on worker 0) and reaches the launcher through OMPI_MCA_orte_default_hostfile;
  hostNetwork pods get DNSPolicy ClusterFirstWithHostNet; examples/v2beta1/pi/pi.yaml: workers run
  ``/usr/sbin/sshd -De``.
- RDMA device resource: ``rdma/hca`` (Alibaba ACK, "Use RDMA shared mode",
  https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/use-rdma-shared-mode:
  ack-rdma-device-plugin registers each RDMA NIC as 1,000 ``rdma/hca``; hostNetwork pods request
  ``rdma/hca: 1`` with the IPC_LOCK and SYS_RESOURCE capabilities). Alibaba documents that plugin for Lingjun
  nodes; for sccgn6 (SCC, RoCE v2) it is NOT confirmed: the resource name is a variable.
- eRDMA device resource: ``aliyun/erdma`` (Alibaba ACK, "Use eRDMA in ACK clusters" and "Submit a PyTorch
  distributed training job through Arena and enable eRDMA acceleration", research/hardware_facts.md 4.6): the "ACK
  eRDMA Controller" add-on registers each node's eRDMA devices as the extended resource ``aliyun/erdma`` (managed
  clusters only; gn8is, ebmgn8is, gn8v, ebmgn8v named); the job runs on the host network and Arena requests it with
  ``--device=aliyun/erdma=1`` and ``--hostNetwork``. The add-on is a precondition, installed from the ACK console:
  the CS client here (_alicloud_cs.py) has no add-on action.
- Arena: kubeflow/arena pkg/argsbuilder/submit.go (``--name``, ``--image``, ``--gpus`` per worker,
  ``--workers``, ``--env``, ``--data <pvc>:<mount>``, ``--rdma``, ``--hostNetwork``, ``--working-dir``,
  ``--selector``) and submit_mpijob.go (``--cpu``, ``--memory``, ``--mounts-on-launcher``,
  ``--clean-task-policy``); ``--namespace`` is arena's global flag.

Pure Python, no Ansible imports: plugins/filter/k8s.py wraps these and turns their ValueError into the
filter's error.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import posixpath
import re

from ansible_collections.scc.training.plugins.module_utils import input_checks as checks
from ansible_collections.scc.training.plugins.module_utils import training_job as job_builder
from ansible_collections.scc.training.plugins.module_utils.mpi import mpirun_options, program_argv, rank_env
from ansible_collections.scc.training.plugins.module_utils.nccl_log import parse_nccl_log

LAUNCHERS = ("mpirun", "mpijob")
# The workloads and their launcher roles: training_job.py's tables (launcher_role).
WORKLOADS = tuple(job_builder.SCRIPTS)
CSI_DRIVER = "nasplugin.csi.alibabacloud.com"
CPFS_NFS_PROTOCOL = "cpfs-nfs"
CPFS_NFS_ROOT = "/share"
MPIJOB_API_VERSION = "kubeflow.org/v2beta1"
# The RDMA device resources ACK documents: RDMA shared mode (ack-rdma-device-plugin) and the eRDMA controller.
RDMA_SHARED_RESOURCE = "rdma/hca"
ERDMA_RESOURCE = "aliyun/erdma"
# The MPIJob's run (label) and a digest of its spec (annotation): what mpijob_conflict compares.
RUN_ID_LABEL = "scc.training/run-id"
SPEC_ANNOTATION = "scc.training/spec-sha256"
# What the launcher prints around results.json after mpirun (mpijob_results reads it back from its log).
RESULTS_BEGIN = "=== scc-training results.json begin ==="
RESULTS_END = "=== scc-training results.json end ==="
# The launcher's shell: $1 the results file, then mpirun's argv; mpirun's status is the launcher's.
LAUNCHER_SCRIPT = 'r="$1"; shift; "$@"; rc=$?; echo "%s"; cat "$r" 2>/dev/null; echo; echo "%s"; exit $rc' % (
    RESULTS_BEGIN,
    RESULTS_END,
)
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")
# Kubernetes resource.Quantity (apimachinery quantity.go): a number and an optional binary/decimal suffix.
_QUANTITY = re.compile(r"^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?\Z")
_RESOURCE_NAME = re.compile(r"^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?\Z")
_HOST = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?\Z")
# "<job>-worker-<i>" is a pod's hostname: a DNS label of at most 63 characters.
_WORKER_SUFFIX = "-worker-"
_LABEL_MAX = 63
# Room for "-worker-" and a 4-digit index.
_NAME_MAX = _LABEL_MAX - len(_WORKER_SUFFIX) - 4
# What the role's vars lookup returns for a launcher variable that is not defined (the launcher role not in the play).
UNDEFINED = job_builder.UNDEFINED


def launcher_variables(workload):
    """The launcher variables (bert_launch_* or resnet_launch_*) the MPIJob of ``workload`` is built from."""
    if workload not in WORKLOADS:
        raise ValueError(
            "k8s_training_job_workload (%s) must be one of %s" % (checks.show(workload), ", ".join(WORKLOADS))
        )
    return job_builder.role_variables(workload)


def launcher_problems(launcher):
    """``scc_launcher`` must be mpirun or mpijob."""
    if launcher in LAUNCHERS:
        return []
    return [
        "scc_launcher (%s) must be one of %s: mpirun launches from the first node over SSH, mpijob submits a "
        "Kubeflow MPIJob to Kubernetes (ACK)." % (checks.show(launcher), ", ".join(LAUNCHERS))
    ]


def _label_problem(variable, value, limit=_LABEL_MAX):
    value = checks.text(value)
    if _DNS_LABEL.match(value) and len(value) <= limit:
        return []
    return [
        "%s (%s) must be a DNS label of at most %d characters (lower-case letters, digits and '-', starting and "
        "ending with a letter or digit)." % (variable, checks.show(value), limit)
    ]


def _subdomain_problem(variable, value):
    value = checks.text(value)
    if _DNS_SUBDOMAIN.match(value) and len(value) <= 253:
        return []
    return [
        "%s (%s) must be a DNS subdomain of at most 253 characters (lower-case letters, digits, '-' and '.')."
        % (variable, checks.show(value))
    ]


def _quantity_problem(variable, value, what):
    if value is None or checks.text(value) == "":
        return ["%s is required: %s, a Kubernetes quantity such as 1Ti or 500Gi." % (variable, what)]
    if _QUANTITY.match(checks.text(value)) and checks.positive(re.sub(r"[A-Za-z]+$", "", checks.text(value))):
        return []
    return ["%s (%s) must be a positive Kubernetes quantity such as 1Ti or 500Gi." % (variable, checks.show(value))]


def cpfs_volume_problems(settings):
    """The role k8s_cpfs_volume's variables -> one sentence per problem (empty when all is well). The access mode's
    and reclaim policy's choices are the role's argument spec's, not judged again here."""
    p = "k8s_cpfs_volume_"
    problems = []
    server = checks.text(settings.get(p + "server"))
    if not server:
        problems.append(
            "%sserver is required: the CPFS file system's NFS mount target domain (its protocol service's export, "
            "e.g. cpfs-xxxx.cn-shanghai.cpfs.aliyuncs.com)." % p
        )
    elif not _HOST.match(server):
        problems.append(
            "%sserver (%s) must be the mount target's domain alone, without a scheme, a port or a path (the path goes "
            "into %spath)." % (p, checks.show(server), p)
        )
    path = checks.text(settings.get(p + "path"))
    if not (path == CPFS_NFS_ROOT or path.startswith(CPFS_NFS_ROOT + "/")) or "//" in path or "/../" in path + "/":
        problems.append(
            "%spath (%s) must be %s or a directory under it: CPFS exports its NFS file system at %s (the CSI driver "
            "mounts <server>:%s for the cpfs-nfs protocol)."
            % (p, checks.show(path), CPFS_NFS_ROOT, CPFS_NFS_ROOT, CPFS_NFS_ROOT)
        )
    problems += _quantity_problem(
        p + "size", settings.get(p + "size"), "the capacity the PV declares and the PVC requests"
    )
    problems += _label_problem(p + "namespace", settings.get(p + "namespace"))
    problems += _subdomain_problem(p + "pv_name", settings.get(p + "pv_name"))
    problems += _subdomain_problem(p + "pvc_name", settings.get(p + "pvc_name"))
    options = settings.get(p + "mount_options")
    if not isinstance(options, list) or any(not checks.text(o) or "," in checks.text(o) for o in options):
        problems.append(
            "%smount_options (%s) must be a list of NFS mount options, one per item." % (p, checks.show(options))
        )
    elif any(checks.text(o).startswith(("vers=", "nfsvers=")) for o in options):
        problems.append(
            "%smount_options (%s) must not set the NFS version: CPFS serves NFSv3 only (vers 3 is set)."
            % (p, checks.show(options))
        )
    return problems  # fmt: skip


def _require(settings, problems_function, what):
    problems = problems_function(settings)
    if problems:
        raise ValueError("%s: %s" % (what, " ".join(problems)))


def cpfs_volume_manifests(settings):
    """The role k8s_cpfs_volume's variables -> ``[PersistentVolume, PersistentVolumeClaim]``: a static PV through
    the NAS CSI plugin with the cpfs-nfs protocol, and a PVC bound to it by name (no StorageClass: nothing is
    provisioned dynamically). Raises ValueError listing cpfs_volume_problems."""
    _require(settings, cpfs_volume_problems, "k8s_cpfs_volume")
    p = "k8s_cpfs_volume_"
    pv_name, pvc_name, namespace = settings[p + "pv_name"], settings[p + "pvc_name"], settings[p + "namespace"]
    labels = {"alicloud-pvname": pv_name, "app.kubernetes.io/managed-by": "scc.training"}
    pv = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": pv_name, "labels": labels},
        "spec": {
            "capacity": {"storage": str(settings[p + "size"])},
            "accessModes": [settings[p + "access_mode"]],
            "persistentVolumeReclaimPolicy": settings[p + "reclaim_policy"],
            "storageClassName": "",
            "csi": {
                "driver": CSI_DRIVER,
                "volumeHandle": pv_name,
                "volumeAttributes": {
                    "server": settings[p + "server"],
                    "path": settings[p + "path"],
                    "vers": "3",
                    "mountProtocol": CPFS_NFS_PROTOCOL,
                },
            },
        },
    }
    if settings.get(p + "mount_options"):
        pv["spec"]["mountOptions"] = [str(o) for o in settings[p + "mount_options"]]
    pvc = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {
            "name": pvc_name,
            "namespace": namespace,
            "labels": {"app.kubernetes.io/managed-by": "scc.training"},
        },
        "spec": {
            "accessModes": [settings[p + "access_mode"]],
            "resources": {"requests": {"storage": str(settings[p + "size"])}},
            "storageClassName": "",
            "volumeName": pv_name,
            "selector": {"matchLabels": {"alicloud-pvname": pv_name}},
        },
    }
    return [pv, pvc]


def _absolute_problem(variable, value):
    if checks.matches(checks.ABSOLUTE, checks.text(value)) and ".." not in checks.text(value).split("/"):
        return []
    return ["%s (%s) must be an absolute path." % (variable, checks.show(value))]


def training_job_problems(settings):
    """The role k8s_training_job's variables and the workload's launcher variables (bert_launch_* or resnet_launch_*)
    -> one sentence per problem, naming the variable. The workload's choices are the role's argument spec's, and
    scc_launcher is playbooks/validate.yml's (launcher_problems): neither is judged again here."""
    p = "k8s_training_job_"
    problems = []
    workload = settings.get(p + "workload")
    if checks.text(settings.get(p + "name")):
        problems += _label_problem(p + "name", settings.get(p + "name"), _NAME_MAX)
    # The default name is scc-<workload>-<run id, lower case>.
    run_id = checks.text(settings.get(p + "run_id"))
    if run_id and _label_problem(p + "run_id", run_id.lower(), _NAME_MAX - len("scc-resnet-")):
        problems.append(
            "%srun_id (%s) must be at most %d letters, digits and '-', starting and ending with a letter or digit "
            "(the MPIJob is named after it)." % (p, checks.show(run_id), _NAME_MAX - len("scc-resnet-"))
        )
    problems += _label_problem(p + "namespace", settings.get(p + "namespace"))
    problems += _subdomain_problem(p + "pvc_name", settings.get(p + "pvc_name"))
    if not checks.is_set(settings.get(p + "image")) or re.search(r"\s", checks.text(settings.get(p + "image"))):
        problems.append(
            "%simage (%s) must name the training image (Open MPI, sshd, the venv at the launcher's path with the runtime wheel "
            "installed; see docs/runtime.md)." % (p, checks.show(settings.get(p + "image")))
        )
    problems += _absolute_problem(p + "mount_path", settings.get(p + "mount_path"))
    problems += checks.rule_problems(
        settings,
        [
            (p + "workers", checks.minimum(1), "an integer >= 1 (the worker pods)"),
            (p + "slots_per_worker", checks.minimum(1), "an integer >= 1 (ranks, and GPUs, per worker)"),
            (p + "ssh_port", checks.is_port, "a port, 1 to 65535"),
        ],
    )
    problems += checks.rule_problems(
        settings,
        [(p + "rdma_resource_count", checks.minimum(1), "an integer >= 1 (RDMA devices each worker requests)")],
    )
    if not _RESOURCE_NAME.match(checks.text(settings.get(p + "rdma_resource"))):
        problems.append(
            "%srdma_resource (%s) must be an extended resource name such as rdma/hca."
            % (p, checks.show(settings.get(p + "rdma_resource")))
        )
    for name in (p + "cpu", p + "memory"):
        value = settings.get(name)
        if value not in (None, "") and not _QUANTITY.match(checks.text(value)):
            problems.append(
                "%s (%s) must be empty or a Kubernetes quantity (e.g. 16, 64Gi)." % (name, checks.show(value))
            )
    if workload in WORKLOADS:
        problems += _secret_env_problems(settings, workload)
    # The role's validate entry point runs before the launcher's role is in the play: it leaves these out.
    if workload in WORKLOADS and settings.get("check_launcher", True):
        launcher = job_builder.launcher_role(workload)
        missing = [
            name for name in job_builder.launch_variables(workload) if settings.get(name, UNDEFINED) == UNDEFINED
        ]
        if missing:
            problems.append(
                "%s needs the variables of %s (its role's defaults: run it from train_%s.yml, which imports the role): "
                "missing %s." % (p + "workload " + workload, launcher, workload, ", ".join(missing))
            )
        elif settings[launcher + "_framework"] == "aiacc":
            problems.append(
                "%s_framework aiacc reads its settings from a file on the nodes (%s_aiacc_env_file), which an MPIJob "
                "does not see: use torch, horovod or acspeed with scc_launcher mpijob." % (launcher, launcher)
            )
    return problems


def _secret_env_problems(settings, workload):
    """The launcher's secret environment (``<launcher>_secret_env``): the mpirun launcher writes it to a 0600 file on
    the nodes, which an MPIJob's pods never see, and this role renders no Secret into the MPIJob: refused, not
    silently dropped. Its names (the role passes the names only, never the values) or the dict itself; set by the user
    (inventory, extra vars), it is seen already by the validate entry point."""
    variable = job_builder.launcher_role(workload) + "_secret_env"
    secret = settings.get(variable)
    if secret in (UNDEFINED, None) or not secret:
        return []
    names = sorted(str(name) for name in secret) if isinstance(secret, (dict, list)) else []
    return [
        "%s (%s) is not delivered with scc_launcher mpijob: the MPIJob's pods do not see the 0600 file the mpirun "
        "launcher writes on the nodes, and k8s_training_job mounts no Kubernetes Secret (it has no variable for one). "
        "Leave %s empty and give the ranks these values through a Kubernetes Secret in namespace %s "
        "(kubectl create secret generic, then envFrom secretRef in the MPIJob's Launcher and Worker pod templates); "
        "never through %s_env, whose values are written into the manifest."
        % (
            variable,
            ", ".join(names) or "set",
            variable,
            checks.show(settings.get("k8s_training_job_namespace")),
            variable[: -len("_secret_env")],
        )
    ]


def _number(value, variable):
    number = checks.number(value, int)
    if number is None:
        raise ValueError("%s (%s) must be an integer" % (variable, checks.show(value)))
    return number


def _rdma_devices(settings, transport):
    """The RDMA devices NCCL's IB settings come from (rdma_info's ``devices``); rdma needs an active port."""
    devices = settings.get("k8s_training_job_rdma_devices") or []
    active = [p for d in devices for p in (d.get("ports") or []) if p.get("state") == "PORT_ACTIVE"]
    if transport == "rdma" and not active:
        raise ValueError(
            "k8s_training_job_rdma_devices has no active RDMA port but the transport is rdma: NCCL's IB settings "
            "(NCCL_IB_HCA, NCCL_IB_GID_INDEX) come from the nodes' devices (the rdma_info module's, which the role "
            "reads on the first host of k8s_training_job_group); set the launcher's transport to tcp otherwise"
        )
    return devices


def training_job(settings):
    """The launcher job (mpirun_argv's keys, with ``np`` the workers' slots and the rendezvous on worker 0) the MPIJob
    runs, from k8s_training_job's variables and the workload's launcher variables, plus the Kubernetes settings
    (``k8s``). Raises ValueError listing training_job_problems."""
    _require(settings, training_job_problems, "k8s_training_job")
    p = "k8s_training_job_"
    workload, namespace, run_id = settings[p + "workload"], settings[p + "namespace"], str(settings[p + "run_id"])
    name = checks.text(settings.get(p + "name")) or "scc-%s-%s" % (workload, run_id.lower())
    launcher = job_builder.launcher_role(workload)

    def v(suffix):
        return settings["%s_%s" % (launcher, suffix)]

    workers, slots = (
        _number(settings[p + "workers"], p + "workers"),
        _number(settings[p + "slots_per_worker"], p + "slots_per_worker"),
    )
    mount = settings[p + "mount_path"].rstrip("/") or "/"
    output_dir = posixpath.join(mount, "scc-training", workload, "runs", run_id)
    resolved = {
        "np": workers * slots,
        "bind_to": v("bind_to"),
        "map_by": v("map_by"),
        "rdma_devices": _rdma_devices(settings, v("transport")),
        # mpi-operator: worker i is <job>-worker-i.<job>.<namespace>.svc, the hostfile's first line: rank 0.
        "master_addr": "%s%s0.%s.%s.svc" % (name, _WORKER_SUFFIX, name, namespace),
        "run_id": run_id,
        "output_dir": output_dir,
        # The CPFS PVC is every pod's shared file system.
        "shared_mount": mount,
    }
    job = job_builder.build(workload, settings, resolved)
    job["k8s"] = {
        "workload": workload,
        "name": name,
        "namespace": namespace,
        "image": settings[p + "image"],
        "workers": workers,
        "slots_per_worker": slots,
        "pvc_name": settings[p + "pvc_name"],
        "mount_path": mount,
        "rdma_resource": settings[p + "rdma_resource"],
        "rdma_resource_count": _number(settings.get(p + "rdma_resource_count", 1), p + "rdma_resource_count"),
        "gpu_resource": settings.get(p + "gpu_resource") or "",
        "cpu": checks.text(settings.get(p + "cpu")),
        "memory": checks.text(settings.get(p + "memory")),
        "ssh_port": _number(settings[p + "ssh_port"], p + "ssh_port"),
        "results_file": posixpath.join(output_dir, "results.json"),
        # mpi-operator's labels of the launcher pod (pkg/apis/kubeflow/v2beta1/constants.go: JobNameLabel, JobRoleLabel).
        "launcher_selector": ["training.kubeflow.org/job-name=%s" % name, "training.kubeflow.org/job-role=launcher"],
    }
    return job


def _hostnetwork(job):
    """The rdma transport runs on the host's network (ACK's RDMA shared mode with hostNetwork)."""
    return job["transport"] == "rdma"


def launcher_argv(job):
    """The launcher container's mpirun: the operator's hostfile (OMPI_MCA_orte_default_hostfile), ``np`` ranks, the
    collection's mpirun options and rank environment (the bare-metal launcher's), sshd's port on the host network."""
    env = rank_env(job)
    argv = ["mpirun", "--allow-run-as-root", "-np", str(job["np"])]
    if _hostnetwork(job):
        # The host's own sshd has port 22: the workers' sshd listens on ssh_port.
        argv += ["--mca", "plm_rsh_args", "-p %d" % job["k8s"]["ssh_port"]]
    return argv + mpirun_options(job, env) + [str(job["python"])] + program_argv(job)


def _resources(job, gpus):
    k8s = job["k8s"]
    limits = {}
    if gpus and k8s["gpu_resource"]:
        limits[k8s["gpu_resource"]] = gpus
    if _hostnetwork(job) and gpus:
        limits[k8s["rdma_resource"]] = k8s["rdma_resource_count"]
    if k8s["cpu"]:
        limits["cpu"] = k8s["cpu"]
    if k8s["memory"]:
        limits["memory"] = k8s["memory"]
    return {"limits": limits} if limits else {}


def _pod_template(job, container, labels):
    k8s = job["k8s"]
    container["volumeMounts"] = [
        {"name": "cpfs", "mountPath": k8s["mount_path"]},
        {"name": "dshm", "mountPath": "/dev/shm"},
    ]
    spec = {
        "containers": [container],
        "volumes": [
            {"name": "cpfs", "persistentVolumeClaim": {"claimName": k8s["pvc_name"]}},
            {"name": "dshm", "emptyDir": {"medium": "Memory"}},
        ],
    }
    if _hostnetwork(job):
        spec["hostNetwork"] = True
        spec["dnsPolicy"] = "ClusterFirstWithHostNet"
    return {"metadata": {"labels": dict(labels)}, "spec": spec}


def mpijob_manifest(job):
    """The training job (training_job's result) -> the MPIJob: one launcher running mpirun, ``workers`` workers
    running sshd with ``slots_per_worker`` GPUs each, the CPFS PVC mounted in both at ``mount_path``; for the rdma
    transport, hostNetwork and the RDMA device resource on the workers."""
    k8s = job["k8s"]
    labels = {
        "app.kubernetes.io/managed-by": "scc.training",
        "app.kubernetes.io/name": k8s["workload"],
        RUN_ID_LABEL: job["run_id"],
    }
    launcher = {
        "name": "launcher",
        "image": k8s["image"],
        "command": ["/bin/sh"],
        "args": ["-c", LAUNCHER_SCRIPT, "scc-launcher", k8s["results_file"]] + launcher_argv(job),
    }
    sshd = ["/usr/sbin/sshd", "-De"] + (["-p", str(k8s["ssh_port"])] if _hostnetwork(job) else [])
    worker = {"name": "worker", "image": k8s["image"], "command": sshd}
    resources = _resources(job, k8s["slots_per_worker"])
    if resources:
        worker["resources"] = resources
    if _hostnetwork(job):
        worker["securityContext"] = {"capabilities": {"add": ["IPC_LOCK", "SYS_RESOURCE"]}}
    spec = {
        "slotsPerWorker": k8s["slots_per_worker"],
        "mpiImplementation": "OpenMPI",
        "runPolicy": {
            "cleanPodPolicy": "Running",
            "backoffLimit": 0,
            "activeDeadlineSeconds": _number(job["timeout"], "timeout"),
        },
        "mpiReplicaSpecs": {
            "Launcher": {"replicas": 1, "restartPolicy": "Never", "template": _pod_template(job, launcher, labels)},
            "Worker": {
                "replicas": k8s["workers"],
                "restartPolicy": "Never",
                "template": _pod_template(job, worker, labels),
            },
        },
    }
    metadata = {"name": k8s["name"], "namespace": k8s["namespace"], "labels": dict(labels)}
    metadata["annotations"] = {SPEC_ANNOTATION: _digest(spec)}
    return {"apiVersion": MPIJOB_API_VERSION, "kind": "MPIJob", "metadata": metadata, "spec": spec}


def _digest(value):
    """sha256 of ``value`` as canonical JSON (sorted keys): equal specs, equal digests."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


def arena_argv(job):
    """The same job for users of Arena: ``arena submit mpijob`` with the image, workers, GPUs per worker, the
    ranks' environment, the PVC (on the launcher too), RDMA and hostNetwork for the rdma transport, and the
    launcher's mpirun as the command (one string, as Arena takes it)."""
    k8s = job["k8s"]
    argv = ["arena", "submit", "mpijob", "--namespace=%s" % k8s["namespace"], "--name=%s" % k8s["name"]]
    argv += ["--image=%s" % k8s["image"], "--workers=%d" % k8s["workers"], "--gpus=%d" % k8s["slots_per_worker"]]
    for option in ("cpu", "memory"):
        if k8s[option]:
            argv.append("--%s=%s" % (option, k8s[option]))
    argv += ["--data=%s:%s" % (k8s["pvc_name"], k8s["mount_path"]), "--mounts-on-launcher"]
    if _hostnetwork(job):
        # Arena's --rdma requests one rdma/hca; any other resource or count (ACK's eRDMA: aliyun/erdma) goes by name.
        if k8s["rdma_resource"] == RDMA_SHARED_RESOURCE and k8s["rdma_resource_count"] == 1:
            argv += ["--rdma"]
        else:
            argv += ["--device=%s=%d" % (k8s["rdma_resource"], k8s["rdma_resource_count"])]
        argv += ["--hostNetwork"]
    argv += ["--clean-task-policy=Running"]
    argv.append(" ".join(_quote(arg) for arg in launcher_argv(job)))
    return argv


def _quote(arg):
    """POSIX shell quoting (shlex.quote's rule)."""
    if arg and re.match(r"^[A-Za-z0-9_@%+=:,./-]+\Z", arg):
        return arg
    return "'" + arg.replace("'", "'\"'\"'") + "'"


def arena_command(job):
    """arena_argv as one shell line."""
    return " ".join(_quote(arg) for arg in arena_argv(job))


def mpijob_status(resource):
    """An MPIJob as the API returns it (k8s_info's ``resources`` item, or None) -> ``{finished, succeeded, reason,
    message}`` from its ``status.conditions`` (mpi-operator sets Succeeded or Failed True when the job ends)."""
    conditions = ((resource or {}).get("status") or {}).get("conditions") or []
    by_type = {c.get("type"): c for c in conditions if isinstance(c, dict)}
    for kind in ("Failed", "Succeeded"):
        condition = by_type.get(kind) or {}
        if str(condition.get("status")) == "True":
            return {
                "finished": True,
                "succeeded": kind == "Succeeded",
                "reason": condition.get("reason") or kind,
                "message": condition.get("message") or "",
            }
    return {"finished": False, "succeeded": False, "reason": None, "message": ""}


# Why an MPIJob of the name must not be applied over: kubernetes.core.k8s (state present) patches it, and
# mpi-operator runs an MPIJob once; a finished one stays finished, so the wait ends at once on its old launcher.
_NOT_RUN_AGAIN = (
    "kubernetes.core.k8s would patch it and mpi-operator does not run an MPIJob again, so its old launcher's "
    "results would be read as this run's"
)


def mpijob_conflict(existing, manifest):
    """The MPIJob of the same namespace/name already in the cluster (k8s_info's ``resources`` item, or None) and
    this run's (mpijob_manifest's result) -> why this one must not be applied over it, "" when it may: none exists,
    or it is this run's (same run-id label) built from the same spec (same spec-sha256 annotation), i.e. a re-run
    of the play that waits for the same job or reads its results again."""
    if not existing:
        return ""
    where = "%s/%s" % (manifest["metadata"]["namespace"], manifest["metadata"]["name"])
    run_id = manifest["metadata"]["labels"][RUN_ID_LABEL]
    metadata = existing.get("metadata") or {}
    theirs = (metadata.get("labels") or {}).get(RUN_ID_LABEL)
    advice = "Delete it (kubectl delete mpijob -n %s %s) or choose another %%s. Nothing was changed in the cluster." % (
        manifest["metadata"]["namespace"],
        manifest["metadata"]["name"],
    )
    if theirs is None:
        return "MPIJob %s exists and was not made by scc.training (no %s label): %s. %s" % (
            where,
            RUN_ID_LABEL,
            _NOT_RUN_AGAIN,
            advice % "k8s_training_job_name",
        )
    if str(theirs) != str(run_id):
        return "MPIJob %s already exists from run %s, not this run %s: %s. %s" % (
            where,
            theirs,
            run_id,
            _NOT_RUN_AGAIN,
            advice % "k8s_training_job_name (or leave it empty: scc-<workload>-<run id>)",
        )
    digest = (metadata.get("annotations") or {}).get(SPEC_ANNOTATION)
    if digest != manifest["metadata"]["annotations"][SPEC_ANNOTATION]:
        return "MPIJob %s of run %s was submitted with other settings (its %s differs): %s. %s" % (
            where,
            run_id,
            SPEC_ANNOTATION,
            _NOT_RUN_AGAIN,
            advice % "k8s_training_job_run_id for a run with these settings",
        )
    return ""


def mpijob_results(log_text, run_id, succeeded, transport=None, job_name=None):
    """The launcher's log -> the run's results: rank 0's results.json (printed between the markers) with
    ``run_id``, ``status``, ``launcher`` (mpijob) and ``nccl`` (parse_nccl_log of the ranks' output, which mpirun
    forwards to the launcher; null without NCCL lines), as bert_launch's results file has them; partial (status
    failed, the log's last lines) when the job failed or printed no results, or when ``transport`` is rdma and
    NCCL's log shows no channel over NET/IB (bert_launch's proof of the transport). ValueError when the printed
    results carry another ``run_id``: the log is an earlier run's (an MPIJob named ``job_name`` patched, not rerun)
    and is never reported as this run's."""
    text = log_text or ""
    results = None
    if RESULTS_BEGIN in text and RESULTS_END in text.split(RESULTS_BEGIN, 1)[1]:
        body = text.split(RESULTS_BEGIN, 1)[1].split(RESULTS_END, 1)[0].strip()
        try:
            results = json.loads(body) if body else None
        except ValueError:
            results = None
    printed = results.get("run_id") if isinstance(results, dict) else None
    if printed is not None and str(printed) != str(run_id):
        raise ValueError(
            "the launcher of MPIJob %s printed the results of run %s, not this run %s: an MPIJob of that name from an "
            "earlier run was patched, not run again, so its log is that run's. Nothing of run %s is reported: delete "
            "the MPIJob %s or choose another k8s_training_job_name (or leave it empty: scc-<workload>-<run id>)"
            % (job_name or "(unnamed)", printed, run_id, run_id, job_name or "")
        )
    before = text.split(RESULTS_BEGIN, 1)[0]
    plain = before.splitlines()
    nccl = parse_nccl_log(before)
    out = dict(results) if isinstance(results, dict) else {}
    out.update({"run_id": run_id, "launcher": "mpijob", "nccl": nccl if nccl["lines"] else None})
    reason = None
    if not succeeded:
        reason = "the MPIJob failed"
    elif not isinstance(results, dict):
        reason = "the launcher printed no results.json"
    elif transport == "rdma" and nccl["transport"] != "IB":
        reason = "the transport is rdma but NCCL's log shows transport %s, no channel over NET/IB" % nccl["transport"]
    out["status"] = "ok" if reason is None else "failed"
    if reason:
        out["message"] = "run %s failed: %s. Last lines: %s" % (run_id, reason, " | ".join(plain[-20:]))
    return out
