# -*- coding: utf-8 -*-
"""The roles' ``<role>_input_problems`` (their validate.yml rules in Python): a good input gives [],
each bad one gives exactly the problem that names its variable, and several give every problem at once."""

from __future__ import annotations

import pytest

from ansible_collections.scc.training.plugins.module_utils import (
    aiacc,
    bert_launch,
    cluster,
    cpfs,
    fabric,
    input_checks,
    mellanox_fw,
    nccl_check,
    rdma,
)

SHA = "0123456789abcdef" * 4
RPM = "aliyun-alinas-utils-1.1-8.20240527201444.2012cc.al7.noarch.rpm"
DEB = "aliyun-alinas-utils_1.1-8_all.deb"

CPFS = {
    "group_hosts": ["node1"],
    "cpfs_mount_group": "scc_cluster",
    "cpfs_mount_protocol": "cpfs-nfs",
    "cpfs_mount_path": "/mnt/cpfs",
    "cpfs_mount_source": "cpfs-0123.cn-chengdu.cpfs.aliyuncs.com:/share",
    "cpfs_mount_options": [],
    "cpfs_mount_cpfs_nfs_client": "alinas",
    "cpfs_mount_alinas_package": RPM,
    "cpfs_mount_alinas_url": "https://mirror.example/" + RPM,
    "cpfs_mount_alinas_sha256": SHA,
    "cpfs_mount_alinas_mirror": "",
    "cpfs_mount_alinas_gpg_key": "/srv/key.asc",
    "artifact_fetch_mirror_manifests": {"/srv/m": SHA},
    "refused_protocols": {"cpfs": "CPFS 1.0's Lustre client ..."},
    "source_forms": {
        "cpfs-nfs": {
            "pattern": r"^[A-Za-z0-9.\-]+\.cpfs\.aliyuncs\.com:/\S*$",
            "text": "<domain>.cpfs.aliyuncs.com:/<export>",
        },
        "nfs": {"pattern": r"^[A-Za-z0-9.\-]+:/\S*$", "text": "<server>:/<export>"},
        "bind": {"pattern": r"^/\S+$", "text": "an existing absolute directory"},
    },
    "alinas_package_pattern": r"^aliyun-alinas-utils[-_][A-Za-z0-9._+-]+\.(rpm|deb)$",
}
BIND = {**CPFS, "cpfs_mount_protocol": "bind", "cpfs_mount_source": "/srv/shared"}

BERT = {
    "group_hosts": ["node1", "node2"],
    "seq_len_range": [16, 512],
    "bert_launch_group": "scc_cluster",
    "bert_launch_min_nodes": 2,
    "bert_launch_steps": 100,
    "bert_launch_batch_size": 8,
    "bert_launch_np": 0,
    "bert_launch_warmup_steps": 10,
    "bert_launch_seq_len": 128,
    "bert_launch_learning_rate": None,
    "bert_launch_seed": 42,
    "bert_launch_omp_num_threads": 4,
    "bert_launch_timeout": 3600,
    "bert_launch_framework": "torch",
    "bert_launch_backend": "auto",
    "bert_launch_transport": "rdma",
    "bert_launch_cpu_only": False,
    "bert_launch_tcp_interface": "eth0",
    "bert_launch_master_port": 29500,
    "bert_launch_master_addr": "",
    "bert_launch_map_by": "ppr:8:node",
    "bert_launch_env": {"NCCL_DEBUG": "INFO"},
    "bert_launch_secret_env": {"HF_TOKEN": "hf_secret"},
    "bert_launch_run_id": "",
    "bert_launch_aiacc_env_file": "/etc/aiacc.env",
    "bert_launch_results_dir": "results",
    "bert_launch_gpu_compute_capability": "7.0",
    "bert_launch_data_dir": "auto",
    "bert_launch_checkpoint_dir": "auto",
    "bert_launch_checkpoint_every": 0,
    "bert_launch_grad_accum": "auto",
}

RDMA_STACK = {
    "rdma_stack_source": "doca",
    "rdma_stack_peermem": True,
    "rdma_stack_cpu_only": False,
    "rdma_stack_mirror": "https://mirror.example/nvidia",
    "rdma_stack_artifact_name": "doca-host_2.9.1-018000-24.10-ubuntu2204_amd64.deb",
    "rdma_stack_artifact_sha256": SHA,
    "rdma_stack_mtu": None,
    "rdma_stack_artifacts_path": "/opt/scc-training/artifacts/rdma_stack",
    "rdma_stack_sysfs_path": "/sys/class/infiniband",
    "rdma_stack_packages": [],
    "rdma_stack_doca_packages": ["doca-ofed"],
}
DISTRO = {**RDMA_STACK, "rdma_stack_source": "distro", "rdma_stack_peermem": False}

NCCL_CHECK = {
    "group_hosts": ["node1"],
    "nccl_check_group": "scc_cluster",
    "nccl_check_tests_version": "2.17.6",
    "nccl_check_tests_sha256": SHA,
    "nccl_check_tests_url": "https://github.com/NVIDIA/nccl-tests/archive/v2.17.6.tar.gz",
    "nccl_check_mirror": "",
    "nccl_check_build_dir": "/opt/scc-training/nccl-tests",
    "nccl_check_tests_dir": "",
    "nccl_check_gpus": 8,
    "nccl_check_min_bytes": "8",
    "nccl_check_max_bytes": "1G",
    "nccl_check_step_factor": 2,
    "nccl_check_nvlink_links": 6,
    "nccl_check_nvlink_gbs_per_link": 25.0,
    "nccl_check_link_rate_gbps": 50.0,
    "nccl_check_intra_node_gbs": None,
    "nccl_check_pcie_min_fraction": 0.35,
    "scc_instance_type": "ecs.ebmgn8is.32xlarge",
    "nccl_check_single_min_fraction": 0.7,
    "nccl_check_multi_min_fraction": "0.7",
    "nccl_check_tcp_interface": "eth0",
    "nccl_check_interface": "",
    "nccl_check_timeout_s": 900,
    "nccl_check_results_dir": "results",
    "nccl_check_env": {"NCCL_DEBUG": "INFO"},
}

BANDWIDTH = {
    "group_hosts": ["node1", "node2"],
    "rdma_bandwidth_group": "scc_cluster",
    "rdma_bandwidth_mode": "rdma",
    "rdma_bandwidth_link_rate_gbps": None,
    "rdma_bandwidth_min_fraction": 0.8,
    "rdma_bandwidth_tcp_min_fraction": 0.5,
    "rdma_bandwidth_duration_s": 10,
    "rdma_bandwidth_message_bytes": 65536,
    "rdma_bandwidth_tcp_port": 5201,
    "rdma_bandwidth_rdma_port": 18515,
    "rdma_bandwidth_device": "",
    "rdma_bandwidth_gid_index": None,
    "rdma_bandwidth_qp_count": None,
    "rdma_bandwidth_address": "10.0.0.1",
    "rdma_bandwidth_results_dir": "results",
}

AIACC = {
    "aiacc_cpu_only": False,
    "aiacc_source": "mirror",
    "aiacc_artifact_name": "perseus_torch-1.5.0-cp39-cp39-linux_x86_64.whl",
    "aiacc_artifact_sha256": "",
    "aiacc_release_url": "https://ali-perseus-release.oss-cn-huhehaote.aliyuncs.com",
    "aiacc_mirror": "/srv/mirror",
    "aiacc_venv_path": "/opt/scc-training/venv",
    "aiacc_artifacts_path": "/opt/scc-training/artifacts",
    "aiacc_verify_import": "perseus.torch.horovod",
    "aiacc_env": {"PERSEUS_ALLREDUCE_STREAMS": "4"},
}
NIC_FIRMWARE = {
    "nic_firmware_targets": [
        {"psid": "MT_0000000359", "version": "22.39.1002", "image": "files/fw.bin", "sha256": SHA}
    ],
    "nic_firmware_burn": True,
    "nic_firmware_tool": "auto",
    "nic_firmware_tool_path": "",
    "nic_firmware_reboot_timeout": 1800,
    "nic_firmware_image_dir": "/var/cache/scc-training/nic-firmware",
}
TARGET = {"psid": "MT_0000000359", "version": "22.39.1002"}

SSH_TRUST = {
    "group_hosts": ["node1"],
    "ssh_trust_group": "scc_cluster",
    "ssh_trust_cluster_name": "scc_cluster",
    "ssh_trust_key_name": "id_ed25519_scc_training",
    "ssh_trust_key_dir": "~/.ssh/scc-training/scc_cluster",
    "ssh_trust_interface": "",
    "ssh_trust_authorized_key_options": ["no-pty", "no-agent-forwarding", "No-X11-Forwarding"],
    "ssh_trust_known_hosts_file": "/etc/ssh/ssh_known_hosts",
    "ssh_trust_ssh_config_file": "/etc/ssh/ssh_config.d/50-scc-training.conf",
    "ssh_trust_verify_timeout": 10,
}

FABRIC_MONITOR = {
    "group_hosts": ["node1"],
    "fabric_monitor_group": "scc_cluster",
    "fabric_monitor_interval_s": 1,
    "fabric_monitor_max_duration_s": 3600,
    "fabric_monitor_interfaces": ["eth0", "bond0.100"],
    "fabric_monitor_node_dir": "/opt/scc-training/fabric_monitor",
    "fabric_monitor_results_dir": "results",
    "fabric_monitor_results_name": "traffic",
}

RELEASE = {**AIACC, "aiacc_source": "release", "aiacc_mirror": "", "aiacc_artifact_sha256": SHA}

GOOD = {
    "cpfs_nfs_url": (cpfs.cpfs_mount_input_problems, CPFS),
    "cpfs_nfs_mirror_deb_key_none": (
        cpfs.cpfs_mount_input_problems,
        {
            **CPFS,
            "cpfs_mount_alinas_package": DEB,
            "cpfs_mount_alinas_url": "",
            "cpfs_mount_alinas_mirror": "/srv/m",
            "cpfs_mount_alinas_gpg_key": "",
        },
    ),
    "cpfs_nfs_rpm_key_vers3": (
        cpfs.cpfs_mount_input_problems,
        {**CPFS, "cpfs_mount_alinas_gpg_key": "/srv/key.asc", "cpfs_mount_options": ["nfsvers=3", "_netdev"]},
    ),
    "bind": (cpfs.cpfs_mount_input_problems, BIND),
    "bert_torch_gpus": (bert_launch.bert_launch_input_problems, BERT),
    "bert_values_as_strings": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_steps": "100", "bert_launch_learning_rate": "1e-4", "bert_launch_master_port": "29500"},
    ),
    "bert_batch_auto": (bert_launch.bert_launch_input_problems, {**BERT, "bert_launch_batch_size": "auto"}),
    "bert_batch_string": (bert_launch.bert_launch_input_problems, {**BERT, "bert_launch_batch_size": "32"}),
    "bert_master_addr_ip": (bert_launch.bert_launch_input_problems, {**BERT, "bert_launch_master_addr": "10.0.0.5"}),
    "bert_master_addr_name": (bert_launch.bert_launch_input_problems, {**BERT, "bert_launch_master_addr": "node1.x"}),
    "bert_horovod_cpu_tcp": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_framework": "horovod", "bert_launch_cpu_only": True, "bert_launch_transport": "tcp"},
    ),
    "rdma_stack_doca": (rdma.rdma_stack_input_problems, RDMA_STACK),
    "rdma_stack_mlnx_mtu": (
        rdma.rdma_stack_input_problems,
        {
            **RDMA_STACK,
            "rdma_stack_source": "mlnx_ofed",
            "rdma_stack_artifact_name": "MLNX_OFED_LINUX-24.10-3.2.5.0-ubuntu22.04-x86_64.tgz",
            "rdma_stack_mtu": "4096",
        },
    ),
    "rdma_stack_distro": (rdma.rdma_stack_input_problems, DISTRO),
    "nccl_check": (nccl_check.nccl_check_input_problems, NCCL_CHECK),
    "nccl_check_stand_in_mirror": (
        nccl_check.nccl_check_input_problems,
        {**NCCL_CHECK, "nccl_check_tests_dir": "/mnt/cpfs/standin", "nccl_check_mirror": "http://127.0.0.1/m"},
    ),
    "bandwidth_rdma_detect": (fabric.rdma_bandwidth_input_problems, BANDWIDTH),
    "bandwidth_tcp_declared": (
        fabric.rdma_bandwidth_input_problems,
        {**BANDWIDTH, "rdma_bandwidth_mode": "tcp", "rdma_bandwidth_link_rate_gbps": 25, "rdma_bandwidth_gid_index": 3},
    ),
    "aiacc_mirror": (aiacc.aiacc_input_problems, AIACC),
    "aiacc_release": (aiacc.aiacc_input_problems, RELEASE),
    "aiacc_cpu_only_installs_nothing": (
        aiacc.aiacc_input_problems,
        {**AIACC, "aiacc_cpu_only": True, "aiacc_artifact_name": ""},
    ),
    "nic_firmware_burn": (mellanox_fw.nic_firmware_input_problems, NIC_FIRMWARE),
    "nic_firmware_check_only": (
        mellanox_fw.nic_firmware_input_problems,
        {
            **NIC_FIRMWARE,
            "nic_firmware_targets": [TARGET],
            "nic_firmware_burn": False,
            "nic_firmware_tool": "mstflint",
            "nic_firmware_tool_path": "/usr/bin/mstflint",
        },
    ),
    "nic_firmware_no_target": (mellanox_fw.nic_firmware_input_problems, {**NIC_FIRMWARE, "nic_firmware_targets": []}),
    "ssh_trust": (cluster.ssh_trust_input_problems, SSH_TRUST),
    "fabric_monitor": (fabric.fabric_monitor_input_problems, FABRIC_MONITOR),
}

# case: (function, settings, the one problem's text: its variable, and its value where it shows one)
BAD = {
    "ssh_trust_unknown_key_option": (
        cluster.ssh_trust_input_problems,
        {**SSH_TRUST, "ssh_trust_authorized_key_options": ["no-pty", "no-agent-fowarding"]},
        'ssh_trust_authorized_key_options (["no-pty", "no-agent-fowarding"]) must be options sshd knows (sshd(8): ',
    ),
    "cpfs_group_empty": (cpfs.cpfs_mount_input_problems, {**CPFS, "group_hosts": []}, "cpfs_mount_group (scc_cluster)"),
    "cpfs_refused": (
        cpfs.cpfs_mount_input_problems,
        {**CPFS, "cpfs_mount_protocol": "cpfs"},
        "cpfs_mount_protocol cpfs is refused: CPFS 1.0's Lustre client",
    ),
    "cpfs_path_root": (
        cpfs.cpfs_mount_input_problems,
        {**BIND, "cpfs_mount_path": "/"},
        'cpfs_mount_path must be an absolute',
    ),
    "cpfs_path_dots": (cpfs.cpfs_mount_input_problems, {**BIND, "cpfs_mount_path": "/mnt/../x"}, 'got "/mnt/../x"'),
    "cpfs_source_form": (
        cpfs.cpfs_mount_input_problems,
        {**CPFS, "cpfs_mount_source": "cpfs-0237.cpfs.nas.aliyuncs.com:/"},
        "cpfs_mount_source must be <domain>.cpfs.aliyuncs.com:/<export> for protocol cpfs-nfs",
    ),
    "cpfs_bind_same_path": (
        cpfs.cpfs_mount_input_problems,
        {**BIND, "cpfs_mount_source": "/mnt/cpfs/"},
        'cpfs_mount_source must be an existing absolute directory for protocol bind, got "/mnt/cpfs/"',
    ),
    "cpfs_options_string": (
        cpfs.cpfs_mount_input_problems,
        {**BIND, "cpfs_mount_options": "vers=3"},
        'cpfs_mount_options must be a list of non-empty options without commas or whitespace, got "vers=3"',
    ),
    "cpfs_options_comma": (cpfs.cpfs_mount_input_problems, {**BIND, "cpfs_mount_options": ["a,b"]}, '["a,b"]'),
    "cpfs_nfs_vers4": (
        cpfs.cpfs_mount_input_problems,
        {**CPFS, "cpfs_mount_options": ["vers=4.1"]},
        'cpfs_mount_options must not ask protocol cpfs-nfs for another version, got ["vers=4.1"]',
    ),
    "cpfs_package": (
        cpfs.cpfs_mount_input_problems,
        {**CPFS, "cpfs_mount_alinas_package": "cpfs-client.rpm"},
        'cpfs_mount_alinas_package must be its file name, aliyun-alinas-utils-<version>...(.rpm|.deb), got "cpfs-client.rpm"',
    ),
    "cpfs_url_and_mirror": (
        cpfs.cpfs_mount_input_problems,
        {**CPFS, "cpfs_mount_alinas_mirror": "/srv/m"},
        'cpfs_mount_alinas_mirror ("/srv/m") and cpfs_mount_alinas_url (',
    ),
    "cpfs_no_source": (
        cpfs.cpfs_mount_input_problems,
        {**CPFS, "cpfs_mount_alinas_url": ""},
        'cpfs_mount_alinas_url ("") must name the aliyun-alinas-utils package',
    ),
    "cpfs_url_scheme": (
        cpfs.cpfs_mount_input_problems,
        {**CPFS, "cpfs_mount_alinas_url": "ftp://m/" + RPM},
        'cpfs_mount_alinas_url ("ftp://m/',
    ),
    "cpfs_sha256_upper": (
        cpfs.cpfs_mount_input_problems,
        {**CPFS, "cpfs_mount_alinas_sha256": SHA.upper()},
        "cpfs_mount_alinas_sha256 (\"%s\") must be" % SHA.upper(),
    ),
    "cpfs_mirror_relative": (
        cpfs.cpfs_mount_input_problems,
        {**CPFS, "cpfs_mount_alinas_url": "", "cpfs_mount_alinas_mirror": "mirror/cpfs"},
        'cpfs_mount_alinas_mirror ("mirror/cpfs") must be an http(s):// URL',
    ),
    "cpfs_key_with_deb": (
        cpfs.cpfs_mount_input_problems,
        {**CPFS, "cpfs_mount_alinas_package": DEB, "cpfs_mount_alinas_gpg_key": "/k.asc"},
        'cpfs_mount_alinas_gpg_key="/k.asc" for "%s"' % DEB,
    ),
    "cpfs_rpm_without_key": (
        cpfs.cpfs_mount_input_problems,
        {**CPFS, "cpfs_mount_alinas_gpg_key": ""},
        'cpfs_mount_alinas_gpg_key must be the controller path of the key that signs "%s"' % RPM,
    ),
    "cpfs_mirror_unpinned": (
        cpfs.cpfs_mount_input_problems,
        {**CPFS, "cpfs_mount_alinas_url": "", "cpfs_mount_alinas_mirror": "/srv/other"},
        'cpfs_mount_alinas_mirror ("/srv/other"): artifact_fetch_mirror_manifests must pin the mirror "/srv/other"',
    ),
    "cpfs_key_relative": (
        cpfs.cpfs_mount_input_problems,
        {**CPFS, "cpfs_mount_alinas_gpg_key": "k.asc"},
        'cpfs_mount_alinas_gpg_key="k.asc"',
    ),
    # The launcher judges the names it consumes itself (issue 27): --tags bert_launch skips playbooks/validate.yml.
    "bert_group_host_option": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "group_hosts": ["node1", "-oProxyCommand=x"]},
        "bert_launch_group (scc_cluster): '-oProxyCommand=x' is not an RFC 1123 host name",
    ),
    "bert_group_host_too_long": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "group_hosts": ["node1", ("a" * 63 + ".") * 4]},
        "bert_launch_group (scc_cluster): 'aaaa",
    ),
    "bert_master_addr_option": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_master_addr": "-oProxyCommand=x"},
        "bert_launch_master_addr must be empty, an IP address or an RFC 1123 host name",
    ),
    "bert_master_addr_underscore": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_master_addr": "gpu_node1"},
        "bert_launch_master_addr must be empty, an IP address or an RFC 1123 host name",
    ),
    "bert_group_empty": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "group_hosts": []},
        "bert_launch_group: the inventory group 'scc_cluster' has no hosts",
    ),
    "bert_min_nodes_over": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_min_nodes": 3},
        "bert_launch_min_nodes (3) must be between 1 and the 2 node(s) of group 'scc_cluster'.",
    ),
    "bert_lever": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_grad_accum": 0},
        "bert_launch_grad_accum must be auto or an integer >= 1 (got 0).",
    ),
    "bert_checkpoint_dir": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_checkpoint_dir": "ck"},
        "bert_launch_checkpoint_dir must be auto or an absolute path (got ck).",
    ),
    "bert_min_nodes_zero": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_min_nodes": 0},
        "bert_launch_min_nodes (0)",
    ),
    "bert_steps": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_steps": 0, "bert_launch_warmup_steps": 0},
        None,
    ),
    "bert_batch": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_batch_size": 0},
        "bert_launch_batch_size (0) must be auto (from the GPU's memory and the model) or a whole number >= 1.",
    ),
    "bert_batch_float": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_batch_size": 2.5},
        "bert_launch_batch_size (2.5) must be auto (from the GPU's memory and the model) or a whole number >= 1.",
    ),
    "bert_batch_whole_float": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_batch_size": 8.0},
        "bert_launch_batch_size (8.0) must be auto",
    ),
    "bert_batch_float_string": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_batch_size": "16.5"},
        "bert_launch_batch_size (16.5) must be auto",
    ),
    "bert_batch_bool": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_batch_size": True},
        "bert_launch_batch_size (True) must be auto",
    ),
    "bert_threads": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_omp_num_threads": 0},
        "bert_launch_omp_num_threads (0)",
    ),
    "bert_timeout": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_timeout": 0},
        "bert_launch_timeout (0) must be >= 1.",
    ),
    "bert_np": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_np": -1},
        "bert_launch_np (-1) must be >= 0 (0: the hostfile's slots).",
    ),
    "bert_seed": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_seed": -1},
        "bert_launch_seed (-1) must be >= 0.",
    ),
    "bert_warmup": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_warmup_steps": 100},
        "bert_launch_warmup_steps (100) must be >= 0 and < bert_launch_steps (100) so that a step is measured.",
    ),
    "bert_seq_len": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_seq_len": 1024},
        "bert_launch_seq_len (1024) must be within [16, 512] (BERT's position embeddings).",
    ),
    "bert_learning_rate": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_learning_rate": 0},
        "bert_launch_learning_rate (0) must be null (the model size's default) or > 0.",
    ),
    "bert_backend": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_framework": "horovod", "bert_launch_backend": "nccl"},
        "bert_launch_backend must be auto unless bert_launch_framework is torch (got nccl with horovod",
    ),
    "bert_aiacc_cpu": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_framework": "acspeed", "bert_launch_cpu_only": True, "bert_launch_transport": "tcp"},
        "bert_launch_framework acspeed needs GPUs (AIACC-Training and ACSpeed communicate over NCCL), but the cluster is "
        "declared CPU-only (bert_launch_cpu_only, from scc_cpu_only, is true).",
    ),
    "bert_rdma_gloo": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_backend": "gloo"},
        "bert_launch_transport rdma needs NCCL on GPUs: bert_launch_backend nccl, or auto on GPUs (got gloo, "
        "bert_launch_cpu_only false, from scc_cpu_only)",
    ),
    "nccl_check_instance_type_a_number": (
        nccl_check.nccl_check_input_problems,
        {**NCCL_CHECK, "scc_instance_type": 8},
        "scc_instance_type (8) must be a string",
    ),
    "bert_interface": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_tcp_interface": "a-very-long-interface"},
        "bert_launch_tcp_interface must be an interface name such as eth0, bond0 or lo (got a-very-long-interface).",
    ),
    "bert_master_addr": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_master_addr": "a b"},
        "bert_launch_master_addr must be",
    ),
    "bert_map_by": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_map_by": "Node"},
        "bert_launch_map_by must be",
    ),
    "bert_run_id": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_run_id": "a/b"},
        "bert_launch_run_id must be",
    ),
    "bert_env_file": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_aiacc_env_file": "aiacc.env"},
        "bert_launch_aiacc_env_file must be an absolute path (got aiacc.env).",
    ),
    "bert_port": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_master_port": 70000},
        "bert_launch_master_port must be a port within [1, 65535] (got 70000).",
    ),
    "bert_env_keys": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_env": {"1X": "y"}},
        "bert_launch_env's keys must be environment variable names (got ['1X']).",
    ),
    "bert_results_dir": (
        bert_launch.bert_launch_input_problems,
        {**BERT, "bert_launch_results_dir": ""},
        "bert_launch_results_dir must be",
    ),
    "rdma_peermem_distro": (
        rdma.rdma_stack_input_problems,
        {**DISTRO, "rdma_stack_peermem": True},
        "rdma_stack_peermem is true with rdma_stack_source: distro",
    ),
    "rdma_peermem_cpu_only": (
        rdma.rdma_stack_input_problems,
        {**RDMA_STACK, "rdma_stack_cpu_only": True},
        "rdma_stack_peermem is true but rdma_stack_cpu_only (from scc_cpu_only) declares hosts without a GPU",
    ),
    "rdma_mirror": (
        rdma.rdma_stack_input_problems,
        {**RDMA_STACK, "rdma_stack_mirror": "mirror.example"},
        "with rdma_stack_source doca, rdma_stack_mirror must be an http(s):// URL or an absolute controller directory "
        "(got 'mirror.example').",
    ),
    "rdma_sha256": (
        rdma.rdma_stack_input_problems,
        {**RDMA_STACK, "rdma_stack_artifact_sha256": "abc"},
        "rdma_stack_artifact_sha256 must be",
    ),
    "rdma_doca_name": (
        rdma.rdma_stack_input_problems,
        {**RDMA_STACK, "rdma_stack_artifact_name": "MLNX_OFED_LINUX-24.10-3.2.5.0-ubuntu22.04-x86_64.tgz"},
        "doca-host_<version>_<arch>.deb or doca-host-<version>.<arch>.rpm (got 'MLNX_OFED_LINUX-",
    ),
    "rdma_mlnx_name": (
        rdma.rdma_stack_input_problems,
        {**RDMA_STACK, "rdma_stack_source": "mlnx_ofed", "rdma_stack_artifact_name": "ofed.iso"},
        "MLNX_OFED_LINUX-<version>-<os>-<arch>.tgz (got 'ofed.iso')",
    ),
    "rdma_mtu": (
        rdma.rdma_stack_input_problems,
        {**DISTRO, "rdma_stack_mtu": 9000},
        "rdma_stack_mtu must be null or an RDMA MTU",
    ),
    "rdma_artifacts_path": (
        rdma.rdma_stack_input_problems,
        {**DISTRO, "rdma_stack_artifacts_path": "artifacts"},
        "rdma_stack_artifacts_path must be an absolute path (got artifacts).",
    ),
    "rdma_sysfs_path": (
        rdma.rdma_stack_input_problems,
        {**DISTRO, "rdma_stack_sysfs_path": "sys"},
        "rdma_stack_sysfs_path must be",
    ),
    "rdma_packages": (
        rdma.rdma_stack_input_problems,
        {**DISTRO, "rdma_stack_packages": ["rdma-core; rm"]},
        "rdma_stack_packages must list package names (got ['rdma-core; rm']).",
    ),
    "nccl_group": (
        nccl_check.nccl_check_input_problems,
        {**NCCL_CHECK, "group_hosts": []},
        "nccl_check_group (scc_cluster)",
    ),
    "bandwidth_group": (
        fabric.rdma_bandwidth_input_problems,
        {**BANDWIDTH, "group_hosts": []},
        "rdma_bandwidth_group (scc_cluster)",
    ),
    "bandwidth_tcp_no_rate": (
        fabric.rdma_bandwidth_input_problems,
        {**BANDWIDTH, "rdma_bandwidth_mode": "tcp"},
        "rdma_bandwidth_link_rate_gbps (null) must be > 0 in Gb/s, or null to detect it from the RDMA ports (mode rdma only: "
        "TCP has none to detect, declare it for mode tcp).",
    ),
    "bandwidth_rate_negative": (
        fabric.rdma_bandwidth_input_problems,
        {**BANDWIDTH, "rdma_bandwidth_link_rate_gbps": -25},
        "rdma_bandwidth_link_rate_gbps (-25)",
    ),
    "bandwidth_same_ports": (
        fabric.rdma_bandwidth_input_problems,
        {**BANDWIDTH, "rdma_bandwidth_tcp_port": 18515},
        "rdma_bandwidth_tcp_port and rdma_bandwidth_rdma_port must be two different ports (both 18515).",
    ),
    "nic_firmware_psid": (
        mellanox_fw.nic_firmware_input_problems,
        {**NIC_FIRMWARE, "nic_firmware_burn": False, "nic_firmware_targets": [dict(TARGET, psid="ConnectX6")]},
        'nic_firmware_targets must name each PSID once, such as MT_0000000359, with a version such as 22.39.1002 (got [{"psid": "ConnectX6"',
    ),
    "nic_firmware_version": (
        mellanox_fw.nic_firmware_input_problems,
        {**NIC_FIRMWARE, "nic_firmware_burn": False, "nic_firmware_targets": [{"psid": "MT_0000000359"}]},
        "with a version such as 22.39.1002",
    ),
    "nic_firmware_psid_twice": (
        mellanox_fw.nic_firmware_input_problems,
        {**NIC_FIRMWARE, "nic_firmware_burn": False, "nic_firmware_targets": [TARGET, TARGET]},
        "nic_firmware_targets must name each PSID once",
    ),
    "nic_firmware_burn_without_image": (
        mellanox_fw.nic_firmware_input_problems,
        {**NIC_FIRMWARE, "nic_firmware_targets": [TARGET]},
        'nic_firmware_burn is true, so every target of nic_firmware_targets needs an image (no image: ["MT_0000000359"]).',
    ),
    "nic_firmware_image_without_sha256": (
        mellanox_fw.nic_firmware_input_problems,
        {**NIC_FIRMWARE, "nic_firmware_targets": [dict(TARGET, image="files/fw.bin")]},
        'nic_firmware_targets: every target with an image needs the image\'s sha256 (64 lowercase hex digits), '
        'missing or malformed for ["MT_0000000359"].',
    ),
    "nic_firmware_tool_path_with_auto": (
        mellanox_fw.nic_firmware_input_problems,
        {**NIC_FIRMWARE, "nic_firmware_tool_path": "/usr/bin/mstflint"},
        "nic_firmware_tool_path (/usr/bin/mstflint) must be empty, or absolute with nic_firmware_tool (auto) naming the tool.",
    ),
    "nic_firmware_tool_path_relative": (
        mellanox_fw.nic_firmware_input_problems,
        {**NIC_FIRMWARE, "nic_firmware_tool": "mstflint", "nic_firmware_tool_path": "bin/mstflint"},
        "nic_firmware_tool_path (bin/mstflint)",
    ),
    "ssh_trust_group": (
        cluster.ssh_trust_input_problems,
        {**SSH_TRUST, "group_hosts": []},
        "ssh_trust_group (scc_cluster) must name a non-empty inventory group.",
    ),
    "fabric_monitor_group": (
        fabric.fabric_monitor_input_problems,
        {**FABRIC_MONITOR, "group_hosts": []},
        "fabric_monitor_group (scc_cluster)",
    ),
    "aiacc_env": (
        aiacc.aiacc_input_problems,
        {**AIACC, "aiacc_cpu_only": True, "aiacc_env": {"lower": "1"}},
        "aiacc_env must map environment variable names (A-Z, 0-9, _) to values; got {'lower': '1'}.",
    ),
}

# The rules that read one variable: a bad value gives "<variable> (<value>) must be <what>."
RDMA_ADDRESS = "a host name or IP address (RFC 1123: letters, digits and inner hyphens; never starting with '-')"
ONE_VARIABLE = [
    (nccl_check.nccl_check_input_problems, NCCL_CHECK, "nccl_check_tests_version", "2.17", "X.Y.Z"),
    (nccl_check.nccl_check_input_problems, NCCL_CHECK, "nccl_check_tests_sha256", "abc", "64 lowercase hex digits"),
    (
        nccl_check.nccl_check_input_problems,
        NCCL_CHECK,
        "nccl_check_tests_url",
        "ftp://x",
        "an http(s)://, file:// URL or absolute path",
    ),
    (
        nccl_check.nccl_check_input_problems,
        NCCL_CHECK,
        "nccl_check_mirror",
        "mirror",
        "empty, an http(s):// URL or an absolute path",
    ),
    (nccl_check.nccl_check_input_problems, NCCL_CHECK, "nccl_check_build_dir", "build", "absolute"),
    (nccl_check.nccl_check_input_problems, NCCL_CHECK, "nccl_check_tests_dir", "build", "absolute or empty"),
    (nccl_check.nccl_check_input_problems, NCCL_CHECK, "nccl_check_gpus", 0, "null (resolved) or >= 1"),
    (
        nccl_check.nccl_check_input_problems,
        NCCL_CHECK,
        "nccl_check_nvlink_links",
        -1,
        "null (resolved) or >= 0 (0: no NVLink, the PCIe basis)",
    ),
    (nccl_check.nccl_check_input_problems, NCCL_CHECK, "nccl_check_intra_node_gbs", 0, "null (resolved) or > 0"),
    (nccl_check.nccl_check_input_problems, NCCL_CHECK, "nccl_check_pcie_min_fraction", 1.5, "in (0, 1]"),
    (
        nccl_check.nccl_check_input_problems,
        NCCL_CHECK,
        "nccl_check_min_bytes",
        "8B",
        "a number of bytes with an optional K, M or G",
    ),
    (
        nccl_check.nccl_check_input_problems,
        NCCL_CHECK,
        "nccl_check_max_bytes",
        "1T",
        "a number of bytes with an optional K, M or G",
    ),
    (nccl_check.nccl_check_input_problems, NCCL_CHECK, "nccl_check_step_factor", 1, ">= 2"),
    (nccl_check.nccl_check_input_problems, NCCL_CHECK, "nccl_check_nvlink_gbs_per_link", 0, "null (resolved) or > 0"),
    (nccl_check.nccl_check_input_problems, NCCL_CHECK, "nccl_check_link_rate_gbps", -1, "null (resolved) or > 0"),
    (nccl_check.nccl_check_input_problems, NCCL_CHECK, "nccl_check_single_min_fraction", 1.5, "in (0, 1]"),
    (nccl_check.nccl_check_input_problems, NCCL_CHECK, "nccl_check_multi_min_fraction", 0, "in (0, 1]"),
    (nccl_check.nccl_check_input_problems, NCCL_CHECK, "nccl_check_tcp_interface", "eth0; rm", "an interface name"),
    (nccl_check.nccl_check_input_problems, NCCL_CHECK, "nccl_check_interface", "a b", "an interface name or empty"),
    (nccl_check.nccl_check_input_problems, NCCL_CHECK, "nccl_check_timeout_s", 0, ">= 1"),
    (nccl_check.nccl_check_input_problems, NCCL_CHECK, "nccl_check_results_dir", "", "set"),
    (fabric.rdma_bandwidth_input_problems, BANDWIDTH, "rdma_bandwidth_min_fraction", 1.5, "in (0, 1]"),
    (fabric.rdma_bandwidth_input_problems, BANDWIDTH, "rdma_bandwidth_tcp_min_fraction", 0, "in (0, 1]"),
    (fabric.rdma_bandwidth_input_problems, BANDWIDTH, "rdma_bandwidth_duration_s", 0, ">= 1"),
    (fabric.rdma_bandwidth_input_problems, BANDWIDTH, "rdma_bandwidth_message_bytes", 0, ">= 1"),
    (fabric.rdma_bandwidth_input_problems, BANDWIDTH, "rdma_bandwidth_tcp_port", 70000, "a port in 1..65535"),
    (fabric.rdma_bandwidth_input_problems, BANDWIDTH, "rdma_bandwidth_rdma_port", 0, "a port in 1..65535"),
    (
        fabric.rdma_bandwidth_input_problems,
        BANDWIDTH,
        "rdma_bandwidth_device",
        "mlx5_0 mlx5_1",
        "a device name or empty",
    ),
    (fabric.rdma_bandwidth_input_problems, BANDWIDTH, "rdma_bandwidth_gid_index", -1, ">= 0 or null"),
    (fabric.rdma_bandwidth_input_problems, BANDWIDTH, "rdma_bandwidth_qp_count", 0, ">= 1 or null"),
    (fabric.rdma_bandwidth_input_problems, BANDWIDTH, "rdma_bandwidth_qp_count", "eight", ">= 1 or null"),
    # Every peer's address reaches its partner's iperf3 and ib_write_bw command lines (issue 27).
    *(
        (fabric.rdma_bandwidth_input_problems, BANDWIDTH, "rdma_bandwidth_address", address, RDMA_ADDRESS)
        for address in ("a b", "-v", "-oProxyCommand=x", "gpu_node1", "")
    ),
    (fabric.rdma_bandwidth_input_problems, BANDWIDTH, "rdma_bandwidth_results_dir", "", "set"),
    (mellanox_fw.nic_firmware_input_problems, NIC_FIRMWARE, "nic_firmware_reboot_timeout", 30, ">= 60"),
    (mellanox_fw.nic_firmware_input_problems, NIC_FIRMWARE, "nic_firmware_image_dir", "cache", "absolute"),
    (
        cluster.ssh_trust_input_problems,
        SSH_TRUST,
        "ssh_trust_cluster_name",
        "my cluster",
        "only letters, digits, '_', '.', '-'",
    ),
    (cluster.ssh_trust_input_problems, SSH_TRUST, "ssh_trust_key_name", "id/x", "only letters, digits, '_', '.', '-'"),
    (cluster.ssh_trust_input_problems, SSH_TRUST, "ssh_trust_key_dir", "", "set"),
    (cluster.ssh_trust_input_problems, SSH_TRUST, "ssh_trust_interface", "eth0 eth1", "empty or an interface name"),
    (
        cluster.ssh_trust_input_problems,
        SSH_TRUST,
        "ssh_trust_authorized_key_options",
        ['from="10.0.0.1"'],
        "options without spaces, quotes or from= (set ssh_trust_restrict_from instead)",
    ),
    (cluster.ssh_trust_input_problems, SSH_TRUST, "ssh_trust_verify_timeout", 0, ">= 1"),
    (
        cluster.ssh_trust_input_problems,
        SSH_TRUST,
        "ssh_trust_key_name",
        "id_ed25519",
        "a name other than ssh's default identities (id_rsa, id_ecdsa, id_ecdsa_sk, id_ed25519, id_ed25519_sk, id_dsa,"
        " id_xmss): it would replace root's own key",
    ),
    (cluster.ssh_trust_input_problems, SSH_TRUST, "ssh_trust_known_hosts_file", "known_hosts", "an absolute path"),
    (
        cluster.ssh_trust_input_problems,
        SSH_TRUST,
        "ssh_trust_ssh_config_file",
        "/etc/ssh/ssh_config.d/50-scc-training",
        "an absolute path ending in .conf (ssh_config includes only ssh_config.d/*.conf)",
    ),
    (fabric.fabric_monitor_input_problems, FABRIC_MONITOR, "fabric_monitor_interval_s", 0.01, ">= 0.1"),
    (fabric.fabric_monitor_input_problems, FABRIC_MONITOR, "fabric_monitor_max_duration_s", 0, ">= 1"),
    (
        fabric.fabric_monitor_input_problems,
        FABRIC_MONITOR,
        "fabric_monitor_interfaces",
        ["eth0 eth1"],
        "interface names",
    ),
    (fabric.fabric_monitor_input_problems, FABRIC_MONITOR, "fabric_monitor_node_dir", "/opt/a b", "absolute"),
    (fabric.fabric_monitor_input_problems, FABRIC_MONITOR, "fabric_monitor_results_dir", "", "set"),
    (
        fabric.fabric_monitor_input_problems,
        FABRIC_MONITOR,
        "fabric_monitor_results_name",
        "a/b",
        "letters, digits, . _ -",
    ),
    (aiacc.aiacc_input_problems, AIACC, "aiacc_artifact_name", "", "the wheel or .tar.gz file to install"),
    (
        aiacc.aiacc_input_problems,
        AIACC,
        "aiacc_mirror",
        "mirror",
        "an http(s):// URL or absolute controller directory with aiacc_source mirror",
    ),
    (
        aiacc.aiacc_input_problems,
        RELEASE,
        "aiacc_artifact_sha256",
        "",
        "its sha256 with aiacc_source release (Alibaba publishes no manifest)",
    ),
    (aiacc.aiacc_input_problems, RELEASE, "aiacc_release_url", "ftp://x", "a URL with aiacc_source release"),
    (aiacc.aiacc_input_problems, AIACC, "aiacc_venv_path", "venv", "absolute"),
    (aiacc.aiacc_input_problems, AIACC, "aiacc_artifacts_path", "artifacts", "absolute"),
    (aiacc.aiacc_input_problems, AIACC, "aiacc_verify_import", "no spaces", "empty or a module name"),
]


@pytest.mark.parametrize("case", sorted(GOOD))
def test_a_good_input_has_no_problem(case):
    function, settings = GOOD[case]
    assert function(settings) == []


@pytest.mark.parametrize("case", sorted(BAD))
def test_each_problem_names_its_variable(case):
    function, settings, expected = BAD[case]
    problems = function(settings)
    if expected is None:  # bert_steps: the rule of steps and the one of warmup_steps below it
        assert problems == [
            "bert_launch_steps (0) must be >= 1.",
            "bert_launch_warmup_steps (0) must be >= 0 and < bert_launch_steps (0) so that a step is measured.",
        ]
        return
    assert len(problems) == 1, problems
    assert expected in problems[0]


@pytest.mark.parametrize("function, good, name, value, what", ONE_VARIABLE, ids=[case[2] for case in ONE_VARIABLE])
def test_each_one_variable_rule(function, good, name, value, what):
    assert function({**good, name: value}) == ["%s (%s) must be %s." % (name, input_checks.brief(value), what)]


def test_every_problem_at_once():
    problems = cpfs.cpfs_mount_input_problems(
        {
            **CPFS,
            "group_hosts": [],
            "cpfs_mount_path": "x",
            "cpfs_mount_options": ["vers=3,hard"],
            "cpfs_mount_alinas_url": "",
        }
    )
    assert [p.split(" ")[0] for p in problems] == [
        "cpfs_mount_group",
        "cpfs_mount_path",
        "cpfs_mount_options",
        "cpfs_mount_alinas_url",  # ("") must name the package, or cpfs_mount_alinas_mirror a mirror
    ]
    assert (
        len(nccl_check.nccl_check_input_problems({**NCCL_CHECK, "nccl_check_gpus": 0, "nccl_check_timeout_s": 0})) == 2
    )


def test_the_lab_stand_in_switch_lets_rdma_run_on_cpus_and_nothing_more():
    """bert_launch_standin_rdma_on_cpu (the lab's ebmgn8v leg): transport rdma on CPUs is accepted with it, refused
    without it; the CPU-only refusal of acspeed stays."""
    cpu = {**BERT, "bert_launch_cpu_only": True, "bert_launch_transport": "rdma"}
    (problem,) = bert_launch.bert_launch_input_problems(cpu)
    assert problem.startswith("bert_launch_transport rdma needs NCCL on GPUs")
    assert bert_launch.bert_launch_input_problems({**cpu, "bert_launch_standin_rdma_on_cpu": True}) == []
    assert bert_launch.bert_launch_input_problems({**cpu, "bert_launch_standin_rdma_on_cpu": False}) == [problem]
    acspeed = {**cpu, "bert_launch_standin_rdma_on_cpu": True, "bert_launch_framework": "acspeed"}
    assert [p.split(" ")[0] for p in bert_launch.bert_launch_input_problems(acspeed)] == ["bert_launch_framework"]


def test_nccl_check_refuses_an_unknown_instance_type_by_name_and_accepts_the_resolved_nulls():
    unknown = nccl_check.nccl_check_input_problems({**NCCL_CHECK, "scc_instance_type": "ecs.gn6i-c4g1.xlarge"})
    assert len(unknown) == 1 and unknown[0].startswith("scc_instance_type='ecs.gn6i-c4g1.xlarge'")
    nulls = dict.fromkeys(
        ("nccl_check_gpus", "nccl_check_nvlink_links", "nccl_check_nvlink_gbs_per_link", "nccl_check_link_rate_gbps")
    )
    assert nccl_check.nccl_check_input_problems({**NCCL_CHECK, **nulls, "scc_instance_type": ""}) == []


def test_a_refused_protocol_skips_the_mount_checks():
    # cpfs-posix has no source form: only the refusal, not a path or source problem besides it.
    settings = {**CPFS, "refused_protocols": {"cpfs-posix": "no source ..."}, "cpfs_mount_protocol": "cpfs-posix"}
    assert cpfs.cpfs_mount_input_problems(settings) == ["cpfs_mount_protocol cpfs-posix is refused: no source ..."]


@pytest.mark.parametrize(
    "value, kind, expected",
    [("8", int, 8), ("0.5", float, 0.5), ("2.0", int, 2), (None, int, None), (True, int, None), ("eight", int, None)],
)
def test_number_reads_as_jinja_does_and_refuses_the_rest(value, kind, expected):
    assert input_checks.number(value, kind) == expected


def test_the_route_refuses_what_is_not_the_roles_variables():
    """The lookup role_input_problems hands the rules a mapping whose missing variable is an error naming the role
    and the variable (never a bare KeyError), and refuses a role without rules by name."""
    from ansible.errors import AnsibleLookupError

    from ansible_collections.scc.training.plugins.lookup.role_input_problems import _Settings
    from ansible_collections.scc.training.plugins.module_utils import role_problems

    with pytest.raises(AnsibleLookupError, match="role cpfs_mount: its rules read cpfs_mount_"):
        role_problems.problems("cpfs_mount", _Settings("cpfs_mount", {}))
    with pytest.raises(ValueError, match="no input rules for role 'cluster_report'"):
        role_problems.problems("cluster_report", {})
