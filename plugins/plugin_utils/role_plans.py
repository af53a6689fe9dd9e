# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The roles' own computations (issue 38: off the filter surface): plan name -> the function that checks its input
and calls the pure function of plugins/module_utils, reached by the lookup ``scc.training.role_plan``:

    lookup('scc.training.role_plan', 'cluster_hosts_block', __hosts_file_nodes)

Each function is what the role-internal filter of the same name was (0.4.0): the same arguments, the same checks,
errors naming the plan (AnsibleFilterError here; the lookup raises them as AnsibleLookupError). A plan in
``READS_HOSTVARS`` takes the inventory's ``hostvars`` as its second argument from the lookup's variables, never as a
term (a lookup's terms are templated: on ansible-core 2.16 to 2.18 a walk over every host's variables).

Controller cost: importing this file compiles it and nothing more; each module_utils module is imported at the
first call that needs it (``lazy_module_utils``), as the filter files do.
"""

from __future__ import annotations

import binascii
from collections.abc import Mapping

from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
    require_hosts,
    require_list,
    require_mapping,
    require_settings,
    require_text,
)

_artifacts = lazy_module_utils("artifacts")
_torch_build = lazy_module_utils("torch_build")
bert_prep = lazy_module_utils("bert_prep")
cloud_nodes = lazy_module_utils("cloud_nodes")
cluster = lazy_module_utils("cluster")
cpfs = lazy_module_utils("cpfs")
dcgm = lazy_module_utils("dcgm")
envfile = lazy_module_utils("envfile")
fabric = lazy_module_utils("fabric")
gpu_health = lazy_module_utils("gpu_health")
hardware_defaults = lazy_module_utils("hardware_defaults")
imagenet = lazy_module_utils("imagenet")
input_checks = lazy_module_utils("input_checks")
k8s_jobs = lazy_module_utils("k8s_jobs")
mellanox_fw = lazy_module_utils("mellanox_fw")
mpi = lazy_module_utils("mpi")
mpi_job = lazy_module_utils("mpi_job")
nccl_check = lazy_module_utils("nccl_check")
openpgp = lazy_module_utils("openpgp")
perftest = lazy_module_utils("perftest")
rdma = lazy_module_utils("rdma")
wheels = lazy_module_utils("wheels")


# ---- the plans that were filters of plugins/filter/artifacts.py (0.4.0)


def _call(name, function, *args):
    return filter_call(name, function, *args, errors=(ValueError, TypeError, AttributeError))


def artifact_mirror_files(manifest, prefixes, mirror):
    """A mirror's manifest.json + file-name prefixes -> [{name, sha256, url}], exactly one per prefix."""
    return _call("artifact_mirror_files", _artifacts.mirror_files, manifest, prefixes, mirror)


def artifact_mirror_manifest_sha256(pins, mirror):
    """artifact_fetch_mirror_manifests + a mirror -> the sha256 its manifest.json must have."""
    return _call("artifact_mirror_manifest_sha256", _artifacts.mirror_manifest_sha256, pins, mirror)


def artifact_plan(files, files_dir, wheelhouse, dest, layout="flat"):
    """Fetched files and wheelhouse -> {artifacts: [{name, src, dest}], dirs, wheelhouse}."""
    return _call("artifact_plan", _artifacts.artifact_plan, files, files_dir, wheelhouse, dest, layout)


def artifacts_to_copy(items, controller_files, host_files, pinned=None):
    """Plan artifacts + sha256 find results on the controller and a host -> the artifacts that host still needs."""
    return _call("artifacts_to_copy", _artifacts.artifacts_to_copy, items, controller_files, host_files, pinned)


# ---- the plans that were filters of plugins/filter/bert_prep.py (0.4.0)


def bert_prepared_root(prepared_dir, cpfs_path):
    """bert_launch_prepared_dir, cpfs path -> the directory of the prepared corpora."""
    return filter_call("bert_prepared_root", bert_prep.bert_prepared_root, prepared_dir, cpfs_path)


# ---- the plans that were filters of plugins/filter/cloud.py (0.4.0)


def cloud_node_plan(settings):
    """provision.yml's scc_cloud_instance_type, scc_cloud_eri_count, scc_cloud_jumbo_frames -> the node plan."""
    return cloud_nodes.node_plan(require_settings(settings, "cloud_node_plan"))


# ---- the plans that were filters of plugins/filter/cluster.py (0.4.0)


def cluster_hosts_block(nodes):
    """Nodes -> the /etc/hosts block (``address name [short]`` lines)."""
    nodes = require_list(nodes, "cluster_hosts_block", "the input (cluster_addresses' nodes) must be a list")
    return filter_call("cluster_hosts_block", cluster.hosts_block, nodes)


def cluster_stale_hosts_regex(nodes):
    """Nodes -> the regular expression of /etc/hosts lines mapping a cluster name to another address."""
    nodes = require_list(nodes, "cluster_stale_hosts_regex", "the input (cluster_addresses' nodes) must be a list")
    return filter_call("cluster_stale_hosts_regex", cluster.stale_hosts_regex, nodes)


def cluster_known_hosts(nodes, host_keys):
    """Nodes and ``{host: host key text or lines}`` -> the known_hosts block."""
    nodes = require_list(nodes, "cluster_known_hosts", "the input (cluster_addresses' nodes) must be a list")
    require_mapping(host_keys, "cluster_known_hosts", "host_keys (each node's host keys) must be a mapping")
    return filter_call("cluster_known_hosts", cluster.known_hosts_block, nodes, host_keys)


def cluster_authorized_key(public_key, from_addresses=None, options=None):
    """Public key -> one authorized_keys line restricted to ``from_addresses`` (none: unrestricted)."""
    if not isinstance(public_key, str) or not public_key.strip():
        raise AnsibleFilterError("cluster_authorized_key: input must be the public key text")
    from_addresses = require_list(from_addresses or [], "cluster_authorized_key", "from_addresses must be a list")
    options = require_list(options or [], "cluster_authorized_key", "options must be a list")
    return cluster.authorized_key_line(public_key, from_addresses, options)


def cluster_resolution_problems(report, nodes):
    """One node's ``NAME<TAB>RC<TAB>getent line`` report -> the names that do not resolve to their node's address."""
    report = require_text(report, "cluster_resolution_problems", "the verify command's report as a string")
    nodes = require_list(nodes, "cluster_resolution_problems", "nodes (cluster_addresses' nodes) must be a list")
    return filter_call("cluster_resolution_problems", cluster.resolution_problems, nodes, report, errors=(KeyError,))


def cluster_ring_peers(hosts, host, scope="mesh"):
    """The peers ``host`` checks, in ring order: every other node (``mesh``), or with ``ring`` the first node
    every other and each other node its successor (cluster.verify_peers)."""
    hosts = require_list(hosts, "cluster_ring_peers", "the input (inventory host names) must be a list")
    try:
        return cluster.verify_peers(hosts, str(host), scope)
    except ValueError as error:
        raise AnsibleFilterError("cluster_ring_peers: %s" % error) from None


def cluster_mesh_problems(report, peers, nodenames=None):
    """One node's ``PEER<TAB>RC<TAB>STDOUT<TAB>STDERR`` report -> the peers that did not answer with their hostname."""
    report = require_text(report, "cluster_mesh_problems", "the verify command's report as a string")
    peers = [
        str(p) for p in require_list(peers, "cluster_mesh_problems", "peers (inventory host names) must be a list")
    ]
    nodenames = require_mapping(nodenames or {}, "cluster_mesh_problems", "nodenames must be a mapping")
    return cluster.mesh_problems(report, peers, nodenames)


def cluster_node_problems(nodes, rule, need_facts=False, need_host_keys=False):
    """cluster_addresses' nodes -> nodes without an address, sharing one, or (when needed) without facts."""
    nodes = require_list(nodes, "cluster_node_problems", "the input (cluster_addresses' nodes) must be a list")
    return filter_call(
        "cluster_node_problems",
        cluster.node_problems,
        nodes,
        str(rule),
        bool(need_facts),
        bool(need_host_keys),
        errors=(KeyError,),
    )


def mpi_hostfile_slots(hosts, hostvars):
    """The hostfile's nodes -> ``[{host, slots}]`` from every node's inventory and (cached) facts."""
    hosts = require_hosts(hosts, hostvars, "mpi_hostfile_slots")
    return filter_call("mpi_hostfile_slots", cluster.hostfile_slots, hosts, hostvars)


def mpi_hostfile_check_problems(report, content, path):
    """mpi_hostfile's verify report on one node -> what differs from the rendered hostfile or does not resolve."""
    report = require_text(report, "mpi_hostfile_check_problems", "the verify command's report as a string")
    content = require_text(content, "mpi_hostfile_check_problems", "content (the rendered hostfile)")
    return cluster.hostfile_check_problems(report, content, str(path))


# ---- cpfs_mount (0.5.0)


def cpfs_nfs_client(settings, host_facts):
    """cpfs_mount's client settings + one host's facts -> {client, reason, problems}."""
    return filter_call(
        "cpfs_nfs_client",
        cpfs.cpfs_nfs_client,
        require_settings(settings, "cpfs_nfs_client"),
        require_mapping(host_facts, "cpfs_nfs_client", "the host's facts must be a dict"),
    )


# ---- the plans that were filters of plugins/filter/envfile.py (0.4.0)


def secret_env_problems(secret, variable):
    """A secret environment (``variable``) -> [] or the sentences naming its bad names and values' names (never a
    value): names that are not environment variable names, values that are not strings or span lines."""
    if not isinstance(variable, str) or not variable:
        raise AnsibleFilterError("secret_env_problems: the variable's name must be a non-empty string")
    return input_checks.secret_env_problems(variable, secret, "", [])


# ---- the plans that were filters of plugins/filter/fabric.py (0.4.0)

_MALFORMED = (KeyError, TypeError, ValueError, IndexError)


_DEVICES = "input must be rdma_info's devices list"


def rdma_port_list(devices):
    """rdma_info's ``devices`` -> one ``{port, state, link_layer, rate_gbps}`` per port."""
    devices = require_list(devices, "rdma_port_list", _DEVICES)
    return filter_call("rdma_port_list: malformed device", fabric.port_list, devices, errors=_MALFORMED)


def rdma_measurement_ports(devices, device="", gid_index=None):
    """rdma_info's ``devices`` -> every active port to measure over (the rails), empty without one."""
    devices = require_list(devices, "rdma_measurement_ports", _DEVICES)
    if gid_index is not None and (isinstance(gid_index, bool) or not str(gid_index).isdigit()):
        raise AnsibleFilterError(
            "rdma_measurement_ports: gid_index must be an integer >= 0 or null, got %r" % (gid_index,)
        )
    gid_index = None if gid_index is None else int(gid_index)
    return filter_call(
        "rdma_measurement_ports: malformed device",
        fabric.measurement_ports,
        devices,
        device or "",
        gid_index,
        errors=_MALFORMED,
    )


def bandwidth_shortfalls(result):
    """A ``bandwidth_matrix`` result -> one line per pair below the threshold, then the pairs not measured."""
    result = require_mapping(result, "bandwidth_shortfalls", "input must be a bandwidth_matrix result")
    return filter_call("bandwidth_shortfalls: malformed result", fabric.bandwidth_shortfalls, result, errors=_MALFORMED)


def fabric_samples(hosts, hostvars, register):
    """Hosts, hostvars and the name of their registered slurp results -> ``{host: [samples]}``.

    Hosts without a slurped file (a failed or unreachable host) are left out.
    """
    hosts = require_list(hosts, "fabric_samples", "input must be a list of host names")
    require_mapping(hostvars, "fabric_samples", "hostvars must be the hostvars mapping")
    out = {}
    for host in hosts:
        slurped = hostvars[host].get(register) if host in hostvars else None
        if isinstance(slurped, Mapping) and "content" in slurped:
            out[host] = filter_call(
                "fabric_samples: the samples of %s are not JSON lines" % host,
                fabric.decode_samples,
                slurped["content"],
                errors=(binascii.Error, UnicodeDecodeError, ValueError),
            )
    return out


def fabric_traffic(samples):
    """``{node: [samples]}`` -> the rates over time per node and counter, with peak and mean."""
    samples = require_mapping(samples, "fabric_traffic", "input must map each node to its samples")
    return filter_call("fabric_traffic: malformed sample", fabric.traffic_rates, dict(samples), errors=_MALFORMED)


# ---- the plans that were filters of plugins/filter/gpu_health.py (0.4.0)


def gpu_health_report(verdicts):
    """A node's verdicts -> {status, ok, verdicts, problems} (the gpu_health_report fact)."""
    if not isinstance(verdicts, list):
        raise AnsibleFilterError(
            "gpu_health_report: input must be gpu_health_verdicts' list, got %s" % type(verdicts).__name__
        )
    return filter_call("gpu_health_report", gpu_health.report, verdicts, errors=(ValueError, KeyError))


def dcgm_diag_outcome(diag, mode="auto", found=True):
    """The registered result of ``dcgmi diag -r 1 -j`` -> {results, error}, the inputs ``dcgm`` and ``dcgm_error``
    of gpu_health_verdicts; ``mode``: gpu_health_dcgm; ``found``: whether dcgmi was found."""
    if not isinstance(diag, dict):
        raise AnsibleFilterError(
            "dcgm_diag_outcome: input must be a registered command result, got %s" % type(diag).__name__
        )
    return filter_call(
        "dcgm_diag_outcome",
        lambda: dcgm.diag_outcome(mode, found, diag.get("stdout"), diag.get("stderr"), diag.get("rc")),
        errors=(ValueError,),
    )


# ---- the plans that were filters of plugins/filter/imagenet.py (0.4.0)


def imagenet_content_problems(found, archives):
    """imagenet_archive_info's result and imagenet_prep_archives -> one line per problem in the archives."""
    return filter_call(
        "imagenet_content_problems",
        imagenet.imagenet_content_problems,
        require_settings(archives, "imagenet_content_problems"),
        require_settings(found, "imagenet_content_problems"),
    )


def imagenet_local_paths(archives, cache_dir):
    """imagenet_prep_archives and the controller's download cache -> {key: the archive's controller path}."""
    return filter_call(
        "imagenet_local_paths",
        imagenet.local_paths,
        require_settings(archives, "imagenet_local_paths"),
        str(cache_dir),
        errors=(KeyError, TypeError),
    )


def imagenet_shard_plan(counts):
    """The image counts, shard counts and nodes -> which node converts which shards."""
    return filter_call("imagenet_shard_plan", imagenet.plan_summary, require_settings(counts, "imagenet_shard_plan"))


# ---- the plans that were filters of plugins/filter/k8s.py (0.4.0)


def k8s_cpfs_volume_manifests(settings):
    """k8s_cpfs_volume's variables -> [PersistentVolume, PersistentVolumeClaim]."""
    settings = require_settings(settings, "k8s_cpfs_volume_manifests")
    return filter_call("k8s_cpfs_volume_manifests", k8s_jobs.cpfs_volume_manifests, settings)


def k8s_launcher_variables(workload):
    """bert or resnet -> the launcher variables (bert_launch_* or resnet_launch_*) its MPIJob is built from."""
    return filter_call("k8s_launcher_variables", k8s_jobs.launcher_variables, workload)


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


# ---- the plans that were filters of plugins/filter/mpi.py (0.4.0)


def mpi_hostfile_ranks(text, np=0):
    """Hostfile text -> the ranks to start: ``np`` when > 0, else the sum of its ``slots=``."""
    return filter_call(
        "mpi_hostfile_ranks", mpi.hostfile_ranks, require_text(text, "mpi_hostfile_ranks", "the hostfile's text"), np
    )


def mpi_hostfile_nodes(nodes, healthy=None, exclude_unhealthy=True):
    """The cluster's nodes -> those the hostfile lists: the healthy ones (or refused with unhealthy ones)."""
    return filter_call("mpi_hostfile_nodes", mpi.hostfile_nodes, nodes, healthy, exclude_unhealthy)


def mpi_hostfile_node_count(text, min_nodes=1, variable="bert_launch_min_nodes"):
    """Hostfile text -> its number of nodes; fails below ``min_nodes``, naming the launcher's ``variable``."""
    return filter_call(
        "mpi_hostfile_node_count",
        mpi.hostfile_node_count,
        require_text(text, "mpi_hostfile_node_count", "the hostfile's text"),
        min_nodes,
        variable,
    )


def mpi_framework_modules(framework):
    """A data-parallel framework (torch, horovod, aiacc, acspeed) -> the modules its ranks import."""
    return filter_call("mpi_framework_modules", mpi.framework_modules, framework)


def nccl_tests_mpirun(job):
    """nccl_check's settings -> mpirun and its options, up to the hostfile, -np and the binary."""
    return filter_call("nccl_tests_mpirun", mpi.nccl_tests_mpirun, job)


# ---- the plans that were filters of plugins/filter/mpi_job.py (0.4.0)


def mpi_job_argv(job):
    """The caller's mpirun command -> the launcher's (records its pid, tags the ranks' output)."""
    return filter_call("mpi_job_argv", mpi_job.launcher_argv, job)


def mpi_job_results(job):
    """The exit status, output and progress files of a run -> its results (partial when it failed)."""
    return filter_call("mpi_job_results", mpi_job.job_results, job)


# ---- the plans that were filters of plugins/filter/nccl.py (0.4.0)


def nccl_cluster_verdict(bisect, node_count, threshold_gbps):
    """The nccl_bisect module's result (skipped on one node), the node count, the multi-node threshold ->
    the cluster's verdict."""
    return filter_call("nccl_cluster_verdict", nccl_check.cluster_verdict, bisect, node_count, threshold_gbps)


def nccl_run_verdict(parsed, threshold_gbps):
    """parse_nccl_tests' output of one run and its threshold -> the run's verdict and curve."""
    return filter_call("nccl_run_verdict", nccl_check.run_verdict, parsed, threshold_gbps)


def nccl_node_report(single, bisection=None, host=None, failure=None):
    """A node's verdict of its run alone, the cluster's bisection -> its nccl_check_report."""
    return filter_call("nccl_node_report", nccl_check.node_report, single, bisection, host, failure)


def nccl_check_resolve(hardware, settings, node_count=1):
    """hardware_defaults' result and nccl_check's variables (a hand-set one wins) -> GPUs, gencode, thresholds."""
    return filter_call(
        "nccl_check_resolve",
        hardware_defaults.nccl_check_settings,
        hardware,
        require_settings(settings, "nccl_check_resolve"),
        node_count,
    )


def nccl_tests_build(values):
    """make's variables for nccl-tests -> ``{make, key}``: the make arguments and the build directory's hash."""
    values = require_mapping(values, "nccl_tests_build", "input must be a dict of make's variables")
    return filter_call("nccl_tests_build", nccl_check.tests_build, values)


# ---- the plans that were filters of plugins/filter/nic_firmware.py (0.4.0)


def nic_firmware_compare(devices, targets):
    """Each device against the target version for its PSID: action ok, burn or none."""
    if not isinstance(devices, list) or not isinstance(targets, list):
        raise AnsibleFilterError("nic_firmware_compare: devices and targets must be lists")
    for index, target in enumerate(targets):
        if not isinstance(target, dict) or not target.get("psid") or not target.get("version"):
            raise AnsibleFilterError(
                "nic_firmware_compare: target %d needs 'psid' and 'version', got %r" % (index, target)
            )
    return mellanox_fw.compare(devices, targets)


def nic_firmware_differences(plan):
    """A ``nic_firmware_compare`` plan -> ``"<psid> <current> (target <target>)"`` per device to burn."""
    if not isinstance(plan, list):
        raise AnsibleFilterError(
            "nic_firmware_differences: input must be a nic_firmware_compare plan, got %r" % (plan,)
        )
    return mellanox_fw.differences(plan)


# ---- the plans that were filters of plugins/filter/openpgp.py (0.4.0)


def openpgp_key_problems(text, pinned):
    """[] when the key file holds exactly the pinned primary keys, else the sentence that says what differs."""
    return filter_call("openpgp_key_problems", openpgp.key_problems, require_text(text, "openpgp_key_problems"), pinned)


# ---- the plans that were filters of plugins/filter/perftest.py (0.4.0)


def _nodes(nodes, filter_name):
    return [str(n) for n in require_list(nodes, filter_name, "input must be a list of node names")]


def bandwidth_rounds(nodes, rails=1):
    """List of node names -> list of rounds ``{rail, pairs: [[client, server], ...]}``, both directions, every rail."""
    return filter_call(
        "bandwidth_rounds",
        lambda: perftest.bandwidth_rounds(_nodes(nodes, "bandwidth_rounds"), int(rails)),
        errors=(TypeError, ValueError),
    )


def bandwidth_round_count(node_count, rails=1):
    """Number of nodes, rails -> how many rounds ``bandwidth_rounds`` has."""
    return filter_call(
        "bandwidth_round_count", perftest.bandwidth_round_count, node_count, rails, errors=(TypeError, ValueError)
    )


def bandwidth_round_side(node_index, node_count, round_index):
    """A node's index, the number of nodes, a round -> ``{rail, side: client|server|none, peer}`` in O(1)."""
    return filter_call(
        "bandwidth_round_side",
        perftest.bandwidth_round_side,
        node_index,
        node_count,
        round_index,
        errors=(TypeError, ValueError),
    )


def bandwidth_matrix(measurements, nodes, min_fraction, link_rate_gbps=None, rails=1):
    """List of {client, server, rail, gbps, ports and their rates} -> matrices, pairs, below_threshold, missing, ok."""
    return filter_call(
        "bandwidth_matrix",
        lambda: perftest.bandwidth_matrix(nodes, measurements, float(min_fraction), link_rate_gbps, int(rails)),
        errors=(KeyError, TypeError, ValueError),
    )


# ---- the plans that were filters of plugins/filter/rdma.py (0.4.0)


def _devices(devices, filter_name):
    if not isinstance(devices, list):
        raise AnsibleFilterError(
            "%s: input must be rdma_info's devices list, got %s" % (filter_name, type(devices).__name__)
        )
    return devices


def rdma_port_problems(devices, expected_links=None, link_layer=None, rate_gbps=None, state="PORT_ACTIVE"):
    """rdma_info's ``devices`` -> list of readable problems (empty when all is as expected)."""
    return rdma.port_problems(_devices(devices, "rdma_port_problems"), expected_links, link_layer, rate_gbps, state)


def rdma_stack_problems(result, mtu=None, netdev_mtu=None, erdma_mode=None):
    """rdma_info's result -> what the RDMA userspace does not show as it should (empty when all is well)."""
    if not isinstance(result, dict) or not isinstance(result.get("devices", []), list):
        raise AnsibleFilterError(
            "rdma_stack_problems: input must be rdma_info's result (a dict with devices), got %s"
            % type(result).__name__
        )
    return rdma.stack_problems(result, mtu, netdev_mtu, erdma_mode)


def rdma_cluster_differences(results):
    """{node: rdma_info result} -> one line per node whose active ports or GID indexes differ from the first's."""
    if not isinstance(results, dict):
        raise AnsibleFilterError(
            "rdma_cluster_differences: input must map each node to its rdma_info result, got %s"
            % type(results).__name__
        )
    return rdma.cluster_differences(results)


def rdma_netdev_mtu_plan(result, netdev_mtu=None, sysfs_path="/sys/class/infiniband"):
    """rdma_info's result -> the RDMA ports' interfaces, each with its MTU now and its systemd.link file."""
    if not isinstance(result, dict):
        raise AnsibleFilterError(
            "rdma_netdev_mtu_plan: input must be rdma_info's result (a dict with devices), got %s"
            % type(result).__name__
        )
    return filter_call("rdma_netdev_mtu_plan", rdma.netdev_mtu_plan, result, netdev_mtu, sysfs_path)


# ---- the plans that were filters of plugins/filter/torch_build.py (0.4.0)


def torch_gpu_problems(probe, torch_cuda="", tolerance=1e-3):
    """What is wrong with torch on a GPU host, from torch_gpu_probe.py's report ([] when nothing)."""
    require_mapping(probe, "torch_gpu_problems", "input (the probe's JSON) must be a dict")
    return filter_call("torch_gpu_problems", _torch_build.torch_gpu_problems, probe, torch_cuda, float(tolerance))


# ---- the plans that were filters of plugins/filter/wheels.py (0.4.0)


def pip_hash_mismatches(output):
    """pip's output -> the wheel files it refused for their sha256."""
    return wheels.pip_hash_mismatches(require_text(output, "pip_hash_mismatches"))


def venv_version_problems(requirements, versions):
    """The pins (``name==version``) the venv's reported versions (``dists``, ``modules``) do not hold, a sentence each."""
    require_list(requirements, "venv_version_problems", "the requirements (name==version) must be a list")
    require_mapping(versions, "venv_version_problems", "the versions (the venv's JSON report) must be a dict")
    return filter_call("venv_version_problems", wheels.venv_version_problems, requirements, versions)


# Plan name -> its function (every role-internal computation the roles and playbooks call).
PLANS = {
    "artifact_mirror_files": artifact_mirror_files,
    "artifact_mirror_manifest_sha256": artifact_mirror_manifest_sha256,
    "artifact_plan": artifact_plan,
    "artifacts_to_copy": artifacts_to_copy,
    "bandwidth_matrix": bandwidth_matrix,
    "bandwidth_round_count": bandwidth_round_count,
    "bandwidth_round_side": bandwidth_round_side,
    "bandwidth_rounds": bandwidth_rounds,
    "bandwidth_shortfalls": bandwidth_shortfalls,
    "bert_prepared_root": bert_prepared_root,
    "cloud_node_plan": cloud_node_plan,
    "cluster_authorized_key": cluster_authorized_key,
    "cluster_hosts_block": cluster_hosts_block,
    "cluster_known_hosts": cluster_known_hosts,
    "cluster_mesh_problems": cluster_mesh_problems,
    "cluster_node_problems": cluster_node_problems,
    "cluster_resolution_problems": cluster_resolution_problems,
    "cluster_ring_peers": cluster_ring_peers,
    "cpfs_nfs_client": cpfs_nfs_client,
    "cluster_stale_hosts_regex": cluster_stale_hosts_regex,
    "dcgm_diag_outcome": dcgm_diag_outcome,
    "fabric_samples": fabric_samples,
    "fabric_traffic": fabric_traffic,
    "gpu_health_report": gpu_health_report,
    "imagenet_content_problems": imagenet_content_problems,
    "imagenet_local_paths": imagenet_local_paths,
    "imagenet_shard_plan": imagenet_shard_plan,
    "k8s_cpfs_volume_manifests": k8s_cpfs_volume_manifests,
    "k8s_launcher_variables": k8s_launcher_variables,
    "mpi_framework_modules": mpi_framework_modules,
    "mpi_hostfile_check_problems": mpi_hostfile_check_problems,
    "mpi_hostfile_node_count": mpi_hostfile_node_count,
    "mpi_hostfile_nodes": mpi_hostfile_nodes,
    "mpi_hostfile_ranks": mpi_hostfile_ranks,
    "mpi_hostfile_slots": mpi_hostfile_slots,
    "mpi_job_argv": mpi_job_argv,
    "mpi_job_results": mpi_job_results,
    "mpijob_conflict": mpijob_conflict,
    "mpijob_results": mpijob_results,
    "mpijob_status": mpijob_status,
    "nccl_check_resolve": nccl_check_resolve,
    "nccl_cluster_verdict": nccl_cluster_verdict,
    "nccl_node_report": nccl_node_report,
    "nccl_run_verdict": nccl_run_verdict,
    "nccl_tests_build": nccl_tests_build,
    "nccl_tests_mpirun": nccl_tests_mpirun,
    "nic_firmware_compare": nic_firmware_compare,
    "nic_firmware_differences": nic_firmware_differences,
    "openpgp_key_problems": openpgp_key_problems,
    "pip_hash_mismatches": pip_hash_mismatches,
    "rdma_cluster_differences": rdma_cluster_differences,
    "rdma_measurement_ports": rdma_measurement_ports,
    "rdma_netdev_mtu_plan": rdma_netdev_mtu_plan,
    "rdma_port_list": rdma_port_list,
    "rdma_port_problems": rdma_port_problems,
    "rdma_stack_problems": rdma_stack_problems,
    "secret_env_problems": secret_env_problems,
    "torch_gpu_problems": torch_gpu_problems,
    "venv_version_problems": venv_version_problems,
}

# The plans whose second argument is the inventory's hostvars, which the lookup passes itself.
READS_HOSTVARS = frozenset(("fabric_samples", "mpi_hostfile_slots"))


def plan(name):
    """The function of the plan ``name``; AnsibleFilterError naming the known plans for another name."""
    try:
        return PLANS[name]
    except (KeyError, TypeError):
        raise AnsibleFilterError("role_plan: no plan %r (known: %s)" % (name, ", ".join(sorted(PLANS)))) from None
